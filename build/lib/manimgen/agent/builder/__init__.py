"""The scene builder: a checklist that blocks cover compiled into plain Manim CE code the user owns.

A small model writes code that runs more often than code that shows what was asked; for what teachers
ask most the scene can be built instead. Each block (one module per family) draws one family with a
layout that stays inside the frame: a number line with a moving or counting dot, axes with curves
(their ranges, colours, labels, named axes, a shaded area, a dot along a curve, tangents, crossings:
`plots`), formulas one after another or one becoming another (`writing`), numbered boxes reordered by
swaps, searched, stacks and queues filled and emptied, trees, matrices and bar charts (`boxes`), arrows
to coordinates on a plane (`vectors`), labelled figures and fractions (`figures`), and force diagrams,
a dot going around a circle, and shapes that move, fall, turn, stretch, change colour, mirror across an
axis or become another shape (`motion`). A formula the sentence writes beside any of these goes on top
(or below, when asked there).

The builder answers when the checklist read the whole sentence (no clause left to look for,
checks/coverage.py) and every requirement is drawn by a block; asked for a partial scene, it also answers
when only some clause was left unread, and the model extends that scene with what no block covers.
Otherwise it returns None and the model writes the scene. The code imports nothing from manimgen and runs
with `manim`.
"""

from __future__ import annotations

from collections.abc import Callable

from manimgen.agent.builder.boxes import bar_chart, boxes, matrix, tree
from manimgen.agent.builder.figures import figure, fraction
from manimgen.agent.builder.motion import forces, orbit, shapes
from manimgen.agent.builder.plots import number_line, plot
from manimgen.agent.builder.vectors import vectors
from manimgen.agent.builder.writing import formula_steps
from manimgen.checks import Checklist, Requirement
from manimgen.checks.coverage import unread


def build(checklist: Checklist, partial: bool = False) -> str | None:
    """The scene for `checklist` when blocks cover all of it and it covers the sentence; None otherwise.
    With `partial`, the scene of what the checklist read even when a clause was left unread (for the model to extend)."""
    items = [item for item in checklist.requirements if item.kind != "look"]
    if not items or (unread(checklist) and not partial):
        return None
    formulas = [item for item in items if item.kind == "formula"]
    rest = [item for item in items if item.kind != "formula"]
    for block in BLOCKS:
        body = block(rest, formulas)
        if body is not None:
            return _scene(body)
    return None


def _scene(body: list[str]) -> str:
    lines = "\n".join(f"        {line}" if line else "" for line in body)
    return f"from manim import *\nimport numpy as np\n\n\nclass Lesson(Scene):\n    def construct(self):\n{lines}\n"


BLOCKS: tuple[Callable[[list[Requirement], list[Requirement]], list[str] | None], ...] = (
    number_line, plot, vectors, forces, orbit, figure, matrix, bar_chart, tree, boxes, fraction, shapes, formula_steps,
)
