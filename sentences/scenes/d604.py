from manim import *
import numpy as np


class Lesson(Scene):
    def construct(self):
        column_width = 0.55
        row_height = 0.8
        origin = np.array([-3.0, 1.6, 0])

        def digits(text, last_column, row, color=WHITE):
            group = VGroup()
            first_column = last_column - len(text) + 1
            for i, char in enumerate(text):
                position = origin + RIGHT * column_width * (first_column + i) + DOWN * row_height * row
                group.add(MathTex(char, font_size=52, color=color).move_to(position))
            return group

        def rule(first_column, last_column, row):
            y = origin[1] - row_height * (row - 0.5)
            left_x = origin[0] + column_width * (first_column - 0.5)
            right_x = origin[0] + column_width * (last_column + 0.5)
            return Line([left_x, y, 0], [right_x, y, 0])

        dividend = digits("156", 2, 0)
        bar_start = origin + LEFT * 0.6 + UP * 0.45
        bar = Line(bar_start, origin + RIGHT * (2 * column_width + 0.35) + UP * 0.45)
        bracket = ArcBetweenPoints(bar_start, bar_start + DOWN * 0.85, angle=-PI / 3)
        divisor = MathTex("12", font_size=52).next_to(bracket, LEFT, buff=0.25)
        title = MathTex(r"156 \div 12", font_size=48).to_edge(UP)
        self.play(Write(title), Write(dividend), Write(divisor), Create(bar), Create(bracket))

        note_position = RIGHT * 3.2 + UP * 0.5

        def show_note(note, old_note=None):
            note.move_to(note_position)
            if old_note is None:
                self.play(FadeIn(note), run_time=0.6)
            else:
                self.play(FadeOut(old_note), FadeIn(note), run_time=0.5)
            return note

        note = show_note(MathTex(r"15 \div 12 = 1", font_size=44))
        first_quotient = digits("1", 1, -1, BLUE)
        self.play(Write(first_quotient))

        note = show_note(MathTex(r"1 \times 12 = 12", font_size=44), note)
        first_product = digits("12", 1, 1)
        self.play(Write(first_product), Create(rule(0, 1, 2)))

        note = show_note(MathTex(r"15 - 12 = 3", font_size=44), note)
        first_remainder = digits("3", 1, 2)
        self.play(Write(first_remainder))

        note = show_note(Text("Bring down the 6", font_size=36), note)
        brought_down = dividend[2].copy()
        self.play(brought_down.animate.move_to(digits("6", 2, 2)[0]))

        note = show_note(MathTex(r"36 \div 12 = 3", font_size=44), note)
        second_quotient = digits("3", 2, -1, BLUE)
        self.play(Write(second_quotient))

        note = show_note(MathTex(r"3 \times 12 = 36", font_size=44), note)
        second_product = digits("36", 2, 3)
        self.play(Write(second_product), Create(rule(1, 2, 4)))

        note = show_note(MathTex(r"36 - 36 = 0", font_size=44), note)
        final_remainder = digits("0", 2, 4)
        self.play(Write(final_remainder))

        answer = MathTex(r"156 \div 12 = ", "13", font_size=52).move_to(note_position + DOWN * 1.5)
        answer[1].set_color(BLUE)
        self.play(Write(answer))
        self.wait(1)
