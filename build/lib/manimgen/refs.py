"""Render every reference scene of a task set: proves the render stack before any model is judged.

The summary keeps each output's sha256, so two summaries show whether a change to the renderer
changed any video (a scene that draws random numbers differs from render to render anyway).
"""

from __future__ import annotations

import hashlib
import json
import time
from contextlib import closing
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn, TimeRemainingColumn

from manimgen.data import Task
from manimgen.render import RendererOptions, RenderJob, RenderResult, open_renderer


@dataclass
class RefsSummary:
    split: str
    quality: str
    seconds: float
    counts: dict[str, int]
    failures: list[dict[str, str]] = field(default_factory=list)
    renders: dict[str, dict] = field(default_factory=dict)

    def write(self, path: Path) -> None:
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(json.dumps(self.__dict__, indent=2))


def render_references(
    tasks: list[Task], split: str, quality: str, workers: int | None, timeout_s: float | None, use_cache: bool
) -> RefsSummary:
    """Render each task's reference in the pool, with a progress bar that counts statuses."""
    started = time.monotonic()
    statuses: Counter[str] = Counter()
    columns = (TextColumn("[bold]references"), BarColumn(), MofNCompleteColumn(), TextColumn("{task.fields[counts]}"), TimeElapsedColumn(), TimeRemainingColumn())
    with Progress(*columns) as progress, closing(open_renderer(options=RendererOptions(workers=workers, timeout_s=timeout_s, use_cache=use_cache))) as pool:
        bar = progress.add_task("render", total=len(tasks), counts="")

        def advance(_: int, result: RenderResult) -> None:
            statuses[result.status.value] += 1
            progress.update(bar, advance=1, counts=" ".join(f"{k}={v}" for k, v in sorted(statuses.items())))

        results = pool.map([RenderJob(task.reference_code, quality=quality) for task in tasks], on_done=advance)
    summary = RefsSummary(split, quality, time.monotonic() - started, dict(Counter(r.status.value for r in results)))
    for task, result in zip(tasks, results):
        digest = hashlib.sha256(result.output.read_bytes()).hexdigest() if result.output else None
        summary.renders[task.id] = {**result.to_dict(), "sha256": digest}
        if not result.ok:
            summary.failures.append({"task": task.id, "status": result.status.value, "error": result.error_tail})
    return summary
