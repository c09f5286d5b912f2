"""Write the verified example bank (src/manimgen/agent/verified_examples.jsonl): the scene builder's scene of
every development sentence it reads whole, rendered and kept only when it holds its whole checklist; and the
scenes written by hand for development sentences no block covers (`sentences/scenes/<id>.py`, looked at frame
by frame when written), kept when they render with a clean layout.

The scenes are this project's own (MIT), built or written for sentences this project wrote, so the bank is licence-clean;
`--leak-check` also measures each kept scene against ManimBench's test references with the bank's embedder and
drops any at or past the cut agent/examples.py documents.

    .venv/bin/python scripts/verified_examples.py [--leak-check]
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

from rich.progress import Progress

from manimgen.agent.builder import build
from manimgen.agent.examples import CUT_CODE, CUT_DESCRIPTION, EMBEDDER, VERIFIED_FILE
from manimgen.checks import Timeline, check, extract
from manimgen.checks.layout import layout_findings
from manimgen.render import RenderJob, RenderPool

SETS = sorted(Path("sentences").glob("development*.jsonl"))
WRITTEN = Path("sentences") / "scenes"


def main(leak_check: bool) -> None:
    rows = [json.loads(line) for path in SETS for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]
    built = [(row["description"], checklist, code) for row in rows if (code := build(checklist := extract(row["description"]))) is not None]
    sentences = {row["id"]: row["description"] for row in rows}
    written = [(sentences[path.stem], path.read_text(encoding="utf-8")) for path in sorted(WRITTEN.glob("*.py")) if path.stem in sentences]
    codes = [code for _, _, code in built] + [code for _, code in written]
    with Progress() as progress, RenderPool(2, use_cache=True) as pool:
        bar = progress.add_task("rendering the scenes", total=len(codes))
        results = pool.map([RenderJob(code, quality="low", geometry=True) for code in codes], on_done=lambda _, __: progress.advance(bar))
    held = [(text, code) for (text, checklist, code), result in zip(built, results) if result.ok and check(checklist, Timeline.from_geometry(result.geometry)).sentence_held]
    clean = [(text, code) for (text, code), result in zip(written, results[len(built):]) if result.ok and not layout_findings(result.geometry)]
    kept = held + clean
    if leak_check:
        kept = _away_from_test(kept)
    VERIFIED_FILE.write_text("".join(json.dumps({"description": text, "code": code}) + "\n" for text, code in kept), encoding="utf-8")
    print(f"{len(held)} of {len(built)} built scenes held their whole checklist, {len(clean)} of {len(written)} written scenes rendered "
          f"with a clean layout; {len(kept)} kept: {VERIFIED_FILE}")


def _away_from_test(kept: list[tuple[str, str]]) -> list[tuple[str, str]]:
    from manimgen.data import load_tasks
    from manimgen.metrics.embedders import code_embedder

    test = load_tasks("test")
    embedder = code_embedder(EMBEDDER)
    codes = embedder.embed([code for _, code in kept]) @ embedder.embed([task.reference_code for task in test]).T
    texts = embedder.embed([text for text, _ in kept]) @ embedder.embed([task.description for task in test]).T
    print(f"nearest test reference: code cosine {codes.max():.3f}, description cosine {texts.max():.3f}")
    return [pair for index, pair in enumerate(kept) if codes[index].max() < CUT_CODE and texts[index].max() < CUT_DESCRIPTION]


if __name__ == "__main__":
    main("--leak-check" in sys.argv[1:])
