from manim import *


class Lesson(Scene):
    def construct(self):
        title = Text("Reflection across the y-axis", font_size=34).to_edge(UP, buff=0.2)
        axes = Axes(x_range=[-6, 6, 1], y_range=[-2, 3, 1], x_length=12, y_length=5.5, tips=False)
        axes.add_coordinates(font_size=24)
        axes.next_to(title, DOWN, buff=0.2)
        y_axis_highlight = Line(axes.c2p(0, -2), axes.c2p(0, 3), color=YELLOW, stroke_width=6)
        self.play(Write(title), Create(axes))

        corners = [(1, 0.6), (4, 0.4), (5, 1.7), (3.5, 2.6), (1.5, 2.3)]
        pentagon = Polygon(*[axes.c2p(x, y) for x, y in corners], color=BLUE, fill_opacity=0.5)
        original_label = Text("original", font_size=28, color=BLUE).move_to(axes.c2p(3, -0.9))
        self.play(DrawBorderThenFill(pentagon), Write(original_label))
        self.play(Create(y_axis_highlight))

        image = pentagon.copy()
        self.play(Rotate(image, PI, axis=UP, about_point=axes.c2p(0, 0)), run_time=2)
        self.play(image.animate.set_color(ORANGE).set_fill(opacity=0.5))
        image_label = Text("image", font_size=28, color=ORANGE).move_to(axes.c2p(-3, -0.9))
        self.play(Write(image_label))

        links = VGroup(*[
            DashedLine(axes.c2p(x, y), axes.c2p(-x, y), color=GREY_B, stroke_width=2) for x, y in corners
        ])
        rule = MathTex(r"(x, y) \mapsto (-x, y)", font_size=36)
        rule.move_to(axes.c2p(4.3, -1.6))
        self.play(Create(links), Write(rule))
        self.wait(1.5)
