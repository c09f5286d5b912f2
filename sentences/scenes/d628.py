from manim import *


class Lesson(Scene):
    def construct(self):
        axes = Axes(x_range=[-1, 4, 1], y_range=[-1, 4, 1], x_length=6, y_length=6, tips=False)
        axes.add_coordinates(font_size=26)
        axes.to_edge(LEFT, buff=1.0)
        self.play(Create(axes))

        origin = axes.c2p(0, 0)
        tip = axes.c2p(2, 3)
        foot = axes.c2p(2, 0)
        vector = Arrow(origin, tip, buff=0, color=YELLOW)
        vector_label = MathTex(r"\vec{a} = (2, 3)", color=YELLOW, font_size=36).next_to(tip, UP + RIGHT, buff=0.1)
        self.play(GrowArrow(vector), Write(vector_label))

        drop = DashedLine(tip, foot, color=WHITE)
        right_angle = RightAngle(Line(foot, origin), Line(foot, tip), length=0.25, color=WHITE)
        self.play(Create(drop), run_time=1.5)
        self.play(Create(right_angle))

        projection = Arrow(origin, foot, buff=0, color=GREEN, stroke_width=8)
        foot_dot = Dot(foot, color=GREEN)
        foot_label = MathTex("(2, 0)", color=GREEN, font_size=36).move_to(foot + DOWN * 0.85)
        self.play(GrowArrow(projection), FadeIn(foot_dot), Write(foot_label))

        explanation = VGroup(
            Text("Projection onto the x-axis", font_size=30),
            MathTex(r"\text{proj}_x (2, 3) = (2, 0)", color=GREEN, font_size=38),
            Text("the dashed line is perpendicular", font_size=26),
            Text("to the x-axis", font_size=26),
        ).arrange(DOWN, aligned_edge=LEFT, buff=0.3)
        explanation.to_edge(RIGHT, buff=0.5)
        self.play(Write(explanation), run_time=2)
        self.wait(1.5)
