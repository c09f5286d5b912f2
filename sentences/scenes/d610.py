from manim import *
import numpy as np


class Lesson(Scene):
    def construct(self):
        x_size = 3.2
        three_size = 1.7
        two_size = 1.1
        top_left = np.array([-5.0, 2.1, 0])

        def piece(width, height, corner, color, label):
            box = Rectangle(width=width, height=height, color=color, stroke_width=5)
            box.move_to(corner + RIGHT * width / 2 + DOWN * height / 2)
            text = MathTex(label, font_size=44, color=color).move_to(box)
            return box, text

        pieces = [
            piece(x_size, x_size, top_left, BLUE, "x^2"),
            piece(x_size, two_size, top_left + DOWN * x_size, YELLOW, "2x"),
            piece(three_size, x_size, top_left + RIGHT * x_size, GREEN, "3x"),
            piece(three_size, two_size, top_left + RIGHT * x_size + DOWN * x_size, ORANGE, "6"),
        ]

        top_x = MathTex("x", font_size=40).next_to(pieces[0][0], UP)
        top_three = MathTex("3", font_size=40).next_to(pieces[2][0], UP)
        side_x = MathTex("x", font_size=40).next_to(pieces[0][0], LEFT)
        side_two = MathTex("2", font_size=40).next_to(pieces[1][0], LEFT)

        title = MathTex("(x + 3)(x + 2)", font_size=52).to_corner(UR, buff=0.8)
        self.play(Write(title))
        self.play(FadeIn(top_x), FadeIn(top_three), FadeIn(side_x), FadeIn(side_two))

        for box, label in pieces:
            self.play(Create(box), run_time=0.7)
            self.play(Write(label), run_time=0.6)

        expanded = MathTex("= x^2 + 2x + 3x + 6", font_size=44).next_to(title, DOWN, buff=0.6)
        expanded.align_to(title, RIGHT)
        simplified = MathTex("= x^2 + 5x + 6", font_size=44).next_to(expanded, DOWN, buff=0.5)
        simplified.align_to(title, RIGHT)
        self.play(Write(expanded))
        self.play(Write(simplified))
        self.wait(1.5)
