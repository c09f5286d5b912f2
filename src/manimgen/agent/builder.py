"""The scene builder: a checklist that blocks cover compiled into plain Manim CE code the user owns.

A small model writes code that runs more often than code that shows what was asked; for what teachers
ask most the scene can be built instead. Each block draws one family with a layout that stays inside
the frame: a number line with a moving dot, axes with curves (their ranges, colours, labels, a shaded
area, a dot along a curve), formulas (one after another, or one becoming another), a row of numbered
boxes reordered by swaps, arrows to coordinates on a plane, and shapes that move, turn, stretch,
change colour or become another shape. A formula the sentence writes beside any of these goes on top.

The builder only answers when the checklist read the whole sentence (no clause left to look for,
checks/coverage.py), and every requirement is drawn by a block. Otherwise it returns
None and the model writes the scene. The code imports nothing from manimgen and runs with `manim`.
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable
from typing import Any

import numpy as np

from manimgen.agent.formulas import NotAFormula, latex, parse
from manimgen.checks import Checklist, Requirement
from manimgen.checks.colours import colour_word
from manimgen.checks.coverage import unread
from manimgen.checks.extract import NAMED_FORMULAS, number

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


def manim_colour(word: str | None, default: str) -> str:
    """Manim's constant for a colour word; anything else (an edited checklist can say anything) is `default`."""
    name = colour_word(word) if word else None
    return MANIM_COLOURS.get(name, name.upper()) if name else default


def build(checklist: Checklist) -> str | None:
    """The scene for `checklist` when blocks cover all of it and it covers the sentence; None otherwise."""
    items = [item for item in checklist.requirements if item.kind != "look"]
    if not items or unread(checklist):
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


def tex_literal(tex: str) -> str:
    """`tex` as a Python literal in the emitted scene: a raw string where one can hold it, so a reader sees the TeX."""
    if "'" in tex or tex.endswith("\\"):
        return repr(tex)
    return f"r'{tex}'"


def _tex(formula: Requirement) -> str:
    text = formula.text or ""
    named = next((NAMED_LATEX[name] for name, written in NAMED_FORMULAS.items() if written == text), None)
    return named or latex(text)


def _title(formulas: list[Requirement]) -> list[str]:
    """A formula the sentence writes beside a drawing, written at the top first."""
    if not formulas:
        return []
    return [f"title = MathTex({tex_literal(_tex(formulas[0]))}).to_edge(UP)", "self.play(Write(title))"]


def _only(items: list[Requirement], kinds: set[str]) -> bool:
    return all(item.kind in kinds for item in items)


# --- blocks --------------------------------------------------------------------------------------------


def number_line(items: list[Requirement], formulas: list[Requirement]) -> list[str] | None:
    ranges = [item for item in items if item.kind == "range" and item.what == "number line"]
    moves = [item for item in items if item.kind == "move" and item.high is not None]
    lines = [item for item in items if item.kind == "object" and item.what == "number line"]
    if not (ranges or lines) or not _only(items, {"object", "range", "text", "move"}) or len(formulas) > 1:
        return None
    if any(item.kind == "object" and item.what not in ("number line", "dot") for item in items):
        return None
    ends = [value for move in moves for value in (move.low, move.high) if value is not None]
    low, high = (ranges[0].low or 0.0, ranges[0].high or 10.0) if ranges else (min([0.0, *ends]), max([10.0, *ends]))
    step = 1 if high - low <= 20 else math.ceil((high - low) / 10)
    dot = next((item for item in items if item.kind == "object" and item.what == "dot"), None)
    body = [*_title(formulas), f"line = NumberLine(x_range=[{low:g}, {high:g}, {step}], length=11, include_numbers=True)", "self.play(Create(line))"]
    for move in moves:
        start = move.low if move.low is not None else low
        stops = [number(item) for item in move.items]
        if None in stops:
            return None
        body += [
            f"dot = Dot(line.n2p({start:g}), radius=0.12, color={manim_colour(dot.colour if dot else None, 'RED')})",
            "self.play(FadeIn(dot, scale=2))",
        ]
        for stop in [*stops, move.high]:
            body.append(f"self.play(dot.animate.move_to(line.n2p({stop:g})), run_time={1 if stops else 2})")
    return [*body, "self.wait(1)"]


