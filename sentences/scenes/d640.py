from manim import *


class Lesson(Scene):
    def construct(self):
        title = Text("Momentum is conserved in a collision", font_size=34).to_edge(UP, buff=0.3)
        track_y = -2.0
        track = Line(LEFT * 6.6, RIGHT * 6.6).set_y(track_y)

        def make_cart(width, mass, color):
            body = Rectangle(width=width, height=1.0, color=color, stroke_width=6)
            body.move_to([0, track_y + 0.36 + 0.5, 0])
            wheels = VGroup(*[Circle(radius=0.18, color=color).move_to([x, track_y + 0.18, 0])
                              for x in (-width / 3, width / 3)])
            label = Text(f"{mass} kg", font_size=30).move_to(body)
            return VGroup(body, wheels, label)

        def velocity_arrow(cart, speed, text):
            start = cart[0].get_top() + UP * 0.4 + LEFT * 0.25 * speed
            arrow = Arrow(start, start + RIGHT * 0.5 * speed, buff=0, color=YELLOW)
            label = Text(text, font_size=28, color=YELLOW).next_to(arrow, UP, buff=0.1)
            return VGroup(arrow, label)

        cart_a = make_cart(1.8, 2, BLUE).set_x(-4.8)
        cart_b = make_cart(1.2, 1, ORANGE).set_x(-0.6)
        arrow_a = velocity_arrow(cart_a, 3, "3 m/s")
        rest_b = Text("v = 0", font_size=28, color=YELLOW).next_to(cart_b, UP, buff=0.4)
        self.play(Write(title), Create(track), FadeIn(cart_a), FadeIn(cart_b))
        self.play(GrowArrow(arrow_a[0]), Write(arrow_a[1]), Write(rest_b))

        before = MathTex(r"\text{before: } p = 2 \cdot 3 + 1 \cdot 0 = 6\ \text{kg m/s}", font_size=44)
        before.next_to(title, DOWN, buff=0.4)
        self.play(Write(before))

        gap = cart_b[0].get_left()[0] - cart_a[0].get_right()[0]
        self.play(cart_a.animate.shift(RIGHT * gap), arrow_a.animate.shift(RIGHT * gap),
                  run_time=gap / 3, rate_func=linear)
        pair = VGroup(cart_a, cart_b)
        arrow_pair = velocity_arrow(pair, 2, "2 m/s (stuck together)")
        self.play(FadeOut(arrow_a), FadeOut(rest_b), Flash(cart_b[0].get_left(), color=WHITE), run_time=0.5)
        self.play(GrowArrow(arrow_pair[0]), Write(arrow_pair[1]), run_time=0.6)
        self.play(pair.animate.shift(RIGHT * 3.6), arrow_pair.animate.shift(RIGHT * 3.6), run_time=1.8,
                  rate_func=linear)

        after = MathTex(r"\text{after: } p = (2 + 1) \cdot 2 = 6\ \text{kg m/s}", font_size=44)
        after.next_to(before, DOWN, buff=0.3)
        self.play(Write(after))
        self.play(Circumscribe(VGroup(before, after), color=GREEN))
        self.wait(1)
