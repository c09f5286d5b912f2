"""A contact sheet of a study's rendered samples: frames across each whole video, captioned, in one PNG.

    .venv/bin/python scripts/contact_sheet.py runs/NAME [--model M] [--strategy S] [--tasks ID,ID] [--skip 0] [--limit 12]
                                                         [--frames 6] [--out sheet.png]

Each sample is one row: its task id, strategy and sentence, then `--frames` frames spread evenly from
the first to the last (a still scene shows its one picture), so a change that never ends, a dot that
never moves or a step written over another shows as it would to a viewer. For labelling what the
videos show (shows / partly / does not); the report's gallery has the videos themselves.
"""

from __future__ import annotations

import argparse
import textwrap
from pathlib import Path

import av
from PIL import Image, ImageDraw, ImageFont

from manimgen.bench.store import Store
from manimgen.render.frames import frames_at

FRAME = (256, 144)
CAPTION_WIDTH = 260
CAPTION_CHARS = 40
LINE_HEIGHT = 13
PAD = 4
FONT = "DejaVuSans.ttf"
START = 0.05
"""The first frame is taken a little after the start: at t = 0 a scene has drawn nothing yet."""


def duration(video: Path) -> float:
    """The video's length in seconds (0 for a still picture)."""
    if video.suffix.lower() == ".png":
        return 0.0
    with av.open(str(video)) as container:
        stream = container.streams.video[0]
        if stream.duration is not None and stream.time_base is not None:
            return float(stream.duration * stream.time_base)
        return float(container.duration or 0) / av.time_base


def frames_across(video: Path, count: int) -> list[Image.Image]:
    """`count` frames from the first to the last, evenly in time."""
    length = duration(video)
    times = [length * (START + (1 - START) * index / max(count - 1, 1)) for index in range(count)] if length > 0 else [0.0]
    times[-1] = 1e9 if length > 0 else times[-1]
    return [Image.fromarray(frame).resize(FRAME) for frame in frames_at(video, times)]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("run_dir", type=Path)
    parser.add_argument("--model", help="only this model's samples (its label in the run)")
    parser.add_argument("--strategy", help="only this strategy's samples")
    parser.add_argument("--tasks", help="only these task ids, comma-separated")
    parser.add_argument("--skip", type=int, default=0, help="leave out the first N rendered samples (the next sheet)")
    parser.add_argument("--limit", type=int, default=12)
    parser.add_argument("--frames", type=int, default=6, help="frames per video, first to last")
    parser.add_argument("--out", type=Path, help="default: RUN_DIR/contact-sheet.png")
    args = parser.parse_args()
    wanted = set(args.tasks.split(",")) if args.tasks else None
    with Store.open_existing(args.run_dir) as store:
        tasks = store.tasks()
        samples = [
            sample for sample in store.samples(model=args.model, strategy=args.strategy)
            if sample.media_path and (wanted is None or sample.task_id in wanted)
        ][args.skip : args.skip + args.limit]  # fmt: skip
    if not samples:
        raise SystemExit(f"no rendered samples in {args.run_dir} for that choice; run `manimgen bench run` first")
    row_height = FRAME[1] + PAD
    sheet = Image.new("RGB", (CAPTION_WIDTH + args.frames * (FRAME[0] + PAD), len(samples) * row_height), "white")
    draw = ImageDraw.Draw(sheet)
    font = ImageFont.truetype(FONT, 11)
    for row, sample in enumerate(samples):
        y = row * row_height
        task = tasks.get(sample.task_id)
        head = f"{sample.task_id} · {sample.strategy}"
        lines = [head, *textwrap.wrap(task.description if task else "", CAPTION_CHARS)][: FRAME[1] // LINE_HEIGHT]
        for number, line in enumerate(lines):
            draw.text((PAD, y + PAD + number * LINE_HEIGHT), line, fill="black", font=font)
        for column, frame in enumerate(frames_across(args.run_dir / sample.media_path, args.frames)):
            sheet.paste(frame, (CAPTION_WIDTH + column * (FRAME[0] + PAD), y))
    out = args.out or args.run_dir / "contact-sheet.png"
    sheet.save(out)
    print(out)


if __name__ == "__main__":
    main()
