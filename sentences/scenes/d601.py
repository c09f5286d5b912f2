from manim import *


class Lesson(Scene):
    def construct(self):
        title = MathTex("7 + 5", font_size=48).to_edge(UP)
        line = NumberLine(
            x_range=[0, 20, 1],
            length=12,
            include_numbers=True,
            font_size=28,
        ).shift(DOWN * 1.5)
        self.play(Create(line), Write(title))

        start = line.n2p(0)
        middle = line.n2p(7)
        end = line.n2p(12)

        blue_jump = CurvedArrow(start + UP * 0.2, middle + UP * 0.2, angle=-PI / 2, color=BLUE)
        blue_label = MathTex("+7", color=BLUE, font_size=36).next_to(blue_jump, UP)
        self.play(Create(blue_jump), run_time=1.5)
        self.play(Write(blue_label))

        green_jump = CurvedArrow(middle + UP * 0.2, end + UP * 0.2, angle=-PI / 2, color=GREEN)
        green_label = MathTex("+5", color=GREEN, font_size=36).next_to(green_jump, UP)
        self.play(Create(green_jump), run_time=1.5)
        self.play(Write(green_label))

        twelve = line.numbers[12]
        ring = Circle(radius=0.3, color=RED).move_to(twelve)
        answer = MathTex("7 + 5 = 12", font_size=48).to_edge(UP)
        self.play(Create(ring), TransformMatchingTex(title, answer))
        self.wait(1)
