"""A contact sheet of a study's rendered samples: the last frame of each, captioned, in one PNG.

    .venv/bin/python scripts/contact_sheet.py runs/NAME [--model M] [--strategy S] [--skip 0] [--limit 24] [--out sheet.png]

For looking at what the videos show (does the frame hold what the sentence asked?) without opening
them one by one; the report's gallery has the videos themselves.
"""

from __future__ import annotations

import argparse
import textwrap
from pathlib import Path

from PIL import Image, ImageDraw

from manimgen.bench.store import Store
from manimgen.render.frames import frames_at

TILE = (320, 180)
CAPTION_LINES = 4
LINE_HEIGHT = 12
LAST = 1e9


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("run_dir", type=Path)
    parser.add_argument("--model", help="only this model's samples (its label in the run)")
    parser.add_argument("--strategy", help="only this strategy's samples")
    parser.add_argument("--skip", type=int, default=0, help="leave out the first N rendered samples (the next sheet)")
    parser.add_argument("--limit", type=int, default=24)
    parser.add_argument("--columns", type=int, default=4)
    parser.add_argument("--out", type=Path, help="default: RUN_DIR/contact-sheet.png")
    args = parser.parse_args()
    with Store.open_existing(args.run_dir) as store:
        tasks = store.tasks()
        samples = [s for s in store.samples(model=args.model, strategy=args.strategy) if s.media_path][args.skip : args.skip + args.limit]
    if not samples:
        raise SystemExit(f"no rendered samples in {args.run_dir}; run `manimgen bench run` first")
    caption_height = CAPTION_LINES * LINE_HEIGHT + 4
    rows = -(-len(samples) // args.columns)
    sheet = Image.new("RGB", (args.columns * TILE[0], rows * (TILE[1] + caption_height)), "white")
    draw = ImageDraw.Draw(sheet)
    for position, sample in enumerate(samples):
        x, y = (position % args.columns) * TILE[0], (position // args.columns) * (TILE[1] + caption_height)
        frame = Image.fromarray(frames_at(args.run_dir / sample.media_path, [LAST])[0]).resize(TILE)
        sheet.paste(frame, (x, y))
        task = tasks.get(sample.task_id)
        findings = sample.score("layout_findings")
        head = f"{sample.task_id} {sample.model} {sample.strategy}" + (f" layout:{findings}" if findings else "")
        text = textwrap.wrap(f"{head}: {task.description if task else ''}", 52)[:CAPTION_LINES]
        for line_number, line in enumerate(text):
            draw.text((x + 3, y + TILE[1] + 2 + line_number * LINE_HEIGHT), line, fill="black")
    out = args.out or args.run_dir / "contact-sheet.png"
    sheet.save(out)
    print(out)


if __name__ == "__main__":
    main()
