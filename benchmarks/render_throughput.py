"""Renders per minute: our sandboxed pool, cold and warm, vs one `manim` CLI process per scene.

    .venv/bin/python benchmarks/render_throughput.py [--count 12] [--workers N]
    .venv/bin/python benchmarks/render_throughput.py --against REV [--rounds 2]

All three render the same ManimBench test references at -ql with no render cache, back to back in
one process; the ratios are printed last. The cold pool starts a fresh sandboxed interpreter per
render; the warm pool forks each render from a sandboxed worker that imported Manim once (worker
start-up is timed too). Timings on shared machines swing: compare the numbers of one run, not runs.

`--against REV` times this tree's pools against those of git revision REV instead (a temporary
worktree), each pass in a subprocess of its own, the two trees alternating round by round, and
prints this tree's speed as a ratio of REV's: how much a change to the renderer cost or gained.
"""

from __future__ import annotations

import argparse
import ast
import json
import subprocess
import sys
import sysconfig
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


def measure_in(python: Path, count: int, workers: int | None, warm: bool) -> Run:
    """One pooled pass of this script under `python`, in a fresh interpreter."""
    argv = [str(python), __file__, "--measure", "warm" if warm else "cold", "--count", str(count)]
    argv += ["--workers", str(workers)] if workers else []
    done = subprocess.run(argv, capture_output=True, text=True, check=True)
    result = json.loads(done.stdout.splitlines()[-1])
    return Run("warm" if warm else "cold", result["rendered"], result["seconds"])


def baseline_python(source: Path, folder: Path) -> Path:
    """An interpreter that imports manimgen from `source` and everything else from this environment.

    The render child gets a scrubbed environment, so PYTHONPATH would not reach it; a throwaway
    venv whose .pth file puts `source` first makes the sandboxed child import the baseline too.
    """
    venv = folder / "venv"
    subprocess.run([sys._base_executable, "-m", "venv", "--without-pip", str(venv)], check=True)
    site_packages = next(venv.glob("lib/python*/site-packages"))
    here = sysconfig.get_paths()["purelib"]
    (site_packages / "baseline.pth").write_text(f"{source}\nimport site; site.addsitedir({here!r})\n")
    return venv / "bin" / "python"


def against(revision: str, count: int, workers: int | None, rounds: int) -> None:
    """This tree's pools vs `revision`'s, alternating, in subprocesses; ratios of total seconds."""
    here = Path(__file__).resolve().parent.parent
    pythons = {"this tree": Path(sys.executable)}
    runs: dict[tuple[str, bool], list[Run]] = {}
    with tempfile.TemporaryDirectory(prefix="manimgen-bench-") as tmp:
        worktree = Path(tmp) / "baseline"
        subprocess.run(["git", "-C", str(here), "worktree", "add", "--detach", str(worktree), revision], check=True, capture_output=True)
        try:
            pythons[revision] = baseline_python(worktree / "src", Path(tmp))
            for _ in range(rounds):
                for warm in (False, True):
                    for tree, python in pythons.items():
                        runs.setdefault((tree, warm), []).append(measure_in(python, count, workers, warm))
        finally:
            subprocess.run(["git", "-C", str(here), "worktree", "remove", "--force", str(worktree)], check=True)
    table = Table(title=f"{count} ManimBench test references at -ql, {rounds} rounds each: this tree vs {revision}")
    for column in ("pool", "tree", "rendered", "seconds (all rounds)", "renders/min"):
        table.add_column(column)
    for (tree, warm), done in runs.items():
        seconds = sum(run.seconds for run in done)
        table.add_row("warm" if warm else "cold", tree, str(sum(run.rendered for run in done)), f"{seconds:.1f}", f"{60 * count * rounds / seconds:.1f}")
    Console().print(table)
    for warm in (False, True):
        before = sum(run.seconds for run in runs[(revision, warm)])
        after = sum(run.seconds for run in runs[("this tree", warm)])
        print(f"{'warm' if warm else 'cold'} pool, this tree vs {revision}: {before / after:.3f}x the speed")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--count", type=int, default=12)
    parser.add_argument("--workers", type=int, default=None)
    parser.add_argument("--against", metavar="REV", help="compare this tree's pools with git revision REV's")
    parser.add_argument("--rounds", type=int, default=2, help="with --against: alternating rounds per tree")
    parser.add_argument("--measure", choices=("cold", "warm"), help=argparse.SUPPRESS)
    args = parser.parse_args()
    codes = [task.reference_code for task in load_tasks("test")[: args.count]]
    if args.measure:
        run = timed(args.measure, lambda: pooled(codes, args.workers, warm=args.measure == "warm"))
        print(json.dumps({"rendered": run.rendered, "seconds": run.seconds}))
        return
    if args.against:
        against(args.against, args.count, args.workers, args.rounds)
        return
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
