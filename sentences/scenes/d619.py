from manim import *
import numpy as np


class Lesson(Scene):
    def construct(self):
        unit = 0.64
        shift = np.array([-3.6, -0.96, 0])

        def point(x, y):
            return np.array([x * unit, y * unit, 0]) + shift

        right_angle = point(0, 0)
        end_of_long_leg = point(4, 0)
        end_of_short_leg = point(0, 3)

        triangle = Polygon(right_angle, end_of_long_leg, end_of_short_leg, color=WHITE, stroke_width=5)
        corner_mark = Square(side_length=0.3, color=WHITE, stroke_width=3)
        corner_mark.move_to(right_angle + np.array([0.15, 0.15, 0]))
        side_labels = VGroup(
            MathTex("3", font_size=30).move_to(point(0.35, 1.5)),
            MathTex("4", font_size=30).move_to(point(2, 0.35)),
            MathTex("5", font_size=30).move_to(point(1.75, 1.25)),
        )
        self.play(Create(triangle), Create(corner_mark))
        self.play(FadeIn(side_labels))

        squares = [
            (Polygon(point(0, 0), point(0, 3), point(-3, 3), point(-3, 0)), BLUE, "9"),
            (Polygon(point(0, 0), point(4, 0), point(4, -4), point(0, -4)), GREEN, "16"),
            (Polygon(point(4, 0), point(7, 4), point(3, 7), point(0, 3)), ORANGE, "25"),
        ]
        for square, color, area in squares:
            square.set_stroke(color, width=5)
            area_label = MathTex(area, font_size=48, color=color).move_to(square.get_center())
            self.play(Create(square), run_time=1)
            self.play(Write(area_label), run_time=0.6)

        equation = MathTex("9", "+", "16", "=", "25", font_size=60).move_to(RIGHT * 4.2)
        equation[0].set_color(BLUE)
        equation[2].set_color(GREEN)
        equation[4].set_color(ORANGE)
        pythagoras = MathTex("3^2 + 4^2 = 5^2", font_size=44).next_to(equation, DOWN, buff=0.6)
        self.play(Write(equation))
        self.play(Write(pythagoras))
        self.wait(1.5)
