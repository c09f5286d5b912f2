"""The HTTP API and the page, on one FastAPI app over a JobEngine.

    POST /api/jobs                  {sentence, model?, strategy?, checklist?, quality?, aspect?, resolution?, format?} -> 201 the job
    GET  /api/checklist?sentence=…  what the sentence will be checked against (edit it, send it as `checklist`)
    POST /api/render                {code, sentence?, quality?, aspect?, resolution?, format?} -> 201 a job rendering that code
    GET  /api/jobs                  recent jobs, newest first
    GET  /api/jobs/{id}             the job
    GET  /api/jobs/{id}/events      Server-Sent Events: status changes, stages and rounds, from Last-Event-ID
    GET  /api/jobs/{id}/video       the video in the asked format (MP4, WebM, GIF or PNG; a PNG for a still scene)
    GET  /api/jobs/{id}/poster      a PNG of the video's last frame
    GET  /api/jobs/{id}/code        the scene's .py
    GET  /api/jobs/{id}/trace       every round as JSON
    POST /api/jobs/{id}/cancel      stop it (queued: at once; running: when its current round ends)
    POST /api/jobs/{id}/retry       a new job with the same inputs
    GET  /api/options               the allowed models, strategies, qualities, aspects and formats to choose from
    GET  /                          the page; /docs the OpenAPI documentation

With a token, every /api request must carry it (`Authorization: Bearer TOKEN`, the scheme in any
case); the page asks for it once. Request bodies are capped at `MAX_BODY` bytes, counted as they
arrive (a chunked body declares no length). No error answer echoes the request body.
"""

from __future__ import annotations

import asyncio
import hmac
import json
from collections.abc import AsyncIterator, Callable, Sequence
from importlib import resources
from pathlib import Path
from typing import Any

from fastapi import APIRouter, FastAPI, HTTPException, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import FileResponse, JSONResponse, Response, StreamingResponse
from fastapi.staticfiles import StaticFiles
from pydantic import BaseModel, Field
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from manimgen.agent import STRATEGIES, strategy_words
from manimgen.checks import Checklist, checklist_for
from manimgen.render.formats import DEFAULT_FORMAT, FORMATS, media_type
from manimgen.render.result import ASPECTS, DEFAULT_QUALITY, QUALITIES
from manimgen.serve.engine import MAX_CODE, JobEngine, JobError
from manimgen.serve.jobs import Job
from manimgen.serve.produce import MAX_SENTENCE

MAX_BODY = MAX_CODE + 16 * 1024
MAX_NAME = 1000
EVENT_POLL_S = 0.3


class OutputRequest(BaseModel):
    """The file a job delivers: its quality, frame and format."""

    quality: str = Field(DEFAULT_QUALITY, max_length=MAX_NAME, description="the final render's quality; the search renders at low")
    aspect: str | None = Field(None, max_length=MAX_NAME, description=f"the frame's shape, one of {', '.join(ASPECTS)} (default 16:9)")
    resolution: str | None = Field(None, max_length=MAX_NAME, description="exact pixels WIDTHxHEIGHT, e.g. 1080x1920 (sets the aspect)")
    format: str = Field(DEFAULT_FORMAT, max_length=MAX_NAME, description=f"the file, one of {', '.join(FORMATS)}")

    def options(self) -> dict[str, Any]:
        """The output options as the engine takes them, checked there."""
        return {"quality": self.quality, "video_format": self.format, "aspect": self.aspect, "resolution": self.resolution}


class JobRequest(OutputRequest):
    sentence: str = Field(max_length=MAX_SENTENCE, description="what the animation should show")
    model: str | None = Field(None, max_length=MAX_NAME, description="one of the allowed models in GET /api/options (default: the server's)")
    strategy: str | None = Field(None, max_length=MAX_NAME, description="an agent strategy (default: the server's)")
    checklist: Checklist | None = Field(None, description="an edit of GET /api/checklist's answer: what the scene is checked against")


class RenderRequest(OutputRequest):
    code: str = Field(max_length=MAX_CODE, description="a Manim scene file")
    sentence: str = Field("", max_length=MAX_SENTENCE, description="what the scene is meant to show (kept with the job)")


class BodyTooLarge(HTTPException):
    """Raised from `receive` once a body passes the cap; FastAPI answers it like any HTTPException."""

    def __init__(self, limit: int) -> None:
        super().__init__(413, f"the request body is over {limit} bytes")


