"""Lessons on the server: a job kind of the engine, its HTTP endpoints and its MCP tool.

Importing this module adds the `lesson` runner to the engine's `RUNNERS`; `manimgen serve` passes
`lesson_router(engine)` to the app and `manimgen mcp` calls `add_lesson_tool`. A lesson job's folder is
the lesson's folder (lesson/make.py), so its files are served from there. Over the network only the
registered voices are accepted, never a speech endpoint's URL: a request must not make the server call
an address of the requester's choosing (the operator names an endpoint on the command line).
"""

from __future__ import annotations

import json
import re
import shutil
from importlib import resources
from typing import Any, Literal

from fastapi import APIRouter, HTTPException
from fastapi.responses import FileResponse
from mcp.server.mcpserver import Context
from pydantic import BaseModel, ConfigDict, Field, ValidationError

from manimgen.lesson.make import LESSON_VIDEO, MANIFEST, LessonOptions, SceneOutcome, make_lesson
from manimgen.lesson.storyboard import MAX_SCENES, MIN_SCENES, STORYBOARD_FILE, Storyboard, StoryboardError, load_storyboard, write_storyboard
from manimgen.lesson.voice import DEFAULT_VOICE, VOICES, Silent, VoiceError, open_voice
from manimgen.render.result import DEFAULT_QUALITY
from manimgen.serve.engine import RUNNERS, JobCancelled, JobEngine, JobError
from manimgen.serve.jobs import DONE, Job, new_id
from manimgen.serve.mcp_server import finished
from manimgen.serve.produce import MAX_SENTENCE

LESSON_FILES = {"lesson.srt": "application/x-subrip", "lesson.vtt": "text/vtt", "chapters.vtt": "text/vtt", STORYBOARD_FILE: "application/json", MANIFEST: "application/json"}
FileName = Literal["lesson.srt", "lesson.vtt", "chapters.vtt", "storyboard.json", "lesson.json"]


class LessonRequest(BaseModel):
    """What a lesson job is asked: a topic (or an edited storyboard), how many scenes, who speaks, which model."""

    model_config = ConfigDict(extra="forbid")

    topic: str = Field("", max_length=MAX_SENTENCE)
    scenes: int = Field(3, ge=MIN_SCENES, le=MAX_SCENES)
    voice: str = DEFAULT_VOICE
    language: str = Field("en", pattern=r"^[a-z]{2,3}(-[a-z0-9]{1,8})*$")
    storyboard: Storyboard | None = None
    model: str | None = None
    burn_subtitles: bool = False


def submit_lesson(engine: JobEngine, request: LessonRequest) -> Job:
    """Queue a lesson; bad input is refused with a JobError naming the fix."""
    topic = request.storyboard.topic.strip() if request.storyboard is not None else request.topic.strip()
    if not topic:
        raise JobError('the topic is empty: say what the lesson explains, e.g. "Explain why the area of a circle is pi r squared"')
    if request.voice not in VOICES:
        raise JobError(f"unknown voice {request.voice!r}; choose one of: {', '.join(VOICES)}")
    model = engine.allowed((request.model or engine.default_model).strip())
    params = {
        "scenes": len(request.storyboard.scenes) if request.storyboard is not None else request.scenes,
        "voice": request.voice,
        "language": request.language,
        "burn": request.burn_subtitles,
        "storyboard": json.loads(request.storyboard.to_json()) if request.storyboard is not None else None,
    }
    return engine.queue(Job(new_id(), "lesson", topic[:MAX_SENTENCE], model, engine.default_strategy, DEFAULT_QUALITY, "mp4", params=json.dumps(params)))


def run_lesson(engine: JobEngine, job: Job) -> None:
    """Write (or take) the storyboard, make every scene, assemble the lesson; an event per step, cancellable between scenes."""
    params = json.loads(job.params or "{}")
    try:
        voice = open_voice(params["voice"], params["language"])
    except VoiceError as error:
        engine.store.emit(job.id, "note", {"note": f"{error}; the lesson will be silent, with subtitles"})
        voice = Silent()
    kept = _carry_over(engine, job)
    with engine.model(job.model) as llm:
        if params.get("storyboard"):
            board = Storyboard.model_validate(params["storyboard"]).checked()
        elif kept is not None:
            board = kept
        else:
            engine.store.emit(job.id, "stage", {"stage": "writing the storyboard", "rounds": 0})
            board = write_storyboard(llm, job.sentence, params["scenes"], language=params["language"])
        engine.store.emit(job.id, "storyboard", {"note": f"storyboard of {len(board.scenes)} scenes", "storyboard": json.loads(board.to_json())})
        engine.store.emit(job.id, "stage", {"stage": f"making scene 1 of {len(board.scenes)}", "rounds": 0})

        def on_scene(outcome: SceneOutcome) -> None:
            done = "title card only" if outcome.fallback else "made" if outcome.made else "kept from the earlier job"
            engine.store.emit(job.id, "scene", {"note": f"scene {outcome.number} of {len(board.scenes)}: {done}", "number": outcome.number, "title": outcome.title, "fallback": outcome.fallback, "error": outcome.error})
            engine.store.update(job.id, rounds=outcome.number)
            if engine.cancelling(job.id):
                raise JobCancelled
            if outcome.number < len(board.scenes):
                engine.store.emit(job.id, "stage", {"stage": f"making scene {outcome.number + 1} of {len(board.scenes)}", "rounds": outcome.number})

        options = LessonOptions(strategy=job.strategy, quality=job.quality, burn=bool(params.get("burn")))
        make_lesson(llm, board, engine.job_dir(job.id), renderer=engine.renderer, voice=voice, options=options, on_scene=on_scene)
    engine.end(job.id, DONE, video=LESSON_VIDEO)


