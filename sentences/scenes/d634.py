from manim import *


class Lesson(Scene):
    def construct(self):
        title = Text("Stack: push and pop", font_size=38).to_edge(UP)
        box_width, box_height = 2.0, 0.9
        floor_y = -2.8
        container = VGroup(
            Line([-1.2, 1.0, 0], [-1.2, floor_y - 0.1, 0]),
            Line([-1.2, floor_y - 0.1, 0], [1.2, floor_y - 0.1, 0]),
            Line([1.2, floor_y - 0.1, 0], [1.2, 1.0, 0]),
        ).set_stroke(WHITE, width=5)
        self.play(Write(title), Create(container))

        stack = []
        status = VMobject()
        top_pointer = VGroup(Text("top", font_size=30, color=YELLOW), Arrow(LEFT, ORIGIN, buff=0, color=YELLOW))
        top_pointer.arrange(RIGHT, buff=0.1)

        def slot_center(index):
            return UP * (floor_y + box_height / 2 + index * (box_height + 0.05))

        for value, color in [(3, BLUE), (7, GREEN), (1, ORANGE)]:
            block = VGroup(
                Rectangle(width=box_width, height=box_height, color=color, fill_opacity=0.35),
                Text(str(value), font_size=36),
            )
            block.move_to(UP * 2.3)
            new_status = Text(f"push {value}", font_size=34).move_to(RIGHT * 4 + UP * 0.5)
            self.play(FadeIn(block, shift=DOWN * 0.5), FadeOut(status), FadeIn(new_status), run_time=0.6)
            status = new_status
            self.play(block.animate.move_to(slot_center(len(stack))), run_time=0.8)
            stack.append(block)
            pointer_target = top_pointer.copy().next_to(block, LEFT, buff=0.5)
            if len(stack) == 1:
                self.play(FadeIn(pointer_target), run_time=0.4)
                top_pointer = pointer_target
            else:
                self.play(top_pointer.animate.next_to(block, LEFT, buff=0.5), run_time=0.4)

        pop_status = Text("pop → returns 1", font_size=34).move_to(status)
        self.play(FadeOut(status), FadeIn(pop_status), stack[-1][0].animate.set_stroke(YELLOW, width=8), run_time=0.6)
        top_block = stack.pop()
        self.play(FadeOut(top_block, shift=RIGHT * 3.5), run_time=1.5)
        self.play(top_pointer.animate.next_to(stack[-1], LEFT, buff=0.5), run_time=0.6)
        self.wait(1.5)
