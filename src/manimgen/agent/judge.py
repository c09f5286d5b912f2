"""Reference-free checks of a rendered candidate against its own sentence: what a user would notice
first, found without the benchmark's answer.

A render that succeeds can still miss the request: a video of one flat colour, a still picture where
the sentence asks for motion, a quoted text the code never writes, or (agent/layout.py) objects off
the frame, overlapping or too small to see. A strategy that holds several rendered candidates uses
these to choose among them and to ask for another when the best still has problems.
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

import av
import numpy as np

from manimgen.agent.layout import layout_findings
from manimgen.render.frames import IMAGE_SUFFIXES, frames_at, sample_frames
from manimgen.render.result import RenderResult

MOTION_WORDS = re.compile(
    r"\b(animat\w*|mov\w*|rotat\w*|spin\w*|transform\w*|morph\w*|grow\w*|shrink\w*|fad\w*|appear\w*|disappear\w*|"
    r"draw\w*|writ\w*|slid\w*|bounc\w*|travel\w*|trac\w*|turn\w*|becom\w*|chang\w*|expand\w*)\b",
    re.IGNORECASE,
)
QUOTED = re.compile(r"""(?<![\w'])'([^'\n]{2,60})'(?![\w'])|"([^"\n]{2,60})"|“([^”\n]{2,60})”""")
BLANK_SPREAD = 8
"""A frame whose channels vary by fewer levels than this everywhere shows nothing (one flat colour)."""
CHECK_FPS = 2.0
LAST = 1e9  # a time past any video's end: frames_at gives the last frame


def sentence_problems(description: str, code: str, result: RenderResult) -> list[str]:
    """What the render of `code` visibly misses of `description`, in plain words (empty when nothing)."""
    problems = []
    output = result.output
    if output is not None:
        is_still = output.suffix.lower() in IMAGE_SUFFIXES
        if is_still and MOTION_WORDS.search(description):
            problems.append("the sentence asks for motion, but the scene is a still picture: animate it with self.play(...)")
        if _blank(output):
            problems.append("every frame of the video is one flat colour: nothing visible is drawn")
    written = " ".join(_string_literals(code)).lower()
    for quoted in quoted_texts(description):
        if quoted.lower() not in written:
            problems.append(f"the sentence quotes {quoted!r}, but the code never writes that text")
    return problems


def _string_literals(code: str) -> list[str]:
    """The code's string constants: where a text it shows must be written."""
    try:
        tree = ast.parse(code)
    except (SyntaxError, ValueError):
        return []
    return [node.value for node in ast.walk(tree) if isinstance(node, ast.Constant) and isinstance(node.value, str)]


def problem_count(description: str, code: str, result: RenderResult) -> int:
    """Layout findings plus sentence problems of one rendered candidate: lower is better."""
    return len(layout_findings(result.geometry)) + len(sentence_problems(description, code, result))


def quoted_texts(description: str) -> list[str]:
    """The texts a sentence puts in quotes ('…', "…" or “…”), which the video should show."""
    return [next(group for group in match.groups() if group) for match in QUOTED.finditer(description)]


def _blank(output: Path) -> bool:
    """Every frame sampled (and the last, where a short animation ends) is one flat colour."""
    try:
        frames = np.concatenate([sample_frames(output, fps=CHECK_FPS), frames_at(output, [LAST])])
    except (ValueError, OSError, av.error.FFmpegError):
        return False
    spread = frames.reshape(len(frames), -1, 3)
    return bool(np.all(spread.max(axis=1).astype(int) - spread.min(axis=1).astype(int) < BLANK_SPREAD))
