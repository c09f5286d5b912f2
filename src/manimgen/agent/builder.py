"""The scene builder: a checklist that blocks cover compiled into plain Manim CE code the user owns.

A small model writes code that runs more often than code that shows what was asked; for what teachers
ask most the scene can be built instead. Each block draws one family with a layout that stays inside
the frame: a number line with a moving or counting dot, axes with curves (their ranges, colours, labels,
named axes, a shaded area, a dot along a curve, tangents, crossings), formulas (one after another, or one
becoming another), numbered boxes (reordered by swaps, searched, stacks and queues filled and emptied),
arrows to coordinates on a plane, force diagrams, a dot going around a circle, labelled figures, matrices,
bar charts, trees, fractions, and shapes that move, fall, turn, stretch, change colour, mirror across an
axis or become another shape. A formula the sentence writes beside any of these goes on top (or below).

The builder answers when the checklist read the whole sentence (no clause left to look for,
checks/coverage.py) and every requirement is drawn by a block; asked for a partial scene, it also answers
when only some clause was left unread, and the model extends that scene with what no block covers.
Otherwise it returns None and the model writes the scene. The code imports nothing from manimgen and runs
with `manim`.
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
from manimgen.checks.extract import FIGURE_PARTS, NAMED_FORMULAS, number

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


def manim_colour(word: str | None, default: str) -> str:
    """Manim's constant for a colour word; anything else (an edited checklist can say anything) is `default`."""
    name = colour_word(word) if word else None
    return MANIM_COLOURS.get(name, name.upper()) if name else default


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
    """A formula the sentence writes beside a drawing, written first: at the top, or at the bottom when asked below it."""
    if not formulas:
        return []
    return [f"title = MathTex({tex_literal(_tex(formulas[0]))}).to_edge({'DOWN' if _below(formulas) else 'UP'})", "self.play(Write(title))"]


def _below(formulas: list[Requirement]) -> bool:
    """Whether the sentence asks for its formula below the drawing ("write 3 × 4 = 12 below them")."""
    return bool(formulas) and ", below the drawing" in formulas[0].phrase


def _from_title(formulas: list[Requirement]) -> str:
    """Which side of the formula the drawing goes: under a formula at the top, over one at the bottom."""
    return "UP" if _below(formulas) else "DOWN"


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
    names = [item.text for item in items if item.kind == "text" and item.what == "axis" and item.text]
    if not curves or not _only([item for item in items if item.what != "axis"], {"object", "range", "trace", "mark", "tangent"}) or len(formulas) > 1:
        return None
    if any(item.kind == "object" and item.what not in ("curve", "axes", "area", "dot", "line") for item in items):
        return None
    if sum(item.kind == "object" and item.what == "line" for item in items) > len(curves):
        return None
    try:
        parsed = [parse(_of_x(item.text or "")) for item in curves]
    except NotAFormula:
        return None
    span = next((item for item in items if item.kind == "range" and item.what in ("axes", "curve")), None) or next(
        (item for item in items if item.kind == "range" and item.what == "dot"), None
    )
    x_low, x_high = (span.low, span.high) if span is not None and span.low is not None and span.high is not None else (-4.0, 4.0)
    bounds = _y_bounds([expression.python for expression in parsed], x_low, x_high, reach=None if span is not None else Y_REACH)
    if bounds is None:
        return None
    y_low, y_high = bounds
    spans = [_visible_span(expression.python, x_low, x_high, y_low, y_high) for expression in parsed]
    if None in spans:
        return None
    body = [
        *_title(formulas),
        f"axes = Axes(x_range=[{x_low:g}, {x_high:g}, {_step(x_low, x_high)}], y_range=[{y_low:g}, {y_high:g}, {_step(y_low, y_high)}],",
        f'            x_length=9, y_length={5 if formulas else 5.5}, axis_config={{"include_numbers": True, "font_size": 24}}).to_edge(DOWN)',
        "self.play(Create(axes))",
    ]
    if len(names) == 2:
        body += [f"names = axes.get_axis_labels(x_label=Text({names[1]!r}, font_size=28), y_label=Text({names[0]!r}, font_size=28))", "self.play(Write(names))"]
    colours = ["BLUE", "RED", "GREEN", "YELLOW"]
    for index, (item, expression) in enumerate(zip(curves, parsed)):
        colour = manim_colour(item.colour, colours[index % len(colours)])
        start, end = spans[index] or (x_low, x_high)
        body.append(f"curve{index} = axes.plot(lambda x: {expression.python}, x_range=[{start:g}, {end:g}], color={colour})")
        body.append(f"self.play(Create(curve{index}), run_time=2)")
        if item.label:
            written = latex(item.text or "") if _of_x(item.text or "") != item.text else "y = " + expression.latex
            body.append(f"label{index} = axes.get_graph_label(curve{index}, label=MathTex({tex_literal(written)}), x_val={x_low + 0.8 * (x_high - x_low):g})")
            body.append(f"self.play(Write(label{index}))")
    area = next((item for item in items if item.kind == "range" and item.what == "area"), None)
    shade = manim_colour(next((item.colour for item in items if item.kind == "object" and item.what == "area"), None), "GREEN")
    if area is not None and area.low is not None and area.high is not None:
        body += [f"area = axes.get_area(curve0, x_range=[{area.low:g}, {area.high:g}], color={shade}, opacity=0.5)", "self.play(FadeIn(area))"]
    elif any(item.kind == "object" and item.what == "area" for item in items):
        if len(parsed) < 2:
            return None
        meets = _crossings(parsed[0].python, parsed[1].python, x_low, x_high)
        if len(meets) < 2:
            return None
        body += [
            f"area = axes.get_area(curve0, x_range=[{meets[0][0]:g}, {meets[-1][0]:g}], bounded_graph=curve1, color={shade}, opacity=0.5)",
            "self.play(FadeIn(area))",
        ]
    if any(item.kind == "trace" for item in items):
        start = (spans[0] or (x_low, x_high))[0]
        body += [f"dot = Dot(axes.c2p({start:g}, {_value(parsed[0].python, start):g}), color=RED)", "self.play(FadeIn(dot))", "self.play(MoveAlongPath(dot, curve0), run_time=3)"]
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
    marker = manim_colour(next((item.colour for item in items if item.kind == "object" and item.what == "dot"), None), "YELLOW")
    for mark in [item for item in items if item.kind == "mark"]:
        other = "0" if mark.other == "x-axis" else parsed[1].python if len(parsed) > 1 else None
        points = _crossings(parsed[0].python, other, x_low, x_high) if other is not None else []
        if not points or (mark.count is not None and len(points) != mark.count):
            return None
        for index, (x, y) in enumerate(points):
            body += [
                f"crossing{index} = Dot(axes.c2p({x:g}, {y:g}), radius=0.1, color={marker})",
                f"coordinates{index} = MathTex(r'({x:g}, {y:g})', font_size=32).next_to(crossing{index}, UR, buff=0.1)",
                f"self.play(FadeIn(crossing{index}, scale=2), Write(coordinates{index}))",
            ]
    return [*body, "self.wait(1)"]


