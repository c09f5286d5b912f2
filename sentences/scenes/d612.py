from manim import *


class Lesson(Scene):
    def construct(self):
        axes = Axes(
            x_range=[-4, 4, 1],
            y_range=[-4, 4, 1],
            x_length=6.6,
            y_length=6.6,
            axis_config={"font_size": 24, "tip_width": 0.2, "tip_height": 0.2},
        ).add_coordinates()
        equation = MathTex("y = mx", font_size=44).to_corner(UL, buff=0.7)
        self.play(Create(axes), Write(equation), run_time=1.5)

        slope = ValueTracker(-2)

        def current_line():
            m = slope.get_value()
            x_end = 4 if abs(m) < 1 else 4 / abs(m)
            return Line(axes.c2p(-x_end, -m * x_end), axes.c2p(x_end, m * x_end), color=YELLOW, stroke_width=5)

        line = always_redraw(current_line)
        origin_dot = Dot(axes.c2p(0, 0), color=RED)

        m_label = MathTex("m =", font_size=48)
        m_value = DecimalNumber(slope.get_value(), num_decimal_places=2, include_sign=True, font_size=48)
        m_value.add_updater(lambda number: number.set_value(slope.get_value()))
        readout = VGroup(m_label, m_value).arrange(RIGHT, buff=0.2).to_corner(UR, buff=0.7)
        m_value.add_updater(lambda number: number.next_to(m_label, RIGHT, buff=0.2))

        self.play(Create(line), FadeIn(origin_dot), FadeIn(readout))
        self.wait(0.5)
        self.play(slope.animate.set_value(2), run_time=6, rate_func=linear)
        self.wait(1.5)
