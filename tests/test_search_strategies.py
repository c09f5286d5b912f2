"""ritl-lint-fix and sample-lint: control flow with a scripted model, real lint, autofix and renders."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from counting_renderer import CountingRenderer

from manimgen.agent import AgentConfig, format_target, run_agent
from manimgen.checks.layout import layout_findings
from manimgen.agent.search_strategies import RESAMPLE_TEMPERATURE
from manimgen.agent.trace import STOP_MAX_ROUNDS, STOP_RENDERED
from manimgen.llm.base import Sampling
from manimgen.llm.scripted import ScriptedLLM

DESCRIPTION = "Two words side by side under a small circle."
HEAD = "from manim import *\n\n\nclass Words(Scene):\n    def construct(self):\n"
MANIMGL = HEAD + "        circle = Circle(radius=0.5)\n        self.play(ShowCreation(circle))\n"
UNFIXABLE = HEAD + "        words = TextMobject('left right')\n        self.add(words)\n"
OVERLAPPING = HEAD + (
    "        left = Text('left')\n        right = Text('right').shift(0.3 * RIGHT)\n"
    "        self.add(Circle(radius=0.5).shift(2 * UP), left, right)\n"
)
TIDY = HEAD + (
    "        words = VGroup(Text('left'), Text('right')).arrange(RIGHT, buff=1)\n"
    "        self.add(Circle(radius=0.5).shift(2 * UP), words)\n"
)
SAMPLING = Sampling(temperature=0.2, seed=7)


def answers(*codes: str) -> ScriptedLLM:
    return ScriptedLLM(*(format_target(code) for code in codes))


@pytest.fixture
def renders() -> Iterator[CountingRenderer]:
    with CountingRenderer() as renderer:
        yield renderer


def test_mechanical_repair_saves_the_round_and_is_recorded(renders):
    llm = answers(MANIMGL)
    trace = run_agent(llm, DESCRIPTION, "ritl-lint-fix", AgentConfig(rounds=3, renderer=renders))
    (only,) = trace.rounds
    assert only.autofixes == ["line 7: `ShowCreation` → `Create` (ManimGL or old manim API)"]
    assert "Create(circle)" in only.code and "ShowCreation" in only.completion
    assert trace.ok and trace.stop_reason == STOP_RENDERED and renders.codes == [only.code]
    assert trace.to_dict()["rounds"][0]["autofixes"] == only.autofixes


def test_an_echoed_repair_is_followed_by_a_fresh_draft(renders):
    llm = answers(UNFIXABLE, UNFIXABLE, TIDY)
    trace = run_agent(llm, DESCRIPTION, "ritl-lint-fix", AgentConfig(rounds=3, sampling=SAMPLING, renderer=renders))
    assert [round_.kind for round_ in trace.rounds] == ["generate", "repair", "resample"]
    assert "<RENDER_ERRORS>" in llm.prompts[1][-1]["content"]
    assert llm.prompts[2] == llm.prompts[0], "a fresh draft asks the first question again"
    assert [call.sampling.temperature for call in llm.calls] == [0.2, 0.2, RESAMPLE_TEMPERATURE]
    assert [call.sampling.seed for call in llm.calls] == [7, 8, 9]
    assert trace.ok and renders.codes == [TIDY]


def test_sampling_renders_only_clean_drafts_and_stops_at_a_tidy_layout(renders):
    llm = answers(UNFIXABLE, OVERLAPPING, TIDY, TIDY)
    trace = run_agent(llm, DESCRIPTION, "sample-lint", AgentConfig(rounds=3, sampling=SAMPLING, renderer=renders))
    assert [round_.kind for round_ in trace.rounds] == ["generate", "resample", "resample"]
    assert llm.remaining == 1 and all(prompt == llm.prompts[0] for prompt in llm.prompts)
    assert [call.sampling.temperature for call in llm.calls] == [0.2, RESAMPLE_TEMPERATURE, RESAMPLE_TEMPERATURE]
    assert renders.codes == [OVERLAPPING, TIDY], "the draft the lint rejected is never rendered"
    assert trace.final_code == TIDY and trace.ok and trace.stop_reason == STOP_RENDERED


def test_sampling_keeps_the_render_with_fewest_layout_findings(renders):
    llm = answers(OVERLAPPING, UNFIXABLE)
    trace = run_agent(llm, DESCRIPTION, "sample-lint", AgentConfig(rounds=1, sampling=SAMPLING, renderer=renders))
    assert trace.stop_reason == STOP_MAX_ROUNDS and len(llm.calls) == 2
    assert trace.final_code == OVERLAPPING and trace.ok
    assert layout_findings(trace.final_render.geometry), "the only render had layout findings, and it is kept"


def test_examples_are_the_nearest_working_scenes_and_reach_every_draft(renders, tmp_path, monkeypatch):
    import json

    from manimgen.agent.examples import example_bank

    bank = tmp_path / "examples.jsonl"
    rows = [
        {"prompt": "Two words next to each other below a circle", "code": TIDY},
        {"prompt": "A spinning cube in three dimensions", "code": "# a cube"},
        {"prompt": "Words under a circle, side by side", "code": "# words"},
    ]
    bank.write_text("".join(json.dumps(row) + "\n" for row in rows))
    monkeypatch.setenv("MANIMGEN_EXAMPLES", str(bank))
    example_bank.cache_clear()
    try:
        llm = answers(UNFIXABLE, TIDY)
        trace = run_agent(llm, DESCRIPTION, "sample-lint-examples", AgentConfig(rounds=3, sampling=SAMPLING, renderer=renders))
    finally:
        example_bank.cache_clear()
    assert trace.ok and [round_.kind for round_ in trace.rounds] == ["generate", "resample"]
    for prompt in llm.prompts:
        user = prompt[-1]["content"]
        assert user.startswith("Working scenes for similar descriptions:") and user.endswith(f"<TEXT_SCRIPT>\n{DESCRIPTION}\n</TEXT_SCRIPT>")
        assert "Two words next to each other below a circle" in user and "Words under a circle" in user and "spinning cube" not in user


def test_the_default_example_bank_keeps_away_from_the_test_split():
    """The cut the bank documents: no example's code or description is that close to a test row."""
    from manimgen.agent.examples import CUT_CODE, CUT_DESCRIPTION, EMBEDDER, ExamplesUnavailable, example_bank
    from manimgen.data import DatasetError, load_tasks
    from manimgen.metrics.embedders import code_embedder

    try:
        bank = example_bank()
        test = load_tasks("test")
    except (ExamplesUnavailable, DatasetError) as error:
        pytest.skip(str(error))
    embedder = code_embedder(EMBEDDER)
    codes = embedder.embed([example.code for example in bank.examples]) @ embedder.embed([task.reference_code for task in test]).T
    texts = embedder.embed([example.description for example in bank.examples]) @ embedder.embed([task.description for task in test]).T
    assert len(bank.examples) == 151 and codes.max() < CUT_CODE and texts.max() < CUT_DESCRIPTION