def plot(items: list[Requirement], formulas: list[Requirement]) -> list[str] | None:
    curves = [item for item in items if item.kind == "object" and item.what == "curve" and item.text]
    if not curves or not _only(items, {"object", "range", "trace", "mark", "tangent"}) or formulas and not all(item.label for item in curves):
        return None
    if any(item.kind == "object" and item.what not in ("curve", "axes", "area", "dot") for item in items):
        return None
    try:
        parsed = [parse(item.text or "") for item in curves]
    except NotAFormula:
        return None
    span = next((item for item in items if item.kind == "range" and item.what in ("axes", "curve")), None)
    x_low, x_high = (span.low, span.high) if span is not None and span.low is not None and span.high is not None else (-4.0, 4.0)
    bounds = _y_bounds([expression.python for expression in parsed], x_low, x_high)
    if bounds is None:
        return None
    y_low, y_high = bounds
    body = [
        f"axes = Axes(x_range=[{x_low:g}, {x_high:g}, {_step(x_low, x_high)}], y_range=[{y_low:g}, {y_high:g}, {_step(y_low, y_high)}],",
        '            x_length=9, y_length=5.5, axis_config={"include_numbers": True, "font_size": 24}).to_edge(DOWN)',
        "self.play(Create(axes))",
    ]
    colours = ["BLUE", "RED", "GREEN", "YELLOW"]
    for index, (item, expression) in enumerate(zip(curves, parsed)):
        colour = manim_colour(item.colour, colours[index % len(colours)])
        body.append(f"curve{index} = axes.plot(lambda x: {expression.python}, x_range=[{x_low:g}, {x_high:g}], color={colour})")
        body.append(f"self.play(Create(curve{index}), run_time=2)")
        if item.label:
            body.append(f"label{index} = axes.get_graph_label(curve{index}, label=MathTex({tex_literal('y = ' + expression.latex)}), x_val={x_low + 0.8 * (x_high - x_low):g})")
            body.append(f"self.play(Write(label{index}))")
    area = next((item for item in items if item.kind == "range" and item.what == "area"), None)
    if area is not None and area.low is not None and area.high is not None:
        body += [f"area = axes.get_area(curve0, x_range=[{area.low:g}, {area.high:g}], color=GREEN, opacity=0.5)", "self.play(FadeIn(area))"]
    if any(item.kind == "trace" for item in items):
        body += [f"dot = Dot(axes.c2p({x_low:g}, {_value(parsed[0].python, x_low):g}), color=RED)", "self.play(FadeIn(dot))", "self.play(MoveAlongPath(dot, curve0), run_time=3)"]
    for index, tangent in enumerate(item for item in items if item.kind == "tangent" and item.low is not None):
        assert tangent.low is not None
        at, value = tangent.low, _value(parsed[0].python, tangent.low)
        slope = (_value(parsed[0].python, at + 1e-4) - _value(parsed[0].python, at - 1e-4)) / 2e-4
        reach = min(1.5, 0.25 * (x_high - x_low), *([0.95 * min(y_high - value, value - y_low) / abs(slope)] if slope else []))
        body += [
            f"touch{index} = Dot(axes.c2p({at:g}, {value:.4g}), color=YELLOW)",
            f"tangent{index} = Line(axes.c2p({at - reach:g}, {value - reach * slope:.4g}), axes.c2p({at + reach:g}, {value + reach * slope:.4g}), color=YELLOW)",
            f"self.play(FadeIn(touch{index}), Create(tangent{index}))",
        ]
    for mark in [item for item in items if item.kind == "mark"]:
        other = "0" if mark.other == "x-axis" else parsed[1].python if len(parsed) > 1 else None
        points = _crossings(parsed[0].python, other, x_low, x_high) if other is not None else []
        if not points or (mark.count is not None and len(points) != mark.count):
            return None
        for index, (x, y) in enumerate(points):
            body += [
                f"crossing{index} = Dot(axes.c2p({x:g}, {y:g}), radius=0.1, color=YELLOW)",
                f"coordinates{index} = MathTex(r'({x:g}, {y:g})', font_size=32).next_to(crossing{index}, UR, buff=0.1)",
                f"self.play(FadeIn(crossing{index}, scale=2), Write(coordinates{index}))",
            ]
    return [*body, "self.wait(1)"]


