from manim import *


class Lesson(Scene):
    def construct(self):
        values = [5, 1, 4, 2, 8]
        title = Text("Bubble sort", font_size=40).to_edge(UP)
        spacing = 1.5
        floor_y = -3.0

        def make_bar(value):
            bar = Rectangle(width=1.0, height=0.6 * value, color=BLUE, fill_opacity=0.8)
            label = Text(str(value), font_size=32).next_to(bar, UP, buff=0.15)
            return VGroup(bar, label)

        bars = [make_bar(v) for v in values]
        for index, group in enumerate(bars):
            group.shift((index - 2) * spacing * RIGHT - group[0].get_bottom() + floor_y * UP)
        status = Text("compare neighbours, swap if out of order", font_size=28).next_to(title, DOWN, buff=0.3)
        self.play(Write(title), *[FadeIn(group) for group in bars])
        self.play(FadeIn(status))

        last = len(values) - 1
        while last > 0:
            swapped = False
            for i in range(last):
                left, right = bars[i], bars[i + 1]
                a, b = values[i], values[i + 1]
                verdict = f"{a} > {b}: swap" if a > b else f"{a} < {b}: keep"
                new_status = Text(verdict, font_size=32).move_to(status)
                self.play(left[0].animate.set_fill(YELLOW), right[0].animate.set_fill(YELLOW),
                          FadeOut(status), FadeIn(new_status), run_time=0.4)
                status = new_status
                if a > b:
                    shift = (right[0].get_x() - left[0].get_x()) * RIGHT
                    self.play(left.animate.shift(shift), right.animate.shift(-shift), run_time=0.6)
                    bars[i], bars[i + 1] = right, left
                    values[i], values[i + 1] = b, a
                    swapped = True
                self.play(bars[i][0].animate.set_fill(BLUE), bars[i + 1][0].animate.set_fill(BLUE), run_time=0.2)
            self.play(bars[last][0].animate.set_fill(GREEN), run_time=0.3)
            last -= 1
            if not swapped:
                break

        done = Text("sorted: 1, 2, 4, 5, 8", font_size=32, color=GREEN).move_to(status)
        self.play(*[group[0].animate.set_fill(GREEN) for group in bars], FadeOut(status), FadeIn(done))
        self.wait(1.5)
