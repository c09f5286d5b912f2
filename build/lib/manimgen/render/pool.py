"""The renderer interface, and the pool that implements it: renders in parallel, each its own sandboxed process.

Whoever renders (the agent, the scorer, the study, the reward) takes a `Renderer` rather than calling
a module function, so one pool can serve them all and a test can hand in a counting one. By default
each of the pool's renders runs on a warm worker (render/warm.py) that imported Manim once and forks
a sealed child per render, where this machine lets a worker seal renders (sandbox.warm_sealed: root);
`warm=False`, or a machine where it cannot, starts a fresh sandboxed interpreter per render, as a
single `render()` call does. docs/design-notes.md has the measured difference.
"""

from __future__ import annotations

import os
import queue
from collections.abc import Callable, Iterable
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass, replace
from typing import Protocol

from manimgen.registry import Registry
from manimgen.render.renderer import ChildRunner, FreshSandbox, render_on
from manimgen.render.result import DEFAULT_QUALITY, RenderResult
from manimgen.render.sandbox import Limits, warm_sealed
from manimgen.render.warm import WarmWorker


@dataclass(frozen=True)
class RenderJob:
    """One scene file to render; `geometry` also records its layout (render/geometry.py)."""

    code: str
    scene: str | None = None
    quality: str = DEFAULT_QUALITY
    geometry: bool = False


class Renderer(Protocol):
    """Renders scene code in the sandbox: one job in the caller's thread, or many in parallel. Whoever
    opens one (`open_renderer`) closes it, which stops its workers; whoever is handed one does not."""

    def render(self, job: RenderJob) -> RenderResult: ...

    def map(self, jobs: Iterable[RenderJob], on_done: Callable[[int, RenderResult], None] | None = None) -> list[RenderResult]: ...

    def close(self) -> None: ...


def map_submitted(
    submit: Callable[[RenderJob], Future[RenderResult]], jobs: Iterable[RenderJob], on_done: Callable[[int, RenderResult], None] | None
) -> list[RenderResult]:
    """`Renderer.map` over a `submit`: results in the order of `jobs`; `on_done(index, result)` fires as each finishes."""
    futures = [submit(job) for job in jobs]
    if on_done is not None:
        for index, future in enumerate(futures):
            future.add_done_callback(lambda f, i=index: on_done(i, f.result()))
    return [future.result() for future in futures]


def map_in_turn(
    render: Callable[[RenderJob], RenderResult], jobs: Iterable[RenderJob], on_done: Callable[[int, RenderResult], None] | None
) -> list[RenderResult]:
    """`Renderer.map` for a renderer that renders one job at a time, in the caller's thread."""
    results = []
    for index, job in enumerate(jobs):
        results.append(render(job))
        if on_done is not None:
            on_done(index, results[-1])
    return results


def runner_for(limits: Limits, warm: bool) -> ChildRunner:
    """Where one render at a time runs: a warm worker when asked and this machine can seal its renders, else fresh sandboxes."""
    return WarmWorker(limits) if warm and warm_sealed() else FreshSandbox(limits)


class RenderPool:
    """A fixed number of concurrent renders (default: one per core), each with its own warm worker unless `warm=False`."""

    def __init__(
        self,
        workers: int | None = None,
        *,
        timeout_s: float | None = None,
        use_cache: bool = True,
        warm: bool = True,
        limits: Limits | None = None,
    ) -> None:
        self.workers = workers or os.cpu_count() or 1
        self.limits = limits or Limits()
        if timeout_s is not None:
            self.limits = replace(self.limits, timeout_s=timeout_s)
        self.use_cache = use_cache
        self._runners = [runner_for(self.limits, warm) for _ in range(self.workers)]
        self.warm = isinstance(self._runners[0], WarmWorker)
        self._idle: queue.SimpleQueue[ChildRunner] = queue.SimpleQueue()
        for runner in self._runners:
            self._idle.put(runner)
        self._executor = ThreadPoolExecutor(max_workers=self.workers, thread_name_prefix="render")

    def submit(self, job: RenderJob) -> Future[RenderResult]:
        return self._executor.submit(self.render, job)

    def render(self, job: RenderJob) -> RenderResult:
        """Render `job` in this thread on the next free runner (waiting for one while all are busy)."""
        runner = self._idle.get()
        try:
            return render_on(runner, job.code, job.scene, job.quality, use_cache=self.use_cache, geometry=job.geometry)
        finally:
            self._idle.put(runner)

    def map(self, jobs: Iterable[RenderJob], on_done: Callable[[int, RenderResult], None] | None = None) -> list[RenderResult]:
        return map_submitted(self.submit, jobs, on_done)

    def close(self) -> None:
        self._executor.shutdown(wait=True)
        for runner in self._runners:
            runner.close()

    def __enter__(self) -> RenderPool:
        return self

    def __exit__(self, *_: object) -> None:
        self.close()


@dataclass(frozen=True)
class RendererOptions:
    """How a renderer is opened: renders at a time (default: one per core, or for Ray the cluster's `manim`
    units over `share` training ranks), the limit on each render, the cache, and a Ray cluster's address."""

    workers: int | None = None
    timeout_s: float | None = None
    use_cache: bool = True
    address: str | None = None
    share: int = 1


def _pool(warm: bool) -> Callable[[RendererOptions], Renderer]:
    return lambda options: RenderPool(options.workers, timeout_s=options.timeout_s, use_cache=options.use_cache, warm=warm)


def _ray(options: RendererOptions) -> Renderer:
    if options.address is None:
        raise ValueError("a Ray renderer needs the cluster's address (ray://HOST:10001, or auto on a cluster's node)")
    from manimgen.render.ray_backend import RayRenderer

    return RayRenderer(options.address, actors=options.workers, timeout_s=options.timeout_s, use_cache=options.use_cache, share=options.share)


RENDERERS: Registry[Callable[[RendererOptions], Renderer]] = Registry(
    "renderer",
    [
        ("warm", _pool(warm=True), "sandboxed workers that import Manim once and fork a sealed child per render (fresh where this machine cannot seal one)"),
        ("fresh", _pool(warm=False), "a fresh sandboxed interpreter per render: nothing kept between renders, nothing to start first"),
        ("ray", _ray, "a Ray cluster's render actors (render/ray_backend.py), at the cluster's address"),
    ],
)


def open_renderer(kind: str = "warm", options: RendererOptions = RendererOptions()) -> Renderer:
    """The one place a renderer is started; its opener closes it (`with closing(open_renderer(...)) as renderer:`)."""
    return RENDERERS.pick(kind)(options)
