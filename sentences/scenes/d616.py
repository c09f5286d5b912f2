from manim import *


class Lesson(Scene):
    def construct(self):
        axes = Axes(
            x_range=[0, 1.2, 0.2],
            y_range=[0, 1.2, 0.2],
            x_length=6.2,
            y_length=6.2,
            axis_config={"font_size": 24, "tip_width": 0.2, "tip_height": 0.2},
        ).add_coordinates().to_edge(LEFT, buff=0.8)
        line = axes.plot(lambda x: x, x_range=[0, 1.15], color=BLUE)
        parabola = axes.plot(lambda x: x**2, x_range=[0, 1.09], color=YELLOW)
        line_label = MathTex("y = x", font_size=36, color=BLUE).next_to(line.get_end(), RIGHT, buff=0.15)
        parabola_label = MathTex("y = x^2", font_size=36, color=YELLOW).next_to(parabola.get_end(), UP, buff=0.15)
        self.play(Create(axes), run_time=1.2)
        self.play(Create(line), Write(line_label))
        self.play(Create(parabola), Write(parabola_label))

        region = axes.get_area(line, x_range=[0, 1], bounded_graph=parabola, color=PURPLE, opacity=0.7)
        region.set_z_index(-1)
        self.play(FadeIn(region), run_time=1.5)

        integral = MathTex(r"\int_0^1 (x - x^2)\,dx", font_size=44)
        area = MathTex(r"\text{Area} = \frac{1}{6}", font_size=52, color=PURPLE_A)
        result = VGroup(integral, area).arrange(DOWN, buff=0.5).next_to(axes, RIGHT, buff=0.6)
        pointer = Arrow(
            area.get_left(),
            axes.c2p(0.55, 0.42),
            buff=0.15,
            color=PURPLE_A,
            max_tip_length_to_length_ratio=0.1,
        )
        self.play(Write(integral))
        self.play(Write(area), GrowArrow(pointer))
        self.wait(1.5)
