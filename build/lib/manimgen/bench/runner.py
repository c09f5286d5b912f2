"""Runs the study grid {models} × {strategies} × {tasks} × {seeds} into a run directory.

Each model is loaded once and closed after its samples. The agent generates in the calling thread
while a small thread pool scores finished samples (render, frames, metrics), so one sample's
rendering and scoring overlap the next one's generation. Every scored sample is written to the
store in one transaction, its media copied first, so a killed run resumes where it stopped: keys
already stored are skipped. An LLMError (server down, weights missing) stops the run after the
finished samples are flushed. Seeded model calls are replayed from the run's generation cache
(bench/generations.py), so every strategy of a model starts from the same first draft.
"""

from __future__ import annotations

import json
import platform
import threading
import time
from collections.abc import Callable, Iterator
from concurrent.futures import Future, ThreadPoolExecutor
from contextlib import closing, contextmanager
from dataclasses import dataclass, replace
from importlib.metadata import PackageNotFoundError, version
from pathlib import Path
from typing import TYPE_CHECKING

import yaml
from rich.console import Console
from rich.progress import (
    BarColumn,
    MofNCompleteColumn,
    Progress,
    TaskID,
    TextColumn,
    TimeElapsedColumn,
    TimeRemainingColumn,
)
from rich.text import Text

from manimgen.agent import AgentConfig, Trace, run_agent
from manimgen.agent.extract import extract_code_strict
from manimgen.agent.trace import STOP_DEADLINE
from manimgen.bench.config import ConfigError, ModelEntry, RunConfig, StrategyEntry
from manimgen.bench.generations import open_generation_cache
from manimgen.bench.media import copy_into, reference_media_path, remove_partials, sample_media_path
from manimgen.bench.store import Sample, Store, TaskRow, exclusive
from manimgen.data import Task, load_task_file, load_tasks, select
from manimgen.llm import LLM, LLMError, load_model
from manimgen.llm.cache import CachedLLM, GenerationCache
from manimgen.llm.llamacpp import PROMPT_EVALUATION
from manimgen.llm.loops import RULE as LOOP_RULE
from manimgen.render import Renderer, RendererOptions, RenderJob, RenderResult, open_renderer
from manimgen.scoring.free import NO_REFERENCE
from manimgen.scoring.verdict import score_sample
from manimgen.scoring.presets import PRESETS

if TYPE_CHECKING:
    from manimgen.scoring import Scorer

CONFIG_NAME = "config.yaml"
LLMFactory = Callable[[str], LLM]


class BenchStopped(RuntimeError):
    """The run stopped before its grid was done; finished samples are stored and a rerun resumes."""


@dataclass(frozen=True)
class WorkItem:
    model: ModelEntry
    strategy: StrategyEntry
    task: Task
    seed: int

    @property
    def key(self) -> tuple[str, str, str, int]:
        return (self.model.name, self.strategy.key, self.task.id, self.seed)


@dataclass(frozen=True)
class RunSummary:
    run_dir: Path
    planned: int
    skipped: int
    recorded: int
    ok: int
    measured: int
    seconds: float

    @property
    def rsr(self) -> float | None:
        """Render success rate over every measured sample in the store, resumed ones included."""
        return self.ok / self.measured if self.measured else None


def plan(config: RunConfig) -> list[WorkItem]:
    """Every sample of the grid, model-major so each model is loaded once."""
    if config.tasks_file is not None:
        tasks = select(load_task_file(config.tasks_file), ids=config.tasks, limit=config.limit)
    else:
        tasks = load_tasks(config.split, complexity=config.complexity, ids=config.tasks, limit=config.limit)
    return [
        WorkItem(model, strategy, task, seed)
        for model in config.models
        for strategy in config.strategies
        for task in tasks
        for seed in config.seeds
    ]


def versions() -> dict[str, str]:
    def installed(name: str) -> str:
        try:
            return version(name)
        except PackageNotFoundError:
            return "missing"

    return {
        "manimgen": installed("manimgen"),
        "manim": installed("manim"),
        "python": platform.python_version(),
        "llama-cpp-python": installed("llama-cpp-python"),
        "llamacpp-prompts": PROMPT_EVALUATION,
        "llamacpp-loops": LOOP_RULE,
    }


