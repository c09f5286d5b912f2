from manim import *


class Lesson(Scene):
    def construct(self):
        axes = Axes(
            x_range=[-1, 6, 1],
            y_range=[-1, 7, 1],
            x_length=7,
            y_length=6.4,
            axis_config={"font_size": 24, "tip_width": 0.2, "tip_height": 0.2},
        ).add_coordinates().to_edge(LEFT, buff=0.6)
        self.play(Create(axes), run_time=1.5)

        rising_line = axes.plot(lambda x: x + 1, x_range=[0, 5.5], color=BLUE)
        falling_line = axes.plot(lambda x: -x + 5, x_range=[0, 5.5], color=ORANGE)
        rising_label = MathTex("y = x + 1", font_size=40, color=BLUE)
        falling_label = MathTex("y = -x + 5", font_size=40, color=ORANGE)
        legend = VGroup(rising_label, falling_label).arrange(DOWN, aligned_edge=LEFT, buff=0.4)
        legend.next_to(axes, RIGHT, buff=0.8).align_to(axes, UP)

        self.play(Create(rising_line), Write(rising_label), run_time=1.5)
        self.play(Create(falling_line), Write(falling_label), run_time=1.5)

        meeting_point = Dot(axes.c2p(2, 3), radius=0.12, color=WHITE)
        point_label = MathTex("(2, 3)", font_size=40).next_to(meeting_point, RIGHT, buff=0.4)
        self.play(FadeIn(meeting_point, scale=2), Write(point_label))

        for _ in range(2):
            self.play(meeting_point.animate.scale(2.2), rate_func=there_and_back, run_time=0.8)
        self.wait(1.5)
