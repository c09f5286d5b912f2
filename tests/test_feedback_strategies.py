"""ritl-lint, ritl-layout and ritl-lint-layout: control flow with a scripted model and real renders.

The scripted model only decides the answers; the static check, the renders (with their recorded
geometry) and the layout findings are the real ones.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from dataclasses import replace

import numpy as np
import pytest
from counting_renderer import CountingRenderer
from PIL import Image

from manimgen.agent import AgentConfig, format_target, STRATEGIES, get_strategy, run_agent
from manimgen.agent.feedback_strategies import keep_best_render
from manimgen.checks.layout import layout_findings
from manimgen.agent.trace import STOP_MAX_ROUNDS, STOP_RENDERED
from manimgen.llm import LLMError
from manimgen.llm.scripted import ScriptedLLM
from manimgen.render.frames import frames_at

DESCRIPTION = "Two words side by side under a small circle."

BAD_KEYWORD = """from manim import *


class Words(Scene):
    def construct(self):
        circle = Circle(radius=0.5, colour=BLUE)
        self.add(circle)
"""
OVERLAPPING = """from manim import *


class Words(Scene):
    def construct(self):
        left = Text("left")
        right = Text("right").shift(0.3 * RIGHT)
        self.add(Circle(radius=0.5).shift(2 * UP), left, right)
"""
TIDY = """from manim import *


class Words(Scene):
    def construct(self):
        words = VGroup(Text("left"), Text("right")).arrange(RIGHT, buff=1)
        self.add(Circle(radius=0.5).shift(2 * UP), words)
"""
WRITTEN_OVER = """from manim import *


class Words(Scene):
    def construct(self):
        self.play(Write(Text("left")), run_time=0.5)
        self.play(FadeIn(Text("right").shift(0.3 * RIGHT)), run_time=0.5)
"""
OUT_OF_FRAME = """from manim import *


class Words(Scene):
    def construct(self):
        left = Text("left").shift(2 * LEFT)
        right = Text("right").shift(6.6 * RIGHT)
        self.add(Circle(radius=0.5).shift(2 * UP), left, right)
"""
CRASHING = """from manim import *


class Words(Scene):
    def construct(self):
        words = VGroup(Text("left"), Text("right")).arrange(RIGHT, buff=1)
        self.add(words)
        raise RuntimeError("the repair broke the scene")
