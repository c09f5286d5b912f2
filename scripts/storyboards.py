"""Write a storyboard for every topic of a file (one per line) with one model, each to OUT/NN.json, to read
side by side when the storyboard prompt changes (sentences/lesson-development.txt is the set to tune on).

    .venv/bin/python scripts/storyboards.py sentences/lesson-development.txt OUT [--model SPEC] [--scenes 3]
"""

from __future__ import annotations

import json
import time
from pathlib import Path

import typer
from rich.progress import track

from manimgen.lesson.storyboard import StoryboardError, write_storyboard
from manimgen.llm import DEFAULT_MODEL, load_model


def main(topics: Path, out: Path, model: str = DEFAULT_MODEL, scenes: int = 3, seed: int = 0) -> None:
    out.mkdir(parents=True, exist_ok=True)
    lines = [line.strip() for line in topics.read_text(encoding="utf-8").splitlines() if line.strip()]
    llm = load_model(model)
    try:
        for number, topic in track(list(enumerate(lines, 1)), description="storyboards"):
            started = time.monotonic()
            try:
                text = write_storyboard(llm, topic, scenes, seed=seed).to_json()
            except StoryboardError as error:
                text = json.dumps({"error": str(error)})
            (out / f"{number:02d}.json").write_text(text, encoding="utf-8")
            print(f"{number:02d} {time.monotonic() - started:.0f} s  {topic}")
    finally:
        llm.close()


if __name__ == "__main__":
    typer.run(main)
