"""ManimAgent control flow with a scripted model and real renders of tiny scenes.

The scripted model only decides what the "model" answers; prompts, extraction, API lookup in the
installed manim and every render are the real ones.
"""

from __future__ import annotations

import inspect
import json
import re
from pathlib import Path

import manim
import pytest
from typer.testing import CliRunner

from manimgen.agent import (
    SYSTEM_PROMPT,
    STRATEGIES,
    AgentConfig,
    AgentRun,
    RepairLoop,
    Trace,
    api_info,
    extract_code,
    format_target,
    generation_messages,
    get_strategy,
    run_agent,
)
from manimgen.agent.apidocs import MAX_TEXT_CHARS, call_targets, called_names
from manimgen.agent.prompts import EXAMPLE_CODE, NO_CODE_FEEDBACK, render_errors
from manimgen.agent.trace import STOP_DEADLINE, STOP_MAX_ROUNDS, STOP_RENDERED
from manimgen.cli import app
from manimgen.llm.scripted import ScriptedLLM
from manimgen.render import RenderResult, RenderStatus, render

DESCRIPTION = "A red square sits in the middle of the screen."

GOOD = """from manim import *


class StillSquare(Scene):
    def construct(self):
        self.add(Square(color=RED))
"""
GOOD_WITH_WAIT = """from manim import *


class StillSquareWaiting(Scene):
    def construct(self):
        self.add(Square(color=RED))
        self.wait(0.2)
"""
MISSPELT = """from manim import *


class Misspelt(Scene):
    def construct(self):
        self.add(Sqaure(color=RED))
"""
NOISY = """import sys

from manim import *


class Noisy(Scene):
    def construct(self):
        for index in range(30):
            print(f"noise line {index}", file=sys.stderr)
        raise ValueError("deliberate failure")
"""
HALLUCINATING = """from manim import *


class Draft(Scene):
    def construct(self):
        circle = Circle(radius=1.5)
        self.play(ShowCreationThenFadeAway2(circle))
"""


def answer(code: str) -> str:
    return f"Here is the scene.\n{format_target(code)}"


def block(tag: str, text: str) -> str:
    match = re.search(rf"<{tag}>\n(.*?)\n</{tag}>", text, re.DOTALL)
    assert match is not None, f"no <{tag}> block in:\n{text}"
    return match.group(1)


def user_prompt(llm: ScriptedLLM, call: int) -> str:
    messages = llm.prompts[call]
    assert [message["role"] for message in messages] == ["system", "user"], "every prompt is a fresh single turn"
    assert messages[0]["content"] == SYSTEM_PROMPT
    return messages[1]["content"]


# --- strategies -------------------------------------------------------------------------------


def test_vanilla_makes_one_call_and_renders_it() -> None:
    llm = ScriptedLLM(answer(MISSPELT), answer(GOOD))
    trace = run_agent(llm, DESCRIPTION, "vanilla")
    assert len(llm.calls) == 1 and llm.remaining == 1
    assert [round_.kind for round_ in trace.rounds] == ["generate"]
    assert trace.final_render is not None and trace.final_render.status is RenderStatus.CODE_ERROR
    assert "NameError" in trace.rounds[0].feedback
    assert not trace.ok and trace.stop_reason == STOP_MAX_ROUNDS
    assert user_prompt(llm, 0) == f"<TEXT_SCRIPT>\n{DESCRIPTION}\n</TEXT_SCRIPT>"


def test_ritl_stops_at_the_first_successful_render() -> None:
    llm = ScriptedLLM(answer(MISSPELT), answer(GOOD), answer(GOOD_WITH_WAIT))
    trace = run_agent(llm, DESCRIPTION, "ritl", AgentConfig(rounds=3))
    assert len(llm.calls) == 2 and llm.remaining == 1
    assert [round_.kind for round_ in trace.rounds] == ["generate", "repair"]
    assert trace.ok and trace.stop_reason == STOP_RENDERED
    assert trace.final_code == GOOD and trace.final_render is trace.rounds[1].render
    assert trace.rounds[1].feedback == ""
    assert trace.final_render.output is not None and trace.final_render.output.is_file()


def test_ritl_respects_k_feedback_rounds() -> None:
    llm = ScriptedLLM(*[answer(MISSPELT)] * 5)
    trace = run_agent(llm, DESCRIPTION, "ritl", AgentConfig(rounds=2))
    assert len(llm.calls) == 3, "1 + K generations"
    assert [round_.kind for round_ in trace.rounds] == ["generate", "repair", "repair"]
    assert all(round_.render is not None and not round_.render.ok for round_ in trace.rounds)
    assert not trace.ok and trace.stop_reason == STOP_MAX_ROUNDS


