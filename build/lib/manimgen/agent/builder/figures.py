"""Labelled figures (a triangle, a square, a rectangle or a circle with its parts named where they are) and
fractions of a circle or a bar."""

from __future__ import annotations

import re

from manimgen.agent.builder.common import heading, heading_side, manim_colour, number_text, only_kinds, tex_literal
from manimgen.agent.formulas import latex
from manimgen.checks import Requirement
from manimgen.checks.extract import FIGURE_PARTS


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
    if not only_kinds(items, {"object", "text"}) or len(formulas) > 1 or len(values) > 1:
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
    body = [*heading(formulas), f"figure = Polygon({points}, color={colour})"]
    if formulas:
        body.append(f"figure.next_to(title, {heading_side(formulas)}, buff=0.8)")
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
    value = number_text(text)
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
    body = [*heading(formulas), f"figure = circle = Circle(radius=2, color={colour})"]
    if formulas:
        body.append(f"circle.next_to(title, {heading_side(formulas)}, buff=0.6)")
    body += ["centre = Dot(circle.get_center())", "self.play(Create(circle), FadeIn(centre))"]
    for index, part in enumerate(drawn):
        start, end, side = CIRCLE_SEGMENTS[part]
        body += [f"segment{index} = Line({start}, {end}, color=YELLOW)", f"self.play(Create(segment{index}))"]
        if part in named:
            body += [f"label{index} = MathTex({tex_literal(latex(named[part]))}).next_to(segment{index}, {side}, buff=0.15)", f"self.play(Write(label{index}))"]
    return body


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
    body = [*heading(formulas)]
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
    body += [f"VGroup(whole, pieces).next_to(title, {heading_side(formulas)}, buff=0.6)" if formulas else "VGroup(whole, pieces).move_to(ORIGIN)"]
    body += ["self.play(Create(whole))", "self.play(Create(pieces), run_time=2)"]
    if filled:
        body += [f"self.play(Indicate(VGroup(*pieces[:{filled}]), color={colour}))"]
    return [*body, "self.wait(1)"]
