from manim import *


class Lesson(Scene):
    def construct(self):
        a_values = [[1, 2, 3], [4, 5, 6]]
        b_values = [[7, 8], [9, 10], [11, 12]]
        c_values = [[sum(a_values[i][k] * b_values[k][j] for k in range(3)) for j in range(2)] for i in range(2)]

        title = Text("Multiplying a 2×3 matrix by a 3×2 matrix", font_size=34).to_edge(UP)
        matrix_a = Matrix(a_values)
        matrix_b = Matrix(b_values)
        matrix_c = Matrix(c_values, h_buff=1.4)
        times = MathTex(r"\times")
        equals = MathTex("=")
        equation = VGroup(matrix_a, times, matrix_b, equals, matrix_c).arrange(RIGHT, buff=0.35)
        equation.move_to(UP * 0.4)
        c_entries = matrix_c.get_entries()

        self.play(Write(title))
        self.play(FadeIn(matrix_a), FadeIn(times), FadeIn(matrix_b), FadeIn(equals),
                  FadeIn(matrix_c.get_brackets()))

        calculation = None
        for i in range(2):
            for j in range(2):
                row_box = SurroundingRectangle(matrix_a.get_rows()[i], color=YELLOW, buff=0.12)
                column_box = SurroundingRectangle(matrix_b.get_columns()[j], color=YELLOW, buff=0.12)
                terms = " + ".join(rf"{a_values[i][k]} \cdot {b_values[k][j]}" for k in range(3))
                new_calculation = MathTex(rf"c_{{{i + 1}{j + 1}}} = {terms} = {c_values[i][j]}", font_size=44)
                new_calculation.to_edge(DOWN, buff=1.3)
                entry_box = SurroundingRectangle(c_entries[2 * i + j], color=YELLOW, buff=0.12)
                fade_old = [FadeOut(calculation)] if calculation else []
                self.play(Create(row_box), Create(column_box), *fade_old, run_time=0.6)
                self.play(Write(new_calculation), run_time=0.9)
                self.play(Create(entry_box), Write(c_entries[2 * i + j]), run_time=0.7)
                self.play(FadeOut(row_box), FadeOut(column_box), FadeOut(entry_box), run_time=0.3)
                calculation = new_calculation
        self.wait(1)
