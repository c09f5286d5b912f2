"""ritl-lint, ritl-layout and ritl-lint-layout: control flow with a scripted model and real renders.

The scripted model only decides the answers; the static check, the renders (with their recorded
geometry) and the layout findings are the real ones.
"""

from __future__ import annotations

from dataclasses import replace

import pytest

import manimgen.agent.strategies as strategies
from manimgen.agent import AgentConfig, format_target, get_strategy, list_strategies, run_agent
from manimgen.agent.feedback_strategies import keep_best_render
from manimgen.agent.trace import STOP_MAX_ROUNDS, STOP_RENDERED
from manimgen.llm.scripted import ScriptedLLM

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
CRASHING = """from manim import *


class Words(Scene):
    def construct(self):
        words = VGroup(Text("left"), Text("right")).arrange(RIGHT, buff=1)
        self.add(words)
        raise RuntimeError("the repair broke the scene")
"""


def answers(*codes: str) -> ScriptedLLM:
    return ScriptedLLM(*(format_target(code) for code in codes))


@pytest.fixture
def renders(monkeypatch) -> list[str]:
    """Every code the agent sends to the renderer, through either render path."""
    seen: list[str] = []

    def counting(original):
        def render(code, *args, **kwargs):
            seen.append(code)
            return original(code, *args, **kwargs)

        return render

    monkeypatch.setattr(strategies, "render", counting(strategies.render))
    return seen


def test_strategies_are_registered():
    assert {"ritl-lint", "ritl-layout", "ritl-lint-layout"} <= set(list_strategies())
    assert get_strategy("ritl-lint-layout").name == "ritl-lint-layout"


def test_lint_finding_is_fed_back_without_a_render(renders):
    llm = answers(BAD_KEYWORD, TIDY)
    trace = run_agent(llm, DESCRIPTION, "ritl-lint", AgentConfig(rounds=3))
    first, second = trace.rounds
    assert first.render is None and first.render_seconds == 0
    assert "[bad-kwarg]" in first.feedback and "`colour`" in first.feedback and "line 6" in first.feedback
    repair = llm.prompts[1][-1]["content"]
    assert "<RENDER_ERRORS>" in repair and "`colour`" in repair
    assert "so it was not rendered" in repair and "failed when it was rendered" not in repair
    assert renders == [second.code]
    assert trace.ok and trace.stop_reason == STOP_RENDERED and trace.final_code == second.code


def test_lint_clean_code_renders_like_ritl(renders):
    trace = run_agent(answers(TIDY), DESCRIPTION, "ritl-lint", AgentConfig(rounds=3))
    assert len(trace.rounds) == 1 and trace.ok and renders == [trace.rounds[0].code]


def test_lint_budget_is_one_plus_k_generations_and_the_last_code_is_still_rendered(renders):
    llm = answers(BAD_KEYWORD, BAD_KEYWORD, BAD_KEYWORD)
    trace = run_agent(llm, DESCRIPTION, "ritl-lint", AgentConfig(rounds=2))
    assert len(llm.calls) == 3 and trace.stop_reason == STOP_MAX_ROUNDS
    assert renders == [trace.rounds[-1].code] and trace.final_render is not None and not trace.ok


def test_layout_finding_produces_a_repair_round(renders):
    llm = answers(OVERLAPPING, TIDY)
    trace = run_agent(llm, DESCRIPTION, "ritl-layout", AgentConfig(rounds=3))
    first, second = trace.rounds
    assert first.render.ok and first.render.geometry is not None
    assert first.feedback.startswith("The scene rendered without errors") and "`left`" in first.feedback
    assert "[overlap]" in first.feedback and "`left`" in llm.prompts[1][-1]["content"]
    assert "its render succeeded with the problems listed below" in llm.prompts[1][-1]["content"]
    assert second.kind == "repair" and second.feedback == ""
    assert trace.ok and trace.stop_reason == STOP_RENDERED and trace.final_code == second.code


def test_a_broken_layout_repair_keeps_the_earlier_working_video(renders):
    llm = answers(OVERLAPPING, CRASHING)
    trace = run_agent(llm, DESCRIPTION, "ritl-layout", AgentConfig(rounds=1))
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


def test_lint_and_layout_together(renders):
    llm = answers(BAD_KEYWORD, OVERLAPPING, TIDY)
    trace = run_agent(llm, DESCRIPTION, "ritl-lint-layout", AgentConfig(rounds=3))
    lint_round, layout_round, final = trace.rounds
    assert lint_round.render is None and "[bad-kwarg]" in lint_round.feedback
    assert layout_round.render.ok and "[overlap]" in layout_round.feedback
    assert renders == [layout_round.code, final.code]
    assert trace.ok and trace.final_code == final.code
