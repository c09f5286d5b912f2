"""Renders per minute: our sandboxed pool vs one `manim` CLI process per scene, one after another.

    .venv/bin/python benchmarks/render_throughput.py [--count 12] [--workers N]

Both sides render the same ManimBench test references at -ql with no render cache; the ratio is
printed last. Timings on shared machines swing: compare the two numbers of one run, not runs.
"""

from __future__ import annotations

import argparse
import ast
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from rich.console import Console
from rich.table import Table

from manimgen.data import load_tasks
from manimgen.render import RenderJob, RenderPool


def scene_name(code: str) -> str:
    classes = [node.name for node in ast.parse(code).body if isinstance(node, ast.ClassDef)]
    return classes[-1]


def naive(codes: list[str]) -> tuple[float, int]:
    """The paper's way: the manim command line, one scene at a time."""
    started, ok = time.monotonic(), 0
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
    return time.monotonic() - started, ok


def pooled(codes: list[str], workers: int | None) -> tuple[float, int]:
    started = time.monotonic()
    with RenderPool(workers, use_cache=False) as pool:
        results = pool.map([RenderJob(code) for code in codes])
    return time.monotonic() - started, sum(r.ok for r in results)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--count", type=int, default=12)
    parser.add_argument("--workers", type=int, default=None)
    args = parser.parse_args()
    codes = [task.reference_code for task in load_tasks("test")[: args.count]]
    naive_s, naive_ok = naive(codes)
    pool_s, pool_ok = pooled(codes, args.workers)
    table = Table(title=f"{len(codes)} ManimBench test references at -ql")
    for column in ("way", "rendered", "seconds", "renders/min"):
        table.add_column(column)
    table.add_row("manim CLI, sequential", str(naive_ok), f"{naive_s:.1f}", f"{60 * len(codes) / naive_s:.1f}")
    table.add_row("manimgen pool", str(pool_ok), f"{pool_s:.1f}", f"{60 * len(codes) / pool_s:.1f}")
    Console().print(table)
    print(f"speed-up: {naive_s / pool_s:.2f}x")


if __name__ == "__main__":
    main()
