from manim import *


class Lesson(Scene):
    def construct(self):
        title = Text("Breadth-first search from A", font_size=36).to_edge(UP)
        positions = {
            "A": LEFT * 5 + UP * 0.9,
            "B": LEFT * 2.5 + UP * 2.0,
            "C": LEFT * 2.5 + DOWN * 0.2,
            "D": UP * 2.4,
            "E": UP * 0.9,
            "F": DOWN * 0.6,
        }
        edges = [("A", "B"), ("A", "C"), ("B", "D"), ("B", "E"), ("C", "E"), ("C", "F")]
        neighbours = {name: [] for name in positions}
        for start, end in edges:
            neighbours[start].append(end)
            neighbours[end].append(start)

        circles = {name: Circle(radius=0.4, color=WHITE).move_to(point) for name, point in positions.items()}
        letters = {name: Text(name, font_size=32).move_to(point) for name, point in positions.items()}
        lines = VGroup(*[Line(positions[a], positions[b], buff=0.4, color=GREY_B) for a, b in edges])

        visited_key = VGroup(Circle(radius=0.2, color=BLUE, fill_opacity=1), Text("visited", font_size=28))
        queued_key = VGroup(Circle(radius=0.2, color=GREY, fill_opacity=1), Text("in queue", font_size=28))
        for key in (visited_key, queued_key):
            key.arrange(RIGHT, buff=0.25)
        legend = VGroup(visited_key, queued_key).arrange(DOWN, aligned_edge=LEFT, buff=0.3)
        legend.move_to(RIGHT * 4.6 + UP * 1.6)

        queue_label = Text("queue:", font_size=30).move_to(LEFT * 5.2 + DOWN * 2.8)
        order_label = Text("visit order:", font_size=28).move_to(RIGHT * 4.6 + DOWN * 0.1)
        self.play(Write(title), Create(lines), *[Create(c) for c in circles.values()],
                  *[Write(t) for t in letters.values()], FadeIn(legend), Write(queue_label), Write(order_label))

        queue = []
        queue_boxes = []
        order_texts = VGroup()

        def box_position(index):
            return queue_label.get_right() + RIGHT * (0.7 + 0.9 * index)

        def enqueue(names):
            animations = []
            for name in names:
                queue.append(name)
                box = VGroup(Square(side_length=0.75, color=GREY_B), Text(name, font_size=30))
                box.move_to(box_position(len(queue_boxes)))
                queue_boxes.append(box)
                animations += [FadeIn(box, shift=LEFT * 0.5), circles[name].animate.set_fill(GREY, opacity=1)]
            self.play(*animations, run_time=0.6)

        enqueue(["A"])
        seen = {"A"}
        while queue:
            current = queue.pop(0)
            front = queue_boxes.pop(0)
            order_text = Text(current, font_size=30, color=BLUE)
            order_text.next_to(order_label, DOWN, buff=0.3).shift(RIGHT * (0.5 * len(order_texts) - 1.25))
            order_texts.add(order_text)
            self.play(FadeOut(front, shift=LEFT * 0.5), *[box.animate.shift(LEFT * 0.9) for box in queue_boxes],
                      circles[current].animate.set_fill(BLUE, opacity=1).set_stroke(BLUE),
                      FadeIn(order_text), run_time=0.7)
            new_names = [n for n in neighbours[current] if n not in seen]
            seen.update(new_names)
            if new_names:
                enqueue(new_names)
        self.wait(1.5)
