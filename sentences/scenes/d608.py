from manim import *


class Lesson(Scene):
    def construct(self):
        steps = [
            (["3x + 4", "=", "19"], None),
            (["3x + 4 - 4", "=", "19 - 4"], "subtract 4 from both sides"),
            (["3x", "=", "15"], None),
            ([r"\frac{3x}{3}", "=", r"\frac{15}{3}"], "divide both sides by 3"),
            (["x", "=", "5"], None),
        ]

        lines = VGroup(*[MathTex(*parts, font_size=48) for parts, _ in steps])
        lines.arrange(DOWN, buff=0.4).move_to(LEFT * 2.2)
        for line in lines[1:]:
            line.shift((lines[0][1].get_x() - line[1].get_x()) * RIGHT)

        self.play(Write(lines[0]))
        for line, (_, note_text) in zip(lines[1:], steps[1:]):
            if note_text is not None:
                note = Text(note_text, font_size=28, color=BLUE).next_to(lines, RIGHT, buff=0.8)
                note.set_y(line.get_y())
                self.play(FadeIn(note), run_time=0.6)
                self.play(Write(line))
            else:
                self.play(Write(line))
            self.wait(0.4)

        answer_box = SurroundingRectangle(lines[-1], color=YELLOW, buff=0.2)
        self.play(Create(answer_box))
        self.wait(1.5)
