"""Metric presets: `paper` reproduces the original ManimBench code's numbers, `default` stays ours,
and every score says which preset made it.

The `paper` numbers below were printed by a re-creation of the original's metric functions, written
outside this repository from khieunguyen/manim-trainer (src/evaluation/code_evaluator.py at
f22829dec78ca2108f7b36e6ae9dccef42eefc9c, src/evaluation/video_comparator.py at
1f475c25f2cac4113a2d13dc1a0a14557fcce463) and run with its pinned zss 1.2.0 and opencv 4.12:
`ast_distance(generated, reference)["ast_distance_norm"]` on the built-in references.
"""

from __future__ import annotations

from fractions import Fraction
from pathlib import Path

import av
import numpy as np
import pytest

from manimgen.bench.config import parse_config
from manimgen.data import BUILTIN_TASKS
from manimgen.metrics import EmbedderUnavailable
from manimgen.metrics.code import ast_distance, ast_distance_fields
from manimgen.render import every_nth_frame, sample_frames
from manimgen.scoring import Scorer
from manimgen.scoring.presets import PRESETS, get_preset
from manimgen.train.grpo_config import GRPOTrainingConfig

TASKS = {task.id: task.reference_code for task in BUILTIN_TASKS}
ORIGINAL_AST_DISTANCE = {  # (reference, generated) -> the original's normalised distance
    ("circle-to-square", "three-dots"): 0.580952380399093,
    ("circle-to-square", "moving-square"): 0.4857142852517007,
    ("hello-text", "hello-text"): 0.0,
}


@pytest.mark.parametrize(("pair", "expected"), ORIGINAL_AST_DISTANCE.items())
def test_paper_ast_distance_matches_the_original(pair: tuple[str, str], expected: float) -> None:
    reference, generated = (TASKS[name] for name in pair)
    assert ast_distance_fields(reference, generated) == pytest.approx(expected, abs=1e-9)
    if expected:
        assert ast_distance(reference, generated) != pytest.approx(expected, abs=1e-3), "the default labels differ"


def test_paper_ast_distance_keeps_the_originals_edge_cases() -> None:
    reference = TASKS["hello-text"]
    assert ast_distance_fields(reference, "class A(:\n    pass\n") is None, "a syntax error is left out of the mean"
    assert ast_distance_fields(reference, "  \n") == 0.0, "empty code was recorded as 0.0, the best distance"
    assert ast_distance(reference, "  \n") == 1.0


def _numbered_video(path: Path, fps: int, frames: int) -> Path:
    """A video whose frame i is filled with grey level 8·i, so a sampled frame tells its index."""
    with av.open(str(path), "w") as container:
        stream = container.add_stream("libx264", rate=fps)
        stream.width, stream.height, stream.pix_fmt = 64, 48, "yuv444p"
        stream.options = {"qp": "0"}
        for index in range(frames):
            frame = av.VideoFrame.from_ndarray(np.full((48, 64, 3), 8 * index, dtype=np.uint8), format="rgb24")
            frame.pts, frame.time_base = index, Fraction(1, fps)
            container.mux(stream.encode(frame))
        container.mux(stream.encode(None))
    return path


def _indices(frames: np.ndarray) -> list[int]:
    return [int(round(frame.mean() / 8)) for frame in frames]


def test_every_nth_frame_is_the_originals_rule_and_the_clock_only_agrees_at_multiples_of_5(tmp_path: Path) -> None:
    at_24 = _numbered_video(tmp_path / "24.mp4", 24, 26)
    assert _indices(every_nth_frame(at_24)) == [0, 4, 8, 12, 16, 20, 24], "int(24 / 5) = 4"
    assert _indices(sample_frames(at_24)) == [0, 5, 10, 15, 20, 24]
    at_15 = _numbered_video(tmp_path / "15.mp4", 15, 16)
    assert _indices(every_nth_frame(at_15)) == _indices(sample_frames(at_15)) == [0, 3, 6, 9, 12, 15]


def test_presets_are_registered_and_unknown_ones_name_the_choices() -> None:
    assert list(PRESETS) == ["default", "paper"]
    paper = get_preset("paper")
    assert (paper.image_embedder, paper.code_embedder, paper.dtw) == ("clip-vit-l-14", "codebert", "fastdtw")
    with pytest.raises(ValueError, match="unknown metric preset 'nonesuch'; choose one of: default, paper"):
        get_preset("nonesuch")
    assert parse_config({"models": ["m"], "strategies": ["vanilla"], "metric_preset": "paper"}).metric_preset == "paper"
    with pytest.raises(ValueError, match="metric_preset.*default, paper"):
        parse_config({"models": ["m"], "strategies": ["vanilla"], "metric_preset": "nonesuch"})
    assert GRPOTrainingConfig(metric_preset="paper").metric_preset == "paper"
    with pytest.raises(ValueError, match="metric_preset"):
        GRPOTrainingConfig(metric_preset="nonesuch")


def test_scores_record_their_preset_and_paper_never_falls_back_silently() -> None:
    scores = Scorer().score(TASKS["three-dots"], TASKS["three-dots"])
    assert scores.preset == "default" and scores.image_embedder == "effnet-lite0"
    try:
        paper = Scorer(preset="paper")
    except EmbedderUnavailable as error:
        assert "clip-vit-l-14 needs the openai/clip-vit-large-patch14 weights" in str(error)
        return
    assert (paper.image_embedder, paper.code_embedder) == ("clip-vit-l-14", "codebert")
