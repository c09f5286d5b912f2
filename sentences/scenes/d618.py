from manim import *


class Lesson(Scene):
    def construct(self):
        axes = Axes(
            x_range=[0, 21, 5],
            y_range=[0, 1.2, 0.5],
            x_length=10,
            y_length=4.5,
            axis_config={"font_size": 24, "tip_width": 0.2, "tip_height": 0.2},
            y_axis_config={"numbers_to_include": [0.5, 1], "decimal_number_config": {"num_decimal_places": 1}},
            x_axis_config={"numbers_to_include": [5, 10, 15, 20]},
        ).to_edge(DOWN, buff=0.7).shift(LEFT * 0.5)
        curve = axes.plot(lambda x: 1 / x, x_range=[0.85, 20.5], color=BLUE)
        curve_label = MathTex(r"y = \frac{1}{x}", font_size=40, color=BLUE).next_to(axes.c2p(1.2, 1.15), RIGHT)
        limit = MathTex(r"\lim_{x \to \infty} \frac{1}{x} = 0", font_size=44).to_corner(UL, buff=0.6)
        self.play(Create(axes), run_time=1.2)
        self.play(Create(curve), Write(curve_label), run_time=1.5)

        x_tracker = ValueTracker(1)
        dot = Dot(axes.c2p(1, 1), color=YELLOW, radius=0.1)
        dot.add_updater(lambda d: d.move_to(axes.c2p(x_tracker.get_value(), 1 / x_tracker.get_value())))

        x_text = MathTex("x =", font_size=40)
        x_value = DecimalNumber(1, num_decimal_places=1, font_size=40)
        y_text = MathTex("y =", font_size=40)
        y_value = DecimalNumber(1, num_decimal_places=3, font_size=40, color=YELLOW)
        counter = VGroup(
            VGroup(x_text, x_value).arrange(RIGHT, buff=0.2),
            VGroup(y_text, y_value).arrange(RIGHT, buff=0.2),
        ).arrange(DOWN, aligned_edge=LEFT, buff=0.3).to_corner(UR, buff=0.6)
        x_value.add_updater(lambda number: number.set_value(x_tracker.get_value()))
        y_value.add_updater(lambda number: number.set_value(1 / x_tracker.get_value()))

        self.play(FadeIn(dot, scale=2), FadeIn(counter))
        self.play(x_tracker.animate.set_value(20), run_time=7, rate_func=rate_functions.ease_in_out_sine)
        self.play(Write(limit))
        self.wait(1.5)
