"""How much a run could save by rendering a candidate while the model writes the next one, read from the
traces a study stored.

    .venv/bin/python benchmarks/render_overlap.py results/teacher-evaluation-6.jsonl.gz

A round's next round can start before its render ends only when it does not need that render: a fresh
draft (`resample`) does not, a repair does (its prompt holds the render's error or failed requirements),
and a run that stops on the render needs no next round. So the most overlap can save is the render time
of every round followed by a fresh draft; on two cores it saves less, since writing and rendering then
share them. Printed: that bound beside the run's total, the model's and the renders' seconds.
"""

from __future__ import annotations

import argparse
import json
import statistics
from pathlib import Path

from rich.console import Console
from rich.table import Table

from manimgen.bench.transfer import read_export


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("samples", type=Path, help="a study's exported samples (.jsonl.gz)")
    args = parser.parse_args()
    totals, model, renders, bounds = [], 0.0, 0.0, []
    _, exported = read_export(args.samples)
    for trace in (json.loads(item.sample.trace_json) for item in exported if item.sample.trace_json):
        rounds = trace["rounds"]
        totals.append(trace["seconds"])
        model += sum(round_.get("llm_seconds") or 0.0 for round_ in rounds)
        renders += sum(round_.get("render_seconds") or 0.0 for round_ in rounds)
        bounds.append(sum(before.get("render_seconds") or 0.0 for before, after in zip(rounds, rounds[1:]) if after["kind"] == "resample"))
    table = Table("sentences", "total s", "model s", "renders s", "overlap could save s", "share")
    table.add_row(str(len(totals)), f"{sum(totals):.0f}", f"{model:.0f}", f"{renders:.0f}", f"{sum(bounds):.0f}", f"{sum(bounds) / sum(totals):.1%}")
    console = Console()
    console.print(table)
    touched = [bound for bound in bounds if bound > 0]
    console.print(f"{len(touched)} sentences have a round a fresh draft follows; median saving there at most "
                  f"{statistics.median(touched) if touched else 0:.1f} s of a median sentence of {statistics.median(totals):.1f} s")  # fmt: skip


if __name__ == "__main__":
    main()
