"""The job engine behind `manimgen serve` and `manimgen mcp`: a queue of jobs run by a bounded number
of worker threads, persisted in the job store, cancellable, each round streamed as an event.

A caller picks among the models the operator allowed (the embedded ones, the default and those given
at start-up), never a spec of its own: a spec says how code is loaded (`py:MODULE:FUNCTION` imports
and runs it, `openai:URL` sends the API key to URL). One model object per spec (loaded on first use,
shared by the workers: the llama.cpp provider serialises calls to one model), at most `max_models`
loaded at once; one warm sandboxed render pool for every job. One engine owns a root: it holds a lock
on it for its lifetime. A job's files live in `<root>/jobs/<id>/`: `scene.py`, `scene.mp4` (or `.png`
for a still scene) and `scene.trace.json`. Cancelling a running job takes effect when its current
model call or render ends (a round is the unit of work); a `stage` event says which one is under way.
"""

from __future__ import annotations

import fcntl
import os
import re
import threading
from collections import Counter
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import TextIO, TypeVar

from manimgen.agent import Round
from manimgen.agent.checked_search import DEFAULT_STRATEGY
from manimgen.agent.strategies import DEFAULT_SAMPLING
from manimgen.checks import Checklist, checklist_for
from manimgen.checks.layout import LAYOUT_HEADER, layout_findings
from manimgen.llm import DEFAULT_MODEL, MODELS, LLMError, load_model, parse_spec
from manimgen.llm.base import LLM, ChatResult, Message, Sampling, accepts_images
from manimgen.render import Renderer, RendererOptions, RenderJob, open_renderer
from manimgen.render.formats import DEFAULT_FORMAT, FORMATS, DeliveryError, deliver, output_spec
from manimgen.render.result import DEFAULT_QUALITY, RenderResult, get_quality
from manimgen.serve.jobs import CANCELLED, DONE, FAILED, INTERRUPTED, INTERRUPTED_MESSAGE, RUNNING, Job, JobStore, new_id
from manimgen.registry import Registry
from manimgen.serve.produce import MAX_SENTENCE, Request, failure, last_line, produce

MAX_CODE = 64 * 1024
MAX_MODELS = 2
LOCK_NAME = "engine.lock"
ERROR_LINE = re.compile(r"^\s*[\w.]*(Error|Exception|Interrupt|Exit)\b.*")
WRITING, RENDERING = "writing the scene", "rendering"
T = TypeVar("T")


class JobError(ValueError):
    """A request the engine refuses; the message says what to change."""


class JobCancelled(Exception):
    """Raised between rounds of a job whose cancellation was asked."""


