from manim import *
import numpy as np


class Lesson(Scene):
    def construct(self):
        plane = NumberPlane(
            x_range=[-5, 5, 1],
            y_range=[-1, 5, 1],
            x_length=10,
            y_length=6,
            background_line_style={"stroke_opacity": 0.35},
        ).add_coordinates().shift(DOWN * 0.6)
        title = Text("Rotate ABC by 90° counterclockwise about the origin", font_size=30).to_edge(UP, buff=0.3)
        origin = plane.c2p(0, 0)
        self.play(Create(plane), Write(title), run_time=1.5)

        coordinates = {"A": (1, 1), "B": (4, 1), "C": (2, 3)}
        corners = [plane.c2p(*xy) for xy in coordinates.values()]
        triangle = Polygon(*corners, color=YELLOW, fill_opacity=0, stroke_width=5)
        centroid = np.mean(corners, axis=0)

        def label_position(corner):
            direction = (corner - centroid) / np.linalg.norm(corner - centroid)
            return corner + 0.4 * direction

        labels = VGroup(*[
            MathTex(name, font_size=36, color=YELLOW).move_to(label_position(corner))
            for name, corner in zip(coordinates, corners)
        ])
        centre_dot = Dot(origin, color=RED)
        self.play(Create(triangle), Write(labels), FadeIn(centre_dot))
        self.wait(0.5)

        ghost_triangle = triangle.copy().set_stroke(opacity=0.35)
        ghost_labels = labels.copy().set_opacity(0.4)
        ghost = VGroup(ghost_triangle, ghost_labels)
        self.add(ghost)

        rotated_corners = [plane.c2p(-y, x) for x, y in coordinates.values()]
        rotated_centroid = np.mean(rotated_corners, axis=0)
        new_labels = VGroup(*[
            MathTex(name + "'", font_size=36, color=YELLOW).move_to(
                corner + 0.4 * (corner - rotated_centroid) / np.linalg.norm(corner - rotated_centroid)
            )
            for name, corner in zip(coordinates, rotated_corners)
        ])
        turn_arrow = Arc(
            radius=0.5,
            start_angle=PI / 12,
            angle=PI / 2,
            arc_center=origin,
            color=RED,
        ).add_tip(tip_length=0.18)
        self.play(Create(turn_arrow))
        self.play(
            Rotate(triangle, angle=PI / 2, about_point=origin),
            *[
                label.animate(path_arc=PI / 2).move_to(new_label)
                for label, new_label in zip(labels, new_labels)
            ],
            run_time=2.5,
        )
        self.play(*[Transform(label, new_label) for label, new_label in zip(labels, new_labels)], run_time=0.6)
        self.wait(1.5)
