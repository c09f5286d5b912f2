"""Label a study's videos by looking, blind to the strategy, and tabulate the labels against the checker.

    .venv/bin/python scripts/labels.py sheets runs/NAME --out DIR [--per-sheet 6] [--frames 6] [--tasks ID,ID]
    .venv/bin/python scripts/labels.py table runs/NAME --labels LABELS.jsonl [--key DIR/key.json]

`sheets` writes contact sheets of every rendered sample, shuffled (a fixed seed) and named only by an
opaque key, each row the sentence and frames across the whole video, plus `key.json` (key -> task and
strategy), kept apart from whoever labels. `--tasks` makes sheets of those tasks' videos only (the videos
that changed since a measurement whose labels the others keep). A person writes one JSON line per key:
{"key": "k017", "label": "shows" | "partly" | "not", "reason": "..."}. `table` joins the labels to the
store: per strategy the share of sentences whose video shows / partly shows / does not show what was
asked (a sentence without a video counts as not shown), RSR, requirements held, all held, whole
sentence held and seconds; and the checker's agreement with the labels: precision and recall of
"all held" and of "whole sentence held" as tests of "shows".
"""

from __future__ import annotations

import argparse
import json
import random
import sys
import textwrap
from collections import Counter
from pathlib import Path
from statistics import median

from PIL import Image, ImageDraw, ImageFont

from manimgen.bench.store import Sample, Store
from manimgen.checks import extract
from manimgen.data.task_file import load_task_file

sys.path.insert(0, str(Path(__file__).parent))
from contact_sheet import FONT, FRAME, PAD, frames_across  # noqa: E402

CAPTION_WIDTH = 300
LABELS = ("shows", "partly", "not")
SEED = 20261205


def sheets(run_dir: Path, out: Path, per_sheet: int, frames: int, only: set[str] | None = None) -> None:
    with Store.open_existing(run_dir) as store:
        tasks = store.tasks()
        samples = [sample for sample in store.samples() if sample.media_path and (only is None or sample.task_id in only)]
    random.Random(SEED).shuffle(samples)
    out.mkdir(parents=True, exist_ok=True)
    key = {f"k{index:03d}": {"task": sample.task_id, "strategy": sample.strategy} for index, sample in enumerate(samples)}
    (out / "key.json").write_text(json.dumps(key, indent=1))
    font = ImageFont.truetype(FONT, 12)
    keys = list(key)
    for start in range(0, len(samples), per_sheet):
        chunk = samples[start : start + per_sheet]
        sheet = Image.new("RGB", (CAPTION_WIDTH + frames * (FRAME[0] + PAD), len(chunk) * (FRAME[1] + PAD)), "white")
        draw = ImageDraw.Draw(sheet)
        for row, sample in enumerate(chunk):
            y = row * (FRAME[1] + PAD)
            task = tasks.get(sample.task_id)
            lines = [keys[start + row], *textwrap.wrap(task.description if task else "", 44)][:10]
            for number, line in enumerate(lines):
                draw.text((PAD, y + PAD + number * 14), line, fill="black", font=font)
            for column, frame in enumerate(frames_across(run_dir / sample.media_path, frames)):
                sheet.paste(frame, (CAPTION_WIDTH + column * (FRAME[0] + PAD), y))
        sheet.save(out / f"sheet-{start // per_sheet:02d}.png")
    print(f"{len(samples)} videos in {-(-len(samples) // per_sheet)} sheets under {out}; the key is {out / 'key.json'}")


