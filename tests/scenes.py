"""Small scenes the render tests share."""

ANIMATED = """from manim import *

class Grow(Scene):
    def construct(self):
        self.play(Create(Circle(color=BLUE)), run_time=1)
"""
STATIC = """from manim import *

class Still(Scene):
    def construct(self):
        self.add(Square(color=RED))
"""
