"""Which recorded objects a viewer would call a circle, a square, an arrow, a curve, a number.

A shape word is matched on what the object looks like: its outline (render/appearance.py counts the
corners of the drawn path, so a Circle transformed into a square counts as a square), its
proportions and size, and its class where the class is what the viewer sees (an arrow, axes, a
matrix). Texts and formulas are compared after the same normalisation on both sides: LaTeX commands
as the symbols they print, no spaces, braces or brackets.
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable

from manimgen.checks.timeline import Entry

TEXT_CLASSES = frozenset({"Text", "MarkupText", "Paragraph", "Tex", "MathTex", "SingleStringMathTex", "DecimalNumber", "Integer", "Variable"})
TYPESET_CLASSES = frozenset({"Tex", "MathTex", "SingleStringMathTex", "DecimalNumber", "Integer"})
DOT_CLASSES = frozenset({"Dot", "Dot3D", "AnnotationDot", "LabeledDot", "Sphere"})
ARROW_CLASSES = frozenset({"Arrow", "Vector", "DoubleArrow", "CurvedArrow", "CurvedDoubleArrow", "LabeledArrow", "Arrow3D"})
LINE_CLASSES = frozenset({"Line", "DashedLine", "TangentLine", "Elbow"})
AXES_CLASSES = frozenset({"Axes", "NumberPlane", "ThreeDAxes", "ComplexPlane", "PolarPlane"})
CURVE_CLASSES = frozenset({"ParametricFunction", "FunctionGraph", "ImplicitFunction", "CubicBezier", "TracedPath"})
MATRIX_CLASSES = frozenset({"Matrix", "IntegerMatrix", "DecimalMatrix", "MobjectMatrix"})
SQUARE_RATIO = 1.2
DOT_SIZE = 0.35
TEX_SYMBOLS = {
    r"\times": "×", r"\div": "÷", r"\cdot": "", r"\pm": "±", r"\mp": "∓", r"\sqrt": "√", r"\pi": "π", r"\infty": "∞",
    r"\theta": "θ", r"\alpha": "α", r"\beta": "β", r"\leq": "≤", r"\geq": "≥", r"\le": "≤", r"\ge": "≥", r"\neq": "≠",
    r"\to": "→", r"\rightarrow": "→", r"\int": "∫", r"\sum": "∑", r"\degree": "°", r"^\circ": "°", r"\%": "%",
}  # fmt: skip
PLAIN_SYMBOLS = {"sqrt": "√", "pi": "π", "*": "", "·": "", "−": "-", "+-": "±", "²": "^2", "³": "^3"}


def _aspect(entry: Entry) -> float:
    width, height = entry.size
    return max(width, height) / max(min(width, height), 1e-6)


def _round_outline(entry: Entry) -> bool:
    return entry.corners == 0 and bool(entry.closed)


def is_circle(entry: Entry) -> bool:
    return entry.kind not in DOT_CLASSES and _round_outline(entry) and _aspect(entry) <= SQUARE_RATIO and max(entry.size) > DOT_SIZE


def is_dot(entry: Entry) -> bool:
    small_round = _round_outline(entry) and max(entry.size) <= DOT_SIZE and entry.fill_opacity > 0
    return entry.kind in DOT_CLASSES or small_round


def _corners(count: int) -> Callable[[Entry], bool]:
    return lambda entry: entry.corners == count and bool(entry.closed) and not entry.is_text


def is_square(entry: Entry) -> bool:
    return _corners(4)(entry) and _aspect(entry) <= SQUARE_RATIO


def is_rectangle(entry: Entry) -> bool:
    return _corners(4)(entry)


def is_ellipse(entry: Entry) -> bool:
    return _round_outline(entry) and (entry.kind == "Ellipse" or _aspect(entry) > SQUARE_RATIO) and entry.kind not in CURVE_CLASSES


def is_line(entry: Entry) -> bool:
    if entry.kind in LINE_CLASSES:
        return True
    return entry.kind in CURVE_CLASSES and _straight(entry)


def _straight(entry: Entry) -> bool:
    points = entry.samples or []
    if len(points) < 3:
        return False
    (x0, y0), (x1, y1) = points[0], points[-1]
    length = math.hypot(x1 - x0, y1 - y0)
    if length < 1e-6:
        return False
    return all(abs((x1 - x0) * (y0 - y) - (x0 - x) * (y1 - y0)) / length < 0.05 for x, y in points)


RIGHT_ANGLE_TOLERANCE = 4.0  # degrees
EQUAL_SIDES = 0.05  # sides within 5% of each other count as equal


def angles(entry: Entry) -> list[float]:
    """The polygon's inner angles in degrees, corner by corner (none without recorded corners)."""
    points = entry.vertices or []
    found = []
    for index, (x, y) in enumerate(points):
        (px, py), (nx, ny) = points[index - 1], points[(index + 1) % len(points)]
        first, second = math.atan2(py - y, px - x), math.atan2(ny - y, nx - x)
        turn = abs(math.degrees(first - second)) % 360
        found.append(min(turn, 360 - turn))
    return found


def sides(entry: Entry) -> list[float]:
    points = entry.vertices or []
    return [math.dist(point, points[(index + 1) % len(points)]) for index, point in enumerate(points)]


def _equal(first: float, second: float) -> bool:
    return abs(first - second) <= EQUAL_SIDES * max(first, second)


