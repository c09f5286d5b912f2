from manim import *
import numpy as np


class Lesson(Scene):
    def construct(self):
        speed, gravity = 20, 9.8
        angle = 45 * DEGREES
        flight_range = speed**2 * np.sin(2 * angle) / gravity
        max_height = (speed * np.sin(angle)) ** 2 / (2 * gravity)

        axes = Axes(x_range=[0, 45, 5], y_range=[0, 14, 2], x_length=10.5, y_length=5.2, tips=False)
        axes.add_coordinates(font_size=24)
        axes.to_edge(DOWN, buff=0.6)
        x_label = Text("x (m)", font_size=26).next_to(axes.x_axis, RIGHT, buff=0.2)
        y_label = Text("y (m)", font_size=26).next_to(axes.y_axis, UP, buff=0.15)
        title = Text("Projectile: 20 m/s at 45°", font_size=34).to_edge(UP, buff=0.3).shift(RIGHT * 1.5)
        self.play(Create(axes), Write(x_label), Write(y_label), Write(title))

        start = axes.c2p(0, 0)
        velocity = Arrow(start, axes.c2p(8, 8), buff=0, color=YELLOW)
        velocity_label = Text("20 m/s", font_size=26, color=YELLOW).next_to(velocity.get_end(), LEFT, buff=0.15)
        launch_angle = Angle(axes.x_axis, velocity, radius=0.8, color=YELLOW)
        angle_label = MathTex(r"45^\circ", font_size=30, color=YELLOW).next_to(launch_angle, RIGHT, buff=0.1)
        self.play(GrowArrow(velocity), Write(velocity_label), Create(launch_angle), Write(angle_label))

        path = axes.plot(lambda x: x - gravity * x**2 / speed**2, x_range=[0, flight_range], color=ORANGE)
        ball = Dot(start, color=RED, radius=0.1)
        self.add(ball)
        self.play(Create(path), MoveAlongPath(ball, path), run_time=3, rate_func=linear)

        apex = axes.c2p(flight_range / 2, max_height)
        height_line = DashedLine(axes.c2p(0, max_height), axes.c2p(flight_range, max_height), color=WHITE)
        apex_dot = Dot(apex, color=WHITE)
        height_label = MathTex(r"h_{max} = \frac{v^2 \sin^2 45^\circ}{2g} \approx 10.2\ \text{m}", font_size=34)
        height_label.next_to(height_line, UP, buff=0.25)
        self.play(Create(height_line), FadeIn(apex_dot))
        self.play(Write(height_label))
        self.wait(1.5)