def _crossings(python: str, other: str, low: float, high: float) -> list[tuple[float, float]]:
    """Where the formula `python` meets `other` (a formula of x, or "0" for the x-axis) between `low` and `high`,
    found by sign changes on a fine grid and bisection; rounded to two places."""
    difference, value = _function(f"({python}) - ({other})"), _function(python)
    xs = np.linspace(low, high, 2001)
    with np.errstate(all="ignore"):
        ys = np.asarray(difference(xs), dtype=float) * np.ones_like(xs)
        found: list[tuple[float, float]] = []
        for left, right, y_left, y_right in zip(xs[:-1], xs[1:], ys[:-1], ys[1:]):
            if not (np.isfinite(y_left) and np.isfinite(y_right)) or y_left * y_right > 0 or (y_left == 0 and found and abs(found[-1][0] - left) < 1e-6):
                continue
            for _ in range(50):
                middle = (left + right) / 2
                y_middle = float(difference(middle))
                left, right, y_left = (middle, right, y_middle) if y_left * y_middle > 0 else (left, middle, y_left)
            x = round((left + right) / 2, 2) + 0.0
            if not found or abs(found[-1][0] - x) > 0.01:
                found.append((x, round(float(value(x)), 2) + 0.0))
    return found if len(found) <= 6 else []


def _function(python: str) -> Callable[[Any], Any]:
    """The numpy function of x that `python` (our own parse output: numpy and x only) spells."""
    return eval(f"lambda x: {python}", {"np": np, "__builtins__": {}})  # type: ignore[no-any-return]


def _value(python: str, x: float) -> float:
    """The formula's value at `x` (0 where it has none there)."""
    with np.errstate(all="ignore"):
        try:
            value = float(_function(python)(x))
        except (ArithmeticError, ValueError):
            return 0.0
    return value if math.isfinite(value) else 0.0


def _y_bounds(expressions: list[str], low: float, high: float) -> tuple[float, float] | None:
    xs = np.linspace(low, high, 200)
    values = []
    with np.errstate(all="ignore"):
        for python in expressions:
            function = _function(python)
            try:
                ys = np.asarray(function(xs), dtype=float) * np.ones_like(xs)
            except (ArithmeticError, ValueError):
                return None
            values += [value for value in ys if np.isfinite(value) and abs(value) < 1e4]
    if not values:
        return None
    smallest, largest = min(min(values), 0.0), max(max(values), 0.0)
    if largest - smallest < 1:
        largest += 1
    step = _step(smallest, largest)
    headroom = 0.02 * (largest - smallest)  # a curve's top a little below the axis' arrow tip, not under it
    return math.floor((smallest - headroom) / step) * step, math.ceil((largest + headroom) / step) * step


def _step(low: float, high: float) -> float:
    span = max(high - low, 1e-9)
    raw = span / 8
    magnitude = 10 ** math.floor(math.log10(raw))
    return next(factor * magnitude for factor in (1, 2, 5, 10) if factor * magnitude >= raw)


def formula_steps(items: list[Requirement], formulas: list[Requirement]) -> list[str] | None:
    if not formulas or not _only(items, {"sequence"}):
        return None
    turned = [item for item in formulas if item.other]
    if turned:
        first = turned[0]
        return [
            f"before = MathTex({tex_literal(_tex(first))}).scale(1.3)",
            f"after = MathTex({tex_literal(latex(first.other or ''))}).scale(1.3)",
            "self.play(Write(before))",
            "self.wait(0.5)",
            "self.play(TransformMatchingTex(before, after), run_time=2)",
            "self.wait(1)",
        ]
    shown = list(dict.fromkeys(_tex(item) for item in formulas))
    body = [f"steps = VGroup({', '.join(f'MathTex({tex_literal(tex)})' for tex in shown)}).arrange(DOWN, buff=0.5)", "steps.scale_to_fit_height(min(steps.height, 6))"]
    body += ["for step in steps:", "    self.play(Write(step))", "    self.wait(0.3)"]
    return [*body, "self.wait(1)"]


def boxes(items: list[Requirement], formulas: list[Requirement]) -> list[str] | None:
    order = next((item for item in items if item.kind == "order"), None)
    sequence = next((item for item in items if item.kind == "sequence" and item.items), None)
    texts = [item.text for item in items if item.kind == "text" and item.text]
    listed = texts or (sequence.items if sequence else [])
    if not listed or not _only(items, {"text", "order", "sequence"}) or formulas:
        return None
    body = [
        f"values = {listed!r}",
        "cells = VGroup(*[VGroup(Square(side_length=1.1, color=BLUE), Text(value, font_size=40)) for value in values]).arrange(RIGHT, buff=0.25)",
        "cells.scale_to_fit_width(min(cells.width, 12))",
    ]
    if sequence is not None:
        body += ["for cell in cells:", "    self.play(FadeIn(cell, shift=UP * 0.3))"]
    else:
        body.append("self.play(FadeIn(cells))")
    if order is not None and sorted(order.items) == sorted(listed) and order.items != listed:
        body += ["slots = [cell.get_center() for cell in cells]", "place = list(range(len(cells)))"]
        swaps = _adjacent_swaps if "bubble" in order.phrase + " ".join(texts) else _swaps
        for first, second in swaps(listed, order.items):
            body += [
                f"a, b = place[{first}], place[{second}]",
                "self.play(cells[a][0].animate.set_color(YELLOW), cells[b][0].animate.set_color(YELLOW), run_time=0.4)",
                f"self.play(cells[a].animate.move_to(slots[{second}]), cells[b].animate.move_to(slots[{first}]), path_arc=PI / 2)",
                "self.play(cells[a][0].animate.set_color(BLUE), cells[b][0].animate.set_color(BLUE), run_time=0.3)",
                f"place[{first}], place[{second}] = b, a",
            ]
    return [*body, "self.wait(1)"]