GENERATION_VERSIONS = ("llama-cpp-python", "llamacpp-prompts", "llamacpp-loops")
"""What changes the embedded models' answers to the same seeded call: a run's rows must share them."""


def _check_generation(store: Store, now: dict[str, str]) -> None:
    """Refuse to add samples to a run whose stored ones came from another llama.cpp or prompt evaluation:
    the same seeded call would answer differently and the table would mix two providers. (Sessions from
    before these were recorded say nothing, and are not refused.)"""
    if not store.samples():
        return
    for session in store.sessions():
        recorded = {name: session.versions[name] for name in GENERATION_VERSIONS if name in session.versions}
        changed = [f"{name} {value} (now {now[name]})" for name, value in recorded.items() if value != now[name]]
        if changed:
            raise ConfigError(
                f"{store.path} holds samples generated with {', '.join(changed)}; the same calls would answer "
                "differently, so this run's rows would mix two providers: use another --out, or the versions that made it"
            )


class BenchRunner:
    """One session over a run directory: plan, skip what is stored, generate, score, record."""

    def __init__(
        self,
        config: RunConfig,
        run_dir: Path,
        *,
        llm_factory: LLMFactory = load_model,
        console: Console | None = None,
        show_progress: bool = True,
        renderer: Renderer | None = None,
    ) -> None:
        """`renderer` serves every render of the run; without one, each run opens a warm pool of its own."""
        self.config = config
        self.run_dir = Path(run_dir)
        self.llm_factory = llm_factory
        self.console = console or Console(stderr=True)
        self.show_progress = show_progress
        self._local = threading.local()
        self._counts_lock = threading.Lock()
        self._reference_lock = threading.Lock()
        self._copied_references: set[str] = set()
        self._failures: list[BaseException] = []
        self._ok = self._measured = self._recorded = 0
        self._generations: GenerationCache | None = None
        self._given_renderer = renderer
        self._renderer: Renderer | None = None

    def run(self) -> RunSummary:
        items = plan(self.config)
        with exclusive(self.run_dir), Store.open(self.run_dir) as store:
            store.interrupt_orphans()
            _check_labels(store, self.config)
            remove_partials(self.run_dir)
            done = store.done_keys()
            pending = [item for item in items if item.key not in done]
            if pending:
                _check_generation(store, versions())
            for task in {item.task.id: item.task for item in items}.values():
                store.put_task(TaskRow(task.id, task.split, task.complexity, task.description, task.reference_code))
            self._copied_references = {
                task_id for task_id, row in store.tasks().items()
                if row.reference_media and (self.run_dir / row.reference_media).is_file()
            }
            measured = [sample for sample in store.samples() if sample.status != "error"]
            self._ok = sum(sample.status == "ok" for sample in measured)
            self._measured = len(measured)
            (self.run_dir / CONFIG_NAME).write_text(yaml.safe_dump(self.config.model_dump(mode="json"), sort_keys=False))
            session = store.start_session(self.config.model_dump(mode="json"), versions(), len(items))
            started = time.monotonic()
            if self.config.cache_generations and pending:
                self._generations = open_generation_cache(self.run_dir, store)
            try:
                self._run_pending(store, session, pending)
                status, message = "finished", None
            except LLMError as error:
                status, message = "stopped", str(error)
            except BaseException as error:
                store.finish_session(session, "interrupted", f"{type(error).__name__}: {error}")
                raise
            finally:
                if self._generations is not None:
                    self._generations.close()
                    self._generations = None
            store.finish_session(session, status, message)
            if status == "stopped":
                raise BenchStopped(
                    f"{message} ({self._recorded} samples recorded; rerun the same command to resume)"
                )
            return RunSummary(
                self.run_dir, len(items), len(items) - len(pending), self._recorded,
                self._ok, self._measured, time.monotonic() - started,
            )

    @contextmanager
    def _rendering(self) -> Iterator[Renderer]:
        """The renderer given, the Ray cluster's render actors, else one warm pool for the run: a render slot per
        generating and per scoring thread."""
        if self._given_renderer is not None:
            yield self._given_renderer
            return
        if self.config.ray is not None:
            options = RendererOptions(address=self.config.ray, timeout_s=self.config.render_timeout_s)
        else:
            slots = self.config.score_workers + max(model.concurrency for model in self.config.models)
            options = RendererOptions(workers=slots, timeout_s=self.config.render_timeout_s)
        with closing(open_renderer("ray" if self.config.ray is not None else "warm", options)) as renderer:
            yield renderer

    def _run_pending(self, store: Store, session: int, pending: list[WorkItem]) -> None:
        """Generate in this thread, score in the pool; the pool is drained before returning or raising."""
        with self._rendering() as renderer:
            self._renderer, self._local = renderer, threading.local()
            try:
                self._generate_and_score(store, session, pending)
            finally:
                self._renderer = None

    def _generate_and_score(self, store: Store, session: int, pending: list[WorkItem]) -> None:
        columns = (
            TextColumn("{task.description}", markup=False), BarColumn(), MofNCompleteColumn(),
            TextColumn("RSR {task.fields[rsr]}"), TimeElapsedColumn(), TextColumn("ETA"), TimeRemainingColumn(),
        )
        backlog = threading.BoundedSemaphore(self.config.score_workers * 2)
        executor = ThreadPoolExecutor(max_workers=self.config.score_workers, thread_name_prefix="score")
        with Progress(*columns, console=self.console, disable=not self.show_progress) as progress:
            bar = progress.add_task("bench", total=len(pending), rsr=self._rsr_text())
            try:
                for model, items in _by_model(pending):
                    progress.update(bar, description=f"loading {model.name}")
                    try:
                        self._generate_all(model, items, store, session, executor, backlog, progress, bar)
                    except LLMError as error:
                        raise LLMError(f"model {model.name!r}: {error}") from error
            except LLMError:
                executor.shutdown(wait=True)  # every generated sample is still scored and stored
                raise
            except BaseException:
                executor.shutdown(wait=True, cancel_futures=True)
                raise
            executor.shutdown(wait=True)
        if self._failures:
            raise self._failures[0]

    def _generate_all(
        self, model: ModelEntry, items: list[WorkItem], store: Store, session: int, executor: ThreadPoolExecutor,
        backlog: threading.BoundedSemaphore, progress: Progress, bar: TaskID,
    ) -> None:
        """One model's samples: load it, generate each, hand each trace to the scoring pool, close it."""
        llm = self.llm_factory(model.spec)
        if self._generations is not None:
            llm = CachedLLM(llm, self._generations, model_key=model.spec)
        def generate(item: WorkItem) -> None:
            progress.update(bar, description=f"{item.model.name} · {item.strategy.key} · {item.task.id}")
            trace, error = self._generate(llm, item)
            backlog.acquire()
            future = executor.submit(self._score_and_record, store, session, item, trace, error, progress, bar)
            future.add_done_callback(lambda done: self._finished(done, backlog))

        try:
            if model.concurrency == 1:
                for item in items:
                    generate(item)
            else:
                _concurrently(generate, items, model.concurrency)
        finally:
            llm.close()

    def _finished(self, future: Future[None], backlog: threading.BoundedSemaphore) -> None:
        backlog.release()
        if not future.cancelled() and future.exception() is not None:
            self._failures.append(future.exception())

    def _generate(self, llm: LLM, item: WorkItem) -> tuple[Trace | None, str | None]:
        """The agent's trace, or the error of an agent that raised (LLMError stops the run instead)."""
        sampling = self.config.strategy_sampling(item.strategy)
        agent_config = AgentConfig(
            rounds=self.config.strategy_rounds(item.strategy),
            sampling=sampling.at_seed(item.seed),
            quality=self.config.quality,
            timeout_s=self.config.render_timeout_s,
            deadline_s=self.config.time_limit_s,
            renderer=self._renderer,
        )
        try:
            return run_agent(llm, item.task.description, item.strategy.name, agent_config), None
        except LLMError:
            raise
        except Exception as error:  # a strategy bug must not end a long study; the row says what broke
            return None, f"agent: {type(error).__name__}: {error}"

    def _scorer(self) -> Scorer:
        """One Scorer per scoring thread (a Scorer is single-threaded); embedders load once per thread."""
        scorer = getattr(self._local, "scorer", None)
        if scorer is None:
            from manimgen.scoring import Scorer

            scorer = Scorer(**self._scorer_options(), renderer=self._renderer)
            self._local.scorer = scorer
        return scorer

    def _scorer_options(self) -> dict[str, object]:
        """What a Scorer of this run is built with, but its renderer: the same here and on a cluster's actors."""
        return {
            "image_embedder": self.config.image_embedder,
            "code_embedder": self.config.code_embedder,
            "dtw": self.config.dtw,
            "preset": self.config.metric_preset,
            "quality": self.config.quality,
            "timeout_s": self.config.render_timeout_s,
        }

    def _score_and_record(
        self, store: Store, session: int, item: WorkItem, trace: Trace | None, agent_error: str | None,
        progress: Progress, bar: TaskID,
    ) -> None:
        sample = self._base_sample(item, trace, session, agent_error)
        if trace is not None:
            started = time.monotonic()
            try:
                sample = self._scored(store, item, trace, sample)
            except Exception as error:  # recorded as an error row and retried on resume
                sample = replace(sample, status="error", error=f"scoring: {type(error).__name__}: {error}")
            sample = replace(sample, score_seconds=time.monotonic() - started)
        store.put_sample(sample)
        with self._counts_lock:
            self._recorded += 1
            if sample.status != "error":
                self._measured += 1
                self._ok += sample.status == "ok"
            progress.update(bar, advance=1, rsr=self._rsr_text())
            if self.show_progress and not self.console.is_terminal:
                self.console.print(
                    Text(f"{self._recorded}/{progress.tasks[0].total:.0f} {item.model.name} · {item.strategy.key} · {item.task.id}: "
                         f"{sample.status} ({sample.seconds or 0.0:.0f} s); RSR {self._rsr_text()}"),
                    soft_wrap=True,
                )  # fmt: skip

    def _scored(self, store: Store, item: WorkItem, trace: Trace, sample: Sample) -> Sample:
        code = trace.final_code if self._extractable(trace) else None
        assert self._renderer is not None, "samples are scored only inside _run_pending"
        scores, result = score_sample(
            item.task, code, _reusable(trace.final_render, self.config.quality), renderer=self._renderer, scorer=self._scorer, options=self._scorer_options()
        )
        self._copy_reference(store, item.task)
        media = None
        if scores.rendered and result is not None and result.output is not None:
            relative = sample_media_path(item.model.name, item.strategy.key, item.task.id, item.seed, result.output.suffix)
            media = str(copy_into(self.run_dir, result.output, relative))
        timed_out = trace.stop_reason == STOP_DEADLINE
        if scores.rendered:
            status = "ok"
        elif timed_out:
            status = "timeout"
        elif not (code and code.strip()):
            status = "no_code"
        else:
            status = "render_failed"
        return replace(sample, scores=scores, status=status, media_path=media)

    def _extractable(self, trace: Trace) -> bool:
        """Under a strict preset (`paper`), the answer that gave the final code must hold a block the
        original extraction takes (a closed <CODE> or ```python block); otherwise it scores as no code."""
        if PRESETS.pick(self.config.metric_preset).extraction != "strict" or trace.final_code is None:
            return True
        source = next((round_ for round_ in reversed(trace.rounds) if round_.code == trace.final_code), None)
        return source is None or extract_code_strict(source.completion) is not None

    def _render(self, code: str) -> RenderResult:
        assert self._renderer is not None, "renders happen only inside _run_pending"
        return self._renderer.render(RenderJob(code, quality=self.config.quality))

    def _copy_reference(self, store: Store, task: Task) -> None:
        """Copy a task's reference render into the run once (the scorer has just rendered it: a cache hit)."""
        with self._reference_lock:
            if task.id in self._copied_references:
                return
            status, media = NO_REFERENCE, None
            if task.has_reference:
                result = self._render(task.reference_code)
                status = result.status.value
                if result.ok and result.output is not None:
                    media = str(copy_into(self.run_dir, result.output, reference_media_path(task.id, result.output.suffix)))
            store.put_task(TaskRow(task.id, task.split, task.complexity, task.description, task.reference_code, status, media))
            self._copied_references.add(task.id)

    def _base_sample(self, item: WorkItem, trace: Trace | None, session: int, error: str | None) -> Sample:
        sample = Sample(
            model=item.model.name,
            strategy=item.strategy.key,
            task_id=item.task.id,
            seed=item.seed,
            model_spec=item.model.spec,
            strategy_name=item.strategy.name,
            strategy_params=json.dumps(self.config.strategy_params(item.strategy), sort_keys=True),
            quality=self.config.quality,
            complexity=item.task.complexity,
            status="error" if trace is None else "pending",
            error=error,
            session_id=session,
        )
        if trace is None:
            return sample
        return replace(
            sample,
            final_code=trace.final_code,
            llm_calls=trace.llm_calls,
            rounds=len(trace.rounds),
            prompt_tokens=trace.prompt_tokens,
            completion_tokens=trace.completion_tokens,
            tokens=trace.prompt_tokens + trace.completion_tokens,
            seconds=trace.seconds,
            trace_json=trace.to_json(),
        )

    def _rsr_text(self) -> str:
        return f"{self._ok / self._measured:.0%}" if self._measured else "-"


