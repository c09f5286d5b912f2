"""A storyboard to a narrated lesson in a folder, scene by scene, resumable after any stop.

Each scene lives in its own folder (`scene-01/`): the scene as it was asked (`scene.json`), its code,
video and trace from `produce` (the same generation and checks as `generate`), the times its steps
end (`steps.json`) and its spoken lines (`line-1.wav`, … with `lines.json`). A rerun keeps every scene
whose folder matches the storyboard and redoes the others (an edited scene, one named by `redo`);
lines are spoken again only when their words changed. A scene that renders nothing becomes a title
card, so its narration is still heard. Then the lesson is assembled: `lesson.mp4` (voice as AAC,
scenes paced to their lines, a chapter per scene), `lesson.srt`, `lesson.vtt`, `chapters.vtt`, `lesson.json`.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from manimgen.agent.checked_search import DEFAULT_STRATEGY
from manimgen.checks.timeline import Timeline
from manimgen.lesson.assemble import PacedScene, assemble, read_clip
from manimgen.lesson.chapters import add_chapters
from manimgen.lesson.storyboard import STORYBOARD_FILE, Scene, Storyboard
from manimgen.lesson.subtitles import to_srt, to_vtt
from manimgen.lesson.timing import Cue, pace
from manimgen.lesson.voice import RATE, SILENT_SCENE_S, Voice, read_audio, reading_seconds, spoken
from manimgen.llm.base import LLM
from manimgen.render import Renderer, RenderJob, RenderResult
from manimgen.render.formats import deliver
from manimgen.render.result import DEFAULT_QUALITY
from manimgen.serve.produce import Request, produce

LESSON_VIDEO, MANIFEST = "lesson.mp4", "lesson.json"


class LessonError(RuntimeError):
    """A lesson that cannot be finished; the message names the fix."""


@dataclass(frozen=True)
class LessonOptions:
    """How each scene is made: the strategy and its budget, the render quality, burnt-in subtitles."""

    strategy: str = DEFAULT_STRATEGY
    quality: str = DEFAULT_QUALITY
    rounds: int = 3
    seed: int = 0
    burn: bool = False


@dataclass(frozen=True)
class SceneOutcome:
    """What became of one scene: made now or kept from an earlier run, and whether it is a title card."""

    number: int
    title: str
    made: bool
    fallback: bool
    error: str | None


@dataclass(frozen=True)
class Lesson:
    folder: Path
    video: Path
    seconds: float
    scenes: list[SceneOutcome]
    cues: list[Cue]


def scene_folder(folder: Path, number: int) -> Path:
    return folder / f"scene-{number:02d}"


def make_lesson(
    llm: LLM,
    storyboard: Storyboard,
    folder: Path,
    *,
    renderer: Renderer,
    voice: Voice,
    options: LessonOptions = LessonOptions(),
    redo: frozenset[int] = frozenset(),
    on_scene: Callable[[SceneOutcome], None] | None = None,
) -> Lesson:
    """Make (or keep) every scene, speak its lines, pace and assemble the lesson into `folder`."""
    folder.mkdir(parents=True, exist_ok=True)
    (folder / STORYBOARD_FILE).write_text(storyboard.to_json(), encoding="utf-8")
    outcomes, paced = [], []
    for number, scene in enumerate(storyboard.scenes, 1):
        here = scene_folder(folder, number)
        outcome = _scene(llm, scene, number, here, renderer, options, redo=number in redo)
        lines = _lines(scene, here, voice)
        steps = json.loads((here / "steps.json").read_text(encoding="utf-8"))
        clip = read_clip(here / "scene.mp4")
        runs, cues = pace(steps, clip.seconds, [(text, seconds) for text, seconds, _ in lines])
        paced.append(PacedScene(scene.title, clip, runs, cues, [audio for _, _, audio in lines]))
        outcomes.append(outcome)
        if on_scene is not None:
            on_scene(outcome)
    target = folder / LESSON_VIDEO
    assembled = assemble(paced, target, burn=options.burn)
    add_chapters(target, [(chapter.start, chapter.text) for chapter in assembled.chapters])
    (folder / "lesson.srt").write_text(to_srt(assembled.cues), encoding="utf-8")
    (folder / "lesson.vtt").write_text(to_vtt(assembled.cues), encoding="utf-8")
    (folder / "chapters.vtt").write_text(to_vtt(assembled.chapters), encoding="utf-8")
    manifest = {
        "title": storyboard.title,
        "video": LESSON_VIDEO,
        "seconds": round(assembled.seconds, 3),
        "voice": voice.name,
        "chapters": [{"title": chapter.text, "start": round(chapter.start, 3), "end": round(chapter.end, 3)} for chapter in assembled.chapters],
        "scenes": [{"title": item.title, "folder": scene_folder(folder, item.number).name, "fallback": item.fallback, "error": item.error} for item in outcomes],
        "cues": [{"start": round(cue.start, 3), "end": round(cue.end, 3), "text": cue.text} for cue in assembled.cues],
    }
    (folder / MANIFEST).write_text(json.dumps(manifest, indent=2, ensure_ascii=False), encoding="utf-8")
    return Lesson(folder, target, assembled.seconds, outcomes, assembled.cues)


def _scene(llm: LLM, scene: Scene, number: int, here: Path, renderer: Renderer, options: LessonOptions, *, redo: bool) -> SceneOutcome:
    """The scene's video and step times: kept when its folder was made from the same scene, made otherwise."""
    asked = scene.model_dump_json(exclude={"narration"})
    record = here / "scene.json"
    done = record.is_file() and (here / "scene.mp4").is_file() and (here / "steps.json").is_file()
    if done and not redo and record.read_text(encoding="utf-8") == asked:
        fallback = json.loads((here / "steps.json").read_text(encoding="utf-8")) == [] and (here / "title-card").is_file()
        return SceneOutcome(number, scene.title, made=False, fallback=fallback, error=None)
    here.mkdir(parents=True, exist_ok=True)
    for stale in (record, here / "title-card"):
        stale.unlink(missing_ok=True)
    request = Request(scene.shows, options.strategy, options.quality, "mp4", options.rounds, seed=options.seed, checklist=scene.checklist)
    product = produce(llm, request, here / "scene", renderer=renderer)
    error, fallback = product.error, False
    result = product.render
    if not product.ok or result is None:
        result = _title_card(scene.title, options.quality, here, renderer)
        fallback = True
    steps = [snapshot.time for snapshot in Timeline.from_geometry(result.geometry)] if not fallback else []
    (here / "steps.json").write_text(json.dumps(steps), encoding="utf-8")
    record.write_text(asked, encoding="utf-8")
    return SceneOutcome(number, scene.title, made=True, fallback=fallback, error=error)


