from manim import *


class Lesson(Scene):
    def construct(self):
        values = [38, 27, 43, 3, 9, 82, 10]
        levels = [
            [(0, 7)],
            [(0, 4), (4, 7)],
            [(0, 2), (2, 4), (4, 6), (6, 7)],
            [(i, i + 1) for i in range(7)],
        ]
        row_y = [2.2, 0.8, -0.6, -2.0]
        cell_size, gap = 0.8, 0.4
        title = Text("Merge sort", font_size=38).to_edge(UP, buff=0.3)

        def cell_centers(level):
            groups = levels[level]
            total = len(values) * cell_size + (len(groups) - 1) * gap
            x = -total / 2 + cell_size / 2
            centers = []
            for start, end in groups:
                for _ in range(start, end):
                    centers.append([x, row_y[level], 0])
                    x += cell_size
                x += gap
            return centers

        def make_row(level, row_values, color):
            squares = VGroup(*[Square(cell_size, color=color).move_to(c) for c in cell_centers(level)])
            numbers = VGroup(*[Text(str(v), font_size=28).move_to(c) for v, c in zip(row_values, cell_centers(level))])
            return squares, numbers

        status = Text("split into halves", font_size=30).to_edge(DOWN, buff=0.3)
        rows = [make_row(0, values, BLUE)]
        self.play(Write(title), Create(rows[0][0]), Write(rows[0][1]), FadeIn(status))

        for level in range(1, 4):
            squares, numbers = make_row(level, values, BLUE)
            above = rows[level - 1]
            self.play(*[TransformFromCopy(above[0][i], squares[i]) for i in range(len(values))],
                      *[TransformFromCopy(above[1][i], numbers[i]) for i in range(len(values))], run_time=1)
            rows.append((squares, numbers))

        merge_status = Text("merge back up, level by level", font_size=30).to_edge(DOWN, buff=0.3)
        self.play(FadeOut(status), FadeIn(merge_status), *[s.animate.set_color(GREEN) for s in rows[3][0]],
                  run_time=0.6)
        current = list(values)
        for level in range(2, -1, -1):
            below_numbers = rows[level + 1][1]
            squares, old_numbers = rows[level]
            merged = list(current)
            for start, end in levels[level]:
                merged[start:end] = sorted(current[start:end])
            order = []
            for start, end in levels[level]:
                order += sorted(range(start, end), key=lambda i: current[i])
            new_numbers = VGroup(*[Text(str(v), font_size=28, color=GREEN) for v in merged])
            for target, source in enumerate(order):
                new_numbers[target].move_to(squares[target])
            moves = [TransformFromCopy(below_numbers[source], new_numbers[target])
                     for target, source in enumerate(order)]
            self.play(FadeOut(old_numbers), squares.animate.set_color(GREEN), run_time=0.4)
            self.play(*moves, run_time=1.2)
            rows[level] = (squares, new_numbers)
            current = merged

        done = Text("sorted: 3, 9, 10, 27, 38, 43, 82", font_size=30, color=GREEN).to_edge(DOWN, buff=0.3)
        self.play(FadeOut(merge_status), FadeIn(done), Indicate(rows[0][0], color=GREEN))
        self.wait(1.5)
