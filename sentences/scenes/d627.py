from manim import *
import numpy as np


class Lesson(Scene):
    def construct(self):
        matrix = np.array([[3, 0], [0, 1]])
        plane = NumberPlane(x_range=[-4, 4, 1], y_range=[-2.5, 2.5, 1], x_length=8.2, y_length=5.1,
                            background_line_style={"stroke_opacity": 0.4})
        plane.add_coordinates(font_size=24)
        plane.to_edge(LEFT, buff=0.4).shift(DOWN * 0.3)
        matrix_label = MathTex(r"A = \begin{bmatrix} 3 & 0 \\ 0 & 1 \end{bmatrix}", font_size=40)
        matrix_label.to_corner(UR, buff=0.6)
        self.play(Create(plane), Write(matrix_label))

        axis_vectors = [(1, 0), (-1, 0), (0, 2)]
        other_vectors = [(1, 1), (-1, 1.5), (1, -1), (-0.5, -2)]

        def make_arrow(vector, color):
            return Arrow(plane.c2p(0, 0), plane.c2p(*vector), buff=0, color=color)

        axis_arrows = VGroup(*[make_arrow(v, YELLOW) for v in axis_vectors])
        other_arrows = VGroup(*[make_arrow(v, YELLOW) for v in other_vectors])
        self.play(LaggedStart(*[GrowArrow(a) for a in [*axis_arrows, *other_arrows]], lag_ratio=0.15))

        ghosts = VGroup(*[a.copy().set_opacity(0.3) for a in [*axis_arrows, *other_arrows]])
        self.add(ghosts)

        def image(vector):
            return tuple(matrix @ np.array(vector))

        axis_images = VGroup(*[make_arrow(image(v), YELLOW) for v in axis_vectors])
        other_images = VGroup(*[make_arrow(image(v), ORANGE) for v in other_vectors])
        apply_text = Text("apply A", font_size=32).next_to(matrix_label, DOWN, buff=0.4)
        self.play(Write(apply_text))
        self.play(Transform(axis_arrows, axis_images), Transform(other_arrows, other_images), run_time=2.5)
        self.wait(0.5)

        changed = Text("orange: direction changed", font_size=28, color=ORANGE)
        stretched = Text("green: only stretched", font_size=28, color=GREEN)
        rules = MathTex(r"A\begin{bmatrix}1\\0\end{bmatrix} = 3\begin{bmatrix}1\\0\end{bmatrix}",
                        r"\quad A\begin{bmatrix}0\\1\end{bmatrix} = 1\begin{bmatrix}0\\1\end{bmatrix}",
                        font_size=36, color=GREEN).arrange(DOWN, aligned_edge=LEFT)
        notes = VGroup(changed, stretched, rules).arrange(DOWN, aligned_edge=LEFT, buff=0.35)
        notes.next_to(apply_text, DOWN, buff=0.5).to_edge(RIGHT, buff=0.3)
        self.play(Write(changed))
        self.play(axis_arrows.animate.set_color(GREEN), Write(stretched))
        self.play(Write(rules))
        self.wait(1.5)
