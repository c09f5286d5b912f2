"""Working Manim CE idioms for what teachers ask most, shown to the model before every sentence.

A small model's renders fail mostly on API it half-remembers (`NumberLine.jump_to`, `x_min=`,
ManimGL's `ShowCreation`, `sin` without numpy, 2-D points), and its scenes miss the sentence where it
does not know the idiom (a dot that should move along a curve drawn beside it, a formula as plain
`Text`). This file is one scene that uses each idiom once, correctly; it is part of the system
prompt of the strategies that use it, so llama.cpp evaluates it once and reuses it for every call,
and tests/test_idioms.py renders it, so it cannot drift from the installed Manim.
"""

from __future__ import annotations

IDIOMS = '''from manim import *
import numpy as np


class Idioms(Scene):
    def construct(self):
        # a number line with its numbers; a dot moving from 2 to 7 on it
        line = NumberLine(x_range=[0, 10, 1], length=10, include_numbers=True).to_edge(DOWN)
        dot = Dot(line.n2p(2), color=RED)
        self.play(Create(line), FadeIn(dot))
        self.play(dot.animate.move_to(line.n2p(7)), run_time=1.5)
        self.play(FadeOut(line, dot))

        # axes with numbers, a curve over an x-range, its label, a shaded area, a tangent, a dot along the curve
        axes = Axes(x_range=[-3, 3, 1], y_range=[-1, 9, 2], x_length=6, y_length=4, axis_config={"include_numbers": True})
        curve = axes.plot(lambda x: x**2, x_range=[-3, 3], color=BLUE)
        label = axes.get_graph_label(curve, label=MathTex("y = x^2"), x_val=2)
        area = axes.get_area(curve, x_range=[0, 2], color=GREEN, opacity=0.5)
        tangent = axes.plot(lambda x: 2 * x - 1, x_range=[-0.5, 2.5], color=YELLOW)
        mover = Dot(axes.c2p(-3, 9), color=RED)
        self.play(Create(axes), Create(curve), Write(label))
        self.play(FadeIn(area), Create(tangent))
        self.play(MoveAlongPath(mover, curve), run_time=2)
        wave = axes.plot(lambda x: np.sin(x), x_range=[-3, 3], color=ORANGE)
        self.play(ReplacementTransform(curve, wave))
        self.play(FadeOut(axes, wave, label, area, tangent, mover))

        # a value that updates while a tracker moves
        tracker = ValueTracker(0)
        number = always_redraw(lambda: DecimalNumber(tracker.get_value() ** 2, num_decimal_places=1).to_edge(UP))
        self.add(number)
        self.play(tracker.animate.set_value(3), run_time=1.5)
        self.remove(number)

        # formulas are MathTex; steps one per line, one after another; one expression becoming another
        steps = VGroup(MathTex("2x + 3 = 7"), MathTex("2x = 4"), MathTex("x = 2")).arrange(DOWN, buff=0.4)
        for step in steps:
            self.play(Write(step))
        self.play(FadeOut(steps))
        before, after = MathTex("(a + b)^2"), MathTex("a^2 + 2ab + b^2")
        self.play(Write(before))
        self.play(TransformMatchingTex(before, after))
        self.play(FadeOut(after))

        # a grid of 3 rows and 4 columns; a row of numbered boxes; two boxes swapping places
        grid = VGroup(*[Square(side_length=0.6, color=BLUE) for _ in range(12)]).arrange_in_grid(rows=3, cols=4, buff=0.1)
        self.play(Create(grid))
        self.play(FadeOut(grid))
        boxes = VGroup(*[VGroup(Square(side_length=0.8), Text(str(n), font_size=32)) for n in [5, 3, 8]]).arrange(RIGHT, buff=0.2)
        self.play(FadeIn(boxes))
        self.play(boxes[0].animate.set_color(YELLOW))
        self.play(Swap(boxes[0], boxes[1]))
        self.play(FadeOut(boxes))

        # vectors on a plane; a matrix; a shape that turns, stretches, changes colour and becomes another
        plane = NumberPlane(x_range=[-4, 4, 1], y_range=[-3, 3, 1])
        vector = Arrow(plane.c2p(0, 0), plane.c2p(2, 1), buff=0, color=YELLOW)
        self.play(Create(plane), GrowArrow(vector))
        self.play(FadeOut(plane, vector))
        matrix = Matrix([[1, 2], [3, 4]])
        self.play(Write(matrix))
        self.play(matrix.get_entries()[0].animate.set_color(YELLOW), matrix.get_entries()[3].animate.set_color(YELLOW))
        self.play(FadeOut(matrix))
        shape = Square(color=BLUE)
        self.play(Create(shape))
        self.play(Rotate(shape, angle=45 * DEGREES))
        self.play(shape.animate.stretch(2, dim=0).set_color(RED))
        self.play(Transform(shape, Circle(color=GREEN)))
        labelled = VGroup(Polygon(ORIGIN, RIGHT * 3, UP * 2, color=WHITE), MathTex("5").move_to(RIGHT * 1.8 + UP * 1.3))
        self.play(ReplacementTransform(shape, labelled))
        self.wait(0.5)
'''

ADVICE = (
    "Idioms of manim that work (the scene below renders as it is). Use them: MathTex for every formula, "
    "NumberLine.n2p and Axes.c2p to place things at values, axes.plot with x_range for curves (numpy for sin, "
    "sqrt, exp), 3-D points such as RIGHT * 2 + UP, Create (never ShowCreation), and self.play(...) so the "
    "change is seen."
)
