from manim import *
import numpy as np


class Lesson(Scene):
    def construct(self):
        pivot = UP * 3.0
        length = 4.0
        max_angle = 30 * DEGREES
        omega = TAU / 3
        time = ValueTracker(0)

        def angle_at(t):
            return max_angle * np.cos(omega * t)

        def bob_position(theta):
            return pivot + length * np.array([np.sin(theta), -np.cos(theta), 0])

        ceiling = Line(pivot + LEFT * 1.2, pivot + RIGHT * 1.2, stroke_width=6)
        vertical = DashedLine(pivot, bob_position(0), color=GREY_C)
        left_limit = DashedLine(pivot, bob_position(-max_angle), color=GREY_C)
        right_limit = DashedLine(pivot, bob_position(max_angle), color=GREY_C)
        swing_arc = Arc(radius=length, start_angle=-PI / 2 - max_angle, angle=2 * max_angle,
                        arc_center=pivot, color=GREY_C)
        left_label = MathTex(r"-30^\circ", font_size=34)
        left_label.next_to(pivot + 2.2 * (bob_position(-max_angle) - pivot) / length, LEFT, buff=0.2)
        right_label = MathTex(r"30^\circ", font_size=34)
        right_label.next_to(pivot + 2.2 * (bob_position(max_angle) - pivot) / length, RIGHT, buff=0.2)
        self.play(Create(ceiling), Create(vertical), Create(left_limit), Create(right_limit),
                  Create(swing_arc), Write(left_label), Write(right_label))

        string = always_redraw(lambda: Line(pivot, bob_position(angle_at(time.get_value())), color=WHITE))
        bob = always_redraw(lambda: Dot(bob_position(angle_at(time.get_value())), radius=0.22, color=BLUE))

        def velocity_arrow():
            t = time.get_value()
            theta = angle_at(t)
            angular_speed = -max_angle * omega * np.sin(omega * t)
            direction = np.array([np.cos(theta), np.sin(theta), 0])
            start = bob_position(theta)
            end = start + 0.45 * length * angular_speed * direction
            arrow = Arrow(start, end, buff=0, color=YELLOW, max_tip_length_to_length_ratio=0.35)
            if np.linalg.norm(end - start) < 0.2:
                arrow.set_opacity(0)
            return arrow

        arrow = always_redraw(velocity_arrow)
        legend = VGroup(
            Text("yellow arrow = velocity", font_size=28, color=YELLOW),
            Text("longest at the bottom,", font_size=28),
            Text("zero at ±30°", font_size=28),
        ).arrange(DOWN, aligned_edge=LEFT, buff=0.2).to_corner(UL, buff=0.4).shift(DOWN * 0.8)
        self.play(FadeIn(string), FadeIn(bob), FadeIn(legend))
        self.add(arrow)
        self.play(time.animate.set_value(6), run_time=6, rate_func=linear)
        self.wait(0.5)
