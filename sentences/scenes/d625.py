from manim import *


class Lesson(Scene):
    def construct(self):
        matrix = [[2, 1], [1, 1]]
        unit = 1.6
        plane = NumberPlane(x_range=[-12, 12, 1], y_range=[-12, 12, 1], x_length=24 * unit, y_length=24 * unit,
                            background_line_style={"stroke_opacity": 0.6})
        plane.shift(LEFT * 2 + DOWN * 2 - plane.c2p(0, 0))
        origin = plane.c2p(0, 0)

        def to_screen(x, y):
            return origin + unit * (x * RIGHT + y * UP)

        unit_square = Polygon(*[plane.c2p(x, y) for x, y in [(0, 0), (1, 0), (1, 1), (0, 1)]],
                              color=YELLOW, fill_opacity=0.6)
        i_hat = Arrow(origin, plane.c2p(1, 0), buff=0, color=GREEN)
        j_hat = Arrow(origin, plane.c2p(0, 1), buff=0, color=RED)
        self.play(Create(plane))
        self.play(FadeIn(unit_square), GrowArrow(i_hat), GrowArrow(j_hat))

        matrix_label = MathTex(r"A = \begin{bmatrix} 2 & 1 \\ 1 & 1 \end{bmatrix}", font_size=40)
        area_label = MathTex(r"\text{Area} = 1", font_size=40, color=YELLOW)
        info = VGroup(matrix_label, area_label).arrange(DOWN, aligned_edge=LEFT, buff=0.3)
        info.to_corner(UL, buff=0.4)
        panel = BackgroundRectangle(info, fill_opacity=0.9, buff=0.2)
        self.play(FadeIn(panel), Write(matrix_label), Write(area_label))
        self.wait(0.5)

        self.play(
            *[ApplyMatrix(matrix, mob, about_point=origin) for mob in (plane, unit_square, i_hat, j_hat)],
            run_time=3,
        )
        i_label = MathTex("(2, 1)", font_size=34, color=GREEN).next_to(to_screen(2, 1), DOWN + RIGHT, buff=0.1)
        j_label = MathTex("(1, 1)", font_size=34, color=RED).next_to(to_screen(1, 1), LEFT, buff=0.2)
        i_label.add_background_rectangle()
        j_label.add_background_rectangle()
        new_area = MathTex(r"\text{Area} = \det A = 2 \cdot 1 - 1 \cdot 1 = 1", font_size=40, color=YELLOW)
        new_area.move_to(area_label, aligned_edge=LEFT)
        new_panel = BackgroundRectangle(VGroup(matrix_label, new_area), fill_opacity=0.9, buff=0.2)
        self.play(Write(i_label), Write(j_label))
        self.play(Transform(panel, new_panel), TransformMatchingTex(area_label, new_area))
        self.play(Indicate(unit_square, color=YELLOW))
        self.wait(1.5)
