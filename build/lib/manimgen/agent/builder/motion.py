"""Shapes that move, fall, turn, stretch, change colour, mirror across an axis or become another; force diagrams;
a dot going around a circle."""

from __future__ import annotations

import math

from manimgen.agent.builder.common import (
    ARROW_COLOURS, DIRECTIONS, MOST_SHAPES, SHAPE_CODE, formula_tex, heading, heading_side, manim_colour, only_kinds, tex_literal,
)  # fmt: skip
from manimgen.agent.formulas import latex
from manimgen.checks import Requirement


def shapes(items: list[Requirement], formulas: list[Requirement]) -> list[str] | None:
    objects = [item for item in items if item.kind == "object"]
    changes = [item for item in items if item.kind in ("transform", "colour", "rotate", "scale", "move", "disappear", "reflect")]
    if not objects or not only_kinds(items, {"object", "transform", "colour", "rotate", "scale", "move", "disappear", "relation", "reflect"}):
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
    body = [*heading(formulas)]
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
            body.append(f"{drawing}.next_to(title, {heading_side(formulas)}, buff=0.5)")
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


_BOX, _BALL = "Square(side_length=1.6, color={colour}, fill_opacity=0.3)", "Circle(radius=0.7, color={colour}, fill_opacity=0.3)"
BODIES = {"box": _BOX, "square": _BOX, "ball": _BALL, "circle": _BALL}
"""What a force acts on, drawn in the middle: larger and filled, unlike the plain shapes of SHAPE_CODE, so arrows start at its sides."""


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
        text = tex_literal(latex(arrow.label)) if arrow.label else tex_literal(formula_tex(formulas[0])) if formulas else None
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