class JobEngine:
    """Queue, run, cancel and retry jobs; `start()` begins the workers, `close()` stops them."""

    def __init__(
        self,
        root: Path,
        *,
        workers: int = 1,
        render_workers: int | None = None,
        llm_factory: Callable[[str], LLM] = load_model,
        default_model: str = DEFAULT_MODEL,
        default_strategy: str = DEFAULT_STRATEGY,
        max_tokens: int = DEFAULT_SAMPLING.max_tokens,
        allowed_models: Iterable[str] = (),
        max_models: int = MAX_MODELS,
    ) -> None:
        if workers < 1:
            raise JobError(f"workers must be at least 1, got {workers}")
        if max_models < 1:
            raise JobError(f"max_models must be at least 1, got {max_models}")
        self.default_model = default_model.strip()
        self.allowed_models = allowed(self.default_model, allowed_models)
        self.default_strategy = default_strategy
        self.max_tokens = max_tokens
        self.root = root
        self._lock = lock_root(root)
        try:
            self.store = JobStore(root)
            self.interrupted = self.store.mark_interrupted()
            self._renderer = open_renderer(options=RendererOptions(workers=render_workers))
        except BaseException:
            self._lock.close()
            raise
        self._llm_factory = llm_factory
        self._max_models = max_models
        self._models: dict[str, LLM] = {}
        self._in_use: Counter[str] = Counter()
        self._models_lock = threading.Lock()
        self._running: set[str] = set()
        self._cancelled: set[str] = set()
        self._wake = threading.Condition()
        self._stopping = False
        self._threads = [threading.Thread(target=self._work, name=f"job-worker-{n}", daemon=True) for n in range(workers)]

    def start(self) -> JobEngine:
        for thread in self._threads:
            thread.start()
        return self

    def close(self) -> None:
        """Stop the workers and release the root. A job asked to stop is cancelled at once; one still
        running after the workers' grace is marked interrupted, so no job is left running."""
        with self._wake:
            self._stopping = True
            self._wake.notify_all()
        for job_id in list(self._running & self._cancelled):
            self.end(job_id, CANCELLED, error="cancelled while running")
        for thread in self._threads:
            if thread.is_alive():
                thread.join(timeout=5)
        for job_id in list(self._running):
            self.end(job_id, INTERRUPTED, error=INTERRUPTED_MESSAGE)
        self._renderer.close()
        with self._models_lock:
            for llm in self._models.values():
                llm.close()
            self._models.clear()
        self.store.close()
        self._lock.close()

    # requests -------------------------------------------------------------------------------------

    def submit(
        self,
        sentence: str,
        model: str | None = None,
        strategy: str | None = None,
        quality: str = DEFAULT_QUALITY,
        checklist: Checklist | None = None,
        video_format: str = DEFAULT_FORMAT,
        *,
        aspect: str | None = None,
        resolution: str | None = None,
    ) -> Job:
        """Queue a sentence (with a person's edit of its checklist, for the strategies that check one); bad input
        is refused with a JobError naming the fix. `quality` is a preset or a spec (`medium@9:16`, render/result.py)."""
        request = _checked(lambda: Request(sentence, strategy or self.default_strategy, output_spec(quality, aspect, resolution, video_format), video_format))
        model = self.allowed((model or self.default_model).strip())
        edited = checklist.model_copy(update={"sentence": request.sentence}).model_dump_json() if checklist is not None else None
        job = Job(new_id(), "generate", request.sentence, model, request.strategy, request.quality, request.video_format, checklist=edited)
        return self.queue(job)

    def submit_render(
        self, code: str, quality: str = DEFAULT_QUALITY, sentence: str = "", video_format: str = DEFAULT_FORMAT, *, aspect: str | None = None, resolution: str | None = None
    ) -> Job:
        """Queue scene code (say, an edited scene) to be rendered as it is."""
        if not code.strip():
            raise JobError("the scene code is empty; send a Manim scene (from manim import * ... class X(Scene): ...)")
        if len(code.encode()) > MAX_CODE:
            raise JobError(f"the scene code is {len(code.encode())} bytes; keep it under {MAX_CODE}")
        spec = _checked(lambda: get_quality(output_spec(quality, aspect, resolution, video_format)).name)
        return self.queue(Job(new_id(), "render", sentence.strip()[:MAX_SENTENCE], "-", "-", spec, FORMATS[video_format].name, code=code))

    def cancel(self, job_id: str) -> Job:
        job = self._job(job_id)
        if not job.finished and not self.store.cancel_if_queued(job_id):
            self._cancelled.add(job_id)
            self.store.emit(job_id, "status", {"status": "cancelling"})
        return self._job(job_id)

    def retry(self, job_id: str) -> Job:
        """A new job with the same inputs as a finished one (the old one stays as it was)."""
        job = self._job(job_id)
        if not job.finished:
            raise JobError(f"job {job_id} is {job.status}; retry a job once it has finished")
        if job.model != "-":
            self.allowed(job.model)
        fresh = Job(
            new_id(), job.kind, job.sentence, job.model, job.strategy, job.quality, job.video_format, code=job.code, retry_of=job.id, checklist=job.checklist,
            params=job.params,
        )
        return self.queue(fresh)

    def job(self, job_id: str) -> Job | None:
        return self.store.get(job_id)

    def job_dir(self, job_id: str) -> Path:
        return self.root / "jobs" / job_id

    def cancelling(self, job_id: str) -> bool:
        """Whether a running job was asked to stop; a runner checks it between steps and raises JobCancelled."""
        return job_id in self._cancelled

    @property
    def renderer(self) -> Renderer:
        return self._renderer

    def allowed(self, model: str) -> str:
        """`model` when this server allows it, else a JobError naming the ones it does."""
        if model not in self.allowed_models:
            raise JobError(
                f"model {quoted(model)} is not allowed on this server; choose one of: {', '.join(self.allowed_models)} "
                "(its operator allows more with --allow-model)"
            )
        return model

    def _job(self, job_id: str) -> Job:
        job = self.store.get(job_id)
        if job is None:
            raise KeyError(job_id)
        return job

    def queue(self, job: Job) -> Job:
        """Queue a job a runner of `RUNNERS` knows how to run (its inputs already checked)."""
        RUNNERS.pick(job.kind)
        self.store.add(job)
        self.store.emit(job.id, "status", {"status": job.status})
        with self._wake:
            self._wake.notify()
        return job

    # workers --------------------------------------------------------------------------------------

    def _work(self) -> None:
        while True:
            with self._wake:
                if self._stopping:
                    return
            job = self.store.claim()
            if job is None:
                with self._wake:
                    if not self._stopping:
                        self._wake.wait(timeout=1.0)
                continue
            self._running.add(job.id)
            try:
                self.store.emit(job.id, "status", {"status": RUNNING})
                self._run(job)
            except JobCancelled:
                self.end(job.id, CANCELLED, error="cancelled while running")
            except BaseException as error:  # whatever a job raises (SystemExit too) ends that job, never the worker
                self.end(job.id, FAILED, error=one_line(error))
            finally:
                self._running.discard(job.id)
                self._cancelled.discard(job.id)

    def _run(self, job: Job) -> None:
        RUNNERS.pick(job.kind)(self, job)

    @contextmanager
    def model(self, spec: str) -> Iterator[LLM]:
        """The loaded model for `spec`, loading it first (after closing idle ones to make room);
        while a job uses it, it is not closed."""
        with self._models_lock:
            llm = self._models.pop(spec, None)
            if llm is None:
                self._evict(keep=self._max_models - 1)
                llm = self._llm_factory(spec)
            self._models[spec] = llm
            self._in_use[spec] += 1
        try:
            yield llm
        finally:
            with self._models_lock:
                self._in_use[spec] -= 1
                self._evict(keep=self._max_models)

    def _evict(self, keep: int) -> None:
        """Close the least recently used models no job is using until at most `keep` are loaded."""
        idle = [spec for spec in self._models if not self._in_use[spec]]
        for spec in idle[: max(0, len(self._models) - keep)]:
            self._models.pop(spec).close()

    def end(self, job_id: str, status: str, **values: object) -> None:
        """Finish a job: its status, and `error`, `video` or `scene` where it has them."""
        payload = {"status": status, **{key: value for key, value in values.items() if key in ("error", "video")}}
        self.store.finish(job_id, status, values, payload)