SCENE_FOLDER = re.compile(r"scene-\d{2}")


def _carry_over(engine: JobEngine, job: Job) -> Storyboard | None:
    """A retried lesson starts from what its earlier job made: its scene folders (kept where unchanged) and its storyboard."""
    if job.retry_of is None:
        return None
    earlier, here = engine.job_dir(job.retry_of), engine.job_dir(job.id)
    scenes = [path for path in sorted(earlier.glob("scene-*")) if SCENE_FOLDER.fullmatch(path.name) and path.is_dir() and not path.is_symlink()]
    for path in scenes:
        shutil.copytree(path, here / path.name, symlinks=True, dirs_exist_ok=True)
    try:
        board = load_storyboard(earlier / STORYBOARD_FILE) if (earlier / STORYBOARD_FILE).is_file() else None
    except StoryboardError:
        board = None
    if scenes or board is not None:
        engine.store.emit(job.id, "note", {"note": f"retrying job {job.retry_of}: its storyboard and {len(scenes)} scene folders are kept where unchanged"})
    return board


RUNNERS.add("lesson", run_lesson, "a topic to a narrated lesson of several scenes")


class PlanRequest(BaseModel):
    """A storyboard to see and edit before a lesson is made."""

    model_config = ConfigDict(extra="forbid")

    topic: str = Field(max_length=MAX_SENTENCE)
    scenes: int = Field(3, ge=MIN_SCENES, le=MAX_SCENES)
    language: str = Field("en", pattern=r"^[a-z]{2,3}(-[a-z0-9]{1,8})*$")
    model: str | None = None


def lesson_router(engine: JobEngine) -> APIRouter:
    """The lesson page (/lesson), POST /api/lessons, a storyboard to edit first, and the lesson's files beside its video
    (GET /api/jobs/{id}/video)."""
    router = APIRouter()
    static = resources.files("manimgen.lesson") / "static"

    @router.get("/lesson", include_in_schema=False)
    def page() -> FileResponse:
        return FileResponse(str(static / "lesson.html"), media_type="text/html")

    @router.get("/lesson.js", include_in_schema=False)
    def script() -> FileResponse:
        return FileResponse(str(static / "lesson.js"), media_type="text/javascript")

    @router.get("/api/lessons/options")
    def options() -> dict[str, Any]:
        return {"voices": VOICES.summaries(), "default_voice": DEFAULT_VOICE, "scenes": list(range(MIN_SCENES, MAX_SCENES + 1)), "default_scenes": 3}

    @router.post("/api/lessons/storyboard")
    def plan(body: PlanRequest) -> dict[str, Any]:
        """The model's storyboard for the topic, with each scene's checklist: edit it, then send it as `storyboard`."""
        if not body.topic.strip():
            raise HTTPException(422, 'the topic is empty: say what the lesson explains, e.g. "Explain how to add two fractions"')
        try:
            model = engine.allowed((body.model or engine.default_model).strip())
            with engine.model(model) as llm:
                board = write_storyboard(llm, body.topic, body.scenes, language=body.language)
        except (JobError, StoryboardError) as error:
            raise HTTPException(422, str(error)) from None
        return json.loads(board.to_json())

    @router.post("/api/lessons", status_code=201)
    def create_lesson(body: LessonRequest) -> dict[str, Any]:
        try:
            return submit_lesson(engine, body).to_dict()
        except JobError as error:
            raise HTTPException(422, str(error)) from None

    @router.get("/api/jobs/{job_id}/lesson/{name}")
    def lesson_file(job_id: str, name: FileName) -> FileResponse:
        job = engine.job(job_id)
        if job is None or job.kind != "lesson":
            raise HTTPException(404, f"no lesson job {job_id}")
        path = engine.job_dir(job_id) / name
        if not path.is_file():
            raise HTTPException(404, f"lesson {job_id} has no {name} yet ({job.status})")
        return FileResponse(path, media_type=LESSON_FILES[name], filename=name)

    return router


def add_lesson_tool(server: Any, engine: JobEngine) -> None:
    """The MCP tool `generate_lesson` on `server` (serve/mcp_server.py's)."""

    @server.tool()
    async def generate_lesson(topic: str, scenes: int = 3, voice: str = DEFAULT_VOICE, language: str = "en", model: str | None = None, ctx: Context | None = None) -> dict[str, Any]:
        """Make a narrated lesson of 2 to 8 scenes about the topic: returns the MP4 (voice as AAC), its SRT and WebVTT subtitles and the storyboard."""
        try:
            request = LessonRequest(topic=topic, scenes=scenes, voice=voice, language=language, model=model)
        except ValidationError as error:
            problem = error.errors()[0]
            return {"status": "refused", "error": f"{'.'.join(str(part) for part in problem['loc'])}: {problem['msg']}"}
        result = await finished(engine, lambda: submit_lesson(engine, request), ctx)
        folder = engine.job_dir(result["job_id"]) if "job_id" in result else None
        if folder is not None:
            result.update({name.replace(".", "_") + "_path": str((folder / name).resolve()) for name in ("lesson.srt", "lesson.vtt", STORYBOARD_FILE) if (folder / name).is_file()})
        return result
