"""Study throughput: samples per minute and CPU seconds per sample, fresh-sandbox renders vs one shared warm pool.

    .venv/bin/python benchmarks/bench_throughput.py [--tasks 20]
    .venv/bin/python benchmarks/bench_throughput.py --same-scores-as REV [--tasks 20]

A fixed grid (the first N ManimBench test tasks × vanilla and RITL) runs twice with real sandboxed
renders and scoring: once rendering as the study did before its renders were passed in (a fresh
sandboxed interpreter per render, for the agent and the scoring thread alike), once on the run's
shared warm pool (the default now). The model is scripted: its drafts are the references, every
other one broken (a misspelt method, so it fails when rendered), and its repairs are the references.
Each pass runs in a subprocess of its own with an empty render cache, so neither reuses the other's
renders. CPU seconds are the machine's busy time during the pass (/proc/stat), since sandboxed
renders leave the process tree that rusage would count: run it on an otherwise idle machine.

`--same-scores-as REV` checks that a redesign kept every result: the grid runs with this tree's
default renderer and with git revision REV's (in a temporary venv that imports REV's package), and
every stored sample's scores are compared field by field.
"""

from __future__ import annotations

import argparse
import json
import os
import sqlite3
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from render_throughput import baseline_python
from rich.console import Console
from rich.table import Table

from manimgen.agent import format_target
from manimgen.bench import BenchRunner
from manimgen.bench.config import parse_config
from manimgen.data import load_tasks
from manimgen.llm.scripted import ScriptedLLM
from manimgen.render import RenderPool

PASSES = ("fresh sandbox per render", "shared warm pool", "default")


def broken(code: str) -> str:
    """The reference with its first play/add call misspelt: it compiles, then fails when rendered."""
    for call in ("self.play(", "self.add("):
        if call in code:
            return code.replace(call, call[:-1] + "x(", 1)
    return code


def run_pass(way: str, count: int, out: Path) -> int:
    """One grid in this process; the number of samples recorded."""
    tasks = load_tasks("test")[:count]
    drafts = [broken(task.reference_code) if index % 2 else task.reference_code for index, task in enumerate(tasks)]
    repairs = [task.reference_code for task, draft in zip(tasks, drafts) if draft != task.reference_code]
    llm = ScriptedLLM(*map(format_target, drafts + repairs), name="fixed")
    config = parse_config(
        {"out": out, "models": ["fixed=scripted"], "strategies": ["vanilla", "ritl"], "split": "test", "tasks": [t.id for t in tasks]}
    )
    renderer = RenderPool(config.score_workers + 1, warm=False, timeout_s=config.render_timeout_s) if way == PASSES[0] else None
    chosen = {"renderer": renderer} if renderer is not None else {}  # "default" also runs where no renderer is taken
    try:
        summary = BenchRunner(config, out, llm_factory=lambda spec: llm, show_progress=False, **chosen).run()
    finally:
        if renderer is not None:
            renderer.close()
    return summary.recorded


def busy_seconds() -> float:
    """CPU seconds this machine has spent on anything but idling and waiting for I/O since boot."""
    fields = [int(value) for value in Path("/proc/stat").read_text().splitlines()[0].split()[1:]]
    return (sum(fields[:8]) - fields[3] - fields[4]) / os.sysconf("SC_CLK_TCK")


def measure(way: str, count: int, python: Path | None = None, keep: Path | None = None) -> dict[str, float]:
    """One pass in a subprocess with its own empty render cache: wall seconds, CPU seconds, samples.
    `keep` is where the run directory stays (else it is deleted with the cache)."""
    with tempfile.TemporaryDirectory(prefix="manimgen-bench-") as tmp:
        out = keep or Path(tmp) / "run"
        argv = [str(python or sys.executable), __file__, "--tasks", str(count), "--run-pass", way, "--out", str(out)]
        env = {**os.environ, "MANIMGEN_CACHE": str(Path(tmp) / "cache")}
        busy, started = busy_seconds(), time.monotonic()
        done = subprocess.run(argv, capture_output=True, text=True, env=env, check=True)
        seconds, cpu = time.monotonic() - started, busy_seconds() - busy
    return {"samples": int(done.stdout.split()[-1]), "seconds": seconds, "cpu": cpu}


def stored_scores(run_dir: Path) -> dict[tuple[str, ...], dict[str, object]]:
    """Each sample's status and scores as its store holds them, read with SQL (any schema version 1 store)."""
    with sqlite3.connect(run_dir / "results.sqlite") as connection:
        rows = connection.execute("SELECT model, strategy, task_id, seed, status, scores_json FROM samples")
        return {tuple(map(str, row[:4])): {"status": row[4], **json.loads(row[5] or "{}")} for row in rows}


def same_scores_as(revision: str, count: int) -> None:
    """Run the grid on this tree and on `revision`; print how many samples store identical scores."""
    with tempfile.TemporaryDirectory(prefix="manimgen-replay-") as tmp:
        folder = Path(tmp)
        source = folder / "source"
        source.mkdir()
        archive = subprocess.run(["git", "archive", revision, "src"], capture_output=True, check=True).stdout
        subprocess.run(["tar", "-x", "-C", str(source)], input=archive, check=True)
        old_python = baseline_python(source / "src", folder)
        for name, python in ((revision, old_python), ("this tree", None)):
            measure("default", count, python, keep=folder / name.replace(" ", "-"))
        old, new = stored_scores(folder / revision), stored_scores(folder / "this-tree")
    differing = sorted(key for key in old.keys() | new.keys() if old.get(key) != new.get(key))
    print(f"{len(new)} samples here, {len(old)} at {revision}; identical status and scores: {len(old.keys() & new.keys()) - len(differing)}")
    for key in differing:
        changed = {field for field in old.get(key, {}).keys() | new.get(key, {}).keys() if old.get(key, {}).get(field) != new.get(key, {}).get(field)}
        print(f"  differs: {key}: {', '.join(sorted(changed))}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--tasks", type=int, default=20)
    parser.add_argument("--run-pass", choices=PASSES, help=argparse.SUPPRESS)
    parser.add_argument("--out", type=Path, help=argparse.SUPPRESS)
    parser.add_argument("--same-scores-as", metavar="REV", help="check that git revision REV stores the same scores")
    args = parser.parse_args()
    if args.run_pass:
        print(run_pass(args.run_pass, args.tasks, args.out))
        return
    if args.same_scores_as:
        same_scores_as(args.same_scores_as, args.tasks)
        return
    runs = {way: measure(way, args.tasks) for way in PASSES[:2]}
    table = Table(title=f"study grid: {args.tasks} ManimBench test tasks × vanilla, RITL; scripted model, real renders")
    for column in ("renders", "samples", "seconds", "samples/min", "CPU s/sample"):
        table.add_column(column)
    for way, run in runs.items():
        per_minute, cpu = 60 * run["samples"] / run["seconds"], run["cpu"] / run["samples"]
        table.add_row(way, f"{run['samples']:.0f}", f"{run['seconds']:.1f}", f"{per_minute:.2f}", f"{cpu:.1f}")
    Console().print(table)
    cold, warm = (runs[way] for way in PASSES[:2])
    print(f"samples per minute, warm pool vs fresh sandboxes: {cold['seconds'] / warm['seconds']:.2f}x")
    print(f"CPU seconds per sample, fresh sandboxes vs warm pool: {cold['cpu'] / warm['cpu']:.2f}x")


if __name__ == "__main__":
    main()
