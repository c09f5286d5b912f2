from manim import *


class Lesson(Scene):
    def construct(self):
        values = [2, 5, 8, 12, 16, 23, 38, 56, 72, 91]
        target = 23
        title = Text("Binary search for 23", font_size=38).to_edge(UP)

        cells = VGroup(*[Square(side_length=1.1, color=WHITE) for _ in values]).arrange(RIGHT, buff=0)
        cells.move_to(UP * 1.0)
        numbers = VGroup(*[Text(str(v), font_size=32).move_to(cell) for v, cell in zip(values, cells)])
        indices = VGroup(*[Text(str(i), font_size=24, color=GREY_B).next_to(cell, UP, buff=0.15)
                           for i, cell in enumerate(cells)])
        self.play(Write(title), Create(cells), Write(numbers), FadeIn(indices))

        def make_pointer(name, color, length, offset, label_side):
            top = cells[0].get_bottom() + RIGHT * offset + DOWN * 0.1
            bottom = top + DOWN * length
            arrow = Arrow(bottom, top, buff=0, color=color, max_tip_length_to_length_ratio=0.3)
            label = Text(name, font_size=28, color=color).next_to(bottom, DOWN, buff=0.1)
            if label_side is not None:
                label.align_to(bottom, label_side)
            pointer = VGroup(arrow, label)
            pointer.offset = offset
            return pointer

        def step_to(pointer, index):
            return (cells[index].get_x() + pointer.offset - pointer[0].get_x()) * RIGHT

        low_pointer = make_pointer("low", BLUE, 0.8, -0.25, RIGHT)
        mid_pointer = make_pointer("mid", YELLOW, 1.5, 0, None)
        high_pointer = make_pointer("high", RED, 2.2, 0.25, LEFT)

        low, high = 0, len(values) - 1
        low_pointer.shift(step_to(low_pointer, low))
        high_pointer.shift(step_to(high_pointer, high))
        self.play(FadeIn(low_pointer), FadeIn(high_pointer))

        status = VMobject()
        while low <= high:
            mid = (low + high) // 2
            if mid_pointer not in self.mobjects:
                mid_pointer.shift(step_to(mid_pointer, mid))
                self.play(FadeIn(mid_pointer), run_time=0.5)
            else:
                self.play(mid_pointer.animate.shift(step_to(mid_pointer, mid)), run_time=0.5)
            value = values[mid]
            if value == target:
                message = f"mid = {value} = 23: found at index {mid}"
            elif value < target:
                message = f"mid = {value} < 23: move low to mid + 1"
            else:
                message = f"mid = {value} > 23: move high to mid - 1"
            new_status = Text(message, font_size=30).to_edge(DOWN, buff=0.3)
            self.play(FadeOut(status), FadeIn(new_status), run_time=0.5)
            status = new_status
            if value == target:
                self.play(cells[mid].animate.set_stroke(GREEN, width=8), numbers[mid].animate.set_color(GREEN))
                break
            if value < target:
                dropped = range(low, mid + 1)
                low = mid + 1
                move = low_pointer.animate.shift(step_to(low_pointer, low))
            else:
                dropped = range(mid, high + 1)
                high = mid - 1
                move = high_pointer.animate.shift(step_to(high_pointer, high))
            self.wait(0.4)
            self.play(move, *[numbers[i].animate.set_opacity(0.25) for i in dropped],
                      *[cells[i].animate.set_stroke(GREY_D) for i in dropped], run_time=0.8)
        self.wait(1.5)
