"""Renders per minute: our sandboxed pool, cold and warm, vs one `manim` CLI process per scene.

    .venv/bin/python benchmarks/render_throughput.py [--count 12] [--workers N]

All three render the same ManimBench test references at -ql with no render cache, back to back in
one process; the ratios are printed last. The cold pool starts a fresh sandboxed interpreter per
render; the warm pool forks each render from a sandboxed worker that imported Manim once (worker
start-up is timed too). Timings on shared machines swing: compare the numbers of one run, not runs.
"""

from __future__ import annotations

import argparse
import ast
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from rich.console import Console
from rich.table import Table

from manimgen.data import load_tasks
from manimgen.render import RenderJob, RenderPool


def scene_name(code: str) -> str:
    classes = [node.name for node in ast.parse(code).body if isinstance(node, ast.ClassDef)]
    return classes[-1]


@dataclass
class Run:
    way: str
    rendered: int
    seconds: float


def timed(way: str, render_all: Callable[[], int]) -> Run:
    started = time.monotonic()
    rendered = render_all()
    return Run(way, rendered, time.monotonic() - started)


def naive(codes: list[str]) -> int:
    """The paper's way: the manim command line, one scene at a time."""
    ok = 0
    manim = str(Path(sys.executable).parent / "manim")
    for code in codes:
        with tempfile.TemporaryDirectory() as tmp:
            scene_file = Path(tmp) / "scene.py"
            scene_file.write_text(code)
            done = subprocess.run(
                [manim, "-ql", "--media_dir", tmp, str(scene_file), scene_name(code)],
                capture_output=True,
                stdin=subprocess.DEVNULL,
                timeout=300,
            )
            ok += done.returncode == 0
    return ok


def pooled(codes: list[str], workers: int | None, *, warm: bool) -> int:
    with RenderPool(workers, use_cache=False, warm=warm) as pool:
        results = pool.map([RenderJob(code) for code in codes])
    return sum(r.ok for r in results)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--count", type=int, default=12)
    parser.add_argument("--workers", type=int, default=None)
    args = parser.parse_args()
    codes = [task.reference_code for task in load_tasks("test")[: args.count]]
    cli = timed("manim CLI, sequential", lambda: naive(codes))
    cold = timed("manimgen pool, cold", lambda: pooled(codes, args.workers, warm=False))
    warm = timed("manimgen pool, warm", lambda: pooled(codes, args.workers, warm=True))
    table = Table(title=f"{len(codes)} ManimBench test references at -ql")
    for column in ("way", "rendered", "seconds", "renders/min"):
        table.add_column(column)
    for run in (cli, cold, warm):
        table.add_row(run.way, str(run.rendered), f"{run.seconds:.1f}", f"{60 * len(codes) / run.seconds:.1f}")
    Console().print(table)
    print(f"cold pool vs CLI: {cli.seconds / cold.seconds:.2f}x")
    print(f"warm pool vs CLI: {cli.seconds / warm.seconds:.2f}x")
    print(f"warm pool vs cold pool: {cold.seconds / warm.seconds:.2f}x")


if __name__ == "__main__":
    main()
