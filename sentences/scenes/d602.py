from manim import *


class Lesson(Scene):
    def construct(self):
        slice_count = 8
        shaded_count = 3
        slice_angle = TAU / slice_count

        slices = VGroup(*[
            Sector(
                radius=2.5,
                angle=slice_angle,
                start_angle=PI / 2 + i * slice_angle,
                fill_color=GREY_D,
                fill_opacity=0.5,
                stroke_color=WHITE,
                stroke_width=4,
            )
            for i in range(slice_count)
        ]).shift(LEFT * 2)

        title = Text("8 equal slices", font_size=36).to_edge(UP)
        self.play(Write(title))
        self.play(LaggedStart(*[FadeIn(piece) for piece in slices], lag_ratio=0.2), run_time=2)
        self.wait(0.5)

        for piece in slices[:shaded_count]:
            self.play(piece.animate.set_fill(ORANGE, opacity=1), run_time=0.6)

        fraction = MathTex(r"\frac{3}{8}", font_size=96)
        fraction[0][0].set_color(ORANGE)
        caption = Text("3 of 8 slices shaded", font_size=30)
        result = VGroup(fraction, caption).arrange(DOWN, buff=0.5).next_to(slices, RIGHT, buff=1.2)
        new_title = Text("Shaded part: 3/8", font_size=36).to_edge(UP)
        self.play(Write(fraction), FadeIn(caption), Transform(title, new_title))
        self.wait(1.5)
