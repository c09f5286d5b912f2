from manim import *


class Lesson(Scene):
    def construct(self):
        axes = Axes(
            x_range=[-4, 4, 1],
            y_range=[-5, 7, 1],
            x_length=7.5,
            y_length=6.8,
            axis_config={"font_size": 24, "tip_width": 0.2, "tip_height": 0.2},
            y_axis_config={"numbers_to_include": [-2, 2, 4, 6]},
            x_axis_config={"numbers_to_include": [-4, -3, -1, 1, 3, 4]},
        ).to_edge(LEFT, buff=0.4)
        self.play(Create(axes), run_time=1.5)

        parabola = axes.plot(lambda x: x**2 - 4, x_range=[-3.3, 3.3], color=BLUE)
        equation = MathTex("y = x^2 - 4", font_size=44, color=BLUE).to_corner(UR, buff=0.7)
        self.play(Create(parabola), Write(equation), run_time=2)

        left_root = Dot(axes.c2p(-2, 0), radius=0.12, color=YELLOW)
        right_root = Dot(axes.c2p(2, 0), radius=0.12, color=YELLOW)
        left_label = MathTex("(-2, 0)", font_size=36, color=YELLOW).move_to(axes.c2p(-3.1, -1.6))
        right_label = MathTex("(2, 0)", font_size=36, color=YELLOW).move_to(axes.c2p(3.1, -1.6))

        self.play(FadeIn(left_root, scale=2), Write(left_label))
        self.play(Flash(left_root, color=YELLOW))
        self.play(FadeIn(right_root, scale=2), Write(right_label))
        self.play(Flash(right_root, color=YELLOW))

        note = VGroup(
            Text("crosses the x-axis", font_size=28),
            Text("at x = -2 and x = 2", font_size=28),
        ).arrange(DOWN, aligned_edge=LEFT)
        note.next_to(equation, DOWN, buff=0.5).to_edge(RIGHT, buff=0.4)
        self.play(FadeIn(note))
        self.wait(1.5)
