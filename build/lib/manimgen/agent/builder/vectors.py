"""Arrows from the origin of a plane: turned, scaled, added tip to tail, split into components."""

from __future__ import annotations

import math

from manimgen.agent.builder.common import ARROW_COLOURS, manim_colour, only_kinds
from manimgen.checks import Requirement


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
    if not arrows or formulas or not only_kinds(items, {"object", "text", "rotate", "scale"}):
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
