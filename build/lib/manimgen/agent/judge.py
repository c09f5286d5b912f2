"""Reference-free checks of a rendered candidate against its own sentence: what a user would notice
first, found without the benchmark's answer.

A render that succeeds can still miss the request: a video of one flat colour, a still picture where
the sentence asks for motion, a quoted text the code never writes, or (checks/layout.py) objects off
the frame, overlapping or too small to see. A strategy that holds several rendered candidates uses
these to choose among them and to ask for another when the best still has problems. Each check is one
registered rule (`SENTENCE_RULES`, and `DRAWN_RULES` for sample-judge): adding one is one function here.
"""

from __future__ import annotations

import ast
import functools
import re
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import av
import numpy as np

from manimgen.checks.layout import box_of, layout_findings, visible_entries
from manimgen.registry import Registry
from manimgen.render.frames import IMAGE_SUFFIXES, frames_at, sample_frames
from manimgen.render.result import RenderResult
from manimgen.syntax import parse

MOTION_WORDS = re.compile(
    r"\b(animat\w*|mov\w*|rotat\w*|spin\w*|transform\w*|morph\w*|grow\w*|shrink\w*|fad\w*|appear\w*|disappear\w*|"
    r"draw\w*|writ\w*|slid\w*|bounc\w*|travel\w*|trac\w*|turn\w*|becom\w*|chang\w*|expand\w*)\b",
    re.IGNORECASE,
)
QUOTED = re.compile(r"""(?<![\w'])'([^'\n]{2,60})'(?![\w'])|"([^"\n]{2,60})"|“([^”\n]{2,60})”""")
BLANK_SPREAD = 8
"""A frame whose channels vary by fewer levels than this everywhere shows nothing (one flat colour)."""
CHECK_FPS = 2.0
STILL_SHARE = 0.001
"""A frame that differs from the first in fewer than this share of its pixels shows the same picture."""
COUNT = re.compile(
    r"\b(two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|[2-9]|1[0-2])\s+(?:[a-z-]+\s+){0,2}?([a-z]+s)\b", re.IGNORECASE
)
MEANT_TO_OVERLAP = re.compile(r"\b(concentric|nested|stack\w*|on top of|overlap\w*|same (?:place|spot|position|centre|center))\b", re.IGNORECASE)
SAME_SPOT = 0.05
"""Shapes whose boxes' horizontal centres are this close (scene units) and that overlap lie on one spot."""
LAST = 1e9  # a time past any video's end: frames_at gives the last frame
PLAIN_TEXT_CLASSES = frozenset({"Text", "MarkupText", "Paragraph"})


@dataclass
class Candidate:
    """One rendered candidate as the judge's rules read it: its sentence, code and render; its frames and
    its final frame's objects are read once, on first use."""

    description: str
    code: str
    result: RenderResult

    @functools.cached_property
    def frames(self) -> np.ndarray | None:
        return _frames(self.result.output) if self.result.output is not None else None

    @functools.cached_property
    def final_entries(self) -> list[dict[str, Any]]:
        """The visible top-level objects and texts of the last recorded snapshot."""
        snapshots = [snapshot for snapshot in self.result.geometry or [] if isinstance(snapshot, dict)]
        if not snapshots:
            return []
        return [entry for entry in visible_entries(snapshots[-1]) if entry.get("parent") is None or entry.get("is_text")]


Rule = Callable[[Candidate], list[str]]
SENTENCE_RULES: Registry[Rule] = Registry("judge rule")
"""What a render visibly misses of its sentence; each rule says it in plain words, for a repair prompt."""
DRAWN_RULES: Registry[Rule] = Registry("drawn-content rule")
"""What the final frame's geometry shows wrongly for the sentence (sample-judge's extra rules)."""


@SENTENCE_RULES.register("motion", "the sentence asks for motion but the video holds one picture")
def _still(seen: Candidate) -> list[str]:
    output = seen.result.output
    if output is None or not MOTION_WORDS.search(seen.description):
        return []
    if output.suffix.lower() in IMAGE_SUFFIXES or _unchanging(seen.frames):
        return ["the sentence asks for motion, but the video shows one still picture: animate it with self.play(...)"]
    return []


@SENTENCE_RULES.register("blank", "every frame is one flat colour")
def _flat(seen: Candidate) -> list[str]:
    frames = seen.frames
    return ["every frame of the video is one flat colour: nothing visible is drawn"] if frames is not None and _blank(frames) else []


@SENTENCE_RULES.register("quoted", "a text the sentence quotes is never written by the code")
def _unwritten(seen: Candidate) -> list[str]:
    written = " ".join(_string_literals(seen.code)).lower()
    return [f"the sentence quotes {quoted!r}, but the code never writes that text" for quoted in quoted_texts(seen.description) if quoted.lower() not in written]


