"""Visual metrics: the fast SSIM matrix against skimage, DTW against a brute-force DP, and VS end to end."""

from __future__ import annotations

import math

import numpy as np
import pytest
from PIL import Image, ImageDraw

from manimgen.metrics import visual
from manimgen.metrics.dtw import accumulated_cost, cost_matrix, dtw_distance
from manimgen.metrics.embedders import image_embedder
from manimgen.metrics.visual import (
    sem_dtw,
    ssim_dtw,
    ssim_matrix,
    ssim_matrix_reference,
    to_gray,
    visual_score,
    visual_similarity,
)

WIDTH, HEIGHT = 854, 480


def scene_frames(
    kind: str, count: int = 10, size: tuple[int, int] = (WIDTH, HEIGHT), colour=(88, 196, 221), shift: int = 0
) -> np.ndarray:
    """Manim-like frames: shapes and text on a black background, moving, then holding still."""
    width, height = size
    frames = []
    for index in range(count):
        progress = min(index / max(count // 2, 1), 1.0)
        image = Image.new("RGB", size, (0, 0, 0))
        draw = ImageDraw.Draw(image)
        if kind == "circle":
            draw.text((width * 0.4, height * 0.1), "Circle demo", fill=(255, 255, 255))
            x, y, r = int(width * (0.2 + 0.5 * progress)) + shift, height // 2, int(height * 0.12)
            draw.ellipse((x - r, y - r, x + r, y + r), outline=colour, width=4)
        else:
            half = int(height * (0.1 + 0.2 * progress))
            x, y = width // 3, height // 2
            draw.rectangle((x - half, y - half, x + half, y + half), fill=(200, 50, 50))
            for dot in range(int(8 * progress)):
                left = width * 0.6 + dot * 25
                draw.ellipse((left, height * 0.3, left + 12, height * 0.3 + 12), fill=(50, 200, 50))
        frames.append(np.asarray(image))
    return np.stack(frames)


@pytest.fixture(scope="module")
def embedder():
    return image_embedder("effnet-lite0")


def test_ssim_matrix_equals_skimage_on_random_frames_of_odd_sizes():
    rng = np.random.default_rng(0)
    ref = rng.integers(0, 256, (3, 61, 83), dtype=np.uint8)
    test = rng.integers(0, 256, (4, 61, 83), dtype=np.uint8)
    test[1] = ref[2]
    test[3] = test[0]
    np.testing.assert_allclose(ssim_matrix(ref, test), ssim_matrix_reference(ref, test), rtol=0, atol=1e-6)


def test_ssim_matrix_equals_skimage_on_manim_like_frames_with_pauses():
    ref = to_gray(scene_frames("circle", count=8)[[0, 3, 6, 7]])
    test = to_gray(scene_frames("circle", count=8, colour=(250, 100, 100), shift=30)[[1, 5, 7]])
    test[2, 200:210, 300:420] = 255
    fast = ssim_matrix(ref, test)
    assert fast.shape == (4, 3)
    np.testing.assert_allclose(fast, ssim_matrix_reference(ref, test), rtol=0, atol=1e-6)


def test_ssim_matrix_resizes_a_test_video_of_another_size():
    ref = to_gray(scene_frames("circle", count=4)[[0, 3]])
    test = to_gray(scene_frames("circle", count=4, size=(640, 360))[[1, 3]])
    fast = ssim_matrix(ref, test)
    np.testing.assert_allclose(fast, ssim_matrix_reference(ref, test), rtol=0, atol=1e-6)
    assert fast[1, 1] > fast[0, 1]


def test_ssim_matrix_of_a_frame_with_itself_is_one():
    gray = to_gray(scene_frames("square", count=3))
    assert np.allclose(np.diag(ssim_matrix(gray, gray)), 1.0, atol=1e-12)


def test_frames_smaller_than_the_window_are_rejected():
    with pytest.raises(ValueError, match="SSIM window"):
        ssim_matrix(np.zeros((1, 5, 40), np.uint8), np.zeros((1, 5, 40), np.uint8))


def test_to_gray_uses_bt601_weights_and_rejects_float_frames():
    frame = np.zeros((1, 8, 8, 3), np.uint8)
    frame[..., 0] = 200
    assert to_gray(frame)[0, 0, 0] == round(0.299 * 200)
    with pytest.raises(ValueError, match="uint8"):
        to_gray(frame.astype(np.float32))


def brute_force_dtw(cost: np.ndarray) -> float:
    n, m = cost.shape
    acc = np.full((n + 1, m + 1), np.inf)
    acc[0, 0] = 0.0
    for i in range(1, n + 1):
        for j in range(1, m + 1):
            acc[i, j] = cost[i - 1, j - 1] + min(acc[i - 1, j], acc[i, j - 1], acc[i - 1, j - 1])
    return acc[n, m]


@pytest.mark.parametrize("seed", range(8))
def test_exact_dtw_equals_brute_force_dynamic_programme(seed):
    rng = np.random.default_rng(seed)
    a = rng.random(rng.integers(1, 30))
    b = rng.random(rng.integers(1, 30))
    assert accumulated_cost(cost_matrix(a, b, "euclidean")) == pytest.approx(
        brute_force_dtw(np.abs(a[:, None] - b[None, :])), abs=1e-12
    )
    vectors_a, vectors_b = rng.normal(size=(len(a), 5)), rng.normal(size=(len(b), 5))
    unit_a = vectors_a / np.linalg.norm(vectors_a, axis=1, keepdims=True)
    unit_b = vectors_b / np.linalg.norm(vectors_b, axis=1, keepdims=True)
    assert dtw_distance(vectors_a, vectors_b, "cosine") == pytest.approx(
        brute_force_dtw(1 - unit_a @ unit_b.T), abs=1e-12
    )


@pytest.mark.parametrize("seed", range(4))
def test_fastdtw_never_beats_the_exact_optimum(seed):
    rng = np.random.default_rng(100 + seed)
    a, b = rng.random(40), rng.random(33)
    assert dtw_distance(a, b, method="fastdtw") >= dtw_distance(a, b, method="exact") - 1e-12


def test_unknown_dtw_method_is_rejected():
    with pytest.raises(ValueError, match="fastdtw"):
        dtw_distance(np.ones(3), np.ones(3), method="slow")


def test_sem_dtw_follows_the_cosine_cost():
    basis = np.eye(4)
    assert sem_dtw(basis, basis * 3.0) == pytest.approx(1.0)
    assert sem_dtw(basis[:1], basis[1:2]) == pytest.approx(math.exp(-1.0))
    with pytest.raises(ValueError, match="one embedder"):
        sem_dtw(np.ones((2, 3)), np.ones((2, 4)))


@pytest.mark.parametrize("dtw", ["exact", "fastdtw"])
def test_identical_videos_score_one(embedder, dtw):
    frames = scene_frames("circle", count=8)
    score = visual_score(frames, frames.copy(), embedder, dtw=dtw)
    assert score.ssim_dtw == pytest.approx(1.0, abs=1e-9)
    assert score.sem_dtw == pytest.approx(1.0, abs=1e-5)
    assert score.vs == pytest.approx(1.0, abs=1e-5)
    assert score.label == "VS[effnet-lite0]"


def test_a_variant_scores_above_an_unrelated_scene(embedder):
    ref = scene_frames("circle", count=10)
    variant = scene_frames("circle", count=10, colour=(250, 100, 100), shift=40)
    unrelated = scene_frames("square", count=10)
    close = visual_score(ref, variant, embedder)
    far = visual_score(ref, unrelated, embedder)
    assert close.ssim_dtw > far.ssim_dtw
    assert close.sem_dtw > far.sem_dtw
    assert close.vs > far.vs


def test_a_single_image_compares_with_a_video(embedder):
    video = scene_frames("circle", count=6)
    still = video[-1]
    score = visual_score(video, still, embedder)
    assert 0.0 < score.vs < 1.0
    assert visual_similarity(still, still[None], embedder) == pytest.approx(1.0, abs=1e-5)


def test_precomputed_reference_embeddings_give_the_same_score(embedder):
    ref, test = scene_frames("circle", count=6), scene_frames("square", count=5)
    direct = visual_score(ref, test, embedder)
    reused = visual_score(ref, test, embedder, ref_embeddings=embedder.embed(ref))
    assert reused.sem_dtw == pytest.approx(direct.sem_dtw, abs=1e-9)
    assert reused.ssim_dtw == direct.ssim_dtw


def test_real_renders_png_against_mp4(embedder):
    render = pytest.importorskip("manimgen.render")
    still = render.render(
        "from manim import *\nclass Still(Scene):\n    def construct(self):\n        self.add(Circle(color=BLUE))\n"
    )
    moving = render.render(
        "from manim import *\nclass Moving(Scene):\n"
        "    def construct(self):\n        self.play(Create(Circle(color=BLUE)), run_time=1)\n"
    )
    assert still.ok and still.is_image, still.error_tail
    assert moving.ok and not moving.is_image, moving.error_tail
    still_frames, moving_frames = render.sample_frames(still.output), render.sample_frames(moving.output)
    assert len(still_frames) == 1 and len(moving_frames) > 1
    score = visual_score(still_frames, moving_frames, embedder)
    assert 0.0 < score.vs < 1.0
    assert ssim_dtw(still_frames, still_frames) == pytest.approx(1.0)


def test_tiles_only_split_work_and_do_not_change_results(monkeypatch):
    ref = to_gray(scene_frames("circle", count=4))
    test = to_gray(scene_frames("square", count=3))
    default = ssim_matrix(ref, test)
    monkeypatch.setattr(visual, "TILE", 7)
    np.testing.assert_allclose(ssim_matrix(ref, test), default, rtol=0, atol=1e-12)


class CountingEmbedder:
    """A real embedder that also counts the frames it was asked to embed."""

    def __init__(self, inner) -> None:
        self.inner = inner
        self.name = inner.name
        self.frames_embedded = 0

    def embed(self, frames: np.ndarray) -> np.ndarray:
        self.frames_embedded += len(frames)
        return self.inner.embed(frames)


def distinct_count(frames: np.ndarray) -> int:
    return len({frame.tobytes() for frame in frames})


def every_frame_distinct(frames: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    return np.arange(len(frames)), np.arange(len(frames))


def repeated(frames: np.ndarray, count: int, rng: np.random.Generator) -> np.ndarray:
    """``count`` frames drawn from ``frames`` in a random pattern: runs of holds and jumps back."""
    picks = []
    while len(picks) < count:
        picks += [int(rng.integers(len(frames)))] * int(rng.integers(1, 6))
    return frames[picks[:count]]


def scores_without_dedup(monkeypatch, ref: np.ndarray, test: np.ndarray, embedder) -> visual.VisualScore:
    with monkeypatch.context() as patched:
        patched.setattr(visual, "distinct_frames", every_frame_distinct)
        return visual_score(ref, test, embedder)


def test_distinct_frames_merges_only_identical_frames():
    rng = np.random.default_rng(7)
    sources = rng.integers(0, 256, (5, 30, 40, 3), dtype=np.uint8)
    near_copy = sources[0].copy()
    near_copy[29, 39, 2] ^= 1
    frames = np.concatenate([repeated(sources, 30, rng), near_copy[None], sources[:1]])
    first, slot = visual.distinct_frames(frames)
    first_seen: dict[bytes, int] = {}
    for index, frame in enumerate(frames):
        first_seen.setdefault(frame.tobytes(), index)
    assert first.tolist() == list(first_seen.values())
    np.testing.assert_array_equal(frames[first][slot], frames)


def test_distinct_frames_checks_hash_matches_byte_for_byte(monkeypatch):
    rng = np.random.default_rng(8)
    frames = repeated(rng.integers(0, 256, (4, 20, 20), dtype=np.uint8), 20, rng)
    expected = visual.distinct_frames(frames)
    monkeypatch.setattr(visual.zlib, "crc32", lambda data: 0)
    first, slot = visual.distinct_frames(frames)
    np.testing.assert_array_equal(first, expected[0])
    np.testing.assert_array_equal(slot, expected[1])


@pytest.mark.parametrize("seed", range(3))
def test_dedup_gives_the_scores_of_every_frame_on_random_repeats(embedder, monkeypatch, seed):
    rng = np.random.default_rng(seed)
    noise = rng.integers(0, 256, (4, 96, 128, 3), dtype=np.uint8)
    scene = scene_frames("circle", count=6, size=(128, 96))
    ref = repeated(np.concatenate([noise[:2], scene]), 20, rng)
    test = repeated(np.concatenate([noise[1:], scene[::2]]), 15, rng)
    counting = CountingEmbedder(embedder)
    deduplicated = visual_score(ref, test, counting)
    assert counting.frames_embedded == distinct_count(ref) + distinct_count(test)
    assert counting.frames_embedded < len(ref) + len(test)
    assert deduplicated == scores_without_dedup(monkeypatch, ref, test, embedder)
    skimage_scores = ssim_matrix_reference(to_gray(ref), to_gray(test))
    distance = dtw_distance(skimage_scores.max(axis=1), skimage_scores.max(axis=0))
    independent = math.exp(-visual.SSIM_DTW_SHARPNESS * distance / max(len(ref), len(test)))
    assert deduplicated.ssim_dtw == pytest.approx(independent, abs=1e-5)
    assert deduplicated.sem_dtw == pytest.approx(sem_dtw(embedder.embed(ref), embedder.embed(test)), abs=1e-12)
    np.testing.assert_array_equal(visual.embed_frames(embedder, ref), embedder.embed(ref))


def test_dedup_gives_the_scores_of_every_frame_on_real_renders_with_waits(embedder, monkeypatch):
    render = pytest.importorskip("manimgen.render")
    held = render.render(
        "from manim import *\nclass Held(Scene):\n    def construct(self):\n"
        "        self.add(Square(color=GREEN), Text('Hold').shift(UP * 2))\n        self.wait(2)\n"
        "        self.play(FadeIn(Circle(color=RED)), run_time=1)\n        self.wait(2)\n"
    )
    moving = render.render(
        "from manim import *\nclass Waits(Scene):\n    def construct(self):\n"
        "        circle = Circle(color=BLUE)\n        self.play(Create(circle), run_time=1)\n        self.wait(2)\n"
        "        self.play(circle.animate.shift(RIGHT * 2), run_time=1)\n        self.wait(1)\n"
    )
    assert held.ok and moving.ok, held.error_tail + moving.error_tail
    ref, test = render.sample_frames(held.output), render.sample_frames(moving.output)
    distinct = distinct_count(ref) + distinct_count(test)
    assert distinct < len(ref) + len(test), "the waits should decode to repeated frames"
    counting = CountingEmbedder(embedder)
    deduplicated = visual_score(ref, test, counting)
    assert counting.frames_embedded == distinct
    assert deduplicated == scores_without_dedup(monkeypatch, ref, test, embedder)
    assert deduplicated.sem_dtw == pytest.approx(sem_dtw(embedder.embed(ref), embedder.embed(test)), abs=1e-12)
