from manim import *
import numpy as np


class Lesson(Scene):
    def construct(self):
        title = Text("Why do a triangle's angles add to 180°?", font_size=34).to_edge(UP)
        self.play(Write(title))

        corner_a = np.array([-6.0, -1.5, 0])
        corner_b = np.array([-1.2, -1.5, 0])
        corner_c = np.array([-4.4, 1.9, 0])
        triangle = Polygon(corner_a, corner_b, corner_c, color=WHITE)
        self.play(Create(triangle))

        def direction(start, end):
            vector = end - start
            return np.arctan2(vector[1], vector[0])

        def corner_piece(vertex, first, second, color):
            start_angle = direction(vertex, first)
            sweep = (direction(vertex, second) - start_angle) % TAU
            piece = Sector(radius=1.1, start_angle=start_angle, angle=sweep, arc_center=vertex,
                           color=color, fill_opacity=0.8)
            return piece, start_angle, sweep

        red, red_start, red_sweep = corner_piece(corner_a, corner_b, corner_c, RED)
        green, green_start, green_sweep = corner_piece(corner_b, corner_c, corner_a, GREEN)
        blue, blue_start, blue_sweep = corner_piece(corner_c, corner_a, corner_b, BLUE)
        self.play(FadeIn(red), FadeIn(green), FadeIn(blue))

        line_point = np.array([3.6, -1.5, 0])
        straight_line = Line(line_point + LEFT * 3, line_point + RIGHT * 3, color=GREY_B)
        self.play(Create(straight_line))

        targets = [
            (green, corner_b, green_start, 0),
            (blue, corner_c, blue_start, green_sweep),
            (red, corner_a, red_start, green_sweep + blue_sweep),
        ]
        for piece, vertex, start_angle, target_angle in targets:
            torn = piece.copy()
            self.add(torn)
            piece.set_fill(opacity=0.2)
            original = torn.copy()
            turn = target_angle - start_angle

            def slide(mob, alpha, original=original, vertex=vertex, turn=turn):
                moved = original.copy().rotate(alpha * turn, about_point=vertex)
                mob.become(moved.shift(alpha * (line_point - vertex)))

            self.play(UpdateFromAlphaFunc(torn, slide), run_time=1.4)

        result = MathTex(r"\text{red}", "+", r"\text{green}", "+", r"\text{blue}", r"= 180^\circ", font_size=40)
        result[0].set_color(RED)
        result[2].set_color(GREEN)
        result[4].set_color(BLUE)
        result.next_to(straight_line, DOWN, buff=0.5)
        self.play(Write(result))
        self.wait(1.5)