def _of_x(text: str) -> str:
    """A formula of time ("v = 2t", "x = 3t") as the `y = …` of x the plot block draws; any other formula unchanged."""
    timed = re.fullmatch(r"\s*[a-z]\s*=\s*(?P<body>[^x]*\bt\b[^x]*|[^x]*\dt\b[^x]*)", text)
    return "y = " + re.sub(r"(?<=\d)t\b|\bt\b", "x", timed["body"]) if timed else text


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


Y_REACH = 20.0
"""How far up or down the axes go for a curve whose x-range the sentence left open (e^x on -4..4 would flatten the rest)."""


def _samples(python: str, low: float, high: float, count: int = 400) -> tuple[Any, Any] | None:
    """The formula on a grid of x from `low` to `high` (nan where it has no value); None when it cannot be evaluated."""
    xs = np.linspace(low, high, count)
    with np.errstate(all="ignore"):
        try:
            return xs, np.asarray(_function(python)(xs), dtype=float) * np.ones_like(xs)
        except (ArithmeticError, ValueError, TypeError):
            return None


def _visible_span(python: str, low: float, high: float, y_low: float, y_high: float) -> tuple[float, float] | None:
    """The longest run of x where the curve has a value inside the axes (ln(x) from just above 0, e^x up to the top)."""
    sampled = _samples(python, low, high)
    if sampled is None:
        return None
    xs, ys = sampled
    inside = np.isfinite(ys) & (ys >= y_low) & (ys <= y_high)
    best, start = (0, -1), None
    for index, flag in enumerate([*inside, False]):
        if flag and start is None:
            start = index
        elif not flag and start is not None:
            best = max(best, (index - start, start))
            start = None
    length, first = best
    if length < 2:
        return None
    return round(float(xs[first]), 3), round(float(xs[first + length - 1]), 3)


def _y_bounds(expressions: list[str], low: float, high: float, reach: float | None = None) -> tuple[float, float] | None:
    """The y-range that holds every curve (clipped at ±`reach` when given), in whole steps."""
    values, limit = [], reach if reach is not None else 1e4
    for python in expressions:
        sampled = _samples(python, low, high, 200)
        if sampled is None:
            return None
        values += [min(max(value, -limit), limit) for value in sampled[1] if np.isfinite(value) and abs(value) < 1e4]
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
    """Formulas one after another down the screen (a value the sentence names is shown inside one), or one becoming another."""
    inside = [item for item in items if item.kind == "text" and item.text and any(item.text in (formula.text or "") for formula in formulas)]
    if not formulas or not _only([item for item in items if item not in inside], {"sequence"}):
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
    shown = list({_tex(item): item for item in formulas}.items())
    written = [f"MathTex({tex_literal(tex)}, color={manim_colour(item.colour, 'WHITE')})" for tex, item in shown]
    body = [f"steps = VGroup({', '.join(written)}).arrange(DOWN, buff=0.5)"]
    if len(shown) == 1:
        body.append(f"steps.scale({2.2 if re.search(r', (?:big|large|huge)', shown[0][1].phrase) else 1.6})")
    body.append("steps.scale_to_fit_height(min(steps.height, 6)).scale_to_fit_width(min(steps.width, 12))")
    body += ["for step in steps:", "    self.play(Write(step))", "    self.wait(0.3)"]
    return [*body, "self.wait(1)"]