def test_repair_prompt_carries_the_code_and_the_last_ten_error_lines() -> None:
    llm = ScriptedLLM(answer(NOISY), answer(GOOD))
    trace = run_agent(llm, DESCRIPTION, "ritl")
    failed = trace.rounds[0].render
    assert failed is not None and failed.status is RenderStatus.CODE_ERROR
    prompt = user_prompt(llm, 1)
    assert block("TEXT_SCRIPT", prompt) == DESCRIPTION
    assert block("INITIAL_CODE", prompt) == NOISY.rstrip()
    errors = block("RENDER_ERRORS", prompt).splitlines()
    assert errors == [line for line in failed.error_tail.splitlines() if line.strip()][-10:]
    assert len(errors) == 10
    assert errors[-1] == "ValueError: deliberate failure"
    assert "noise line 0" not in prompt and "<API_INFO>" not in prompt


def test_render_errors_keep_ten_lines_and_explain_timeouts() -> None:
    tail = "\n".join(f"line {index}" for index in range(15))
    failed = RenderResult(RenderStatus.CODE_ERROR, None, None, tail, "low", 1.0)
    assert render_errors(failed).splitlines() == [f"line {index}" for index in range(5, 15)]
    timeout = RenderResult(RenderStatus.TIMEOUT, None, None, "TimeoutError: the render did not finish within 300 s", "low", 300.0)
    text = render_errors(timeout)
    assert text.startswith("TimeoutError") and "took too long" in text


def test_an_answer_without_code_is_fed_back_as_a_failure() -> None:
    apology = "I am sorry, I can only describe the animation in words."
    llm = ScriptedLLM(apology, answer(GOOD))
    trace = run_agent(llm, DESCRIPTION, "ritl")
    first = trace.rounds[0]
    assert first.code is None and first.render is None and first.feedback == NO_CODE_FEEDBACK
    prompt = user_prompt(llm, 1)
    assert block("RENDER_ERRORS", prompt) == NO_CODE_FEEDBACK
    assert block("INITIAL_CODE", prompt) == apology
    assert trace.ok and trace.llm_calls == 2


def test_a_final_answer_without_code_fails_the_run() -> None:
    trace = run_agent(ScriptedLLM("no code at all"), DESCRIPTION, "vanilla")
    assert trace.final_code is None and trace.final_render is None and not trace.ok


def test_ritl_doc_refines_the_draft_with_api_info_before_rendering() -> None:
    llm = ScriptedLLM(answer(HALLUCINATING), answer(GOOD))
    trace = run_agent(llm, DESCRIPTION, "ritl-doc")
    assert [round_.kind for round_ in trace.rounds] == ["generate", "doc"]
    assert trace.rounds[0].render is None, "the draft is refined before any render"
    assert trace.ok and trace.final_code == GOOD
    prompt = user_prompt(llm, 1)
    assert block("INITIAL_CODE", prompt) == HALLUCINATING.rstrip()
    docs = block("API_INFO", prompt)
    assert f"Circle{inspect.signature(manim.Circle)}" in docs
    not_found = next(line for line in docs.splitlines() if line.startswith("NOT FOUND"))
    assert not_found.endswith("instead): ShowCreationThenFadeAway2")
    assert "CircleExample" not in docs and ".. manim::" not in docs, "docs examples are benchmark answers"


def test_ritl_doc_makes_at_most_five_generations_at_k3() -> None:
    llm = ScriptedLLM(*[answer(MISSPELT)] * 6)
    trace = run_agent(llm, DESCRIPTION, "ritl-doc", AgentConfig(rounds=3))
    assert [round_.kind for round_ in trace.rounds] == ["generate", "doc", "repair", "repair", "repair"]
    assert llm.remaining == 1 and not trace.ok
    for call in (2, 3, 4):
        prompt = user_prompt(llm, call)
        assert block("INITIAL_CODE", prompt) == MISSPELT.rstrip()
        assert "Sqaure" in block("API_INFO", prompt).split("\n")[0]
        assert "NameError: name 'Sqaure' is not defined" in block("RENDER_ERRORS", prompt)