def _title_card(title: str, quality: str, here: Path, renderer: Renderer) -> RenderResult:
    """The scene's title written on screen: the stand-in for a scene that did not render."""
    code = f"from manim import *\n\n\nclass TitleCard(Scene):\n    def construct(self):\n        self.play(Write(Text({title!r}).scale_to_fit_width(min(10, 0.5 * len({title!r})))))\n        self.wait(1)\n"
    result = renderer.render(RenderJob(code, quality=quality))
    if not result.ok or result.output is None:
        raise LessonError(f"scene '{title}' did not render, nor did its title card ({result.status.value}); run `manimgen doctor`")
    deliver(result.output, here / "scene", "mp4")
    (here / "title-card").write_text(code, encoding="utf-8")
    return result


def _lines(scene: Scene, here: Path, voice: Voice) -> list[tuple[str, float, np.ndarray | None]]:
    """Each narration line with its spoken seconds and samples (None for a silent voice), spoken once and kept."""
    record = here / "lines.json"
    kept = json.loads(record.read_text(encoding="utf-8")) if record.is_file() else {}
    fresh = kept.get("voice") == voice.name and kept.get("lines") == scene.narration
    said = []
    for index, text in enumerate(scene.narration, 1):
        path = here / f"line-{index}.wav"
        if voice.silent:
            said.append((text, reading_seconds(text), None))
            continue
        if not (fresh and path.is_file()):
            voice.speak(spoken(text), path)
        samples = read_audio(path)
        said.append((text, len(samples) / RATE, samples))
    record.write_text(json.dumps({"voice": voice.name, "lines": scene.narration}), encoding="utf-8")
    if voice.silent:
        total = sum(seconds for _, seconds, _ in said)
        scale = min(1.0, SILENT_SCENE_S / total)
        said = [(text, seconds * scale, None) for text, seconds, _ in said]
    return said