def run_render(engine: JobEngine, job: Job) -> None:
    """Render a person's scene code as it is."""
    assert job.code is not None
    target = engine.job_dir(job.id) / "scene"
    target.parent.mkdir(parents=True, exist_ok=True)
    target.with_suffix(".py").write_text(job.code, encoding="utf-8")
    engine.store.emit(job.id, "stage", {"stage": RENDERING, "rounds": 0})
    result = engine.renderer.render(RenderJob(job.code, quality=job.quality))
    engine.store.emit(job.id, "render", {"status": result.status.value, "ok": result.ok, "error": None if result.ok else last_line(result)})
    if not result.ok:
        engine.end(job.id, FAILED, error=f"the scene did not render ({result.status.value}: {last_line(result)})", scene="scene.py")
        return
    assert result.output is not None
    try:
        engine.end(job.id, DONE, video=deliver(result.output, target, job.video_format).name, scene="scene.py")
    except DeliveryError as error:
        engine.end(job.id, FAILED, error=str(error), scene="scene.py")


def run_generate(engine: JobEngine, job: Job) -> None:
    """A sentence to a video: the strategy's rounds, each sent as an event, cancellable between rounds."""
    target = engine.job_dir(job.id) / "scene"
    edited = Checklist.model_validate_json(job.checklist) if job.checklist else None
    request = Request(job.sentence, job.strategy, job.quality, job.video_format, max_tokens=engine.max_tokens, checklist=edited)
    engine.store.emit(job.id, "checklist", {"items": [item.phrase for item in checklist_for(job.sentence, edited).requirements]})
    rounds = 0
    rendered: list[Round] = []  # the last round whose scene rendered, kept if the job is cancelled after it

    def on_stage(stage: str) -> None:
        engine.store.emit(job.id, "stage", {"stage": stage, "rounds": rounds})

    def on_round(round_: Round) -> None:
        nonlocal rounds
        rounds = round_.index + 1
        engine.store.update(job.id, rounds=rounds)
        engine.store.emit(job.id, "round", round_event(round_))
        if round_.code is not None and round_.render is not None and round_.render.ok:
            rendered[:] = [round_]
        if engine.cancelling(job.id):
            raise JobCancelled

    try:
        with engine.model(job.model) as llm:
            product = produce(StagedLLM(llm, on_stage), request, target, renderer=StagedRenderer(engine.renderer, on_stage), on_round=on_round)
    except JobCancelled:
        if not rendered:
            raise
        _keep_rendered(engine, job, rendered[0], target)
        return
    scene = product.code.name if product.code else None
    if product.ok:
        assert product.video is not None
        engine.end(job.id, DONE, video=product.video.name, scene=scene)
    else:
        engine.end(job.id, FAILED, error=product.error or failure(product.trace), scene=scene)


def _keep_rendered(engine: JobEngine, job: Job, round_: Round, target: Path) -> None:
    """End a job cancelled after a scene rendered with that scene's video and code, rather than nothing."""
    assert round_.code is not None and round_.render is not None and round_.render.output is not None
    target.parent.mkdir(parents=True, exist_ok=True)
    target.with_suffix(".py").write_text(round_.code, encoding="utf-8")
    try:
        video = deliver(round_.render.output, target, job.video_format).name
    except DeliveryError:
        video = None
    note = "cancelled while running; the last scene that rendered is kept" if video else "cancelled while running"
    engine.end(job.id, CANCELLED, error=note, video=video, scene="scene.py")