class Guard:
    """ASGI middleware in front of the app: the token on /api requests, and the body cap, by the
    declared Content-Length at once, else by counting bytes as they arrive (a chunked body declares
    none). Plain ASGI, so a refusal raised from `receive` reaches FastAPI as itself."""

    def __init__(self, app: ASGIApp, token: str | None, limit: int) -> None:
        self.app = app
        self.token = token
        self.limit = limit

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        request = Request(scope)
        declared = request.headers.get("content-length")
        if declared is not None and (not declared.isdigit() or int(declared) > self.limit):
            await _too_large(self.limit)(scope, receive, send)
            return
        if self.token and request.url.path.startswith("/api/") and not _authorised(request, self.token):
            detail = "this server needs its token: send the header Authorization: Bearer TOKEN"
            await JSONResponse({"detail": detail}, status_code=401)(scope, receive, send)
            return
        size = 0
        started = False

        async def counting() -> Message:
            nonlocal size
            message = await receive()
            size += len(message.get("body", b""))
            if size > self.limit:
                raise BodyTooLarge(self.limit)
            return message

        async def sending(message: Message) -> None:
            nonlocal started
            started = started or message["type"] == "http.response.start"
            await send(message)

        try:
            await self.app(scope, counting, sending)
        except BodyTooLarge:
            if started:
                raise
            await _too_large(self.limit)(scope, receive, send)


def create_app(engine: JobEngine, *, token: str | None = None, routers: Sequence[APIRouter] = ()) -> FastAPI:
    """The app; `token`, when given, is required on every /api request. An endpoint is one function here;
    `routers` add endpoints from outside the package (under /api/, they are behind the same token and body cap)."""
    app = FastAPI(title="manimgen", description="A sentence to a Manim video: jobs, their rounds, their videos.", version="1")

    app.add_middleware(Guard, token=token, limit=MAX_BODY)

    @app.exception_handler(RequestValidationError)
    async def invalid(request: Request, error: RequestValidationError) -> JSONResponse:
        """Where the input is wrong and how, never the input itself (FastAPI's default echoes it)."""
        problems = [{"loc": list(problem.get("loc", ())), "msg": problem.get("msg", "")} for problem in error.errors()]
        return JSONResponse({"detail": problems}, status_code=422)

    @app.post("/api/jobs", status_code=201)
    def create_job(body: JobRequest) -> dict[str, Any]:
        return _refusing(lambda: engine.submit(body.sentence, body.model, body.strategy, checklist=body.checklist, **body.options())).to_dict()

    @app.get("/api/checklist")
    def sentence_checklist(sentence: str) -> dict[str, Any]:
        """What a job for `sentence` will be checked against, to show or edit before submitting it."""
        if not sentence.strip() or len(sentence) > MAX_SENTENCE:
            raise HTTPException(422, f"give a sentence of 1 to {MAX_SENTENCE} characters")
        return checklist_for(sentence.strip()).model_dump(mode="json")

    @app.post("/api/render", status_code=201)
    def create_render(body: RenderRequest) -> dict[str, Any]:
        return _refusing(lambda: engine.submit_render(body.code, sentence=body.sentence, **body.options())).to_dict()

    @app.get("/api/jobs")
    def list_jobs(limit: int = 50) -> list[dict[str, Any]]:
        return [job.to_dict() for job in engine.store.recent(max(1, min(limit, 500)))]

    @app.get("/api/jobs/{job_id}")
    def get_job(job_id: str) -> dict[str, Any]:
        """The job, with how many jobs are before it in the queue and how long one of its kind usually takes."""
        job = _found(engine, job_id)
        return {**job.to_dict(), "ahead": engine.store.ahead(job), "typical_s": engine.store.typical_seconds(job.kind)}

    @app.post("/api/jobs/{job_id}/cancel")
    def cancel_job(job_id: str) -> dict[str, Any]:
        _found(engine, job_id)
        return engine.cancel(job_id).to_dict()

    @app.post("/api/jobs/{job_id}/retry", status_code=201)
    def retry_job(job_id: str) -> dict[str, Any]:
        _found(engine, job_id)
        return _refusing(lambda: engine.retry(job_id)).to_dict()

    @app.get("/api/jobs/{job_id}/events")
    async def job_events(job_id: str, request: Request) -> StreamingResponse:
        _found(engine, job_id)
        start = request.headers.get("last-event-id", "0")
        after = int(start) if start.isdigit() else 0
        return StreamingResponse(_stream(engine, job_id, after, request), media_type="text/event-stream", headers={"Cache-Control": "no-cache"})

    @app.get("/api/jobs/{job_id}/video")
    def job_video(job_id: str) -> FileResponse:
        job = _found(engine, job_id)
        if not job.video:
            raise HTTPException(404, f"job {job_id} has no video ({job.status}{': ' + job.error if job.error else ''})")
        path = engine.job_dir(job_id) / job.video
        return FileResponse(path, media_type=media_type(path), filename=f"{job_id}{path.suffix}")

    @app.get("/api/jobs/{job_id}/poster")
    def job_poster(job_id: str) -> FileResponse:
        job = _found(engine, job_id)
        if not job.video:
            raise HTTPException(404, f"job {job_id} has no video yet")
        return FileResponse(_poster(engine.job_dir(job_id), job.video), media_type="image/png")

    @app.get("/api/jobs/{job_id}/code")
    def job_code(job_id: str) -> FileResponse:
        job = _found(engine, job_id)
        if not job.scene:
            raise HTTPException(404, f"job {job_id} has no scene code ({job.status})")
        return FileResponse(engine.job_dir(job_id) / job.scene, media_type="text/x-python", filename=f"{job_id}.py")

    @app.get("/api/jobs/{job_id}/trace")
    def job_trace(job_id: str) -> Response:
        _found(engine, job_id)
        path = engine.job_dir(job_id) / "scene.trace.json"
        if not path.is_file():
            raise HTTPException(404, f"job {job_id} has no trace (a render job, or not finished)")
        return Response(path.read_text(encoding="utf-8"), media_type="application/json")

    @app.get("/api/options")
    def options() -> dict[str, Any]:
        return {
            "models": engine.allowed_models,
            "default_model": engine.default_model,
            "strategies": STRATEGIES.summaries(),
            "strategy_words": strategy_words(),
            "default_strategy": engine.default_strategy,
            "qualities": list(QUALITIES),
            "aspects": ASPECTS,
            "formats": {name: format_.help for name, format_ in FORMATS.items()},
            "token_required": bool(token),
        }

    for router in routers:
        app.include_router(router)
    static = resources.files("manimgen.serve") / "static"
    app.mount("/", StaticFiles(directory=str(static), html=True), name="page")
    return app


