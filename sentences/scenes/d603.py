from manim import *


class Lesson(Scene):
    def construct(self):
        row_count = 4
        column_count = 6

        rows = VGroup(*[
            VGroup(*[Dot(radius=0.22, color=YELLOW) for _ in range(column_count)]).arrange(RIGHT, buff=0.5)
            for _ in range(row_count)
        ]).arrange(DOWN, buff=0.5).shift(UP * 0.6)

        row_labels = VGroup(*[
            Text(f"row {i + 1}", font_size=26).next_to(row, LEFT, buff=0.6)
            for i, row in enumerate(rows)
        ])
        VGroup(rows, row_labels).move_to(UP * 0.6)

        for row, row_label in zip(rows, row_labels):
            self.play(
                LaggedStart(*[GrowFromCenter(dot) for dot in row], lag_ratio=0.1),
                FadeIn(row_label),
                run_time=1,
            )
            self.wait(0.3)

        equation = MathTex(r"4 \times 6 = 24", font_size=60).next_to(rows, DOWN, buff=0.8)
        self.play(FadeIn(equation, shift=UP * 0.3), run_time=1.5)
        self.wait(1.5)
