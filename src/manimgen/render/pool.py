"""Renders in parallel: each render is its own sandboxed process, so threads only wait on them."""

from __future__ import annotations

import os
from collections.abc import Callable, Iterable
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass

from manimgen.render.renderer import render
from manimgen.render.result import DEFAULT_QUALITY, RenderResult


@dataclass(frozen=True)
class RenderJob:
    code: str
    scene: str | None = None
    quality: str = DEFAULT_QUALITY


class RenderPool:
    """A fixed number of concurrent renders (default: one per core)."""

    def __init__(self, workers: int | None = None, *, timeout_s: float | None = None, use_cache: bool = True) -> None:
        self.workers = workers or os.cpu_count() or 1
        self.timeout_s = timeout_s
        self.use_cache = use_cache
        self._executor = ThreadPoolExecutor(max_workers=self.workers, thread_name_prefix="render")

    def submit(self, job: RenderJob) -> Future[RenderResult]:
        return self._executor.submit(
            render, job.code, job.scene, job.quality, timeout_s=self.timeout_s, use_cache=self.use_cache
        )

    def map(self, jobs: Iterable[RenderJob], on_done: Callable[[int, RenderResult], None] | None = None) -> list[RenderResult]:
        """Results in the order of `jobs`; `on_done(index, result)` fires as each finishes."""
        futures = [self.submit(job) for job in jobs]
        if on_done is not None:
            for index, future in enumerate(futures):
                future.add_done_callback(lambda f, i=index: on_done(i, f.result()))
        return [future.result() for future in futures]

    def close(self) -> None:
        self._executor.shutdown(wait=True)

    def __enter__(self) -> RenderPool:
        return self

    def __exit__(self, *_: object) -> None:
        self.close()