def test_deadline_stops_new_rounds_but_the_code_is_still_rendered() -> None:
    llm = ScriptedLLM(answer(HALLUCINATING), answer(GOOD))
    trace = run_agent(llm, DESCRIPTION, "ritl-doc", AgentConfig(deadline_s=0.0))
    assert len(llm.calls) == 1 and trace.stop_reason == STOP_DEADLINE
    assert trace.final_render is not None and trace.final_render.status is RenderStatus.CODE_ERROR


class WaitLint(RepairLoop):
    """A plug-in strategy: code without `self.wait` is sent back before it is rendered."""

    def before_render(self, run: AgentRun, code: str) -> str | None:
        return None if "self.wait" in code else "lint: the scene never waits; end it with self.wait()"


class AlwaysComplain(RepairLoop):
    """A plug-in strategy: every successful render gets layout feedback."""

    def after_render(self, run: AgentRun, result: RenderResult) -> str | None:
        return f"layout: {result.scene} looks crowded"


def test_before_render_hook_feeds_back_without_rendering() -> None:
    llm = ScriptedLLM(answer(GOOD), answer(GOOD_WITH_WAIT))
    trace = WaitLint().run(llm, DESCRIPTION, AgentConfig())
    first, second = trace.rounds
    assert first.render is None and first.feedback.startswith("lint:")
    assert block("RENDER_ERRORS", user_prompt(llm, 1)) == first.feedback
    assert second.render is not None and trace.ok


def test_code_a_hook_rejected_is_rendered_when_rounds_run_out() -> None:
    trace = WaitLint().run(ScriptedLLM(answer(GOOD)), DESCRIPTION, AgentConfig(rounds=0))
    assert trace.rounds[0].feedback.startswith("lint:")
    assert trace.final_render is not None and trace.ok and trace.stop_reason == STOP_MAX_ROUNDS


def test_after_render_hook_asks_for_more_rounds_after_a_success() -> None:
    llm = ScriptedLLM(answer(GOOD), answer(GOOD_WITH_WAIT))
    trace = AlwaysComplain().run(llm, DESCRIPTION, AgentConfig(rounds=1))
    assert len(llm.calls) == 2
    assert trace.rounds[0].render is not None and trace.rounds[0].render.ok
    assert trace.rounds[0].feedback == "layout: StillSquare looks crowded"
    assert trace.ok and trace.final_code == GOOD_WITH_WAIT


def test_registry_names_the_known_strategies() -> None:
    assert {"vanilla", "ritl", "ritl-doc"} <= set(STRATEGIES)
    assert get_strategy("ritl-doc").name == "ritl-doc"
    with pytest.raises(ValueError, match=r"unknown strategy 'ritl-magic'.*vanilla.*ritl-doc"):
        get_strategy("ritl-magic")


def test_round_seeds_follow_the_config_seed() -> None:
    llm = ScriptedLLM(answer(MISSPELT), answer(GOOD))
    run_agent(llm, DESCRIPTION, "ritl", AgentConfig())
    assert [call.sampling.seed for call in llm.calls] == [0, 1]


def test_trace_round_trips_through_json(tmp_path: Path) -> None:
    llm = ScriptedLLM("no code here", answer(MISSPELT), answer(GOOD))
    trace = run_agent(llm, DESCRIPTION, "ritl-doc")
    data = json.loads(trace.to_json())
    assert data["ok"] is True and data["llm_calls"] == 3 == len(data["rounds"])
    assert data["prompt_tokens"] == trace.prompt_tokens > 0
    again = Trace.from_json(trace.to_json())
    assert again == trace
    assert again.final_render is not None and again.final_render.output == trace.final_render.output


# --- API documentation ------------------------------------------------------------------------

SCENE_CALLS = """from manim import *
import random


def double(value):
    return value


class Calls(Scene):
    def construct(self):
        square = Square().shift(LEFT)
        circle, dot = Circle(), Dot()
        self.play(Create(square))
        square.rotate(PI / 4)
        square.animate.scale(2)
        Triangle().move_to(ORIGIN)
        circle.set_fill_color(RED)
        for item in VGroup(circle, dot):
            item.shift(UP)
        print(len(range(3)))
        np.array([1, 2])
        random.choice([1, 2])
        double(1)
        self.wait()
"""


def test_self_calls_resolve_to_the_scene_base_class() -> None:
    targets = [target.qualified for target in call_targets(SCENE_CALLS)]
    assert "Scene.play" in targets and "Scene.wait" in targets
    three_d = "from manim import *\n\nclass T(ThreeDScene):\n    def construct(self):\n        self.set_camera_orientation(phi=1)\n"
    assert api_info(three_d).resolved == ["ThreeDScene.set_camera_orientation"]
    wrong_base = "from manim import *\n\nclass T(Scene):\n    def construct(self):\n        self.set_camera_orientation(phi=1)\n"
    assert api_info(wrong_base).unresolved == ["Scene.set_camera_orientation"]


