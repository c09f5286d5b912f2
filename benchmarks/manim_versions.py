"""Two Manim releases on the same ManimBench references: render time as a ratio, and which references change.

    .venv/bin/python benchmarks/manim_versions.py --other /path/to/other-venv/bin/python [--count 100] [--rounds 1]

`--other` is the interpreter of a second environment with manimgen installed (editable, this tree) and
another manim, e.g. `python -m venv ../m22 && ../m22/bin/pip install -e . manim==0.22.0` (keep it out of
/tmp: the sandbox gives each render a private /tmp, where an environment would not be seen). Each pass
renders the references in a subprocess of its own, through the sandboxed warm pool with no render cache;
the two environments alternate round by round, so a machine's load falls on both. The report gives each
release's seconds, the ratio, the references whose status differs (with the error's last line), and
those whose frames differ (the mean absolute difference of frames sampled at 2 fps, 0-255).
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np
from rich.console import Console
from rich.table import Table

from manimgen.render.frames import sample_frames

FRAME_DIFF = 2.0  # mean absolute difference (0-255) above which two renders look different


def render_pass(count: int, folder: Path) -> None:
    """Render the first `count` test references here, copy each output into `folder`, write `folder`/pass.json."""
    import shutil
    from importlib.metadata import version

    from manimgen.data import load_tasks
    from manimgen.render import RenderJob, RenderPool

    tasks = load_tasks("test", limit=count)
    started = time.monotonic()
    with RenderPool(2, warm=True, use_cache=False) as pool:
        results = pool.map([RenderJob(task.reference_code) for task in tasks])
    seconds = time.monotonic() - started
    rows = {}
    for task, result in zip(tasks, results):
        kept = None
        if result.ok and result.output is not None:
            kept = folder / f"{task.id}{result.output.suffix}"
            shutil.copyfile(result.output, kept)
        last = [line for line in result.error_tail.splitlines() if line.strip()]
        rows[task.id] = {"status": result.status.value, "output": str(kept) if kept else None, "error": last[-1][:200] if last else ""}
    (folder / "pass.json").write_text(json.dumps({"manim": version("manim"), "seconds": seconds, "tasks": rows}))


def frame_difference(first: str, second: str) -> float:
    """Mean absolute difference of the two renders' frames at 2 fps (inf when their sizes or lengths differ)."""
    a, b = sample_frames(first, 2), sample_frames(second, 2)
    if a.shape != b.shape:
        return float("inf")
    return float(np.abs(a.astype(np.int16) - b.astype(np.int16)).mean())


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--other", help="the other environment's python")
    parser.add_argument("--count", type=int, default=100)
    parser.add_argument("--rounds", type=int, default=1)
    parser.add_argument("--pass-into", type=Path, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.pass_into is not None:
        render_pass(args.count, args.pass_into)
        return
    if not args.other:
        parser.error("give --other PYTHON, the interpreter of the environment with the other manim")
    console = Console()
    interpreters = {"this": sys.executable, "other": args.other}
    seconds: dict[str, list[float]] = {name: [] for name in interpreters}
    passes: dict[str, dict] = {}
    with tempfile.TemporaryDirectory(prefix="manim-versions-", dir=Path.cwd()) as tmp:
        for round_ in range(args.rounds):
            for name, python in interpreters.items():
                folder = Path(tmp) / f"{name}-{round_}"
                folder.mkdir()
                command = [python, __file__, "--pass-into", str(folder), "--count", str(args.count)]
                subprocess.run(command, check=True)
                passes[name] = json.loads((folder / "pass.json").read_text())
                seconds[name].append(passes[name]["seconds"])
                console.print(f"round {round_ + 1}: {name} (manim {passes[name]['manim']}) {passes[name]['seconds']:.1f} s")
        this, other = passes["this"], passes["other"]
        status_changed, looks_changed, compared = [], [], 0
        for task_id, row in this["tasks"].items():
            theirs = other["tasks"][task_id]
            if row["status"] != theirs["status"]:
                status_changed.append((task_id, row, theirs))
            elif row["output"] and theirs["output"]:
                compared += 1
                difference = frame_difference(row["output"], theirs["output"])
                if difference > FRAME_DIFF:
                    looks_changed.append((task_id, difference))
    table = Table(title=f"{args.count} ManimBench test references, {args.rounds} round(s), warm sandboxed pool of 2, no cache")
    for column in ("manim", "rendered", "seconds (mean)", "speed vs this"):
        table.add_column(column)
    mean = {name: sum(values) / len(values) for name, values in seconds.items()}
    for name in interpreters:
        rendered = sum(row["status"] == "ok" for row in passes[name]["tasks"].values())
        table.add_row(passes[name]["manim"], str(rendered), f"{mean[name]:.1f}", f"{mean['this'] / mean[name]:.2f}×")
    console.print(table)
    console.print(f"status differs on {len(status_changed)}:")
    for task_id, row, theirs in status_changed:
        console.print(f"  {task_id}: {this['manim']} {row['status']} {row['error']!r}; {other['manim']} {theirs['status']} {theirs['error']!r}")
    console.print(f"frames differ (mean |diff| > {FRAME_DIFF}) on {len(looks_changed)} of {compared} rendered by both:")
    for task_id, difference in looks_changed:
        console.print(f"  {task_id}: {difference:.1f}")


if __name__ == "__main__":
    main()
