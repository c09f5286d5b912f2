"""Mechanical repair: the lint findings whose fix is certain, applied without asking the model.

Small models answer a repair prompt with their previous code more often than not, and most of their
first-draft failures are mechanical: a ManimGL name (`ShowCreation`), a near-miss name
(`BLUE_DARK`), a keyword argument no parameter takes, a missing `from manim import *`, a line whose
brackets were never closed. Each such finding carries an `Edit`; this module applies one at a time,
re-lints, and stops when no finding left has a fix. Every applied edit is described in plain words
for the trace, so a reader sees what changed and why.
"""

from __future__ import annotations

from dataclasses import dataclass

from manimgen.agent.lint import lint
from manimgen.syntax import compile_error

MAX_FIXES = 50
"""A bound on edits per code: each removes a finding, but a bound makes termination obvious."""


@dataclass(frozen=True)
class Fixed:
    """The code after mechanical repair and what was changed, in order."""

    code: str
    notes: list[str]


def autofix(code: str) -> Fixed:
    """Apply certain fixes one by one until none is left; code whose edit breaks it keeps the earlier version."""
    notes: list[str] = []
    for _ in range(MAX_FIXES):
        edit = next((finding.fix for finding in lint(code) if finding.fix is not None), None)
        if edit is None:
            break
        changed = edit.apply(code)
        if changed == code or not _compiles(changed):
            break
        code = changed
        notes.append(f"line {edit.line}: {edit.note}")
    return Fixed(code, notes)


def _compiles(code: str) -> bool:
    return compile_error(code, "scene.py") is None
