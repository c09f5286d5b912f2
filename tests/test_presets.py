"""Metric presets: `paper` reproduces the original ManimBench code's numbers, `default` stays ours,
and every score says which preset made it.

The original's numbers are in fixtures/paper_parity.json with how they were made (the commits of the
original read, the environment, the call per metric); the frames they compare are
fixtures/parity_frames.npz (three built-in scenes at the preview quality, every other frame).
"""

from __future__ import annotations

import json
from fractions import Fraction
from pathlib import Path

import av
import numpy as np
import pytest

from manimgen.agent.extract import extract_code_strict
from manimgen.bench import BenchRunner, Store
from manimgen.bench.config import parse_config
from manimgen.data import BUILTIN_TASKS
from manimgen.llm.scripted import ScriptedLLM
from manimgen.metrics import EmbedderUnavailable
from manimgen.metrics.code import ast_distance, ast_distance_fields, codebleu, embedding_cosine, padded_pair_cosine, scene_classes
from manimgen.metrics.embedders import minilm_l6
from manimgen.metrics.visual import sem_dtw, visual_score
from manimgen.render import every_nth_frame, sample_frames
from manimgen.scoring import Scorer
from manimgen.scoring.presets import PRESETS
from manimgen.train.grpo_config import GRPOTrainingConfig

TASKS = {task.id: task.reference_code for task in BUILTIN_TASKS}
FIXTURES = Path(__file__).parent / "fixtures"
ORIGINAL = json.loads((FIXTURES / "paper_parity.json").read_text())


@pytest.mark.parametrize(("reference", "generated", "expected"), ORIGINAL["ast_distance"])
def test_paper_ast_distance_matches_the_original(reference: str, generated: str, expected: float) -> None:
    assert ast_distance_fields(TASKS[reference], TASKS[generated]) == pytest.approx(expected, abs=1e-6)
    if expected:
        assert ast_distance(TASKS[reference], TASKS[generated]) != pytest.approx(expected, abs=1e-3), "the default labels differ"


@pytest.mark.parametrize(("reference", "generated", "expected"), ORIGINAL["ssim_dtw"])
def test_paper_ssim_dtw_matches_the_original(reference: str, generated: str, expected: float) -> None:
    frames = np.load(FIXTURES / "parity_frames.npz")
    paper = visual_score(frames[reference], frames[generated], ConstantEmbedder(), dtw="fastdtw", gray="opencv")
    assert paper.ssim_dtw == pytest.approx(expected, abs=1e-6)


@pytest.mark.parametrize(("reference", "generated", "expected"), ORIGINAL["codebleu"])
def test_codebleu_is_the_originals_under_both_presets(reference: str, generated: str, expected: float) -> None:
    assert codebleu(TASKS[reference], TASKS[generated]) == pytest.approx(expected, abs=1e-6)


def test_padded_pair_pooling_matches_the_original() -> None:
    encoder = minilm_l6()
    for reference, generated, expected in ORIGINAL["code_cosine"]:
        assert padded_pair_cosine(TASKS[reference], TASKS[generated], encoder) == pytest.approx(expected, abs=1e-6)
    short, long = "x = 1\n", TASKS["growing-bars"]
    assert abs(padded_pair_cosine(short, long, encoder) - embedding_cosine(short, long, encoder)) > 1e-3, "padding counts"


@pytest.mark.parametrize(("answer", "expected"), ORIGINAL["extraction"])
def test_strict_extraction_matches_the_original(answer: str, expected: str) -> None:
    assert (extract_code_strict(answer) or "").strip() == expected


class ConstantEmbedder:
    """Every frame the same vector: SEM_DTW is then 1 and the test reads SSIM_DTW alone."""

    name = "constant"

    def embed(self, frames: np.ndarray) -> np.ndarray:
        return np.ones((len(frames), 4), dtype=np.float32) / 2


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
    paper = PRESETS.pick("paper")
    assert (paper.image_embedder, paper.code_embedder, paper.dtw) == ("clip-vit-l-14", "codebert", "fastdtw")
    with pytest.raises(ValueError, match="unknown metric preset 'nonesuch'; choose one of: default, paper"):
        PRESETS.pick("nonesuch")
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


OFFLINE_PAPER = {"preset": "paper", "image_embedder": "effnet-lite0", "code_embedder": "minilm-l6"}
"""The paper preset with the offline embedders named over CLIP and CodeBERT, so it runs anywhere."""


def test_a_file_with_several_scenes_renders_only_outside_the_paper_preset() -> None:
    reference = TASKS["three-dots"]
    two_scenes = reference + "\n\nclass Extra(Scene):\n    def construct(self):\n        self.add(Dot())\n"
    assert scene_classes(two_scenes) == ["ThreeDots", "Extra"]
    paper = Scorer(**OFFLINE_PAPER).score(reference, two_scenes)
    assert (paper.render_status, paper.rendered, paper.vs, paper.preset) == ("several_scenes", False, 0.0, "paper")
    assert (paper.dtw, paper.image_embedder) == ("fastdtw", "effnet-lite0")
    assert Scorer().score(reference, two_scenes).rendered


def test_under_the_paper_preset_the_study_scores_an_answer_it_could_not_extract_as_no_code(tmp_path: Path) -> None:
    answer = f"```py\n{TASKS['three-dots']}```"
    statuses = {}
    for preset, options in (("default", {}), ("paper", OFFLINE_PAPER)):
        config = parse_config({
            "models": ["m=scripted"], "strategies": ["vanilla"], "split": "builtin", "tasks": ["three-dots"],
            "metric_preset": preset, **{key: value for key, value in options.items() if key != "preset"},
        })
        llm = ScriptedLLM(answer)
        BenchRunner(config, tmp_path / preset, llm_factory=lambda spec, llm=llm: llm, show_progress=False).run()
        with Store.open_existing(tmp_path / preset) as store:
            (sample,) = store.samples()
        statuses[preset] = (sample.status, sample.score("preset"))
    assert statuses == {"default": ("ok", "default"), "paper": ("no_code", "paper")}


def test_the_rewards_render_timeout_follows_the_preset_unless_set() -> None:
    assert GRPOTrainingConfig().reward_timeout_s == 120.0
    assert GRPOTrainingConfig(metric_preset="paper").reward_timeout_s == 300.0, "the original's reward"
    assert GRPOTrainingConfig(metric_preset="paper", render_timeout_s=60).reward_timeout_s == 60


def test_paper_sem_dtw_matches_the_original_on_the_same_embeddings() -> None:
    """CLIP's weights are not here; the alignment and its score are checked on given unit vectors."""
    vectors = ORIGINAL["sem_dtw"]
    reference, generated = (np.asarray(vectors[name], dtype=np.float32) for name in ("reference", "generated"))
    assert sem_dtw(reference, generated, dtw="fastdtw") == pytest.approx(vectors["expected"], abs=1e-6)
