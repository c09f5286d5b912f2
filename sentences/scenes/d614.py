from manim import *


class Lesson(Scene):
    def construct(self):
        axes = Axes(
            x_range=[0, 2.5, 0.5],
            y_range=[0, 4.5, 1],
            x_length=6,
            y_length=6,
            axis_config={"font_size": 24, "tip_width": 0.2, "tip_height": 0.2},
        ).add_coordinates().to_edge(LEFT, buff=0.7)
        curve = axes.plot(lambda x: x**2, x_range=[0, 2.05], color=BLUE)
        curve_label = MathTex("y = x^2", font_size=40, color=BLUE).next_to(axes.c2p(2.05, 4.2), RIGHT, buff=0.2)
        self.play(Create(axes), run_time=1)
        self.play(Create(curve), Write(curve_label), run_time=1)

        title = Text("Left Riemann sums", font_size=34).move_to(RIGHT * 3.8 + UP * 2.6)
        self.play(Write(title), run_time=0.8)

        previous = None
        row_position = title.get_bottom() + DOWN * 0.8
        for count in [4, 8, 16]:
            width = 2 / count
            rectangles = axes.get_riemann_rectangles(
                curve,
                x_range=[0, 2],
                dx=width,
                input_sample_type="left",
                stroke_width=1,
                fill_opacity=0.7,
            )
            total_area = sum((i * width) ** 2 * width for i in range(count))
            result = MathTex(
                f"{count}" + r"\text{ rectangles: }" + f"{total_area:.4g}",
                font_size=36,
            ).move_to(row_position)
            if previous is None:
                self.play(Create(rectangles), run_time=1)
            else:
                self.play(ReplacementTransform(previous, rectangles), run_time=1)
            self.play(Write(result), run_time=0.8)
            self.wait(0.4)
            previous = rectangles
            row_position = row_position + DOWN * 0.8

        exact = MathTex(r"\text{exact area} = \tfrac{8}{3} \approx 2.667", font_size=36, color=YELLOW)
        exact.move_to(row_position + DOWN * 0.3)
        self.play(Write(exact), run_time=1)
        self.wait(1.2)