CONTAINER_LAYOUT = {
    "stack": ("UP", "0.1", "DOWN"),
    "queue": ("RIGHT", "0.15", "LEFT"),
    "linked list": ("RIGHT", "0.9", "UP"),
}
"""How each container stands (the way cells pile, the gap, where a new cell comes from): a stack bottom up, a queue
joined at the back, a linked list with arrows in its gaps."""


def boxes(items: list[Requirement], formulas: list[Requirement]) -> list[str] | None:
    """A row of numbered boxes (a stack, a queue or a linked list when the sentence names one), filled one after
    another when asked, and reordered by swaps into the order asked."""
    order = next((item for item in items if item.kind == "order"), None)
    sequence = next((item for item in items if item.kind == "sequence" and item.items), None)
    texts = [item.text for item in items if item.kind == "text" and item.text]
    picks = [item for item in items if item.kind == "highlight"]
    taken = [item.what for item in items if item.kind == "disappear"]
    listed = texts or (sequence.items if sequence else []) or (order.items if order and picks else [])  # "the even numbers from 1 to 10"
    container = next((item.what for item in items if item.kind == "object" and item.what in CONTAINER_LAYOUT), None)
    parts = {container, "node", "box", "arrow"} if container else {"box"}
    if not listed or not _only(items, {"text", "order", "sequence", "object", "highlight", "disappear"}) or formulas:
        return None
    if taken and (container not in ("stack", "queue") or any(value not in listed for value in taken)):
        return None
    if any(item.kind == "object" and item.what not in parts for item in items) or container and order:
        return None
    if any(value not in listed for item in picks for value in item.items):
        return None
    direction, gap, arrival = CONTAINER_LAYOUT.get(container or "", ("RIGHT", "0.25", "DOWN"))
    body = [
        f"values = {listed!r}",
        f"cells = VGroup(*[VGroup(Square(side_length=1.1, color=BLUE), Text(value, font_size=40)) for value in values]).arrange({direction}, buff={gap})",
        "cells.scale_to_fit_width(min(cells.width, 12)).scale_to_fit_height(min(cells.height, 7))",
    ]
    if container == "linked list":
        body.append("links = VGroup(*[Arrow(left.get_right(), right.get_left(), buff=0.05) for left, right in zip(cells, cells[1:])])")
    if sequence is not None or container in ("stack", "queue"):
        body += ["for cell in cells:", f"    self.play(FadeIn(cell, shift={arrival} * 0.6))"]
    else:
        body.append("self.play(FadeIn(cells))")
    if container == "linked list":
        body.append("self.play(LaggedStart(*[GrowArrow(link) for link in links], lag_ratio=0.3))")
    if order is not None and sorted(order.items) == sorted(listed) and order.items != listed:
        body += ["slots = [cell.get_center() for cell in cells]", "place = list(range(len(cells)))"]
        swaps = _adjacent_swaps if "swapping neighbours" in order.phrase else _swaps
        for first, second in swaps(listed, order.items):
            body += [
                f"a, b = place[{first}], place[{second}]",
                "self.play(cells[a][0].animate.set_color(YELLOW), cells[b][0].animate.set_color(YELLOW), run_time=0.4)",
                f"self.play(cells[a].animate.move_to(slots[{second}]), cells[b].animate.move_to(slots[{first}]), path_arc=PI / 2)",
                "self.play(cells[a][0].animate.set_color(BLUE), cells[b][0].animate.set_color(BLUE), run_time=0.3)",
                f"place[{first}], place[{second}] = b, a",
            ]
    for pick in picks:
        body += _picked(pick, listed)
    for value in taken:
        body += [f"self.play(FadeOut(cells[{listed.index(value or '')}], shift={'UP' if container == 'stack' else 'LEFT'} * 0.8))"]
    return [*body, "self.wait(1)"]


def _picked(pick: Requirement, listed: list[str]) -> list[str]:
    """A search's probes lit one after another (the one it finds green), or the values asked for lit together."""
    places = [listed.index(value) for value in pick.items]
    if pick.text is None:
        colour = manim_colour(pick.colour, "YELLOW")
        return [f"self.play({', '.join(f'cells[{place}][0].animate.set_fill({colour}, opacity=0.7)' for place in places)})"]
    body = []
    for place, value in zip(places, pick.items):
        body.append(f"self.play(cells[{place}][0].animate.set_fill(YELLOW, opacity=0.6), run_time=0.6)")
        found = value == pick.text
        body.append(f"self.play(cells[{place}][0].animate.set_fill({'GREEN' if found else 'GREY'}, opacity={0.8 if found else 0.4}), run_time=0.6)")
    return body


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