@DRAWN_RULES.register("piled", "copies of one shape on one spot where the sentence asks for several things")
def _piled(seen: Candidate) -> list[str]:
    counted = COUNT.search(seen.description)
    if not counted or MEANT_TO_OVERLAP.search(seen.description):
        return []
    problems = []
    for cls, pile in _piles(seen.final_entries):
        x0, y0, x1, y1 = box_of(pile[0]["box"]) or (0.0, 0.0, 0.0, 0.0)
        problems.append(
            f"the sentence asks for {counted.group(1).lower()} {counted.group(2)}, but {len(pile)} {cls} objects lie on one spot "
            f"around ({(x0 + x1) / 2:.2f}, {(y0 + y1) / 2:.2f}), so they look like one: place them apart "
            "(arrange, next_to or shift each)"
        )
    return problems


@DRAWN_RULES.register("caret-formula", "a formula written as plain Text with carets")
def _caret_formula(seen: Candidate) -> list[str]:
    return [
        f"the formula {text!r} is written as plain Text, carets and all: write it with MathTex(r\"...\")"
        for entry in seen.final_entries
        if entry.get("class") in PLAIN_TEXT_CLASSES and "^" in (text := str(entry.get("text") or ""))
    ]


def sentence_problems(description: str, code: str, result: RenderResult) -> list[str]:
    """What the render of `code` visibly misses of `description`, in plain words (empty when nothing)."""
    seen = Candidate(description, code, result)
    return [problem for rule in SENTENCE_RULES.values() for problem in rule(seen)]


def drawn_problems(description: str, result: RenderResult) -> list[str]:
    """What the final frame's geometry shows wrongly for the sentence: copies piled on one spot where the
    sentence asks for several things, and a formula written as plain text with carets."""
    seen = Candidate(description, "", result)
    return [problem for rule in DRAWN_RULES.values() for problem in rule(seen)]


def _piles(entries: list[dict[str, Any]]) -> list[tuple[str, list[dict[str, Any]]]]:
    """Groups of two or more same-class shapes (not texts) at one horizontal position that overlap."""
    by_class: dict[str, list[dict[str, Any]]] = {}
    for entry in entries:
        if not entry.get("is_text") and entry.get("parent") is None:
            by_class.setdefault(str(entry.get("class")), []).append(entry)
    piles = []
    for cls, members in by_class.items():
        boxes = [box_of(member["box"]) for member in members]
        pile = [
            member for member, box in zip(members, boxes)
            if box is not None and sum(1 for other in boxes if other is not None and _same_spot(box, other)) >= 2
        ]  # fmt: skip
        if len(pile) >= 2:
            piles.append((cls, pile))
    return piles


def _same_spot(a: tuple[float, float, float, float], b: tuple[float, float, float, float]) -> bool:
    centred = abs((a[0] + a[2]) / 2 - (b[0] + b[2]) / 2) <= SAME_SPOT
    overlapping = min(a[3], b[3]) > max(a[1], b[1]) or (a[1] == b[1] and a[3] == b[3])
    return centred and overlapping


def _string_literals(code: str) -> list[str]:
    """The code's string constants: where a text it shows must be written."""
    try:
        tree = parse(code)
    except (SyntaxError, ValueError):
        return []
    return [node.value for node in ast.walk(tree) if isinstance(node, ast.Constant) and isinstance(node.value, str)]


def problem_count(description: str, code: str, result: RenderResult, *, drawn: bool = False) -> int:
    """Layout findings plus sentence problems (and, with `drawn`, what the final frame shows wrongly) of one
    rendered candidate: lower is better."""
    count = len(layout_findings(result.geometry)) + len(sentence_problems(description, code, result))
    return count + (len(drawn_problems(description, result)) if drawn else 0)


def quoted_texts(description: str) -> list[str]:
    """The texts a sentence puts in quotes ('…', "…" or “…”), which the video should show."""
    return [next(group for group in match.groups() if group) for match in QUOTED.finditer(description)]


def _frames(output: Path) -> np.ndarray | None:
    """Frames sampled across the whole video (and its last, where a short animation ends); None when unreadable."""
    try:
        return np.concatenate([sample_frames(output, fps=CHECK_FPS), frames_at(output, [LAST])])
    except (ValueError, OSError, av.error.FFmpegError):
        return None


def _blank(frames: np.ndarray) -> bool:
    """Every frame is one flat colour."""
    spread = frames.reshape(len(frames), -1, 3)
    return bool(np.all(spread.max(axis=1).astype(int) - spread.min(axis=1).astype(int) < BLANK_SPREAD))


def _unchanging(frames: np.ndarray | None) -> bool:
    """Every frame is the first one (a video that holds one picture): beyond the encoder's noise, almost no
    pixel changes by more than a few levels."""
    if frames is None or len(frames) < 2:
        return False
    changed = np.abs(frames.astype(int) - frames[0].astype(int)).max(axis=-1) >= BLANK_SPREAD
    return bool(changed.mean(axis=(1, 2)).max() < STILL_SHARE)
