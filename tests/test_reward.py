"""The GRPO reward on real renders: the reference itself scores near 1, a changed scene lower,
code that fails to render at most λ_T, no code 0; one scorer call per batch; a reference that
does not render leaves its completions unscored instead of failing the batch."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import pytest
from counting_renderer import CountingRenderer

from manimgen.agent.prompts import format_target
from manimgen.data import BUILTIN_TASKS
from manimgen.train import ManimReward

REFERENCE = BUILTIN_TASKS[0].reference_code
VARIANT = REFERENCE.replace("BLUE", "GREEN").replace("Square(", "Triangle(")
BROKEN = REFERENCE.replace("Circle(", "Circel(")
UNRENDERABLE_REFERENCE = """from manim import *


class Broken(Scene):
    def construct(self):
        raise RuntimeError("this reference cannot render")
"""


class CountingScorer:
    """The real scorer, counting how often the reward calls it."""

    def __init__(self) -> None:
        from manimgen.scoring import Scorer

        self.inner = Scorer(workers=2)
        self.calls: list[int] = []

    def score_many(self, items: Sequence[tuple[str, str | None]]) -> list[Any]:
        self.calls.append(len(items))
        return self.inner.score_many(items)

    def code_scores(self, reference: str, code: str | None) -> dict[str, Any]:
        return self.inner.code_scores(reference, code)


@pytest.fixture(scope="module")
def scorer() -> CountingScorer:
    return CountingScorer()


def test_reference_variant_broken_and_missing_code(scorer: CountingScorer) -> None:
    reward = ManimReward(scorer=scorer)
    logged: dict[str, float] = {}
    completions = [
        [{"role": "assistant", "content": format_target(REFERENCE)}],
        format_target(VARIANT),
        format_target(BROKEN),
        "I cannot draw that.",
    ]
    calls_before = len(scorer.calls)
    rewards = reward([[]] * 4, completions, [REFERENCE] * 4, log_metric=logged.__setitem__)
    assert len(scorer.calls) == calls_before + 1
    own, variant, broken, missing = rewards
    assert own is not None and own > 0.95
    assert variant is not None and broken is not None and 0.2 < variant < own
    assert 0.0 < broken <= reward.text_weight
    assert missing == 0.0
    stats = reward.last_stats
    assert stats is not None and stats.count == 4 and stats.render_ok == pytest.approx(0.5)
    assert logged["manim/render_ok"] == pytest.approx(0.5) and logged["manim/visual"] > 0.4
    assert logged["manim/text"] == pytest.approx(stats.text) and logged["manim/unscored"] == 0.0


def test_geometric_mode_needs_both_parts(scorer: CountingScorer) -> None:
    reward = ManimReward(0.5, 0.5, "geometric", scorer=scorer)
    assert reward.combine(0.25, 1.0) == pytest.approx(0.5)
    own, broken = reward([[]] * 2, [format_target(REFERENCE), format_target(BROKEN)], [REFERENCE] * 2)
    assert own is not None and own > 0.95
    assert broken == 0.0


def test_unrenderable_reference_leaves_only_its_completions_unscored(scorer: CountingScorer) -> None:
    reward = ManimReward(scorer=scorer)
    references = [UNRENDERABLE_REFERENCE] * 2 + [REFERENCE] * 2
    rewards = reward([[]] * 4, [format_target(REFERENCE)] * 4, references)
    assert rewards[:2] == [None, None]
    assert all(value is not None and value > 0.95 for value in rewards[2:])
    assert reward.last_stats is not None and reward.last_stats.broken_references == 2


def test_under_the_paper_preset_an_unrenderable_reference_gives_visual_zero_and_keeps_the_text(scorer: CountingScorer) -> None:
    """As the original reward does: its failed reference render is caught and scored V = 0."""
    reward = ManimReward(scorer=scorer, preset="paper")
    rewards = reward([[]] * 2, [format_target(REFERENCE), "no code here"], [UNRENDERABLE_REFERENCE] * 2)
    text = scorer.code_scores(UNRENDERABLE_REFERENCE, REFERENCE.rstrip() + "\n")["cbb"]
    assert text > 0.1 and rewards == [pytest.approx(0.2 * text), 0.0]
    assert reward.last_stats is not None and reward.last_stats.broken_references == 0 and reward.last_stats.render_ok == 0.0


def test_bad_input_is_refused() -> None:
    with pytest.raises(ValueError, match="weights"):
        ManimReward(0.0, 0.0)
    with pytest.raises(ValueError, match="mode"):
        ManimReward(mode="harmonic")  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="one per completion"):
        ManimReward(scorer=object())([[]], ["a", "b"], ["ref"])


def test_renders_go_to_the_renderer_given() -> None:
    with CountingRenderer() as renderer:
        reward = ManimReward(renderer=renderer)
        (own,) = reward([[]], [format_target(VARIANT)], [REFERENCE])
        reward.close()
    assert own is not None and own > 0.2
    assert len(renderer.codes) == 2 and REFERENCE in renderer.codes and renderer.codes != [REFERENCE, REFERENCE]
