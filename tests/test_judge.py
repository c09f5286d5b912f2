"""Reference-free checks of a render against its sentence, on real renders."""

from __future__ import annotations

from counting_renderer import CountingRenderer

from manimgen.agent import AgentConfig, format_target, run_agent
from manimgen.agent.judge import drawn_problems, quoted_texts, sentence_problems
from manimgen.agent.trace import STOP_RENDERED
from manimgen.llm.scripted import ScriptedLLM
from manimgen.render import render

HEAD = "from manim import *\n\n\nclass S(Scene):\n    def construct(self):\n"
STILL = HEAD + "        self.add(Circle(color=BLUE))\n"
MOVING = HEAD + "        circle = Circle(color=BLUE)\n        self.play(circle.animate.shift(RIGHT), run_time=0.5)\n"
BLANK = HEAD + "        self.wait(0.5)\n"
HELLO = HEAD + "        self.play(Write(Text('Hello World')), run_time=0.5)\n"


def test_a_still_picture_for_a_sentence_that_asks_for_motion() -> None:
    still = render(STILL, quality="preview")
    assert still.ok and still.output.suffix == ".png"
    assert sentence_problems("A blue circle moves to the right.", STILL, still) == [
        "the sentence asks for motion, but the video shows one still picture: animate it with self.play(...)"
    ]
    assert sentence_problems("A blue circle.", STILL, still) == []
    moving = render(MOVING, quality="preview")
    assert sentence_problems("A blue circle moves to the right.", MOVING, moving) == []
    held = HEAD + "        self.add(Circle(color=BLUE))\n        self.wait(2)\n"
    frozen = render(held, quality="preview")
    assert frozen.ok and frozen.output.suffix == ".mp4", "a video, yet it holds one picture for two seconds"
    assert sentence_problems("A blue circle moves to the right.", held, frozen) == [
        "the sentence asks for motion, but the video shows one still picture: animate it with self.play(...)"
    ]


def test_a_blank_video_is_named() -> None:
    blank = render(BLANK, quality="preview")
    assert blank.ok and sentence_problems("A pause.", BLANK, blank) == [
        "every frame of the video is one flat colour: nothing visible is drawn"
    ]


def test_quoted_text_must_be_written() -> None:
    assert quoted_texts("Show the text 'Hello World', then \"Bye\"; it's “done”.") == ["Hello World", "Bye", "done"]
    hello = render(HELLO, quality="preview")
    assert sentence_problems("Write 'Hello World' on the screen.", HELLO, hello) == []
    assert sentence_problems("Write 'Goodbye' on the screen.", HELLO, hello) == [
        "the sentence quotes 'Goodbye', but the code never writes that text"
    ]


def test_sampling_passes_over_a_still_when_motion_is_asked() -> None:
    llm = ScriptedLLM(format_target(STILL), format_target(MOVING))
    with CountingRenderer() as renderer:
        trace = run_agent(llm, "A blue circle moves to the right.", "sample-lint", AgentConfig(rounds=3, renderer=renderer))
    first, second = trace.rounds
    assert "still picture" in first.feedback and second.kind == "resample"
    assert trace.final_code == MOVING and trace.stop_reason == STOP_RENDERED


def test_sampling_keeps_the_candidate_with_fewest_problems() -> None:
    sentence = "The word 'Hi' while a blue circle moves to the right."
    llm = ScriptedLLM(format_target(MOVING), format_target(BLANK))
    with CountingRenderer() as renderer:
        trace = run_agent(llm, sentence, "sample-lint", AgentConfig(rounds=1, renderer=renderer))
    first, second = (sentence_problems(sentence, r.code, r.render) for r in trace.rounds)
    assert (len(first), len(second)) == (1, 3), "the blank video is also a still one where motion is asked"
    assert trace.final_code == MOVING, "the moving circle without its word beats a blank video without it"


PILED = """from manim import *


class Row(Scene):
    def construct(self):
        circles = [Circle(radius=0.5, color=BLUE) for _ in range(3)]
        for circle in circles:
            self.play(Create(circle), run_time=0.3)
        self.play(Write(Text("a^2 + b^2 = c^2").to_edge(UP)), run_time=0.3)
"""
APART = """from manim import *


class Row(Scene):
    def construct(self):
        self.play(Create(VGroup(*[Circle(radius=0.5, color=BLUE) for _ in range(3)]).arrange(RIGHT)), run_time=0.3)
        self.play(Write(MathTex("a^2 + b^2 = c^2").to_edge(UP)), run_time=0.3)
"""
BARS = """from manim import *


class Bars(Scene):
    def construct(self):
        for height in [1, 2, 3]:
            self.play(GrowFromEdge(Rectangle(width=0.5, height=height).align_to(DOWN * 2, DOWN), DOWN), run_time=0.3)
"""
ROW = "Three circles sit in a row under the formula a squared plus b squared equals c squared."


def test_copies_piled_on_one_spot_and_a_formula_as_plain_text_are_named() -> None:
    piled = render(PILED, quality="preview", geometry=True)
    assert drawn_problems(ROW, piled) == [
        "the sentence asks for three circles, but 3 Circle objects lie on one spot around (0.00, 0.00), so they look "
        "like one: place them apart (arrange, next_to or shift each)",
        "the formula 'a^2 + b^2 = c^2' is written as plain Text, carets and all: write it with MathTex(r\"...\")",
    ]
    assert drawn_problems(ROW, render(APART, quality="preview", geometry=True)) == []
    bars = render(BARS, quality="preview", geometry=True)
    assert "3 Rectangle objects lie on one spot" in drawn_problems("A bar chart of three values grows bar by bar.", bars)[0]
    assert drawn_problems("Three bars stacked on top of each other.", bars) == []
    assert [problem[:11] for problem in drawn_problems("A circle grows.", piled)] == ["the formula"]  # no count asked
    assert sentence_problems(ROW, PILED, piled) == []  # sample-lint's judge does not look at these


def test_sample_judge_passes_over_piled_copies() -> None:
    llm = ScriptedLLM(format_target(PILED), format_target(APART))
    with CountingRenderer() as renderer:
        trace = run_agent(llm, ROW, "sample-judge", AgentConfig(rounds=3, renderer=renderer))
    first, second = trace.rounds
    assert "lie on one spot" in first.feedback and "plain Text" in first.feedback and second.kind == "resample"
    assert trace.final_code == APART and trace.stop_reason == STOP_RENDERED