ARROW_COLOURS = ("YELLOW", "GREEN", "RED", "BLUE", "ORANGE", "PURPLE")
SUMMED = "their sum (added tip to tail)"
"""How extract's vectors rule begins the phrase of a sum drawn tip to tail."""


def vectors(items: list[Requirement], formulas: list[Requirement]) -> list[str] | None:
    """Arrows from the origin of a plane to the coordinates asked, turned or scaled when asked; a sum drawn tip to
    tail; x and y components as dashed lines; the matrix whose columns they are in the corner."""
    arrows = [item for item in items if item.kind == "object" and item.what == "arrow" and item.at]
    counted = [item for item in items if item.kind == "object" and item.what == "arrow" and not item.at]
    components = [item for item in items if item.kind == "object" and item.what == "line" and item.other == "components"]
    matrices = [item for item in items if item.kind == "object" and item.what == "matrix" and item.text]
    turns = [item for item in items if item.kind == "rotate" and item.degrees is not None]
    scales = [item for item in items if item.kind == "scale" and item.factor is not None and not item.axis]
    if not arrows or formulas or not _only(items, {"object", "text", "rotate", "scale"}):
        return None
    if len(arrows) + len(counted) + len(components) + len(matrices) != sum(item.kind == "object" for item in items):
        return None
    if any((item.count or 1) > len(arrows) for item in counted) or len(matrices) > 1 or (components and len(arrows) != 1):
        return None
    factor = scales[0].factor or 1.0 if scales else 1.0
    ends = [value for item in arrows for value in (item.at or [])] + [value * factor for value in arrows[0].at or []]
    reach = max([abs(value) for value in ends] + [3.0])
    x_extent, y_extent = max(7, math.ceil(reach * 7 / 4) + 1), max(4, math.ceil(reach) + 1)
    body = [f"plane = NumberPlane(x_range=[-{x_extent}, {x_extent}, 1], y_range=[-{y_extent}, {y_extent}, 1], x_length=14, y_length=8)", "self.play(Create(plane))"]
    if matrices:
        body += [f"matrix = Matrix({matrices[0].text}).scale(0.8).to_corner(UL)", "self.play(Write(matrix))"]
    for index, item in enumerate(arrows):
        x, y = item.at or [0.0, 0.0]
        body += [
            f"arrow{index} = Arrow(plane.c2p(0, 0), plane.c2p({x:g}, {y:g}), buff=0, color={manim_colour(item.colour, ARROW_COLOURS[index % len(ARROW_COLOURS)])})",
            f"tip{index} = MathTex(r'({x:g}, {y:g})', font_size=36).next_to(arrow{index}.get_end(), UR, buff=0.1)",
            f"self.play(GrowArrow(arrow{index}), Write(tip{index}))",
        ]
        if index == 1 and len(arrows) == 3 and arrows[2].phrase.startswith(SUMMED):
            x0, y0 = arrows[0].at or [0.0, 0.0]
            body += [f"self.play(arrow1.animate.shift(plane.c2p({x0:g}, {y0:g}) - plane.c2p(0, 0)), FadeOut(tip1), run_time=1.5)"]
    if components:
        x, y = arrows[0].at or [0.0, 0.0]
        body += [
            f"across = DashedLine(plane.c2p(0, 0), plane.c2p({x:g}, 0), color=ORANGE, stroke_width=6)",
            f"up = DashedLine(plane.c2p({x:g}, 0), plane.c2p({x:g}, {y:g}), color=ORANGE, stroke_width=6)",
            "self.play(Create(across), Create(up))",
        ]
    for turn in turns:
        body += [f"self.play(FadeOut(tip0), Rotate(arrow0, angle={turn.degrees:g} * DEGREES, about_point=plane.c2p(0, 0)), run_time=1.5)"]
    if scales and not turns:
        x, y = (value * factor for value in arrows[0].at or [0.0, 0.0])
        body += [
            f"scaled = Arrow(plane.c2p(0, 0), plane.c2p({x:g}, {y:g}), buff=0, color=arrow0.get_color())",
            f"scaled_tip = MathTex(r'({x:g}, {y:g})', font_size=36).next_to(scaled.get_end(), UR, buff=0.1)",
            "self.play(Transform(arrow0, scaled), Transform(tip0, scaled_tip), run_time=1.5)",
        ]
    return [*body, "self.wait(1)"]


BODIES = {"box": "Square(side_length=1.6, color={colour}, fill_opacity=0.3)", "ball": "Circle(radius=0.7, color={colour}, fill_opacity=0.3)",
          "circle": "Circle(radius=0.7, color={colour}, fill_opacity=0.3)", "square": "Square(side_length=1.6, color={colour}, fill_opacity=0.3)"}  # fmt: skip
"""What a force acts on, drawn in the middle."""


