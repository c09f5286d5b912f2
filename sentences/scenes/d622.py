from manim import *


class Lesson(Scene):
    def construct(self):
        title = Text("Rolling a circle of radius 1 one full turn", font_size=34).to_edge(UP)
        number_line = NumberLine(x_range=[0, 7, 1], unit_size=1.4, include_numbers=True, font_size=28)
        number_line.move_to(DOWN * 1.8)
        unit = number_line.unit_size
        start = number_line.n2p(0)

        wheel = VGroup(
            Circle(radius=unit, color=BLUE),
            Line(ORIGIN, DOWN * unit, color=RED),
            Dot(DOWN * unit, color=RED),
            Dot(ORIGIN, radius=0.05),
        )
        wheel.shift(start + UP * unit - wheel[3].get_center())
        radius_label = MathTex("r = 1", font_size=32).next_to(wheel[1], RIGHT, buff=0.15)
        self.play(Write(title), Create(number_line))
        self.play(FadeIn(wheel), Write(radius_label))
        self.play(FadeOut(radius_label))

        angle = ValueTracker(0)
        base_wheel = wheel.copy()
        track = Line(start, start, color=RED, stroke_width=6)

        def roll(mob):
            t = angle.get_value()
            mob.become(base_wheel.copy().rotate(-t, about_point=base_wheel[3].get_center()))
            mob.shift(RIGHT * t * unit)

        def paint(mob):
            mob.put_start_and_end_on(start, number_line.n2p(angle.get_value()) + RIGHT * 1e-4)

        wheel.add_updater(roll)
        track.add_updater(paint)
        self.add(track, wheel)
        self.play(angle.animate.set_value(TAU), run_time=5, rate_func=linear)
        wheel.clear_updaters()
        track.clear_updaters()

        end_mark = Line(UP * 0.25, DOWN * 0.25, color=YELLOW).move_to(number_line.n2p(TAU))
        end_label = MathTex(r"2\pi", color=YELLOW, font_size=36).next_to(end_mark, DOWN, buff=0.6)
        result = MathTex(r"\text{circumference} = 2\pi r = 2\pi \approx 6.28", font_size=36)
        result.next_to(title, DOWN, buff=0.3)
        self.play(Create(end_mark), Write(end_label))
        self.play(Write(result))
        self.wait(1.5)
