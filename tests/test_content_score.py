"""CVS, the discriminating companion of VS: real renders of the scenes the paper's VS cannot tell
apart land far apart, the same scene scores 1, a small change of it stays high."""

from __future__ import annotations

import numpy as np
import pytest

from manimgen.agent.prompts import format_target
from manimgen.metrics.content import content_similarity, drawn_cells
from manimgen.metrics.visual import visual_score
from manimgen.render import render, sample_frames
from manimgen.scoring import Scorer
from manimgen.train import ManimReward

CIRCLE = """from manim import *


class Drawn(Scene):
    def construct(self):
        circle = Circle(color=BLUE)
        self.play(Create(circle))
        self.play(circle.animate.shift(RIGHT * 2))
"""
HELLO = """from manim import *


class Written(Scene):
    def construct(self):
        words = Text("Hello world", color=YELLOW)
        self.play(Write(words))
        self.play(FadeOut(words))
"""
GREEN_CIRCLE = CIRCLE.replace("BLUE", "TEAL")


@pytest.fixture(scope="module")
def frames() -> dict[str, np.ndarray]:
    videos = {name: render(code) for name, code in (("circle", CIRCLE), ("hello", HELLO), ("teal", GREEN_CIRCLE))}
    assert all(result.ok for result in videos.values())
    return {name: sample_frames(result.output) for name, result in videos.items()}


def test_unrelated_scenes_that_vs_calls_alike_are_far_apart(frames: dict[str, np.ndarray]) -> None:
    assert visual_score(frames["circle"], frames["hello"]).vs > 0.95, "the compression the paper's VS has"
    assert content_similarity(frames["circle"], frames["hello"]) < 0.4
    assert content_similarity(frames["circle"], frames["circle"]) == 1.0


def test_a_small_change_of_the_same_scene_stays_well_above_an_unrelated_one(frames: dict[str, np.ndarray]) -> None:
    variant = content_similarity(frames["circle"], frames["teal"])
    assert 0.7 < variant < 1.0 and variant > content_similarity(frames["circle"], frames["hello"]) + 0.4


def test_empty_frames_agree_and_a_drawn_one_does_not_match_an_empty_one() -> None:
    black = np.zeros((3, 90, 160, 3), dtype=np.uint8)
    drawn = black.copy()
    drawn[:, 30:60, 60:100] = (250, 250, 250)
    assert content_similarity(black, black) == 1.0
    assert content_similarity(black, drawn) == 0.0
    colours, weights = drawn_cells(drawn)
    assert colours.shape[:3] == weights.shape and weights.max() == pytest.approx(1.0, abs=0.2)


def test_the_scorer_reports_cvs_and_the_reward_can_use_it_as_its_visual_part() -> None:
    scores = Scorer().score(CIRCLE, HELLO)
    assert scores.content_vs is not None and scores.content_vs < 0.4 < scores.vs
    reward = ManimReward(visual_metric="content_vs", workers=1)
    (value,) = reward([[]], [format_target(HELLO)], [CIRCLE])
    assert value is not None and value < 0.2 * 1 + 0.8 * 0.4
    reward.close()
    with pytest.raises(ValueError, match="visual part is one of vs, content_vs"):
        ManimReward(visual_metric="ssim")  # type: ignore[arg-type]