def _authorised(request: Request, token: str) -> bool:
    """The header's Bearer token (the scheme is case-insensitive, as HTTP's are), else `?token=`."""
    scheme, _, value = request.headers.get("authorization", "").strip().partition(" ")
    given = value.strip() if scheme.lower() == "bearer" else ""
    return hmac.compare_digest((given or request.query_params.get("token", "")).encode(), token.encode())


def _too_large(limit: int) -> JSONResponse:
    return JSONResponse({"detail": f"the request body is over {limit} bytes"}, status_code=413)


def _found(engine: JobEngine, job_id: str) -> Job:
    job = engine.job(job_id)
    if job is None:
        raise HTTPException(404, f"no job {job_id!r}; list jobs with GET /api/jobs")
    return job


def _refusing(make: Callable[[], Job]) -> Job:
    try:
        return make()
    except JobError as error:
        raise HTTPException(422, str(error)) from None


async def _stream(engine: JobEngine, job_id: str, after: int, request: Request) -> AsyncIterator[str]:
    """Events as they are stored; ends once the job has finished and every event was sent."""
    while not await request.is_disconnected():
        job = engine.job(job_id)
        for event in engine.store.events(job_id, after):
            after = event.seq
            yield f"id: {event.seq}\nevent: {event.kind}\ndata: {json.dumps(event.payload, ensure_ascii=False)}\n\n"
        if job is None or job.finished:
            if not engine.store.events(job_id, after):
                yield "event: end\ndata: {}\n\n"
                return
        await asyncio.sleep(EVENT_POLL_S)


def _poster(folder: Path, video: str) -> Path:
    """The last frame as a PNG, made once per job."""
    poster = folder / "poster.png"
    if not poster.is_file():
        from PIL import Image

        from manimgen.render.frames import frames_at

        source = folder / video
        frame = frames_at(source, [1e9])[0] if source.suffix != ".png" else None
        image = Image.fromarray(frame) if frame is not None else Image.open(source)
        image.thumbnail((480, 270))
        image.save(poster)
    return poster
