from manim import *


class Lesson(Scene):
    def construct(self):
        axes = Axes(
            x_range=[-4, 4, 1],
            y_range=[-6, 8, 2],
            x_length=7,
            y_length=6.5,
            axis_config={"font_size": 26, "tip_width": 0.2, "tip_height": 0.2},
        ).add_coordinates()
        axes_labels = axes.get_axis_labels(MathTex("x", font_size=32), MathTex("y", font_size=32))
        self.play(Create(axes), FadeIn(axes_labels), run_time=1.5)

        line = axes.plot(lambda x: 2 * x + 1, x_range=[-3, 3], color=BLUE)
        equation = MathTex("y = 2x + 1", font_size=44, color=BLUE).to_corner(UR, buff=0.8)
        self.play(Create(line), Write(equation), run_time=2)

        intercept = Dot(axes.c2p(0, 1), radius=0.1, color=RED)
        intercept_label = MathTex("(0, 1)", font_size=40, color=RED).move_to(axes.c2p(-2.2, 3.5))
        pointer = Arrow(
            intercept_label.get_bottom(),
            intercept.get_center(),
            buff=0.15,
            color=RED,
            max_tip_length_to_length_ratio=0.15,
        )
        self.play(FadeIn(intercept, scale=2))
        self.play(Write(intercept_label), GrowArrow(pointer))
        self.play(Flash(intercept, color=RED))
        self.wait(1.5)
