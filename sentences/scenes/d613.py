from manim import *


class Lesson(Scene):
    def construct(self):
        axes = Axes(
            x_range=[-1, 4, 1],
            y_range=[-1, 10, 1],
            x_length=6,
            y_length=6.6,
            axis_config={"font_size": 24, "tip_width": 0.2, "tip_height": 0.2},
        ).add_coordinates().to_edge(LEFT, buff=0.6)
        curve = axes.plot(lambda x: x**2, x_range=[-1, 3.15], color=BLUE)
        curve_label = MathTex("y = x^2", font_size=40, color=BLUE).next_to(axes.c2p(3.15, 9.9), LEFT, buff=0.3)
        self.play(Create(axes), run_time=1.2)
        self.play(Create(curve), Write(curve_label), run_time=1.5)

        second_x = ValueTracker(3)

        def secant_slope():
            return second_x.get_value() + 1

        def secant_line():
            slope = secant_slope()
            x_left = max(-1, 1 + (-0.7 - 1) / slope)
            x_right = min(4, 1 + (10 - 1) / slope)
            return Line(
                axes.c2p(x_left, 1 + slope * (x_left - 1)),
                axes.c2p(x_right, 1 + slope * (x_right - 1)),
                color=YELLOW,
            )

        fixed_point = Dot(axes.c2p(1, 1), color=RED)
        moving_point = always_redraw(lambda: Dot(axes.c2p(second_x.get_value(), second_x.get_value() ** 2), color=RED))
        secant = always_redraw(secant_line)

        slope_label = MathTex(r"\text{slope} =", font_size=44)
        slope_value = DecimalNumber(secant_slope(), num_decimal_places=2, font_size=44)
        slope_value.add_updater(lambda number: number.set_value(secant_slope()))
        readout = VGroup(slope_label, slope_value).arrange(RIGHT, buff=0.2).move_to(RIGHT * 3.6 + UP * 1.5)
        slope_value.add_updater(lambda number: number.next_to(slope_label, RIGHT, buff=0.2))

        x_values = MathTex("x = 1", r"\text{ and }", "x = 3", font_size=36).next_to(readout, UP, buff=0.6)
        self.play(FadeIn(fixed_point), FadeIn(moving_point), Write(x_values))
        self.play(Create(secant), FadeIn(readout))
        self.wait(0.5)

        self.play(second_x.animate.set_value(1), run_time=5, rate_func=smooth)
        secant.clear_updaters()
        moving_point.clear_updaters()
        slope_value.clear_updaters()

        tangent_note = Text("tangent at x = 1", font_size=32, color=GREEN).next_to(readout, DOWN, buff=0.6)
        self.play(secant.animate.set_color(GREEN), Write(tangent_note), FadeOut(x_values))
        self.play(Indicate(slope_value, color=GREEN))
        self.wait(1.5)
