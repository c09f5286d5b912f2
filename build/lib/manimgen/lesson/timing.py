"""A scene's timing set by its narration: each spoken line goes with a run of the scene's play/wait steps,
and that run lasts at least as long as the line.

The rendered scene is cut at the ends of its steps (the recorded timeline's times) into as many runs as
there are lines, in order; a run shorter than its line plus a pause is followed by a hold of its last
frame, a wait of exactly the missing time. So every line is spoken once, in order, while the animation
it goes with plays; no line is cut or skipped, and no two lines overlap, however long the voice takes.
The animation itself is never sped up or cut.
"""

from __future__ import annotations

from dataclasses import dataclass

PAUSE_S = 0.4
"""Silence after each line before the next one starts."""


@dataclass(frozen=True)
class Run:
    """A stretch of the rendered scene, [start, end) in its seconds, then `hold` seconds of its last frame."""

    start: float
    end: float
    hold: float

    @property
    def seconds(self) -> float:
        return self.end - self.start + self.hold


@dataclass(frozen=True)
class Cue:
    """When a line is spoken in the scene as paced, in seconds from the scene's start."""

    start: float
    end: float
    text: str


def runs_for(step_ends: list[float], duration: float, count: int) -> list[tuple[float, float]]:
    """`count` consecutive stretches of a `duration`-second scene, cut only at step ends, as even in steps as can be.

    With fewer steps than lines, the last stretches are empty (a point in time): their lines are said
    over a hold of the frame there, after the animation has played with the first.
    """
    cuts = sorted({round(t, 4) for t in step_ends if 0 < t < duration})
    bounds = [0.0, *cuts, duration]
    steps = len(bounds) - 1
    edges = [bounds[-((-index * steps) // count)] for index in range(count)] + [duration]
    return [(edges[index], edges[index + 1]) for index in range(count)]


def pace(step_ends: list[float], duration: float, lines: list[tuple[str, float]], pause: float = PAUSE_S) -> tuple[list[Run], list[Cue]]:
    """The runs of the paced scene and each line's cue, for `lines` of (text, spoken seconds)."""
    if not lines:
        return [Run(0.0, duration, 0.0)], []
    runs, cues, clock = [], [], 0.0
    for (start, end), (text, spoken) in zip(runs_for(step_ends, duration, len(lines)), lines):
        needed = spoken + pause
        run = Run(start, end, max(0.0, needed - (end - start)))
        cues.append(Cue(clock, clock + spoken, text))
        runs.append(run)
        clock += run.seconds
    return runs, cues


def frame_counts(runs: list[Run], fps: float, frames: int) -> list[int]:
    """How many times each of the scene's `frames` source frames is shown in the paced scene.

    A frame shows from index/fps; a run takes the frames that start inside it, and a hold repeats the
    run's last frame (the frame on screen at its end). Counts accumulate in time, so rounding never
    drifts across runs (a run that rounding put a frame ahead gives that frame back).
    """
    counts = [0] * frames
    emitted, clock = 0, 0.0
    for run in runs:
        first = min(frames - 1, max(0, round(run.start * fps)))
        last = min(frames, max(first, round(run.end * fps)))
        for index in range(first, last):
            counts[index] += 1
        emitted += last - first
        clock += run.seconds
        shown = last - 1 if last > first else max(0, first - 1)
        change = max(round(clock * fps) - emitted, -counts[shown])  # a hold, or a frame dropped where rounding ran ahead
        counts[shown] += change
        emitted += change
    return counts