def forces(items: list[Requirement], formulas: list[Requirement]) -> list[str] | None:
    """A body with arrows that point the ways asked from its sides (ending at it when they push it), each with its
    label or the one formula the sentence gives, the ground under it when named, and the body moving when asked."""
    bodies = [item for item in items if item.kind == "object" and item.what in BODIES]
    arrows = [item for item in items if item.kind == "object" and item.what == "arrow" and item.direction]
    ground = [item for item in items if item.kind == "object" and item.what == "line" and item.other == "ground"]
    labels = {item.label for item in arrows if item.label}
    moves = [item for item in items if item.kind == "move" and item.direction]
    if len(bodies) != 1 or not arrows or len(formulas) > 1 or formulas and len(arrows) > 1:
        return None
    if len(bodies) + len(arrows) + len(ground) + len(moves) + sum(item.kind == "text" and item.text in labels for item in items) != len(items):
        return None
    body = [f"body = {BODIES[bodies[0].what or 'box'].format(colour=manim_colour(bodies[0].colour, 'BLUE'))}", "self.play(Create(body))"]
    if ground:
        body += ["ground = Line(LEFT * 6, RIGHT * 6, color=GREY).next_to(body, DOWN, buff=0)", "self.play(Create(ground))"]
    for index, arrow in enumerate(arrows):
        way = DIRECTIONS[arrow.direction or "right"]
        colour = manim_colour(arrow.colour, "YELLOW")
        if "pushing" in arrow.phrase:
            ends = f"body.get_critical_point(-{way}) - {way} * 2.2, body.get_critical_point(-{way})"
        else:
            ends = f"body.get_critical_point({way}), body.get_critical_point({way}) + {way} * 2.2"
        body.append(f"arrow{index} = Arrow({ends}, buff=0, color={colour}, stroke_width=8)")
        text = tex_literal(latex(arrow.label)) if arrow.label else tex_literal(_tex(formulas[0])) if formulas else None
        side = "RIGHT" if arrow.direction in ("up", "down") else "UP"
        body.append(f"self.play(GrowArrow(arrow{index}))")
        if text:
            body += [f"label{index} = MathTex({text}, color={colour}).next_to(arrow{index}, {side}, buff=0.15)", f"self.play(Write(label{index}))"]
    moved = [name for index in range(len(arrows)) for name in (f"arrow{index}", *([f"label{index}"] if arrows[index].label or formulas else []))]
    for move in moves:
        body.append(f"self.play(VGroup(body, {', '.join(moved)}).animate.shift({DIRECTIONS[move.direction or 'right']} * 2.5), run_time=2)")
    return [*body, "self.wait(1)"]


def orbit(items: list[Requirement], formulas: list[Requirement]) -> list[str] | None:
    """A dot going once around a circle (of the radius asked), a quarter turn per step so each step is seen."""
    trace = next((item for item in items if item.kind == "trace" and item.other == "circle" and item.what in ("dot", "ball")), None)
    objects = [item for item in items if item.kind == "object"]
    if trace is None or formulas or len(objects) + 1 != len(items) or any(item.what not in ("dot", "ball", "circle") or item.count for item in objects):
        return None
    radius = min(trace.high or 2.0, 3.3)
    colour = manim_colour(next((item.colour for item in objects if item.what in ("dot", "ball")), None), "RED")
    path = manim_colour(next((item.colour for item in objects if item.what == "circle"), None), "BLUE")
    plane = ["plane = NumberPlane(background_line_style={'stroke_opacity': 0.4})", "self.play(Create(plane))"] if "origin" in trace.phrase else []
    body = [
        *plane,
        f"path = Circle(radius={radius:g}, color={path})",
        "centre = Dot(ORIGIN, radius=0.05, color=GREY)",
        f"mover = Dot(path.point_at_angle(0), radius=0.14, color={colour})",
        "self.play(Create(path), FadeIn(centre))",
        "self.play(FadeIn(mover, scale=2))",
        "for _ in range(4):",
        "    self.play(Rotate(mover, angle=PI / 2, about_point=ORIGIN), rate_func=linear, run_time=0.8)",
    ]
    return [*body, "self.wait(1)"]


def tree(items: list[Requirement], formulas: list[Requirement]) -> list[str] | None:
    """A root above its children, each a labelled circle, joined by lines."""
    shape = next((item for item in items if item.kind == "object" and item.what == "node" and len(item.items) >= 2), None)
    joins = [item for item in items if item.kind == "object" and item.what == "line" and item.other == "tree"]
    if shape is None or formulas or any(item.kind != "text" and item is not shape and item not in joins for item in items):
        return None
    if any((item.text or "") not in shape.items for item in items if item.kind == "text"):
        return None
    root, *children = shape.items
    body = [
        f"root = VGroup(Circle(radius=0.45, color=BLUE), MathTex({tex_literal(latex(root))})).move_to(UP * 2)",
        f"children = VGroup(*[VGroup(Circle(radius=0.45, color=GREEN), MathTex(name)) for name in {[latex(child) for child in children]!r}])",
        "children.arrange(RIGHT, buff=1.2).move_to(DOWN * 1.2)",
        "edges = VGroup(*[Line(root[0].get_bottom(), child[0].get_top()) for child in children])",
        "self.play(FadeIn(root))",
        "self.play(LaggedStart(*[Create(edge) for edge in edges], lag_ratio=0.3), LaggedStart(*[FadeIn(child) for child in children], lag_ratio=0.3))",
    ]
    return [*body, "self.wait(1)"]


