"""What every block writes with: colours, TeX literals, the formula written above (or below) a drawing."""

from __future__ import annotations

import math

from manimgen.agent.formulas import latex
from manimgen.checks import Requirement
from manimgen.checks.colours import colour_word
from manimgen.checks.extract import NAMED_FORMULAS


NAMED_LATEX = {
    "quadratic formula": r"x = \frac{-b \pm \sqrt{b^2 - 4ac}}{2a}",
    "pythagorean theorem": r"a^2 + b^2 = c^2",
    "euler's identity": r"e^{i\pi} + 1 = 0",
}


SHAPE_CODE = {
    "circle": "Circle(radius=0.8, color={colour})",
    "dot": "Dot(radius=0.12, color={colour})",
    "ball": "Circle(radius=0.4, color={colour}, fill_opacity=1)",
    "square": "Square(side_length=1.6, color={colour})",
    "rectangle": "Rectangle(width=2.4, height=1.4, color={colour})",
    "box": "Square(side_length=1.2, color={colour})",
    "triangle": "Triangle(color={colour}).scale(1.1)",
    "pentagon": "RegularPolygon(5, color={colour}).scale(1.1)",
    "hexagon": "RegularPolygon(6, color={colour}).scale(1.1)",
    "octagon": "RegularPolygon(8, color={colour}).scale(1.1)",
    "star": "Star(color={colour}).scale(0.9)",
    "ellipse": "Ellipse(width=3, height=1.6, color={colour})",
}


MANIM_COLOURS = {"brown": "DARK_BROWN"}
"""Colour words whose Manim constant is not the word in capitals."""


DIRECTIONS = {"left": "LEFT", "right": "RIGHT", "up": "UP", "down": "DOWN"}


MOST_SHAPES = 40
"""The most copies of a shape one scene lays out in a grid (a 6 by 6 grid of squares, 12 dots in 3 groups)."""


ARROW_COLOURS = ("YELLOW", "GREEN", "RED", "BLUE", "ORANGE", "PURPLE")


def manim_colour(word: str | None, default: str) -> str:
    """Manim's constant for a colour word; anything else (an edited checklist can say anything) is `default`."""
    name = colour_word(word) if word else None
    return MANIM_COLOURS.get(name, name.upper()) if name else default


def tex_literal(tex: str) -> str:
    """`tex` as a Python literal in the emitted scene: a raw string where one can hold it, so a reader sees the TeX."""
    if "'" in tex or tex.endswith("\\"):
        return repr(tex)
    return f"r'{tex}'"


def formula_tex(formula: Requirement) -> str:
    text = formula.text or ""
    named = next((NAMED_LATEX[name] for name, written in NAMED_FORMULAS.items() if written == text), None)
    return named or latex(text)


def heading(formulas: list[Requirement]) -> list[str]:
    """A formula the sentence writes beside a drawing, written first: at the top, or at the bottom when asked below it."""
    if not formulas:
        return []
    return [f"title = MathTex({tex_literal(formula_tex(formulas[0]))}).to_edge({'DOWN' if below(formulas) else 'UP'})", "self.play(Write(title))"]


def below(formulas: list[Requirement]) -> bool:
    """Whether the sentence asks for its formula below the drawing ("write 3 × 4 = 12 below them")."""
    return bool(formulas) and ", below the drawing" in formulas[0].phrase


def heading_side(formulas: list[Requirement]) -> str:
    """Which side of the formula the drawing goes: under a formula at the top, over one at the bottom."""
    return "UP" if below(formulas) else "DOWN"


def only_kinds(items: list[Requirement], kinds: set[str]) -> bool:
    return all(item.kind in kinds for item in items)


def tick_step(low: float, high: float) -> float:
    span = max(high - low, 1e-9)
    raw = span / 8
    magnitude = 10 ** math.floor(math.log10(raw))
    return next(factor * magnitude for factor in (1, 2, 5, 10) if factor * magnitude >= raw)


def number_text(text: str | None) -> float | None:
    """A label or value that is a plain number, as one; None for anything else ("r", "AB")."""
    try:
        return float(text or "")
    except ValueError:
        return None