def _concurrently(work: Callable[[WorkItem], None], items: list[WorkItem], threads: int) -> None:
    """`work` on every item, `threads` at a time; the first failure cancels what has not started and is raised."""
    with ThreadPoolExecutor(max_workers=threads, thread_name_prefix="generate") as generators:
        futures = [generators.submit(work, item) for item in items]
        try:
            for future in futures:
                future.result()
        except BaseException:
            for future in futures:
                future.cancel()
            raise


def _by_model(items: list[WorkItem]) -> Iterator[tuple[ModelEntry, list[WorkItem]]]:
    groups: dict[str, list[WorkItem]] = {}
    for item in items:
        groups.setdefault(item.model.name, []).append(item)
    for group in groups.values():
        yield group[0].model, group


def _reusable(result: RenderResult | None, quality: str) -> RenderResult | None:
    """The agent's own render of the final code, when it is at the bench's quality and its file is still there."""
    if result is None or result.quality != quality:
        return None
    if result.ok and (result.output is None or not result.output.is_file()):
        return None
    return result


def _check_labels(store: Store, config: RunConfig) -> None:
    """A label keeps one meaning per run directory, or resumed results would mix two things."""
    stored_specs = store.labels("model", "model_spec")
    for model in config.models:
        if stored_specs.get(model.name, model.spec) != model.spec:
            raise ConfigError(
                f"{store.path} already holds model {model.name!r} as {stored_specs[model.name]!r}, not {model.spec!r}; "
                "give this model another label or use another --out"
            )
    stored_params = store.labels("strategy", "strategy_params")
    for strategy in config.strategies:
        params = json.dumps(config.strategy_params(strategy), sort_keys=True)
        if stored_params.get(strategy.key, params) != params:
            raise ConfigError(
                f"{store.path} already holds strategy {strategy.key!r} with {stored_params[strategy.key]}; "
                "give this strategy another label or use another --out"
            )
    stored_quality = {sample.quality for sample in store.samples()}
    if stored_quality - {config.quality}:
        raise ConfigError(
            f"{store.path} holds samples at quality {', '.join(sorted(stored_quality))}, not {config.quality}; use another --out"
        )


__all__ = ["BenchRunner", "BenchStopped", "RunSummary", "WorkItem", "plan"]