def _swaps(start: list[str], goal: list[str]) -> list[tuple[int, int]]:
    """Swaps of positions that turn `start` into `goal` (selection order: each place filled in turn)."""
    current, swaps = list(start), []
    for position, wanted in enumerate(goal):
        found = current.index(wanted, position)
        if found != position:
            current[position], current[found] = current[found], current[position]
            swaps.append((position, found))
    return swaps


def _adjacent_swaps(start: list[str], goal: list[str]) -> list[tuple[int, int]]:
    """Swaps of neighbours that turn `start` into `goal` (bubble sort's, one pair at a time)."""
    current, swaps = list(start), []
    rank = {value: goal.index(value) for value in goal}
    for end in range(len(current) - 1, 0, -1):
        for position in range(end):
            if rank[current[position]] > rank[current[position + 1]]:
                current[position], current[position + 1] = current[position + 1], current[position]
                swaps.append((position, position + 1))
    return swaps


def vectors(items: list[Requirement], formulas: list[Requirement]) -> list[str] | None:
    arrows = [item for item in items if item.kind == "object" and item.what == "arrow" and item.at]
    turns = [item for item in items if item.kind == "rotate" and item.degrees is not None]
    if not arrows or formulas or not _only(items, {"object", "text", "rotate"}) or len(arrows) != sum(item.kind == "object" for item in items):
        return None
    body = ["plane = NumberPlane(x_range=[-6, 6, 1], y_range=[-4, 4, 1])", "self.play(Create(plane))"]
    for index, item in enumerate(arrows):
        x, y = item.at or [0.0, 0.0]
        body += [
            f"arrow{index} = Arrow(plane.c2p(0, 0), plane.c2p({x:g}, {y:g}), buff=0, color={manim_colour(item.colour, 'YELLOW')})",
            f"tip{index} = MathTex(r'({x:g}, {y:g})', font_size=36).next_to(arrow{index}.get_end(), UR, buff=0.1)",
            f"self.play(GrowArrow(arrow{index}), Write(tip{index}))",
        ]
    for turn in turns:
        body += [f"self.play(FadeOut(tip0), Rotate(arrow0, angle={turn.degrees:g} * DEGREES, about_point=plane.c2p(0, 0)), run_time=1.5)"]
    return [*body, "self.wait(1)"]


def fraction(items: list[Requirement], formulas: list[Requirement]) -> list[str] | None:
    """A circle or a rectangle in equal parts, some of them shaded (as many as the sum written above it makes)."""
    parts = next((item for item in items if item.kind == "object" and item.what == "part" and item.count), None)
    shaded = next((item for item in items if item.kind == "object" and item.what == "shaded part"), None)
    whole = [item for item in items if item.kind == "object" and item.what in ("circle", "rectangle", "square")]
    if parts is None or parts.count is None or len(whole) > 1 or len(items) != 1 + (shaded is not None) + len(whole) or len(formulas) > 1:
        return None
    count, filled = parts.count, (shaded.count or 1) if shaded is not None else 0
    result = re.search(rf"=\s*(\d+)\s*/\s*{count}\s*$", formulas[0].text or "") if formulas and not filled else None
    filled = int(result[1]) if result else filled
    if filled > count:
        return None
    colour = manim_colour(shaded.colour if shaded else None, "BLUE")
    opacity = f"0.8 if index < {filled} else 0" if filled else "0"
    outline = manim_colour(whole[0].colour if whole else None, "WHITE")
    body = [*_title(formulas)]
    if whole and whole[0].what == "circle":
        body += [
            f"pieces = VGroup(*[Sector(radius=2, angle=TAU / {count}, start_angle=PI / 2 - (index + 1) * TAU / {count},",
            f"                         fill_color={colour}, fill_opacity={opacity}, stroke_color={outline}, stroke_width=3)",
            f"                  for index in range({count})])",
            f"whole = Circle(radius=2, color={outline})",
        ]
    else:
        body += [
            f"pieces = VGroup(*[Rectangle(width=6 / {count}, height=2.5, fill_color={colour}, fill_opacity={opacity},",
            f"                            stroke_color={outline}, stroke_width=3) for index in range({count})]).arrange(RIGHT, buff=0)",
            f"whole = SurroundingRectangle(pieces, buff=0, color={outline})",
        ]
    body += ["VGroup(whole, pieces).next_to(title, DOWN, buff=0.6)" if formulas else "VGroup(whole, pieces).move_to(ORIGIN)"]
    body += ["self.play(Create(whole))", "self.play(Create(pieces), run_time=2)"]
    if filled:
        body += [f"self.play(Indicate(VGroup(*pieces[:{filled}]), color={colour}))"]
    return [*body, "self.wait(1)"]