def has_form(entry: Entry, form: str) -> bool:
    """Whether a polygon's recorded corners make it `form`: a right (one angle 90°), equilateral (three equal
    sides), isosceles (two equal sides) triangle, or a regular polygon (all sides equal)."""
    lengths = sides(entry)
    if len(lengths) < 3:
        return False
    if form == "right":
        return any(abs(angle - 90) <= RIGHT_ANGLE_TOLERANCE for angle in angles(entry))
    if form == "isosceles":
        return any(_equal(lengths[index], lengths[index - 1]) for index in range(len(lengths)))
    return all(_equal(length, lengths[0]) for length in lengths)


def is_curve(entry: Entry) -> bool:
    return entry.kind in CURVE_CLASSES or (entry.kind in ("VMobject", "DashedVMobject") and not entry.closed and entry.corners == 0)


def is_area(entry: Entry) -> bool:
    """A filled region that is no plain shape word (axes' `get_area`, a region between curves, Riemann bars)."""
    return entry.fill_opacity >= 0.15 and not entry.is_text and entry.kind not in AXES_CLASSES | DOT_CLASSES and entry.kind != "Circle"


MATCHERS: dict[str, Callable[[Entry], bool]] = {
    "circle": is_circle,
    "dot": is_dot,
    "ball": lambda entry: is_circle(entry) or is_dot(entry),
    "node": lambda entry: is_circle(entry) or is_dot(entry) or is_rectangle(entry),
    "square": is_square,
    "rectangle": is_rectangle,
    "box": is_rectangle,
    "stack": is_rectangle,
    "queue": is_rectangle,
    "linked list": is_rectangle,
    "bar": lambda entry: is_rectangle(entry) or entry.kind == "BarChart",
    "triangle": _corners(3),
    "pentagon": _corners(5),
    "hexagon": _corners(6),
    "octagon": _corners(8),
    "polygon": lambda entry: bool(entry.closed) and (entry.corners or 0) >= 3 and not entry.is_text,
    "star": lambda entry: entry.kind in ("Star", "RegularPolygram") or (entry.corners or 0) >= 10,
    "ellipse": is_ellipse,
    "line": is_line,
    "arrow": lambda entry: entry.kind in ARROW_CLASSES,
    "number line": lambda entry: entry.kind in ("NumberLine", "UnitInterval"),
    "axes": lambda entry: entry.kind in AXES_CLASSES,
    "curve": is_curve,
    "area": is_area,
    "matrix": lambda entry: entry.kind in MATRIX_CLASSES or "matrix" in (entry.text or ""),
    "part": lambda entry: bool(entry.closed) and not entry.is_text and entry.kind not in DOT_CLASSES,
    "shaded part": lambda entry: bool(entry.closed) and not entry.is_text and entry.fill_opacity >= 0.3 and entry.kind not in DOT_CLASSES,
    "text": lambda entry: entry.is_text or entry.kind in TEXT_CLASSES,
}


def matcher(what: str | None) -> Callable[[Entry], bool] | None:
    """The test for a shape word; None for a word no recorded outline or class can show (a car, a pendulum)."""
    return MATCHERS.get((what or "").lower())


def normalise(text: str) -> str:
    """A text or formula as the symbols a viewer reads: `x^{2}` and `x^2`, `\\frac{1}{2}` and `1/2`, `3 \\times 4` and `3 × 4` agree;
    a TeX line break (`\\\\`) stays, since a formula broken over two lines is not the one asked."""
    normal = _fractions_as_slashes(text).replace("\\\\", " ⏎ ")
    for command, symbol in sorted(TEX_SYMBOLS.items(), key=lambda item: -len(item[0])):
        normal = normal.replace(command, symbol)
    normal = re.sub(r"\\(?:left|right|displaystyle|text|mathrm|mathbf|operatorname|[,;:!])", "", normal)
    normal = re.sub(r"\\(sin|cos|tan|ln|log|exp)", r"\1", normal)
    normal = normal.lower()
    for word, symbol in PLAIN_SYMBOLS.items():
        normal = normal.replace(word, symbol)
    return re.sub(r"[\s{}()\[\]\\$_]", "", normal)


def _fractions_as_slashes(text: str) -> str:
    """`\\frac{a}{b}` as `(a)/(b)`, braces nested inside either part included."""
    while (start := re.search(r"\\[dt]?frac\s*(?=\{)", text)) is not None:
        numerator, after = _braced(text, start.end())
        denominator, end = _braced(text, after)
        if numerator is None or denominator is None:
            return text
        text = f"{text[: start.start()]}({numerator})/({denominator}){text[end:]}"
    return text


def _braced(text: str, position: int) -> tuple[str | None, int]:
    """The contents of the balanced `{...}` group at `position` (spaces before it skipped), and where it ends."""
    while position < len(text) and text[position] == " ":
        position += 1
    if position >= len(text) or text[position] != "{":
        return None, position
    depth = 0
    for index in range(position, len(text)):
        depth += {"{": 1, "}": -1}.get(text[index], 0)
        if depth == 0:
            return text[position + 1 : index], index + 1
    return None, position


def numbers_in(text: str) -> list[float]:
    """The numbers a text shows ("x = 2" -> [2.0], "9.0" -> [9.0])."""
    found = []
    for token in re.findall(r"-?\d+(?:\.\d+)?", text.replace("−", "-")):
        try:
            found.append(float(token))
        except ValueError:
            continue
    return found
