from manim import *


class Lesson(Scene):
    def construct(self):
        axes = Axes(x_range=[-1, 5, 1], y_range=[-1, 4, 1], x_length=7.2, y_length=6, tips=False)
        axes.add_coordinates(font_size=24)
        axes.to_edge(LEFT, buff=0.6)
        self.play(Create(axes))

        origin = axes.c2p(0, 0)
        tip_u = axes.c2p(3, 1)
        tip_sum = axes.c2p(4, 3)

        u_arrow = Arrow(origin, tip_u, buff=0, color=RED)
        u_label = MathTex(r"\vec{u}", color=RED, font_size=40).next_to(u_arrow.get_center(), DOWN + RIGHT, buff=0.15)
        v_arrow = Arrow(tip_u, tip_sum, buff=0, color=BLUE)
        v_label = MathTex(r"\vec{v}", color=BLUE, font_size=40).next_to(v_arrow.get_center(), RIGHT, buff=0.2)
        sum_arrow = Arrow(origin, tip_sum, buff=0, color=YELLOW)
        sum_label = MathTex(r"\vec{u} + \vec{v}", color=YELLOW, font_size=40)
        sum_label.next_to(sum_arrow.get_center(), UP + LEFT, buff=0.15)

        u_text = MathTex(r"\vec{u} = (3, 1)", color=RED, font_size=40)
        v_text = MathTex(r"\vec{v} = (1, 2)", color=BLUE, font_size=40)
        sum_text = MathTex(r"\vec{u} + \vec{v} = (4, 3)", color=YELLOW, font_size=40)
        panel = VGroup(u_text, v_text, sum_text).arrange(DOWN, aligned_edge=LEFT, buff=0.5)
        panel.to_edge(RIGHT, buff=0.8)

        self.play(GrowArrow(u_arrow), Write(u_label), Write(u_text))
        self.wait(0.5)
        self.play(GrowArrow(v_arrow), Write(v_label), Write(v_text))
        self.wait(0.5)
        self.play(GrowArrow(sum_arrow), Write(sum_label), Write(sum_text))
        tip_dot = Dot(tip_sum, color=YELLOW)
        self.play(FadeIn(tip_dot), Indicate(sum_text))
        self.wait(1.5)