def shapes(items: list[Requirement], formulas: list[Requirement]) -> list[str] | None:
    objects = [item for item in items if item.kind == "object"]
    changes = [item for item in items if item.kind in ("transform", "colour", "rotate", "scale", "move", "disappear")]
    if not objects or not _only(items, {"object", "transform", "colour", "rotate", "scale", "move", "disappear", "relation"}):
        return None
    if any(item.what not in SHAPE_CODE or (item.count or 1) > 12 for item in objects) or len(formulas) > 1:
        return None
    targets = {item.other for item in changes if item.kind == "transform"}
    drawn = [item for item in objects if item.what not in targets or any(change.what == item.what for change in changes if change.kind == "transform")]
    drawn = [item for item in drawn if item.what not in targets]
    if not drawn:
        return None
    body = [*_title(formulas)]
    names = []
    for index, item in enumerate(drawn):
        code = SHAPE_CODE[item.what or ""].format(colour=manim_colour(item.colour, "BLUE"))
        if (item.count or 1) > 1:
            body.append(f"shape{index} = VGroup(*[{code} for _ in range({item.count})]).arrange_in_grid(rows={item.rows or _rows(item.count or 1)}, buff=0.4)")
        else:
            body.append(f"shape{index} = {code}")
        names.append(f"shape{index}")
    drawing = names[0]
    if len(names) > 1:
        drawing = "drawing"
        body.append(f"drawing = VGroup({', '.join(names)}).arrange(RIGHT, buff=1.2)")
    if any((item.count or 1) > 1 for item in drawn) or len(names) > 1:
        room = "5.2" if formulas else "6.5"
        body.append(f"{drawing}.scale_to_fit_height(min({drawing}.height, {room})).scale_to_fit_width(min({drawing}.width, 12))")
        if formulas:
            body.append(f"{drawing}.next_to(title, DOWN, buff=0.5)")
    body.append(f"self.play({', '.join(f'Create({name})' for name in names)})")
    first = names[0]
    for change in changes:
        body += _change(change, first, objects)
    return [*body, "self.wait(1)"]


def _rows(count: int) -> int:
    return 1 if count <= 6 else 2 if count <= 12 else 3


def _change(change: Requirement, name: str, objects: list[Requirement]) -> list[str]:
    if change.kind == "transform":
        target = next((item for item in objects if item.what == change.other), None)
        code = SHAPE_CODE.get(change.other or "", "Square(side_length=1.6, color={colour})").format(colour=manim_colour(target.colour if target else None, "RED"))
        return [f"self.play(Transform({name}, {code}.move_to({name})), run_time=1.5)"]
    if change.kind == "colour":
        return [f"self.play({name}.animate.set_color({manim_colour(change.colour, 'RED')}))"]
    if change.kind == "rotate":
        return [f"self.play(Rotate({name}, angle={change.degrees or 90:g} * DEGREES), run_time=1.5)"]
    if change.kind == "scale":
        factor = change.factor or 2
        if change.axis:
            return [f"self.play({name}.animate.stretch({factor:g}, dim={0 if change.axis == 'x' else 1}), run_time=1.5)"]
        return [f"self.play({name}.animate.scale({factor:g}), run_time=1.5)"]
    if change.kind == "move" and change.direction:
        return [f"self.play({name}.animate.shift({DIRECTIONS[change.direction]} * 3), run_time=1.5)"]
    if change.kind == "disappear":
        return [f"self.play(FadeOut({name}))"]
    return []


BLOCKS: tuple[Callable[[list[Requirement], list[Requirement]], list[str] | None], ...] = (
    number_line, plot, vectors, boxes, fraction, shapes, formula_steps,
)