def fraction(items: list[Requirement], formulas: list[Requirement]) -> list[str] | None:
    """A circle or a rectangle in equal parts, some of them shaded (as many as the sum written above it makes)."""
    parts = next((item for item in items if item.kind == "object" and item.what == "part" and item.count), None)
    shaded = next((item for item in items if item.kind == "object" and item.what == "shaded part"), None)
    whole = [item for item in items if item.kind == "object" and item.what in ("circle", "rectangle", "square", "bar")]
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
    body += [f"VGroup(whole, pieces).next_to(title, {_from_title(formulas)}, buff=0.6)" if formulas else "VGroup(whole, pieces).move_to(ORIGIN)"]
    body += ["self.play(Create(whole))", "self.play(Create(pieces), run_time=2)"]
    if filled:
        body += [f"self.play(Indicate(VGroup(*pieces[:{filled}]), color={colour}))"]
    return [*body, "self.wait(1)"]


def shapes(items: list[Requirement], formulas: list[Requirement]) -> list[str] | None:
    objects = [item for item in items if item.kind == "object"]
    changes = [item for item in items if item.kind in ("transform", "colour", "rotate", "scale", "move", "disappear", "reflect")]
    if not objects or not _only(items, {"object", "transform", "colour", "rotate", "scale", "move", "disappear", "relation", "reflect"}):
        return None
    mirrors = [item for item in changes if item.kind == "reflect"]
    if mirrors and (len(objects) != 1 or (objects[0].count or 1) > 1 or len(changes) > 1 or formulas):
        return None
    if any(item.what not in SHAPE_CODE or (item.count or 1) > MOST_SHAPES for item in objects) or len(formulas) > 1:
        return None
    targets = {item.other for item in changes if item.kind == "transform"}
    drawn = [item for item in objects if item.what not in targets or any(change.what == item.what for change in changes if change.kind == "transform")]
    drawn = [item for item in drawn if item.what not in targets]
    if not drawn:
        return None
    body = [*_title(formulas)]
    if mirrors:
        body += ["plane = NumberPlane(background_line_style={'stroke_opacity': 0.4})", "self.play(Create(plane))"]
    names = []
    for index, item in enumerate(drawn):
        code = SHAPE_CODE[item.what or ""].format(colour=manim_colour(item.colour, "BLUE"))
        if 1 < (item.count or 1) <= len(ARROW_COLOURS) and "in different colours" in item.phrase:
            varied = SHAPE_CODE[item.what or ""].format(colour="colour")
            body.append(f"shape{index} = VGroup(*[{varied} for colour in [{', '.join(ARROW_COLOURS[: item.count or 1])}]]).arrange(RIGHT, buff=0.5)")
        elif (item.count or 1) > 1:
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
            body.append(f"{drawing}.next_to(title, {_from_title(formulas)}, buff=0.5)")
    start = next((edge for change in changes if (edge := _start_edge(change)) is not None), None)
    if start is not None:
        body.append(f"{drawing}.to_edge({start})")
    if mirrors:
        body.append(f"{drawing}.move_to([2.5, 1.5, 0])")
    body.append(f"self.play({', '.join(f'Create({name})' for name in names)})")
    first = names[0]
    for change in changes:
        body += _change(change, first, objects)
    return [*body, "self.wait(1)"]


def _rows(count: int) -> int:
    return 1 if count <= 6 else 2 if count <= 12 else math.ceil(count / 8)


OPPOSITE = {"left": "RIGHT", "right": "LEFT", "up": "DOWN", "down": "UP"}


def _start_edge(change: Requirement) -> str | None:
    """The edge a move starts from when it runs the whole screen: a fall from the top, a rise from the bottom, a move
    across the screen from the far side."""
    whole = (" falls", " from the bottom to the top", " across the screen")
    if change.kind != "move" or change.direction is None or not any(words in change.phrase for words in whole):
        return None
    return OPPOSITE[change.direction]


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
    if change.kind == "move" and _start_edge(change) is not None:
        speeding = ", rate_func=rate_functions.ease_in_quad" if " falls" in change.phrase else ""
        return [f"self.play({name}.animate.to_edge({DIRECTIONS[change.direction or 'down']}){speeding}, run_time=2)"]
    if change.kind == "move" and change.direction:
        return [f"self.play({name}.animate.shift({DIRECTIONS[change.direction]} * 3), run_time=1.5)"]
    if change.kind == "disappear":
        return [f"self.play(FadeOut({name}))"]
    if change.kind == "reflect":
        axis = "UP" if change.other == "y-axis" else "RIGHT"
        return [f"image = {name}.copy().set_fill(opacity=0.4)", f"self.play(image.animate.flip({axis}, about_point=ORIGIN), run_time=2)"]
    return []


