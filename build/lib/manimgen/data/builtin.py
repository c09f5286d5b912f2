"""A small task set of our own (MIT) for the demo and the tests: no licence strings attached."""

from __future__ import annotations

from manimgen.data.task import Task

_SCENES: list[tuple[str, str, str, str]] = [
    (
        "circle-to-square",
        "Basic",
        "A blue circle is drawn in the centre, then transforms into a red square.",
        '''from manim import *


class CircleToSquare(Scene):
    def construct(self):
        circle = Circle(color=BLUE, fill_opacity=0.5)
        square = Square(color=RED, fill_opacity=0.5)
        self.play(Create(circle))
        self.play(Transform(circle, square))
        self.wait(0.5)
''',
    ),
    (
        "three-dots",
        "Basic",
        "Three dots, yellow, green and purple, sit in a row across the middle of the screen.",
        '''from manim import *


class ThreeDots(Scene):
    def construct(self):
        dots = VGroup(Dot(color=YELLOW), Dot(color=GREEN), Dot(color=PURPLE)).arrange(RIGHT, buff=1.5)
        self.add(dots)
''',
    ),
    (
        "hello-text",
        "Basic",
        "The words 'Hello, Manim' are written on screen in white, then fade out.",
        '''from manim import *


class HelloText(Scene):
    def construct(self):
        text = Text("Hello, Manim")
        self.play(Write(text))
        self.play(FadeOut(text))
''',
    ),
    (
        "pythagoras-formula",
        "Basic",
        "Show the formula a squared plus b squared equals c squared in the middle of the screen.",
        '''from manim import *


class PythagorasFormula(Scene):
    def construct(self):
        formula = MathTex("a^2 + b^2 = c^2").scale(1.5)
        self.add(formula)
''',
    ),
    (
        "moving-square",
        "Basic",
        "A green square starts on the left and slides to the right edge of the screen.",
        '''from manim import *


class MovingSquare(Scene):
    def construct(self):
        square = Square(color=GREEN, fill_opacity=1).to_edge(LEFT)
        self.add(square)
        self.play(square.animate.to_edge(RIGHT), run_time=2)
''',
    ),
    (
        "rotating-triangle",
        "Basic",
        "An orange triangle spins one half turn around its centre.",
        '''from manim import *


class RotatingTriangle(Scene):
    def construct(self):
        triangle = Triangle(color=ORANGE, fill_opacity=0.7).scale(2)
        self.add(triangle)
        self.play(Rotate(triangle, angle=PI), run_time=1.5)
''',
    ),
    (
        "sine-graph",
        "Intermediate",
        "Draw coordinate axes and plot the sine curve on them in blue.",
        '''from manim import *


class SineGraph(Scene):
    def construct(self):
        axes = Axes(x_range=[-4, 4, 1], y_range=[-1.5, 1.5, 1], tips=False)
        curve = axes.plot(lambda x: np.sin(x), color=BLUE)
        self.play(Create(axes))
        self.play(Create(curve))
''',
    ),
    (
        "labelled-arrow",
        "Basic",
        "A white arrow points from a red dot on the left to a blue dot on the right.",
        '''from manim import *


class LabelledArrow(Scene):
    def construct(self):
        start = Dot(LEFT * 3, color=RED)
        end = Dot(RIGHT * 3, color=BLUE)
        arrow = Arrow(start.get_center(), end.get_center(), buff=0.2)
        self.add(start, end, arrow)
''',
    ),
    (
        "growing-bars",
        "Intermediate",
        "Three bars of heights one, two and three grow up from a common baseline, left to right.",
        '''from manim import *


class GrowingBars(Scene):
    def construct(self):
        bars = VGroup(*[
            Rectangle(width=1, height=h, color=TEAL, fill_opacity=0.8) for h in (1, 2, 3)
        ]).arrange(RIGHT, buff=0.5, aligned_edge=DOWN)
        self.play(LaggedStart(*[GrowFromEdge(bar, DOWN) for bar in bars], lag_ratio=0.3))
        self.wait(0.5)
''',
    ),
    (
        "square-grid",
        "Basic",
        "A three by three grid of small white squares fills the centre of the screen.",
        '''from manim import *


class SquareGrid(Scene):
    def construct(self):
        grid = VGroup(*[Square(side_length=0.8) for _ in range(9)]).arrange_in_grid(rows=3, buff=0.2)
        self.add(grid)
''',
    ),
]

BUILTIN_TASKS: list[Task] = [
    Task(id=task_id, description=description, reference_code=code, complexity=complexity, split="builtin")
    for task_id, complexity, description, code in _SCENES
]
