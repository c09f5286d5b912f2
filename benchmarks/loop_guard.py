"""What the loop guard (manimgen/llm/loops.py) would have stopped, over answers already stored.

Reads the exported runs over sentences outside ManimBench's test split and the frozen evaluation set
(development sentences, the outside prompts, expert-iteration sampling of the development files),
feeds each model answer to the guard a few characters at a time as it was written, and counts: the
answers that ran to their token limit it stops, the tokens that saves, and the answers that ended by
themselves it would have cut (false stops).

    .venv/bin/python benchmarks/loop_guard.py
"""

from __future__ import annotations

import json
from pathlib import Path

from rich.console import Console
from rich.table import Table

from manimgen.bench.transfer import read_export
from manimgen.llm.loops import RULE, stop_point

ROOT = Path(__file__).resolve().parent.parent
EXPORTS = [
    "results/outside-prompts.jsonl.gz",
    "results/teacher-development.jsonl.gz",
    "results/retrieval-development.jsonl.gz",
    "results/splice-development.jsonl.gz",
    *sorted(str(path.relative_to(ROOT)) for path in (ROOT / "results" / "ei-1.5b").glob("samples-development*.jsonl.gz")),
]
MADE_HERE = ("build", "build-part")


def main() -> None:
    table = Table("export", "answers", "ran to the limit", "stopped", "false stops", "tokens saved", title=f"loop guard: {RULE}")
    totals = [0, 0, 0, 0, 0.0, 0]
    for name in EXPORTS:
        _, samples = read_export(ROOT / name)
        answers = capped = stopped = false = 0
        saved = 0.0
        written = 0
        for exported in samples:
            sample = exported.sample
            limit = json.loads(sample.strategy_params or "{}").get("sampling", {}).get("max_tokens", 1024)
            for round_ in sample.trace.rounds if sample.trace else []:
                if round_.kind in MADE_HERE:
                    continue
                answers += 1
                written += round_.completion_tokens
                at = stop_point(round_.completion)
                if round_.completion_tokens >= limit:
                    capped += 1
                    if at is not None:
                        stopped += 1
                        saved += round_.completion_tokens * (1 - at / len(round_.completion))
                elif at is not None:
                    false += 1
        table.add_row(Path(name).name.removesuffix(".jsonl.gz"), str(answers), str(capped), str(stopped), str(false), f"{saved:.0f} of {written} ({saved / max(written, 1):.1%})")
        for index, value in enumerate((answers, capped, stopped, false, saved, written)):
            totals[index] += value
    answers, capped, stopped, false, saved, written = totals
    table.add_row("all", str(answers), str(capped), str(stopped), str(false), f"{saved:.0f} of {written} ({saved / max(written, 1):.1%})", style="bold")
    Console().print(table)


if __name__ == "__main__":
    main()
