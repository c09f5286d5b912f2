from manim import *


class Lesson(Scene):
    def construct(self):
        def node(value, position):
            return MathTex(str(value), font_size=56).move_to(position)

        def branch(parent, child):
            return Line(parent.get_bottom(), child.get_top(), buff=0.15)

        title = Text("Factor tree for 36", font_size=36).to_edge(UP)
        root = node(36, UP * 2)
        self.play(Write(title), Write(root))

        four = node(4, LEFT * 2.5 + UP * 0.2)
        nine = node(9, RIGHT * 2.5 + UP * 0.2)
        self.play(Create(branch(root, four)), Create(branch(root, nine)))
        self.play(Write(four), Write(nine))

        two_a = node(2, LEFT * 3.7 + DOWN * 1.6)
        two_b = node(2, LEFT * 1.3 + DOWN * 1.6)
        self.play(Create(branch(four, two_a)), Create(branch(four, two_b)))
        self.play(Write(two_a), Write(two_b))

        three_a = node(3, RIGHT * 1.3 + DOWN * 1.6)
        three_b = node(3, RIGHT * 3.7 + DOWN * 1.6)
        self.play(Create(branch(nine, three_a)), Create(branch(nine, three_b)))
        self.play(Write(three_a), Write(three_b))

        primes = VGroup(two_a, two_b, three_a, three_b)
        self.play(primes.animate.set_color(GREEN), run_time=1.2)

        result = MathTex(r"36 = 2 \times 2 \times 3 \times 3", font_size=48).to_edge(DOWN)
        self.play(Write(result))
        self.wait(1.5)
