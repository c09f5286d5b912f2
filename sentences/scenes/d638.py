from manim import *
import numpy as np


class Lesson(Scene):
    def construct(self):
        title = Text("Free body diagram: box on a 30° incline", font_size=34).to_edge(UP, buff=0.3)
        slope_angle = 30 * DEGREES
        bottom_left = np.array([-6.0, -3.2, 0])
        base_length = 8.5
        bottom_right = bottom_left + RIGHT * base_length
        top = bottom_right + UP * base_length * np.tan(slope_angle)
        incline = Polygon(bottom_left, bottom_right, top, color=GREY_B)
        angle_mark = Angle(Line(bottom_left, bottom_right), Line(bottom_left, top), radius=1.0, color=WHITE)
        angle_label = MathTex(r"30^\circ", font_size=32).next_to(angle_mark, RIGHT, buff=0.1).shift(UP * 0.12)
        self.play(Write(title), Create(incline), Create(angle_mark), Write(angle_label))

        up_slope = np.array([np.cos(slope_angle), np.sin(slope_angle), 0])
        normal_direction = np.array([-np.sin(slope_angle), np.cos(slope_angle), 0])
        contact = bottom_left + 4.8 * up_slope
        box_size = 1.3
        box = Square(box_size, color=ORANGE, fill_opacity=0.6).rotate(slope_angle)
        box.move_to(contact + normal_direction * box_size / 2)
        center = box.get_center()
        self.play(FadeIn(box, shift=DOWN * 0.3))

        weight = 2.5
        gravity = Arrow(center, center + DOWN * weight, buff=0, color=RED)
        normal = Arrow(center, center + normal_direction * weight * np.cos(slope_angle), buff=0, color=BLUE)
        friction = Arrow(center, center + up_slope * weight * np.sin(slope_angle) * 1.6, buff=0, color=GREEN)
        gravity_label = MathTex(r"mg", color=RED, font_size=36).next_to(gravity.get_end(), LEFT, buff=0.15)
        normal_label = MathTex(r"N", color=BLUE, font_size=36).next_to(normal.get_end(), LEFT, buff=0.15)
        friction_label = MathTex(r"f", color=GREEN, font_size=36).next_to(friction.get_end(), UP, buff=0.15)

        legend = VGroup(
            Text("mg: gravity (down)", font_size=26, color=RED),
            Text("N: normal (⟂ slope)", font_size=26, color=BLUE),
            Text("f: friction (up slope)", font_size=26, color=GREEN),
        ).arrange(DOWN, aligned_edge=LEFT, buff=0.25).next_to(title, DOWN, buff=0.5).to_edge(RIGHT, buff=0.4)

        self.play(GrowArrow(gravity), Write(gravity_label), Write(legend[0]))
        self.play(GrowArrow(normal), Write(normal_label), Write(legend[1]))
        self.play(GrowArrow(friction), Write(friction_label), Write(legend[2]))
        self.wait(1.5)
