from manim import *


class Lesson(Scene):
    def construct(self):
        title = Text("Building a binary search tree", font_size=36).to_edge(UP)
        self.play(Write(title), run_time=0.8)

        positions = {
            50: UP * 1.6,
            30: LEFT * 2.6 + UP * 0.1,
            70: RIGHT * 2.6 + UP * 0.1,
            20: LEFT * 3.9 + DOWN * 1.4,
            40: LEFT * 1.3 + DOWN * 1.4,
        }
        entry_point = RIGHT * 5.2 + DOWN * 1.9
        status = VMobject()
        nodes = {}
        children = {}

        def make_node(value):
            circle = Circle(radius=0.45, color=BLUE, stroke_width=5)
            label = Text(str(value), font_size=32)
            return VGroup(circle, label)

        for value in [50, 30, 70, 20, 40]:
            node = make_node(value).move_to(entry_point)
            insert_text = Text(f"insert {value}", font_size=32).next_to(node, DOWN, buff=0.25)
            self.play(FadeIn(node), FadeIn(insert_text), FadeOut(status), run_time=0.4)

            parent = None
            current = 50 if nodes else None
            steps = []
            while current is not None:
                side = "left" if value < current else "right"
                sign = "<" if value < current else ">"
                steps.append((current, f"{value} {sign} {current}: go {side}"))
                parent = current
                current = children.get((current, side))
            for compared, message in steps:
                new_status = Text(message, font_size=30).to_edge(DOWN, buff=0.4)
                self.play(nodes[compared][0].animate.set_color(YELLOW), FadeOut(status), FadeIn(new_status),
                          run_time=0.4)
                self.play(nodes[compared][0].animate.set_color(BLUE), run_time=0.2)
                status = new_status

            moves = [node.animate.move_to(positions[value]), FadeOut(insert_text)]
            if not steps:
                status = Text(f"empty tree: {value} becomes the root", font_size=30).to_edge(DOWN, buff=0.4)
                moves.append(FadeIn(status))
            self.play(*moves, run_time=0.6)
            if parent is not None:
                side = "left" if value < parent else "right"
                children[(parent, side)] = value
                edge = Line(positions[parent], positions[value], buff=0.45, color=GREY_B)
                self.play(Create(edge), run_time=0.3)
            nodes[value] = node

        done = Text("in-order: 20, 30, 40, 50, 70", font_size=30, color=GREEN).to_edge(DOWN, buff=0.4)
        self.play(FadeOut(status), FadeIn(done))
        self.wait(1)
