from manim import *
import numpy as np


class Lesson(Scene):
    def construct(self):
        wavelength, amplitude, speed = 2, 1, 1
        axes = Axes(x_range=[0, 8, 1], y_range=[-1.5, 1.5, 1], x_length=12, y_length=4, tips=False)
        axes.add_coordinates(font_size=24)
        axes.shift(DOWN * 0.5)
        time = ValueTracker(0)

        def height(x):
            return amplitude * np.sin(TAU / wavelength * (x - speed * time.get_value()) + PI / 2)

        wave = always_redraw(lambda: axes.plot(height, x_range=[0, 8], color=BLUE))
        title = Text("Transverse wave: wavelength 2, amplitude 1", font_size=32).to_edge(UP, buff=0.3)
        self.play(Write(title), Create(axes), Create(wave))

        crest_a, crest_b = axes.c2p(2, 1), axes.c2p(4, 1)
        wavelength_line = DoubleArrow(crest_a + UP * 0.5, crest_b + UP * 0.5, buff=0, color=YELLOW)
        wavelength_label = MathTex(r"\lambda = 2", font_size=34, color=YELLOW).next_to(wavelength_line, UP, buff=0.1)
        amplitude_line = DoubleArrow(axes.c2p(6, 0), axes.c2p(6, 1), buff=0, color=GREEN)
        amplitude_label = MathTex("A = 1", font_size=34, color=GREEN).next_to(amplitude_line, UP, buff=0.15)
        self.play(GrowFromCenter(wavelength_line), Write(wavelength_label))
        self.play(GrowFromCenter(amplitude_line), Write(amplitude_label))
        self.play(FadeOut(wavelength_line), FadeOut(wavelength_label), FadeOut(amplitude_line),
                  FadeOut(amplitude_label))

        point_x = 3
        track = DashedLine(axes.c2p(point_x, -1), axes.c2p(point_x, 1), color=RED, stroke_opacity=0.5)
        point = always_redraw(lambda: Dot(axes.c2p(point_x, height(point_x)), color=RED, radius=0.12))
        note = Text("red point: only up and down", font_size=28, color=RED).next_to(axes, DOWN, buff=0.3)
        direction = Arrow(axes.c2p(5.2, 1.45), axes.c2p(7.2, 1.45), buff=0, color=WHITE)
        direction_label = Text("wave moves right", font_size=28).next_to(direction, LEFT, buff=0.2)
        self.play(Create(track), FadeIn(point), Write(note), GrowArrow(direction), Write(direction_label))
        self.play(time.animate.set_value(4), run_time=6, rate_func=linear)
        self.wait(0.5)
