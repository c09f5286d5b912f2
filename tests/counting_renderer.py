"""A real renderer that notes what it was asked to render: how tests count renders without patching modules."""

from __future__ import annotations

from collections.abc import Callable, Iterable

from manimgen.render import RenderJob, RenderPool, RenderResult
from manimgen.render.pool import map_in_turn


class CountingRenderer:
    """Renders in a fresh sandbox, one job at a time, and keeps each job's code in `codes`."""

    def __init__(self) -> None:
        self.codes: list[str] = []
        self._pool = RenderPool(1, warm=False)

    def render(self, job: RenderJob) -> RenderResult:
        self.codes.append(job.code)
        return self._pool.render(job)

    def map(self, jobs: Iterable[RenderJob], on_done: Callable[[int, RenderResult], None] | None = None) -> list[RenderResult]:
        return map_in_turn(self.render, jobs, on_done)

    def close(self) -> None:
        self._pool.close()

    def __enter__(self) -> CountingRenderer:
        return self

    def __exit__(self, *_: object) -> None:
        self.close()
