"""The job engine behind `manimgen serve` and `manimgen mcp`: a queue of jobs run by a bounded number
of worker threads, persisted in the job store, cancellable, each round streamed as an event.

One model object per spec per process (loaded on first use, shared by the workers: the llama.cpp
provider serialises calls to one model), one warm sandboxed render pool for every job. A job's files
live in `<root>/jobs/<id>/`: `scene.py`, `scene.mp4` (or `.png` for a still scene) and
`scene.trace.json`. Cancelling a running job takes effect when its current model call or render
ends (a round is the unit of work).
"""

from __future__ import annotations

import re
import threading
from collections.abc import Callable
from pathlib import Path

from manimgen.agent import Round, list_strategies
from manimgen.agent.search_strategies import DEFAULT_STRATEGY
from manimgen.agent.strategies import DEFAULT_SAMPLING
from manimgen.llm import DEFAULT_MODEL, LLMError, load_model, parse_spec
from manimgen.llm.base import LLM
from manimgen.render import RenderPool
from manimgen.render.result import DEFAULT_QUALITY, QUALITIES
from manimgen.serve.jobs import CANCELLED, DONE, FAILED, RUNNING, Job, JobStore, new_id
from manimgen.serve.produce import Request, failure, last_line, place, produce, render_code

MAX_SENTENCE = 1000
MAX_CODE = 64 * 1024
ERROR_LINE = re.compile(r"^\s*[\w.]*(Error|Exception|Interrupt|Exit)\b.*")


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
    ) -> None:
        if workers < 1:
            raise JobError(f"workers must be at least 1, got {workers}")
        self.root = root
        self.store = JobStore(root)
        self.interrupted = self.store.mark_interrupted()
        self.default_model = default_model
        self.default_strategy = default_strategy
        self.max_tokens = max_tokens
        self._llm_factory = llm_factory
        self._models: dict[str, LLM] = {}
        self._models_lock = threading.Lock()
        self._cancelled: set[str] = set()
        self._wake = threading.Condition()
        self._stopping = False
        self._renderer = RenderPool(render_workers)
        self._threads = [threading.Thread(target=self._work, name=f"job-worker-{n}", daemon=True) for n in range(workers)]

    def start(self) -> JobEngine:
        for thread in self._threads:
            thread.start()
        return self

    def close(self) -> None:
        with self._wake:
            self._stopping = True
            self._wake.notify_all()
        for thread in self._threads:
            if thread.is_alive():
                thread.join(timeout=5)
        self._renderer.close()
        with self._models_lock:
            for llm in self._models.values():
                llm.close()
            self._models.clear()
        self.store.close()

    # requests -------------------------------------------------------------------------------------

    def submit(self, sentence: str, model: str | None = None, strategy: str | None = None, quality: str = DEFAULT_QUALITY) -> Job:
        """Queue a sentence; bad input is refused with a JobError naming the fix."""
        sentence = sentence.strip()
        if not sentence:
            raise JobError('the sentence is empty: describe the animation, e.g. "A blue circle turns into a red square"')
        if len(sentence) > MAX_SENTENCE:
            raise JobError(f"the sentence is {len(sentence)} characters; keep it under {MAX_SENTENCE}")
        model = model or self.default_model
        strategy = strategy or self.default_strategy
        try:
            parse_spec(model)
        except LLMError as error:
            raise JobError(str(error)) from None
        if strategy not in list_strategies():
            raise JobError(f"unknown strategy {strategy!r}; choose one of: {', '.join(list_strategies())}")
        return self._queue(Job(new_id(), "generate", sentence, model, strategy, _quality(quality)))

    def submit_render(self, code: str, quality: str = DEFAULT_QUALITY, sentence: str = "") -> Job:
        """Queue scene code (say, an edited scene) to be rendered as it is."""
        if not code.strip():
            raise JobError("the scene code is empty; send a Manim scene (from manim import * ... class X(Scene): ...)")
        if len(code.encode()) > MAX_CODE:
            raise JobError(f"the scene code is {len(code.encode())} bytes; keep it under {MAX_CODE}")
        return self._queue(Job(new_id(), "render", sentence.strip()[:MAX_SENTENCE], "-", "-", _quality(quality), code=code))

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
        fresh = Job(new_id(), job.kind, job.sentence, job.model, job.strategy, job.quality, code=job.code, retry_of=job.id)
        return self._queue(fresh)

    def job(self, job_id: str) -> Job | None:
        return self.store.get(job_id)

    def job_dir(self, job_id: str) -> Path:
        return self.root / "jobs" / job_id

    def _job(self, job_id: str) -> Job:
        job = self.store.get(job_id)
        if job is None:
            raise KeyError(job_id)
        return job

    def _queue(self, job: Job) -> Job:
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
            self.store.emit(job.id, "status", {"status": RUNNING})
            try:
                self._run(job)
            except JobCancelled:
                self._end(job.id, CANCELLED, error="cancelled while running")
            except Exception as error:  # a job's failure never stops the worker
                self._end(job.id, FAILED, error=f"{type(error).__name__}: {error}")
            finally:
                self._cancelled.discard(job.id)

    def _run(self, job: Job) -> None:
        target = self.job_dir(job.id) / "scene"
        if job.kind == "render":
            assert job.code is not None
            target.parent.mkdir(parents=True, exist_ok=True)
            target.with_suffix(".py").write_text(job.code, encoding="utf-8")
            result = render_code(job.code, job.quality, self._renderer)
            self.store.emit(job.id, "render", {"status": result.status.value, "ok": result.ok, "error": None if result.ok else last_line(result)})
            if not result.ok:
                self._end(job.id, FAILED, error=f"the scene did not render ({result.status.value}: {last_line(result)})", scene="scene.py")
                return
            self._end(job.id, DONE, video=place(result, target).name, scene="scene.py")
            return
        llm = self._model(job.model)
        request = Request(job.sentence, job.strategy, job.quality, max_tokens=self.max_tokens)

        def on_round(round_: Round) -> None:
            self.store.update(job.id, rounds=round_.index + 1)
            self.store.emit(job.id, "round", round_event(round_))
            if job.id in self._cancelled:
                raise JobCancelled

        product = produce(llm, request, target, renderer=self._renderer, on_round=on_round)
        scene = product.code.name if product.code else None
        if product.ok:
            assert product.video is not None
            self._end(job.id, DONE, video=product.video.name, scene=scene)
        else:
            self._end(job.id, FAILED, error=product.error or failure(product.trace), scene=scene)

    def _model(self, spec: str) -> LLM:
        with self._models_lock:
            if spec not in self._models:
                self._models[spec] = self._llm_factory(spec)
            return self._models[spec]

    def _end(self, job_id: str, status: str, **values: object) -> None:
        payload = {"status": status, **{key: value for key, value in values.items() if key in ("error", "video")}}
        self.store.finish(job_id, status, values, payload)


def round_event(round_: Round) -> dict[str, object]:
    """What the page shows of a round: its kind, whether it rendered, the first line of what went wrong."""
    render = round_.render
    return {
        "index": round_.index,
        "kind": round_.kind,
        "rendered": None if render is None else render.ok,
        "status": "no code" if round_.code is None else ("not rendered" if render is None else render.status.value),
        "error": first_error(round_.feedback),
        "fixes": list(round_.autofixes),
        "seconds": round(round_.llm_seconds + round_.render_seconds, 1),
    }


def first_error(feedback: str) -> str:
    """The line that names the error (`NameError: ...`), else the first listed problem (`- ...`), else
    the first line of the feedback."""
    lines = [line.strip() for line in feedback.splitlines() if line.strip()]
    named = [line for line in lines if ERROR_LINE.match(line)]
    listed = [line.removeprefix("- ") for line in lines if line.startswith("- ")]
    return (named or listed or lines or [""])[0][:300]


def _quality(name: str) -> str:
    if name not in QUALITIES:
        raise JobError(f"unknown quality {name!r}; choose one of: {', '.join(QUALITIES)}")
    return name