RUNNERS: Registry[Callable[[JobEngine, Job], None]] = Registry("job kind")
RUNNERS.add("generate", run_generate, "a sentence to a video with its code")
RUNNERS.add("render", run_render, "a person's scene code rendered as it is")


class StagedLLM:
    """A job's view of a shared model that tells the job's events when a call starts; closing the
    model is the engine's business, not the job's."""

    def __init__(self, llm: LLM, on_stage: Callable[[str], None]) -> None:
        self.name = llm.name
        self.accepts_images = accepts_images(llm)
        self._llm = llm
        self._on_stage = on_stage

    def chat(self, messages: list[Message], n: int = 1, sampling: Sampling | None = None) -> ChatResult:
        self._on_stage(WRITING)
        return self._llm.chat(messages, n, sampling)

    def close(self) -> None:
        """Nothing: the engine closes the shared model."""


class StagedRenderer:
    """A job's view of the shared render pool that tells the job's events when a render starts."""

    def __init__(self, renderer: Renderer, on_stage: Callable[[str], None]) -> None:
        self._renderer = renderer
        self._on_stage = on_stage

    def render(self, job: RenderJob) -> RenderResult:
        self._on_stage(RENDERING)
        return self._renderer.render(job)

    def map(self, jobs: Iterable[RenderJob], on_done: Callable[[int, RenderResult], None] | None = None) -> list[RenderResult]:
        self._on_stage(RENDERING)
        return self._renderer.map(jobs, on_done)

    def close(self) -> None:
        """Nothing: the engine closes the shared pool."""


def allowed(default_model: str, extra: Iterable[str]) -> list[str]:
    """The models callers may pick: the embedded ones, the default and the operator's; each must parse."""
    models = list(dict.fromkeys([*MODELS, default_model, *(spec.strip() for spec in extra)]))
    for spec in models:
        try:
            parse_spec(spec)
        except LLMError as error:
            raise JobError(str(error)) from None
    return models


def lock_root(root: Path) -> TextIO:
    """An exclusive lock on `root`, held until the returned file is closed: a second engine on one job
    store would mark the first one's running jobs interrupted and take its queued ones."""
    try:
        root.mkdir(parents=True, exist_ok=True)
        handle = (root / LOCK_NAME).open("a+", encoding="utf-8")
    except OSError as error:
        raise JobError(f"cannot keep the job store in {root} ({error.strerror or error}); pass a --root this user can write") from None
    try:
        fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        handle.seek(0)
        holder = handle.read().strip()
        handle.close()
        raise JobError(
            f"another manimgen server{f' (process {holder})' if holder else ''} is using the job store in {root}; "
            "stop it, or pass another --root"
        ) from None
    handle.truncate(0)
    handle.write(str(os.getpid()))
    handle.flush()
    return handle


def one_line(error: BaseException) -> str:
    """`Type: first line of the message`, however the job failed."""
    lines = str(error).strip().splitlines()
    return f"{type(error).__name__}: {lines[0]}"[:300] if lines else type(error).__name__


def quoted(text: str) -> str:
    """A caller's value in a message, cut short: a refusal names what was wrong without echoing it whole."""
    return repr(text if len(text) <= 80 else text[:77] + "...")


def round_event(round_: Round) -> dict[str, object]:
    """What the page shows of a round: its kind, whether it rendered, the first line of what went wrong (a layout
    problem in a teacher's words, without coordinates)."""
    render = round_.render
    findings = layout_findings(render.geometry) if render is not None and render.ok and round_.feedback.startswith(LAYOUT_HEADER) else []
    return {
        "index": round_.index,
        "kind": round_.kind,
        "rendered": None if render is None else render.ok,
        "status": "no code" if round_.code is None else ("not rendered" if render is None else render.status.value),
        "error": _sentence(findings[0].plain) if findings else first_error(round_.feedback),
        "fixes": list(round_.autofixes),
        "seconds": round(round_.llm_seconds + round_.render_seconds, 1),
    }


def _sentence(words: str) -> str:
    return words[:1].upper() + words[1:] + "."


def first_error(feedback: str) -> str:
    """The line that names the error (`NameError: ...`), else the first listed problem (`- ...`), else
    the first line of the feedback."""
    lines = [line.strip() for line in feedback.splitlines() if line.strip()]
    named = [line for line in lines if ERROR_LINE.match(line)]
    listed = [line.removeprefix("- ") for line in lines if line.startswith("- ")]
    return (named or listed or lines or [""])[0][:300]


def _checked(make: Callable[[], T]) -> T:
    """What `make` returns; the ValueError a request's check raises, as the JobError a caller shows."""
    try:
        return make()
    except ValueError as error:
        raise JobError(str(error)) from None