def figure(items: list[Requirement], formulas: list[Requirement]) -> list[str] | None:
    """One triangle, square, rectangle or circle with its sides, vertices, radius, diameter or chord labelled where
    they are, its diagonals or other segments drawn, and its area or perimeter written below."""
    shapes_ = [item for item in items if item.kind == "object" and item.what != "line"]
    segments = [item.other or "" for item in items if item.kind == "object" and item.what == "line" and item.other]
    labels = [item for item in items if item.kind == "text" and item.what in FIGURE_PARTS]
    values = [item for item in items if item.kind == "text" and item.what in ("area", "perimeter", "circumference")]
    if len(shapes_) != 1 or shapes_[0].count or shapes_[0].what not in ("triangle", "square", "rectangle", "circle") or not (labels or segments):
        return None
    if len(labels) + len(values) != sum(item.kind == "text" for item in items) or len(segments) != sum(item.what == "line" for item in items):
        return None
    if not _only(items, {"object", "text"}) or len(formulas) > 1 or len(values) > 1:
        return None
    shape = shapes_[0]
    colour = manim_colour(shape.colour, "BLUE")
    body = _circle_figure(labels, segments, colour, formulas) if shape.what == "circle" else _polygon_figure(shape, labels, segments, colour, formulas)
    if body is None:
        return None
    for value in values:
        place = "move_to(figure.get_center_of_mass())" if value.phrase.endswith(" inside it") else "next_to(figure, DOWN, buff=1.0)"
        body += [f"value = MathTex(r'\\text{{{(value.what or '').capitalize()}}} = {latex(value.text or '')}').{place}", "self.play(Write(value))"]
    return [*body, "self.wait(1)"]


def _polygon_figure(shape: Requirement, labels: list[Requirement], segments: list[str], colour: str, formulas: list[Requirement]) -> list[str] | None:
    if any(segment != "diagonal" for segment in segments) or any(item.what not in ("side", "hypotenuse", "vertex") for item in labels):
        return None
    corners = _corners(shape, [item.text or "" for item in labels if item.what in ("side", "hypotenuse")])
    if corners is None or segments and len(corners) != 4:
        return None
    points = ", ".join(f"[{x:.2f}, {y:.2f}, 0]" for x, y in corners)
    body = [*_title(formulas), f"figure = Polygon({points}, color={colour})"]
    if formulas:
        body.append(f"figure.next_to(title, {_from_title(formulas)}, buff=0.8)")
    body.append("self.play(Create(figure))")
    right = shape.what == "triangle" and "right" in shape.phrase
    if right:
        body += ["start = figure.get_vertices()[0]", "mark = Polygon(start, start + [0.3, 0, 0], start + [0.3, 0.3, 0], start + [0, 0.3, 0], color=WHITE, stroke_width=2)", "self.play(Create(mark))"]
    body += ["points = figure.get_vertices()", "middle = np.mean(points, axis=0)"]
    if segments:
        body += ["diagonals = VGroup(Line(points[0], points[2]), Line(points[1], points[3])).set_color(YELLOW)", "self.play(Create(diagonals), run_time=1.5)"]
    count = len(corners)
    side_labels = [item.text or "" for item in labels if item.what in ("side", "hypotenuse")]
    if len(side_labels) == 1 and any(item.phrase.startswith(("each ", "all ")) for item in labels if item.what == "side"):
        side_labels *= count
    if right and side_labels and all(_positive(text) is not None for text in side_labels):
        side_labels.sort(key=lambda text: _positive(text) or 0.0)
    sides = iter(side_labels)
    vertices = iter(item.text or "" for item in labels if item.what == "vertex")
    order = [2, 0, 1] if right else list(range(count))  # a right triangle: the upright leg, the bottom, the hypotenuse
    placed = []
    for index in order:
        text = next(sides, None)
        if text is not None:
            placed.append(f"MathTex({tex_literal(latex(text))}).move_to(side({index}, {(index + 1) % count}))")
    for index in range(count):
        text = next(vertices, None)
        if text is not None:
            placed.append(f"MathTex({tex_literal(latex(text))}).move_to(corner({index}))")
    if placed:
        body += [
            "def outward(point, distance=0.4):",
            "    direction = point - middle",
            "    return point + distance * direction / np.linalg.norm(direction)",
            "def side(a, b):",
            "    return outward((points[a] + points[b]) / 2)",
            "def corner(a):",
            "    return outward(points[a], 0.35)",
            f"labels = VGroup({', '.join(placed)})",
            "self.play(LaggedStart(*[Write(label) for label in labels], lag_ratio=0.4))",
        ]
    return body


def _corners(shape: Requirement, sides: list[str]) -> list[tuple[float, float]] | None:
    """The figure's corners, the first at the bottom left: a right triangle with its legs in the ratio of the numbers
    given for them (3, 4, 5 -> legs 3 up and 4 across), else a figure of a good size in the middle."""
    if shape.what == "triangle":
        if "right" not in shape.phrase:
            return [(-2.6, -1.5), (2.6, -1.5), (0.0, 2.0)] if "equilateral" not in shape.phrase else [(-2.0, -1.6), (2.0, -1.6), (0.0, 1.86)]
        values = sorted(value for text in sides if (value := _positive(text)) is not None)
        up, across = (values[0], values[1]) if len(values) >= 2 else (3.0, 4.0)
        size = min(5.0 / across, 4.0 / up)
        width, height = across * size, up * size
        return [(-width / 2, -height / 2), (width / 2, -height / 2), (-width / 2, height / 2)]
    width, height = (3.5, 3.5) if shape.what == "square" else (5.0, 3.0)
    return [(-width / 2, -height / 2), (width / 2, -height / 2), (width / 2, height / 2), (-width / 2, height / 2)]