"""


def answers(*codes: str, accepts_images: bool = False) -> ScriptedLLM:
    return ScriptedLLM(*(format_target(code) for code in codes), accepts_images=accepts_images)


@pytest.fixture
def renders() -> Iterator[CountingRenderer]:
    """A real cold renderer that notes every code the agent sends it."""
    with CountingRenderer() as renderer:
        yield renderer


def test_strategies_are_registered():
    assert {"ritl-lint", "ritl-layout", "ritl-lint-layout", "ritl-layout-frames"} <= set(STRATEGIES)
    assert get_strategy("ritl-lint-layout").name == "ritl-lint-layout"


def test_lint_finding_is_fed_back_without_a_render(renders):
    llm = answers(BAD_KEYWORD, TIDY)
    trace = run_agent(llm, DESCRIPTION, "ritl-lint", AgentConfig(rounds=3, renderer=renders))
    first, second = trace.rounds
    assert first.render is None and first.render_seconds == 0
    assert "[bad-kwarg]" in first.feedback and "`colour`" in first.feedback and "line 6" in first.feedback
    repair = llm.prompts[1][-1]["content"]
    assert "<RENDER_ERRORS>" in repair and "`colour`" in repair
    assert "so it was not rendered" in repair and "failed when it was rendered" not in repair
    assert renders.codes == [second.code]
    assert trace.ok and trace.stop_reason == STOP_RENDERED and trace.final_code == second.code


def test_lint_clean_code_renders_like_ritl(renders):
    trace = run_agent(answers(TIDY), DESCRIPTION, "ritl-lint", AgentConfig(rounds=3, renderer=renders))
    assert len(trace.rounds) == 1 and trace.ok and renders.codes == [trace.rounds[0].code]


def test_lint_budget_is_one_plus_k_generations_and_the_last_code_is_still_rendered(renders):
    llm = answers(BAD_KEYWORD, BAD_KEYWORD, BAD_KEYWORD)
    trace = run_agent(llm, DESCRIPTION, "ritl-lint", AgentConfig(rounds=2, renderer=renders))
    assert len(llm.calls) == 3 and trace.stop_reason == STOP_MAX_ROUNDS
    assert renders.codes == [trace.rounds[-1].code] and trace.final_render is not None and not trace.ok


def test_layout_finding_produces_a_repair_round(renders):
    llm = answers(OVERLAPPING, TIDY)
    trace = run_agent(llm, DESCRIPTION, "ritl-layout", AgentConfig(rounds=3, renderer=renders))
    first, second = trace.rounds
    assert first.render.ok and first.render.geometry is not None
    assert first.feedback.startswith("The scene rendered without errors") and "`left`" in first.feedback
    assert "[overlap]" in first.feedback and "`left`" in llm.prompts[1][-1]["content"]
    assert "its render succeeded with the problems listed below" in llm.prompts[1][-1]["content"]
    assert second.kind == "repair" and second.feedback == ""
    assert trace.ok and trace.stop_reason == STOP_RENDERED and trace.final_code == second.code


def test_a_broken_layout_repair_keeps_the_earlier_working_video(renders):
    llm = answers(OVERLAPPING, CRASHING)
    trace = run_agent(llm, DESCRIPTION, "ritl-layout", AgentConfig(rounds=1, renderer=renders))
    first, second = trace.rounds
    assert first.render.ok and not second.render.ok
    assert trace.ok and trace.final_code == first.code and trace.final_render is first.render
    assert trace.final_render.output.is_file()


def test_the_rendered_code_with_fewest_layout_problems_wins():
    trace = run_agent(answers(OVERLAPPING, TIDY), DESCRIPTION, "ritl-layout", AgentConfig(rounds=1))
    overlapping, tidy = trace.rounds
    assert keep_best_render(trace) is trace
    ended_worse = replace(trace, final_code=overlapping.code, final_render=overlapping.render)
    best = keep_best_render(ended_worse)
    assert best.final_code == tidy.code and best.final_render is tidy.render


def test_a_layout_repair_that_trades_one_problem_for_another_keeps_the_earlier_video():
    trace = run_agent(answers(OVERLAPPING, OUT_OF_FRAME), DESCRIPTION, "ritl-layout", AgentConfig(rounds=1))
    overlapping, out_of_frame = trace.rounds
    assert len(layout_findings(overlapping.render.geometry)) == len(layout_findings(out_of_frame.render.geometry)) == 1
    assert "[overlap]" in overlapping.feedback and "[off-frame]" in out_of_frame.feedback
    assert trace.final_code == overlapping.code and trace.final_render is overlapping.render


def test_lint_and_layout_together(renders):
    llm = answers(BAD_KEYWORD, OVERLAPPING, TIDY)
    trace = run_agent(llm, DESCRIPTION, "ritl-lint-layout", AgentConfig(rounds=3, renderer=renders))
    lint_round, layout_round, final = trace.rounds
    assert lint_round.render is None and "[bad-kwarg]" in lint_round.feedback
    assert layout_round.render.ok and "[overlap]" in layout_round.feedback
    assert renders.codes == [layout_round.code, final.code]
    assert trace.ok and trace.final_code == final.code


def test_layout_frames_show_the_model_the_moment_of_the_problem():
    llm = answers(WRITTEN_OVER, TIDY, accepts_images=True)
    trace = run_agent(llm, DESCRIPTION, "ritl-layout-frames", AgentConfig(rounds=3))
    first, second = trace.rounds
    (overlap,) = layout_findings(first.render.geometry)
    assert overlap.code == "overlap" and 1.0 <= overlap.time < 1.2  # the end of the second play call
    assert first.feedback.endswith(f"frames on screen at t={overlap.time:.1f} s.")
    assert "images" not in llm.prompts[0][-1]
    (image,) = llm.prompts[1][-1]["images"]
    assert f"frames on screen at t={overlap.time:.1f} s" in llm.prompts[1][-1]["content"]
    shown = np.asarray(Image.open(image).convert("RGB"))
    before_overlap, at_overlap = frames_at(first.render.output, [0.3, overlap.time])
    assert np.array_equal(shown, at_overlap)  # the PNG is the frame itself, losslessly
    assert (at_overlap > 128).sum() > (before_overlap > 128).sum()  # "right" is on screen now, over "left"
    assert trace.ok and second.feedback == "" and trace.final_code == second.code
    assert json.loads(json.dumps(trace.to_dict()))["rounds"][1]["messages"][-1]["images"] == [image]


def test_frames_past_the_end_are_the_last_frame():
    trace = run_agent(answers(WRITTEN_OVER), DESCRIPTION, "vanilla", AgentConfig(rounds=0))
    first, at_end, past_end = frames_at(trace.final_render.output, [0.0, 1.0, 60.0])
    assert np.array_equal(at_end, past_end) and not np.array_equal(first, at_end)


def test_layout_frames_refuse_a_model_without_images():
    with pytest.raises(LLMError, match="takes no images; use ritl-layout"):
        run_agent(answers(WRITTEN_OVER), DESCRIPTION, "ritl-layout-frames", AgentConfig(rounds=1))