def table(run_dir: Path, labels_path: Path, key_path: Path, tasks_file: Path | None = None) -> None:
    key = json.loads(key_path.read_text())
    labels = {}
    for line in labels_path.read_text().splitlines():
        if line.strip():
            row = json.loads(line)
            if row.get("label") not in LABELS:
                raise SystemExit(f"{labels_path}: label {row.get('label')!r} for {row.get('key')}; write one of {', '.join(LABELS)}")
            labels[(key[row["key"]]["task"], key[row["key"]]["strategy"])] = row["label"]
    with Store.open_existing(run_dir) as store:
        sentences = {task_id: task.description for task_id, task in store.tasks().items()}
        samples = store.samples()
    if tasks_file is not None:
        sentences |= {task.id: task.description for task in load_task_file(tasks_file)}
    print("| strategy | n | shows | partly | does not | RSR | requirements held | all held | whole sentence held | median s |")
    print("|---|---|---|---|---|---|---|---|---|---|")
    agreement: dict[str, dict[str, int]] = {"all held": Counter(), "whole sentence held": Counter()}
    strategies = list(dict.fromkeys(sample.strategy for sample in samples))
    for strategy in strategies:
        group = [sample for sample in samples if sample.strategy == strategy and sample.status != "error"]
        looked = [labels.get((sample.task_id, strategy), "not") if sample.status == "ok" else "not" for sample in group]
        missing = [sample.task_id for sample in group if sample.status == "ok" and (sample.task_id, strategy) not in labels]
        if missing:
            raise SystemExit(f"{strategy}: {len(missing)} rendered samples have no label (e.g. {missing[:3]})")
        held = [sample.score("requirements_held") for sample in group if sample.score("requirements_held") is not None]
        flags = {"all held": [sample.score("all_held") for sample in group]}
        flags["whole sentence held"] = [_sentence_held(sample, sentences[sample.task_id]) for sample in group]
        for name, values in flags.items():
            for value, label in zip(values, looked):
                agreement[name][("tp" if label == "shows" else "fp") if value else ("fn" if label == "shows" else "tn")] += 1
        n = len(group)
        shares = [f"{100 * looked.count(label) / n:.1f}%" for label in LABELS]
        rsr = f"{100 * sum(sample.status == 'ok' for sample in group) / n:.1f}%"
        held_text = f"{100 * sum(held) / len(held):.1f}%" if held else "–"
        flag_texts = [_share(values) for values in flags.values()]
        seconds = f"{median(sample.seconds or 0.0 for sample in group):.0f}"
        print(f"| {strategy} | {n} | {' | '.join(shares)} | {rsr} | {held_text} | {' | '.join(flag_texts)} | {seconds} |")
    print("\nthe checker against the labels (all strategies), as a test of \"shows\":")
    for name, counts in agreement.items():
        precision = counts["tp"] / max(counts["tp"] + counts["fp"], 1)
        recall = counts["tp"] / max(counts["tp"] + counts["fn"], 1)
        print(f"- {name}: precision {precision:.2f}, recall {recall:.2f} ({dict(counts)})")


def _sentence_held(sample: Sample, description: str) -> bool | None:
    """The stored score; for a run scored before it existed, all held and a checklist that reads the whole sentence."""
    stored = sample.score("sentence_held")
    if stored is not None or sample.score("all_held") is None:
        return stored
    checklist = extract(description)
    return bool(sample.score("all_held")) and not any(item.kind == "look" for item in checklist.requirements)


def _share(values: list[bool | None]) -> str:
    known = [bool(value) for value in values if value is not None]
    return f"{100 * sum(known) / len(known):.1f}%" if known else "–"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    commands = parser.add_subparsers(dest="command", required=True)
    make = commands.add_parser("sheets")
    make.add_argument("run_dir", type=Path)
    make.add_argument("--out", type=Path, required=True)
    make.add_argument("--per-sheet", type=int, default=6)
    make.add_argument("--frames", type=int, default=6)
    make.add_argument("--tasks", help="comma-separated task ids: sheets of their videos only")
    tabulate = commands.add_parser("table")
    tabulate.add_argument("run_dir", type=Path)
    tabulate.add_argument("--labels", type=Path, required=True)
    tabulate.add_argument("--key", type=Path, help="default: the labels file's folder/key.json")
    tabulate.add_argument("--tasks-file", type=Path, help="the sentences, for a run imported without them (bench import)")
    args = parser.parse_args()
    if args.command == "sheets":
        sheets(args.run_dir, args.out, args.per_sheet, args.frames, set(args.tasks.split(",")) if args.tasks else None)
    else:
        table(args.run_dir, args.labels, args.key or args.labels.parent / "key.json", args.tasks_file)


if __name__ == "__main__":
    main()
