from manim import *


class Lesson(Scene):
    def construct(self):
        title = Text("Comparing decimals", font_size=40).to_edge(UP)
        line = NumberLine(
            x_range=[0, 1, 0.25],
            length=11,
            tick_size=0.2,
            include_numbers=True,
            decimal_number_config={"num_decimal_places": 2},
            font_size=32,
        ).shift(DOWN * 0.5)
        self.play(Write(title), Create(line), run_time=1.5)

        values = [0.25, 0.5, 0.75]
        colors = [BLUE, GREEN, ORANGE]
        markers = VGroup()
        for value, color in zip(values, colors):
            dot = Dot(line.n2p(value), radius=0.1, color=color)
            label = MathTex(f"{value}", font_size=40, color=color).next_to(dot, UP, buff=0.5)
            arrow = Arrow(label.get_bottom(), dot.get_top(), buff=0.05, color=color)
            self.play(FadeIn(dot, scale=2), Write(label), GrowArrow(arrow))
            markers.add(VGroup(dot, label, arrow))
            self.wait(0.3)

        comparison = MathTex("0.25", "<", "0.5", "<", "0.75", font_size=56).next_to(line, DOWN, buff=1.2)
        for part, color in zip(comparison[::2], colors):
            part.set_color(color)
        self.play(Write(comparison))
        self.play(Indicate(markers[2], color=ORANGE))
        self.wait(1.5)
