from manim import *
import numpy as np


class Lesson(Scene):
    def construct(self):
        axes = Axes(
            x_range=[0, 2 * PI + 0.4, PI / 2],
            y_range=[-1.5, 1.5, 0.5],
            x_length=10,
            y_length=4.5,
            axis_config={"font_size": 24, "tip_width": 0.2, "tip_height": 0.2},
            y_axis_config={"numbers_to_include": [-1, 1], "decimal_number_config": {"num_decimal_places": 0}},
        ).shift(DOWN * 0.5)
        tick_labels = VGroup(*[
            MathTex(text, font_size=30).next_to(axes.c2p(k * PI / 2, 0), side, buff=0.2)
            for k, text, side in [
                (1, r"\frac{\pi}{2}", DOWN),
                (2, r"\pi", DL),
                (3, r"\frac{3\pi}{2}", DOWN),
                (4, r"2\pi", DR),
            ]
        ])
        curve = axes.plot(np.sin, x_range=[0, 2 * PI], color=BLUE)
        curve_label = MathTex(r"y = \sin(x)", font_size=40, color=BLUE).to_corner(UL, buff=0.6)
        legend = VGroup(
            Text("slope > 0", font_size=28, color=GREEN),
            Text("slope < 0", font_size=28, color=RED),
        ).arrange(DOWN, aligned_edge=LEFT).to_corner(UR, buff=0.6)
        self.play(Create(axes), FadeIn(tick_labels), run_time=1.2)
        self.play(Create(curve), Write(curve_label), FadeIn(legend), run_time=1.5)

        position = ValueTracker(0)

        def tangent_line():
            x = position.get_value()
            slope = np.cos(x)
            color = GREEN if slope >= 0 else RED
            direction = axes.c2p(1, slope) - axes.c2p(0, 0)
            direction = direction / np.linalg.norm(direction)
            center = axes.c2p(x, np.sin(x))
            return Line(center - 1.3 * direction, center + 1.3 * direction, color=color, stroke_width=6)

        tangent = always_redraw(tangent_line)
        point = always_redraw(lambda: Dot(axes.c2p(position.get_value(), np.sin(position.get_value())), color=YELLOW))
        self.play(Create(tangent), FadeIn(point))
        self.play(position.animate.set_value(2 * PI), run_time=8, rate_func=linear)
        self.wait(1)
