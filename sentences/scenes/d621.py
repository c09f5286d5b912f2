from manim import *


class Lesson(Scene):
    def construct(self):
        title = Text("Inscribed angle theorem", font_size=36).to_edge(UP)
        self.play(Write(title))

        radius = 2.4
        center = LEFT * 2.5 + DOWN * 0.5
        circle = Circle(radius=radius, color=WHITE).move_to(center)
        center_dot = Dot(center)

        def on_circle(angle_deg):
            return circle.point_at_angle(angle_deg * DEGREES)

        point_a = on_circle(230)
        point_b = on_circle(310)
        point_p = on_circle(90)
        arc = Arc(radius=radius, start_angle=230 * DEGREES, angle=80 * DEGREES, arc_center=center,
                  color=YELLOW, stroke_width=8)
        dots = VGroup(*[Dot(p) for p in (point_a, point_b, point_p)])
        self.play(Create(circle), FadeIn(center_dot), FadeIn(dots))
        self.play(Create(arc))

        line_oa = Line(center, point_a, color=BLUE)
        line_ob = Line(center, point_b, color=BLUE)
        central_angle = Angle(line_oa, line_ob, radius=0.5, color=BLUE)
        central_label = MathTex(r"80^\circ", color=BLUE, font_size=32)
        central_label.move_to(center + DOWN * 0.85)
        self.play(Create(line_oa), Create(line_ob))
        self.play(Create(central_angle), Write(central_label))

        line_pa = Line(point_p, point_a, color=GREEN)
        line_pb = Line(point_p, point_b, color=GREEN)
        inscribed_angle = Angle(line_pa, line_pb, radius=0.7, color=GREEN)
        inscribed_label = MathTex(r"40^\circ", color=GREEN, font_size=32)
        inscribed_label.move_to(point_p + DOWN * 1.15)
        self.play(Create(line_pa), Create(line_pb))
        self.play(Create(inscribed_angle), Write(inscribed_label))

        facts = VGroup(
            MathTex(r"\text{central angle} = 80^\circ", color=BLUE),
            MathTex(r"\text{inscribed angle} = 40^\circ", color=GREEN),
            MathTex(r"40^\circ = \tfrac{1}{2} \cdot 80^\circ", color=YELLOW),
        ).arrange(DOWN, aligned_edge=LEFT, buff=0.5).scale(0.9)
        facts.move_to(RIGHT * 3.6 + DOWN * 0.3)
        for fact in facts:
            self.play(Write(fact))
        self.wait(1.5)
