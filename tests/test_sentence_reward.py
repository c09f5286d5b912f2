"""The reference-free GRPO reward on real renders: a scene that shows its sentence earns 1, one that renders
something else less, a failed render at most the lint's part, no code 0; each distinct code renders once;
`reward: sentence` makes GRPO read a task file's sentences."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from counting_renderer import CountingRenderer

from manimgen.agent.prompts import format_target
from manimgen.data import BUILTIN_TASKS
from manimgen.train.grpo import _reward
from manimgen.train.grpo_config import GRPOTrainingConfig
from manimgen.train.sentence_reward import LINT_WEIGHT, RENDER_WEIGHT, SentenceReward

TASKS = {task.id: task for task in BUILTIN_TASKS}
CIRCLE, DOTS = TASKS["circle-to-square"], TASKS["three-dots"]
UNKNOWN_NAME = CIRCLE.reference_code.replace("Circle(", "Circel(")
RAISES = CIRCLE.reference_code.replace("def construct(self):", "def construct(self):\n        raise ValueError('no')")


@pytest.fixture(scope="module")
def renderer() -> Iterator[CountingRenderer]:
    with CountingRenderer() as counting:
        yield counting


def test_what_the_render_shows_orders_the_rewards(renderer: CountingRenderer) -> None:
    reward = SentenceReward(renderer=renderer)
    logged: dict[str, float] = {}
    completions = [
        [{"role": "assistant", "content": format_target(CIRCLE.reference_code)}],
        format_target(DOTS.reference_code),
        format_target(RAISES),
        format_target(UNKNOWN_NAME),
        "I cannot draw that.",
        format_target(CIRCLE.reference_code),
    ]
    before = len(renderer.codes)
    values = reward([None] * 6, completions, [CIRCLE.description] * 6, log_metric=logged.__setitem__)
    assert len(renderer.codes) - before == 4, "the two identical answers render once; no code renders nothing"
    shown, other, raised, unknown, nothing, again = values
    assert shown == pytest.approx(1.0) and again == shown
    parts = reward.last_parts[1]
    assert parts.rendered and parts.lint_clean and parts.held < 1.0, "three dots hold none of the circle's sentence"
    assert RENDER_WEIGHT + LINT_WEIGHT <= other < shown
    assert raised == pytest.approx(LINT_WEIGHT), "clean names that raise earn the lint's part only"
    assert unknown == 0.0 and nothing == 0.0
    assert logged["sentence/render_ok"] == pytest.approx(3 / 6) and logged["sentence/lint_clean"] == pytest.approx(4 / 6)


def test_a_sentence_without_a_verifiable_requirement_is_held_by_rendering(renderer: CountingRenderer) -> None:
    formula = TASKS["pythagoras-formula"]
    reward = SentenceReward(renderer=renderer)
    assert reward([None], [format_target(formula.reference_code)], [formula.description]) == [pytest.approx(1.0)]
    assert reward.last_parts[0].held == 1.0


def test_the_config_picks_the_sentence_reward_and_mismatched_batches_are_refused() -> None:
    assert isinstance(_reward(GRPOTrainingConfig(reward="sentence")), SentenceReward)
    with pytest.raises(ValueError, match="(?s)reward.*'paper' or 'sentence'"):
        GRPOTrainingConfig(reward="judge")
    with pytest.raises(ValueError, match="2 completions but 1 descriptions"):
        SentenceReward()([None, None], ["a", "b"], ["one"])