def _positive(text: str) -> float | None:
    value = _number_text(text)
    return value if value is not None and value > 0 else None


CIRCLE_SEGMENTS = {
    "radius": ("circle.get_center()", "circle.get_right()", "UP"),
    "diameter": ("circle.get_left()", "circle.get_right()", "UP"),
    "chord": ("circle.point_at_angle(210 * DEGREES)", "circle.point_at_angle(330 * DEGREES)", "DOWN"),
}
"""Where a circle's segment runs (from, to) and which side its label goes."""


def _circle_figure(labels: list[Requirement], segments: list[str], colour: str, formulas: list[Requirement]) -> list[str] | None:
    if any(item.what not in CIRCLE_SEGMENTS for item in labels) or any(segment not in CIRCLE_SEGMENTS for segment in segments):
        return None
    named = {item.what or "": item.text or "" for item in labels}
    drawn = list(dict.fromkeys([*segments, *named]))
    if "radius" in drawn and "diameter" in drawn:
        return None
    body = [*_title(formulas), f"figure = circle = Circle(radius=2, color={colour})"]
    if formulas:
        body.append(f"circle.next_to(title, {_from_title(formulas)}, buff=0.6)")
    body += ["centre = Dot(circle.get_center())", "self.play(Create(circle), FadeIn(centre))"]
    for index, part in enumerate(drawn):
        start, end, side = CIRCLE_SEGMENTS[part]
        body += [f"segment{index} = Line({start}, {end}, color=YELLOW)", f"self.play(Create(segment{index}))"]
        if part in named:
            body += [f"label{index} = MathTex({tex_literal(latex(named[part]))}).next_to(segment{index}, {side}, buff=0.15)", f"self.play(Write(label{index}))"]
    return body


def matrix(items: list[Requirement], formulas: list[Requirement]) -> list[str] | None:
    """Each matrix the sentence writes out, side by side, with the name it is given below."""
    written = [item for item in items if item.kind == "object" and item.what == "matrix" and item.text]
    names = [item.text for item in items if item.kind == "text" and item.text]
    if not written or formulas or len(written) + len(names) != len(items) or len(names) > 1:
        return None
    body = [f"matrix{index} = Matrix({item.text})" for index, item in enumerate(written)]
    body.append(f"matrices = VGroup({', '.join(f'matrix{index}' for index in range(len(written)))}).arrange(RIGHT, buff=1)")
    body += ["matrices.scale_to_fit_width(min(matrices.width, 12))", "self.play(Write(matrices))"]
    determinant = next((item for item in items if item.kind == "text" and item.what == "determinant"), None)
    if determinant is not None:
        body += [f"name = MathTex(r'\\det = {latex(determinant.text or '')}').next_to(matrices, RIGHT, buff=0.6)", "self.play(Write(name))"]
    elif names:
        body += [f"name = Text({names[0]!r}, font_size=40).next_to(matrices, DOWN, buff=0.5)", "self.play(Write(name))"]
    return [*body, "self.wait(1)"]


def bar_chart(items: list[Requirement], formulas: list[Requirement]) -> list[str] | None:
    """Bars of the heights the sentence lists, each with its value on top."""
    bars = [item for item in items if item.kind == "object" and item.what == "bar"]
    values = [_number_text(item.text) for item in items if item.kind == "text"]
    if len(bars) != 1 or formulas or len(values) < 2 or None in values or not _only(items, {"object", "text"}) or len(items) != 1 + len(values):
        return None
    heights = [int(value) if value.is_integer() else value for value in values if value is not None]
    if min(heights) < 0:
        return None
    top = _step(0, max(heights)) * math.ceil(max(heights) * 1.15 / _step(0, max(heights)))
    body = [
        f"chart = BarChart(values={heights!r}, y_range=[0, {top:g}, {_step(0, top):g}], x_length=9, y_length=5.5,",
        f"                 bar_colors=[{manim_colour(bars[0].colour, 'BLUE')}, GREEN, YELLOW, RED, PURPLE, ORANGE])",
        "values = chart.get_bar_labels(font_size=36)",
        "self.play(Create(chart), run_time=2)",
        "self.play(Write(values))",
    ]
    return [*body, "self.wait(1)"]


def _number_text(text: str | None) -> float | None:
    """A label or value that is a plain number, as one; None for anything else ("r", "AB")."""
    try:
        return float(text or "")
    except ValueError:
        return None


BLOCKS: tuple[Callable[[list[Requirement], list[Requirement]], list[str] | None], ...] = (
    number_line, plot, vectors, forces, orbit, figure, matrix, bar_chart, tree, boxes, fraction, shapes, formula_steps,
)
