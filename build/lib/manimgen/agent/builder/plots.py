"""Number lines and axes: a dot moving or counting along a line; curves with their ranges, colours, labels and
named axes, a shaded area, a dot along a curve, tangents and marked crossings."""

from __future__ import annotations

import math
import re
from collections.abc import Callable
from typing import Any

import numpy as np

from manimgen.agent.builder.common import heading, manim_colour, only_kinds, tex_literal, tick_step
from manimgen.agent.formulas import NotAFormula, latex, parse
from manimgen.checks import Requirement
from manimgen.checks.extract import number


def number_line(items: list[Requirement], formulas: list[Requirement]) -> list[str] | None:
    ranges = [item for item in items if item.kind == "range" and item.what == "number line"]
    moves = [item for item in items if item.kind == "move" and item.high is not None]
    lines = [item for item in items if item.kind == "object" and item.what == "number line"]
    if not (ranges or lines) or not only_kinds(items, {"object", "range", "text", "move"}) or len(formulas) > 1:
        return None
    if any(item.kind == "object" and item.what not in ("number line", "dot") for item in items):
        return None
    ends = [value for move in moves for value in (move.low, move.high) if value is not None]
    low, high = (ranges[0].low or 0.0, ranges[0].high or 10.0) if ranges else (min([0.0, *ends]), max([10.0, *ends]))
    step = 1 if high - low <= 20 else math.ceil((high - low) / 10)
    dot = next((item for item in items if item.kind == "object" and item.what == "dot"), None)
    body = [*heading(formulas), f"line = NumberLine(x_range=[{low:g}, {high:g}, {step}], length=11, include_numbers=True)", "self.play(Create(line))"]
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
    if not curves or not only_kinds([item for item in items if item.what != "axis"], {"object", "range", "trace", "mark", "tangent"}) or len(formulas) > 1:
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
        *heading(formulas),
        f"axes = Axes(x_range=[{x_low:g}, {x_high:g}, {tick_step(x_low, x_high)}], y_range=[{y_low:g}, {y_high:g}, {tick_step(y_low, y_high)}],",
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
    step = tick_step(smallest, largest)
    headroom = 0.02 * (largest - smallest)  # a curve's top a little below the axis' arrow tip, not under it
    return math.floor((smallest - headroom) / step) * step, math.ceil((largest + headroom) / step) * step