def test_method_calls_resolve_to_the_class_the_variable_was_built_from() -> None:
    info = api_info(SCENE_CALLS)
    assert {"Square.shift", "Square.rotate", "Square.scale", "Triangle.move_to", "Create"} <= set(info.resolved)
    assert info.unresolved == ["Circle.set_fill_color"]
    assert "Square.rotate(self, angle" in info.text
    assert not any(name.startswith("item.") for name in info.resolved + info.unresolved), "loop variables are not guessed"


def test_builtins_stop_list_and_non_manim_names_are_dropped() -> None:
    names = {target.qualified for target in called_names(SCENE_CALLS)}
    assert not names & {"print", "len", "range", "np.array", "random.choice", "double", "Scene.play", "Scene.wait"}


def test_api_info_is_bounded() -> None:
    classes = [name for name in dir(manim) if name[:1].isupper() and inspect.isclass(getattr(manim, name))][:80]
    body = "\n".join(f"        {name}()" for name in classes)
    info = api_info(f"from manim import *\n\nclass Many(Scene):\n    def construct(self):\n{body}\n")
    assert len(info.resolved) == len(classes)
    assert len(info.text) < MAX_TEXT_CHARS + 1000 and "more names not shown" in info.text


def test_api_info_reports_code_that_does_not_parse() -> None:
    info = api_info("from manim import *\nclass Broken(Scene:\n")
    assert "could not be parsed" in info.text and info.resolved == info.unresolved == []


# --- prompts and extraction ---------------------------------------------------------------------


def test_prompts_have_the_expected_structure() -> None:
    system, user = generation_messages("  Two dots.  ")
    assert system == {"role": "system", "content": SYSTEM_PROMPT}
    assert user == {"role": "user", "content": "<TEXT_SCRIPT>\nTwo dots.\n</TEXT_SCRIPT>"}
    assert "<TEXT_SCRIPT>" in SYSTEM_PROMPT and "<CODE>" in SYSTEM_PROMPT
    assert format_target("x = 1\n") == "<CODE>\n```python\nx = 1\n```\n</CODE>"
    assert extract_code(format_target(EXAMPLE_CODE)) == EXAMPLE_CODE


def test_the_prompt_example_is_our_own_and_renders() -> None:
    manim_source = "\n".join(path.read_text(encoding="utf-8") for path in Path(manim.__file__).parent.rglob("*.py"))
    assert "SlidingTriangle" not in manim_source
    assert "triangle.animate.move_to(ORIGIN).set_color(YELLOW)" not in manim_source
    assert render(EXAMPLE_CODE).ok


@pytest.mark.parametrize(
    ("completion", "expected"),
    [
        ("<CODE>\n```python\na = 1\n```\n</CODE> then <CODE>\n```python\nb = 2\n```\n</CODE>", "b = 2\n"),
        ("<code>\nc = 3\n</code>", "c = 3\n"),
        ("text\n```python\nd = 4\n```\nmore\n```bash\nls\n```\n```py\ne = 5\n```", "e = 5\n"),
        ("```\nf = 6\n```", "f = 6\n"),
        ("<CODE>\n```python\ng = 7\n```\n</CODE>\n<CODE>\n```python\nh = ", "g = 7\n"),
        ("<CODE>\n```python\nclass A:\n    x = (", "class A:\n    x = (\n"),
        ("```python\n    indented = 1\n    more = 2", "indented = 1\nmore = 2\n"),
        ("<CODE></CODE>\n```python\ni = 9\n```", "i = 9\n"),
        ("I cannot help with that.", None),
        ("```bash\nls\n```", None),
        ("<CODE>\n   \n</CODE>", None),
    ],
)
def test_extract_code(completion: str, expected: str | None) -> None:
    assert extract_code(completion) == expected


# --- command line -------------------------------------------------------------------------------


def test_generate_rejects_an_unknown_strategy_or_model() -> None:
    runner = CliRunner()
    result = runner.invoke(app, ["generate", "a dot", "--strategy", "ritl-magic"])
    assert result.exit_code == 2 and "unknown strategy 'ritl-magic'" in result.output
    result = runner.invoke(app, ["generate", "a dot", "--model", "gpt-17"])
    assert result.exit_code == 2 and "unknown model 'gpt-17'" in result.output
