from manim import *


class Lesson(Scene):
    def construct(self):
        axis_style = {"font_size": 22, "tip_width": 0.15, "tip_height": 0.15}
        top_axes = Axes(
            x_range=[-2.5, 2.5, 1],
            y_range=[-3, 3, 1],
            x_length=7,
            y_length=3.3,
            axis_config=axis_style,
            x_axis_config={"numbers_to_include": [-2, 2]},
            y_axis_config={"numbers_to_include": [-2, 2]},
        ).move_to(LEFT * 1.8 + UP * 1.95)
        bottom_axes = Axes(
            x_range=[-2.5, 2.5, 1],
            y_range=[-4, 10, 2],
            x_length=7,
            y_length=3.3,
            axis_config=axis_style,
            x_axis_config={"numbers_to_include": [-2, -1, 1, 2]},
            y_axis_config={"numbers_to_include": [4, 8]},
        ).move_to(LEFT * 1.8 + DOWN * 1.95)
        bottom_axes.shift((top_axes.c2p(0, 0)[0] - bottom_axes.c2p(0, 0)[0]) * RIGHT)

        f_graph = top_axes.plot(lambda x: x**3 - 3 * x, x_range=[-2.1, 2.1], color=BLUE)
        f_label = MathTex("f(x) = x^3 - 3x", font_size=38, color=BLUE).next_to(top_axes, RIGHT, buff=0.4)
        self.play(Create(top_axes), run_time=1)
        self.play(Create(f_graph), Write(f_label), run_time=1.5)

        derivative_graph = bottom_axes.plot(lambda x: 3 * x**2 - 3, x_range=[-2.05, 2.05], color=ORANGE)
        derivative_label = MathTex("f'(x) = 3x^2 - 3", font_size=38, color=ORANGE)
        derivative_label.next_to(bottom_axes, RIGHT, buff=0.4)
        self.play(Create(bottom_axes), run_time=1)
        self.play(Create(derivative_graph), Write(derivative_label), run_time=1.5)

        connectors = VGroup()
        markers = VGroup()
        for x in [-1, 1]:
            turning_point = top_axes.c2p(x, x**3 - 3 * x)
            zero = bottom_axes.c2p(x, 0)
            markers.add(Dot(turning_point, color=YELLOW), Dot(zero, color=YELLOW))
            connectors.add(DashedLine(turning_point, zero, color=YELLOW, dash_length=0.12))

        self.play(FadeIn(markers))
        self.play(Create(connectors[0]), run_time=1.2)
        self.play(Create(connectors[1]), run_time=1.2)

        note = VGroup(
            Text("turning points of f", font_size=28, color=YELLOW),
            Text("= zeros of f'", font_size=28, color=YELLOW),
        ).arrange(DOWN, aligned_edge=LEFT)
        note.next_to(derivative_label, UP, buff=1.0).align_to(derivative_label, LEFT)
        self.play(Write(note))
        self.wait(1.5)
