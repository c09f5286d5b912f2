"""Frames of a render as RGB arrays: what the visual metrics compare."""

from __future__ import annotations

from collections.abc import Iterator
from fractions import Fraction
from pathlib import Path

import av
import numpy as np
from PIL import Image

IMAGE_SUFFIXES = {".png", ".jpg", ".jpeg"}


def sample_frames(path: Path | str, fps: float = 5.0) -> np.ndarray:
    """RGB uint8 frames (N, H, W, 3) taken `fps` times per second; an image is a one-frame video."""
    kept = list(iter_frames(path, fps))
    if not kept:
        raise ValueError(f"{path} holds no decodable video frames")
    return np.stack(kept)


def iter_frames(path: Path | str, fps: float) -> Iterator[np.ndarray]:
    """RGB uint8 frames taken `fps` times per second, one at a time (a long video never sits in memory).

    A frame is kept each time the playback clock crosses the next 1/fps tick, so 5 fps from a 15 fps
    video keeps frames 0, 3, 6, ...; an image is a one-frame video.
    """
    path = Path(path)
    if path.suffix.lower() in IMAGE_SUFFIXES:
        with Image.open(path) as image:
            yield np.asarray(image.convert("RGB"))
        return
    with av.open(str(path)) as container:
        stream = container.streams.video[0]
        rate = Fraction(stream.average_rate or stream.guessed_rate or 15)
        step = Fraction(1) / Fraction(fps).limit_denominator(1000)
        next_tick = Fraction(0)
        for index, frame in enumerate(container.decode(stream)):
            moment = Fraction(index) / rate
            if moment + Fraction(1, 10**6) >= next_tick:
                yield frame.to_ndarray(format="rgb24")
                while next_tick <= moment + Fraction(1, 10**6):
                    next_tick += step


def every_nth_frame(path: Path | str, fps: float = 5.0) -> np.ndarray:
    """RGB frames as the original ManimBench code samples them: every int(video fps / fps)-th decoded
    frame from the first (the same frames as `sample_frames` at 15, 30 or 60 fps, others at 24)."""
    path = Path(path)
    if path.suffix.lower() in IMAGE_SUFFIXES:
        return sample_frames(path, fps)
    with av.open(str(path)) as container:
        stream = container.streams.video[0]
        interval = max(1, int(float(stream.average_rate or stream.guessed_rate or 15) / fps))
        kept = [frame.to_ndarray(format="rgb24") for index, frame in enumerate(container.decode(stream)) if index % interval == 0]
    if not kept:
        raise ValueError(f"{path} holds no decodable video frames")
    return np.stack(kept)


def frames_at(path: Path | str, times: list[float]) -> np.ndarray:
    """RGB uint8 frames (len(times), H, W, 3) on screen at each time in seconds: the last frame that
    starts at or before it (so the end of a play call shows that animation's final state); past the
    end, the last frame. An image is the frame at every time.
    """
    path = Path(path)
    if path.suffix.lower() in IMAGE_SUFFIXES:
        with Image.open(path) as image:
            return np.repeat(np.asarray(image.convert("RGB"))[None], len(times), axis=0)
    pending = sorted(set(times))
    shown: dict[float, np.ndarray] = {}
    with av.open(str(path)) as container:
        stream = container.streams.video[0]
        rate = Fraction(stream.average_rate or stream.guessed_rate or 15)
        previous = None
        for index, frame in enumerate(container.decode(stream)):
            starts = Fraction(index) / rate
            while pending and starts > Fraction(pending[0]).limit_denominator(10**6) + Fraction(1, 10**6):
                shown[pending.pop(0)] = (frame if previous is None else previous).to_ndarray(format="rgb24")
            if not pending:
                break
            previous = frame
    if previous is None and not shown:
        raise ValueError(f"{path} holds no decodable video frames")
    for time in pending:
        shown[time] = previous.to_ndarray(format="rgb24")
    return np.stack([shown[time] for time in times])
