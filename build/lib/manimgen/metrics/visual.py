"""Visual similarity of two renders (paper §3): SSIM_DTW, SEM_DTW and VS = √(SSIM_DTW · SEM_DTW).

Frames are uint8 arrays (N, H, W, 3); a PNG render is one frame. SSIM works on grayscale frames
(ITU-R BT.601 luma as Pillow's ``convert("L")`` computes it, the weights OpenCV uses too), and a test
video whose size differs from the reference is resized to the reference size
(``skimage.transform.resize``, bilinear, anti-aliased, rounded back to uint8).

The paper's SSIM matrix compares every reference frame with every test frame with skimage, which
costs N·M full-frame SSIMs. ``ssim_matrix`` gives the same numbers (within 1e-6 of skimage's
``structural_similarity`` with its defaults) much faster, using three facts:

- skimage crops the 3-pixel border of the SSIM map, so only windows inside the frame count and
  all window sums of uint8 frames are exact integers (no float error to accumulate);
- where two frames have identical 7×7 windows the SSIM map is exactly 1, so the frame is cut into
  tiles and only tiles whose content differs between the two frames are computed (Manim frames
  are mostly plain background, and animations change a few regions at a time);
- identical frames (pauses, still endings) and identical tiles are computed once.

Whole-video scores go further the same way: each distinct RGB frame is converted to gray and
embedded once, and the rows of its repeats are copies, so only the DTW runs over every frame. The
scores equal those of embedding every frame: under onnxruntime (effnet-lite0's default) a frame's
row does not depend on the other frames in its batch, bit for bit. Torch embedders (the effnet
fallback, CLIP) can move a row's last float32 bits in small batches (up to ~1e-7), as scoring every
frame does too, since a video's length sets its batches.
"""

from __future__ import annotations

import math
import zlib
from dataclasses import dataclass
from typing import Literal

import numpy as np

from manimgen.metrics.dtw import DtwMethod, dtw_distance
from manimgen.metrics.embedders import DEFAULT_IMAGE_EMBEDDER, ImageEmbedder, image_embedder
from manimgen.metrics.registry import register_metric

GrayMethod = Literal["pillow", "opencv"]

WINDOW = 7
K1, K2 = 0.01, 0.03
DATA_RANGE = 255.0
TILE = 24
SSIM_DTW_SHARPNESS = 5.0
_PAIR_BATCH = 256
_PATCH_BUDGET = 2048

_HALF = WINDOW // 2
_AREA = WINDOW * WINDOW
# SSIM's terms multiplied through by the window area (means) and area·(area-1) (sample
# covariances), so they can be formed from integer window sums.
_C1_SCALED = (K1 * DATA_RANGE) ** 2 * _AREA**2
_C2_SCALED = (K2 * DATA_RANGE) ** 2 * _AREA * (_AREA - 1)


@dataclass(frozen=True)
class VisualScore:
    """The two visual similarities of one pair of renders and the embedder behind SEM_DTW."""

    ssim_dtw: float
    sem_dtw: float
    embedder: str

    @property
    def vs(self) -> float:
        return math.sqrt(max(self.ssim_dtw, 0.0) * max(self.sem_dtw, 0.0))

    @property
    def label(self) -> str:
        return f"VS[{self.embedder}]"


def as_frames(frames: np.ndarray) -> np.ndarray:
    """Validate RGB frames as uint8 (N, H, W, 3); a single (H, W, 3) image becomes one frame."""
    array = np.asarray(frames)
    if array.ndim == 3 and array.shape[-1] == 3:
        array = array[None]
    if array.ndim != 4 or array.shape[-1] != 3 or array.dtype != np.uint8 or len(array) == 0:
        raise ValueError(
            f"frames must be a non-empty uint8 array (N, H, W, 3), got {array.dtype} {array.shape}; "
            "decode videos with manimgen.render.sample_frames"
        )
    return array


def to_gray(frames: np.ndarray, method: GrayMethod = "pillow") -> np.ndarray:
    """RGB uint8 (N, H, W, 3) -> ITU-R BT.601 luma uint8 (N, H, W), rounded as Pillow's ``convert("L")``
    does, or with ``method="opencv"`` as OpenCV 4's ``cvtColor`` does (15-bit weights), which the original
    ManimBench code used; the two differ by one level on some pixels."""
    frames = as_frames(frames)
    if method == "opencv":
        channels = frames.astype(np.uint32)
        weighted = channels[..., 0] * 9798 + channels[..., 1] * 19235 + channels[..., 2] * 3735
        return ((weighted + (1 << 14)) >> 15).astype(np.uint8)
    from PIL import Image

    return np.stack([np.asarray(Image.fromarray(frame).convert("L")) for frame in frames])


def resize_gray(gray: np.ndarray, shape: tuple[int, int]) -> np.ndarray:
    """Resize grayscale frames (N, h, w) to (N, *shape); frames already that size are returned as is."""
    gray = _as_gray(gray)
    if gray.shape[1:] == tuple(shape):
        return gray
    from skimage.transform import resize

    resized = [
        resize(frame.astype(np.float64), shape, order=1, preserve_range=True, anti_aliasing=True)
        for frame in gray
    ]
    return np.clip(np.rint(np.stack(resized)), 0, 255).astype(np.uint8)


def ssim_matrix_reference(ref_gray: np.ndarray, test_gray: np.ndarray) -> np.ndarray:
    """S[i, j] = skimage SSIM(ref_i, test_j), one pair at a time: the slow definition."""
    from skimage.metrics import structural_similarity

    ref = _as_gray(ref_gray)
    test = resize_gray(test_gray, ref.shape[1:])
    _check_window_fits(ref.shape[1:])
    scores = np.empty((len(ref), len(test)), dtype=np.float64)
    for i, ref_frame in enumerate(ref):
        for j, test_frame in enumerate(test):
            scores[i, j] = structural_similarity(ref_frame, test_frame, data_range=DATA_RANGE)
    return scores


def ssim_matrix(ref_gray: np.ndarray, test_gray: np.ndarray) -> np.ndarray:
    """S[i, j] = SSIM(ref_i, test_j) as skimage defines it (7×7 uniform window, sample
    covariance, K1 = 0.01, K2 = 0.03, data range 255), computed tile-wise on distinct content."""
    ref, test = _as_gray(ref_gray), _as_gray(test_gray)
    _check_window_fits(ref.shape[1:])
    ref_first, ref_slot = distinct_frames(ref)
    test_first, test_slot = distinct_frames(test)
    sums = _ssim_sums(ref[ref_first], resize_gray(test[test_first], ref.shape[1:]))
    height, width = ref.shape[1:]
    valid_pixels = (height - 2 * _HALF) * (width - 2 * _HALF)
    return (sums / valid_pixels)[np.ix_(ref_slot, test_slot)]


def distinct_frames(frames: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Where each distinct frame first occurs, and for every frame which distinct frame it is:
    ``frames[first][slot]`` rebuilds ``frames``. Frames are bucketed by CRC-32 (cheap next to
    any per-frame metric) and confirmed byte for byte, so only identical frames merge."""
    frames = np.ascontiguousarray(frames)
    first: list[int] = []
    slot = np.empty(len(frames), dtype=np.intp)
    buckets: dict[int, list[int]] = {}
    for index, frame in enumerate(frames):
        bucket = buckets.setdefault(zlib.crc32(frame), [])
        match = next((known for known in bucket if np.array_equal(frames[first[known]], frame)), None)
        if match is None:
            match = len(first)
            first.append(index)
            bucket.append(match)
        slot[index] = match
    return np.asarray(first, dtype=np.intp), slot


def embed_frames(embedder: ImageEmbedder, frames: np.ndarray) -> np.ndarray:
    """``embedder.embed(frames)``, embedding each distinct frame once (repeats get copies of its row)."""
    return _Video.of(frames).embed(embedder)


def ssim_dtw(ref_frames: np.ndarray, test_frames: np.ndarray, dtw: DtwMethod = "exact") -> float:
    """exp(-5·d): d is the DTW distance between the best-match profiles of the SSIM matrix
    (row maxima vs column maxima, Euclidean cost) divided by the longer video's frame count."""
    return _ssim_dtw(_Video.of(ref_frames), _Video.of(test_frames), dtw)


def sem_dtw(ref_embeddings: np.ndarray, test_embeddings: np.ndarray, dtw: DtwMethod = "exact") -> float:
    """exp(-d): d is the DTW distance between the two embedding sequences (cost 1 − cosine of the
    L2-normalised embeddings) divided by the longer sequence's length."""
    ref, test = _as_embeddings(ref_embeddings), _as_embeddings(test_embeddings)
    if ref.shape[1] != test.shape[1]:
        raise ValueError(
            f"embedding sizes differ ({ref.shape[1]} vs {test.shape[1]}): embed both videos with one embedder"
        )
    distance = dtw_distance(ref, test, "cosine", dtw)
    return math.exp(-distance / max(len(ref), len(test)))


def visual_score(
    ref_frames: np.ndarray,
    test_frames: np.ndarray,
    embedder: ImageEmbedder | str = DEFAULT_IMAGE_EMBEDDER,
    *,
    dtw: DtwMethod = "exact",
    ref_embeddings: np.ndarray | None = None,
    gray: GrayMethod = "pillow",
) -> VisualScore:
    """SSIM_DTW and SEM_DTW of a test render against a reference render.

    ``ref_embeddings`` lets a caller reuse the reference's embeddings (they must come from the same
    embedder); ``gray`` is how frames become luma for SSIM (see `to_gray`)."""
    encoder = image_embedder(embedder) if isinstance(embedder, str) else embedder
    ref, test = _Video.of(ref_frames), _Video.of(test_frames)
    reference_vectors = ref.embed(encoder) if ref_embeddings is None else ref_embeddings
    return VisualScore(
        ssim_dtw=_ssim_dtw(ref, test, dtw, gray),
        sem_dtw=sem_dtw(reference_vectors, test.embed(encoder), dtw=dtw),
        embedder=encoder.name,
    )


@register_metric("vs", inputs="frames", title="VS", embedder_kind="image", default_embedder=DEFAULT_IMAGE_EMBEDDER)
def visual_similarity(
    ref_frames: np.ndarray,
    test_frames: np.ndarray,
    embedder: ImageEmbedder | str = DEFAULT_IMAGE_EMBEDDER,
    *,
    dtw: DtwMethod = "exact",
) -> float:
    """VS = √(SSIM_DTW · SEM_DTW) of two renders (the paper's headline visual metric)."""
    return visual_score(ref_frames, test_frames, embedder, dtw=dtw).vs


@register_metric(
    "sem_dtw", inputs="frames", title="SEM_DTW", embedder_kind="image", default_embedder=DEFAULT_IMAGE_EMBEDDER
)
def sem_dtw_of_frames(
    ref_frames: np.ndarray,
    test_frames: np.ndarray,
    embedder: ImageEmbedder | str = DEFAULT_IMAGE_EMBEDDER,
    *,
    dtw: DtwMethod = "exact",
) -> float:
    """SEM_DTW of two renders, embedding their frames first."""
    encoder = image_embedder(embedder) if isinstance(embedder, str) else embedder
    return sem_dtw(embed_frames(encoder, ref_frames), embed_frames(encoder, test_frames), dtw=dtw)


register_metric("ssim_dtw", inputs="frames", title="SSIM_DTW")(ssim_dtw)


@dataclass(frozen=True)
class _Video:
    """A video as its distinct frames plus, per frame, which of them it shows: per-frame work is
    done on ``frames`` and expanded with ``slot``."""

    frames: np.ndarray
    slot: np.ndarray

    @classmethod
    def of(cls, frames: np.ndarray) -> _Video:
        frames = as_frames(frames)
        first, slot = distinct_frames(frames)
        return cls(frames[first], slot)

    def embed(self, embedder: ImageEmbedder) -> np.ndarray:
        return embedder.embed(self.frames)[self.slot]


def _ssim_dtw(ref: _Video, test: _Video, dtw: DtwMethod, gray: GrayMethod = "pillow") -> float:
    scores = ssim_matrix(to_gray(ref.frames, gray), to_gray(test.frames, gray))[np.ix_(ref.slot, test.slot)]
    distance = dtw_distance(scores.max(axis=1), scores.max(axis=0), "euclidean", dtw)
    return math.exp(-SSIM_DTW_SHARPNESS * distance / max(scores.shape))


@dataclass(frozen=True)
class _TilePlan:
    """What one tile needs: which distinct patches occur, and which (ref, test) pairs differ."""

    tile: int
    ref_frames: np.ndarray  # a frame showing each distinct reference patch
    test_frames: np.ndarray  # a frame showing each distinct test patch
    ref_slot: np.ndarray  # reference frame -> its distinct patch
    test_slot: np.ndarray  # test frame -> its distinct patch
    pairs: tuple[np.ndarray, np.ndarray]  # (ref patch, test patch) pairs whose content differs


def _ssim_sums(ref: np.ndarray, test: np.ndarray) -> np.ndarray:
    """Sum of the cropped SSIM map for every (ref, test) frame pair, tile by tile."""
    frames = np.concatenate([ref, test])
    patches, valid = _tile_patches(frames)
    valid_counts = valid.sum(axis=(1, 2)).astype(np.float64)
    changing = np.zeros(patches.shape[1], dtype=bool)
    for frame_patches in patches[1:]:
        changing |= np.any(frame_patches != patches[0], axis=(1, 2))
    sums = np.full((len(ref), len(test)), valid_counts[~changing].sum())
    group: list[_TilePlan] = []
    group_patches = 0
    for tile in np.flatnonzero(changing):
        plan = _plan_tile(int(tile), patches[:, tile], len(ref))
        group.append(plan)
        group_patches += len(plan.ref_frames) + len(plan.test_frames)
        if group_patches >= _PATCH_BUDGET:
            _add_group(sums, group, patches, valid, valid_counts)
            group, group_patches = [], 0
    _add_group(sums, group, patches, valid, valid_counts)
    return sums


def _plan_tile(tile: int, tile_patches: np.ndarray, n_ref: int) -> _TilePlan:
    labels = _row_labels(tile_patches.reshape(len(tile_patches), -1))
    first = _first_occurrence(labels)
    ref_labels, ref_slot = np.unique(labels[:n_ref], return_inverse=True)
    test_labels, test_slot = np.unique(labels[n_ref:], return_inverse=True)
    pairs = np.nonzero(ref_labels[:, None] != test_labels[None, :])
    return _TilePlan(tile, first[ref_labels], first[test_labels], ref_slot, test_slot, pairs)


def _add_group(
    sums: np.ndarray, group: list[_TilePlan], patches: np.ndarray, valid: np.ndarray, valid_counts: np.ndarray
) -> None:
    """Score a group of tiles in shared batches and add each tile's sums to every frame pair."""
    if not group:
        return
    gathered, ref_index, test_index, job_tile = [], [], [], []
    offset = 0
    for plan in group:
        ref_offset, test_offset = offset, offset + len(plan.ref_frames)
        gathered.append(patches[plan.ref_frames, plan.tile])
        gathered.append(patches[plan.test_frames, plan.tile])
        offset = test_offset + len(plan.test_frames)
        ref_index.append(plan.pairs[0] + ref_offset)
        test_index.append(plan.pairs[1] + test_offset)
        job_tile.append(np.full(len(plan.pairs[0]), plan.tile))
    group_patches = np.concatenate(gathered)
    pair_sums = _pair_sums(
        group_patches,
        _window_stats(group_patches),
        np.concatenate(ref_index),
        np.concatenate(test_index),
        valid.reshape(len(valid), -1)[np.concatenate(job_tile)],
    )
    start = 0
    for plan in group:
        tile_sums = np.full((len(plan.ref_frames), len(plan.test_frames)), valid_counts[plan.tile])
        tile_sums[plan.pairs] = pair_sums[start : start + len(plan.pairs[0])]
        start += len(plan.pairs[0])
        sums += tile_sums[np.ix_(plan.ref_slot, plan.test_slot)]


def _tile_patches(frames: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Cut frames (F, H, W) into overlapping patches (F, tiles, TILE+6, TILE+6), one per TILE×TILE
    block of SSIM-map pixels, plus a (tiles, TILE, TILE) mask of the map pixels that exist."""
    count, height, width = frames.shape
    map_h, map_w = height - 2 * _HALF, width - 2 * _HALF
    rows, cols = -(-map_h // TILE), -(-map_w // TILE)
    padded = np.zeros((count, rows * TILE + 2 * _HALF, cols * TILE + 2 * _HALF), dtype=np.uint8)
    padded[:, :height, :width] = frames
    side = TILE + 2 * _HALF
    windows = np.lib.stride_tricks.sliding_window_view(padded, (side, side), axis=(1, 2))
    patches = windows[:, ::TILE, ::TILE].reshape(count, rows * cols, side, side)
    map_mask = np.zeros((rows * TILE, cols * TILE), dtype=bool)
    map_mask[:map_h, :map_w] = True
    valid = map_mask.reshape(rows, TILE, cols, TILE).transpose(0, 2, 1, 3).reshape(rows * cols, TILE, TILE)
    return patches, valid


def _window_stats(patches: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Per patch: window sums Σx, their squares (Σx)², and area·Σx² − (Σx)² (= area·(area−1)·var)."""
    values = patches.astype(np.int32)
    sum_x = _box_sums(values)
    squared_sum = sum_x * sum_x
    return sum_x, squared_sum, _AREA * _box_sums(values * values) - squared_sum


def _pair_sums(
    patches: np.ndarray,
    stats: tuple[np.ndarray, np.ndarray, np.ndarray],
    ref_index: np.ndarray,
    test_index: np.ndarray,
    job_valid: np.ndarray,
) -> np.ndarray:
    """SSIM-map sums over the valid map pixels for each (ref patch, test patch) job."""
    window_sum, squared_sum, scaled_var = stats
    out = np.empty(len(ref_index), dtype=np.float64)
    for start in range(0, len(ref_index), _PAIR_BATCH):
        jobs = slice(start, start + _PAIR_BATCH)
        i, j = ref_index[jobs], test_index[jobs]
        cross = _box_sums(patches[i].astype(np.int32) * patches[j])
        sum_product = window_sum[i] * window_sum[j]
        cross *= _AREA
        cross -= sum_product
        ssim_map = _affine(sum_product, 2.0, _C1_SCALED)
        ssim_map *= _affine(cross, 2.0, _C2_SCALED)
        means = _affine(squared_sum[i] + squared_sum[j], 1.0, _C1_SCALED)
        means *= _affine(scaled_var[i] + scaled_var[j], 1.0, _C2_SCALED)
        ssim_map /= means
        ssim_map = ssim_map.reshape(len(i), -1)
        out[jobs] = np.einsum("kp,kp->k", ssim_map, job_valid[jobs])
    return out


def _affine(values: np.ndarray, scale: float, offset: float) -> np.ndarray:
    result = values.astype(np.float64)
    result *= scale
    result += offset
    return result


def _box_sums(values: np.ndarray) -> np.ndarray:
    """Sums over every full 7×7 window of the last two axes (exact for int32 inputs)."""
    return _axis_window_sums(_axis_window_sums(values, -1), -2)


def _axis_window_sums(values: np.ndarray, axis: int) -> np.ndarray:
    """Sums of 7 consecutive elements along ``axis``, built from sums of 2 and 4 (fewer passes
    than a running sum, and vectorised)."""
    size = values.shape[axis]
    count = size - WINDOW + 1
    pairs = _along(values, axis, 0, size - 1) + _along(values, axis, 1, size - 1)
    quads = _along(pairs, axis, 0, size - 3) + _along(pairs, axis, 2, size - 3)
    sums = _along(quads, axis, 0, count) + _along(pairs, axis, 4, count)
    sums += _along(values, axis, 6, count)
    return sums


def _along(values: np.ndarray, axis: int, start: int, length: int) -> np.ndarray:
    index = [slice(None)] * values.ndim
    index[axis] = slice(start, start + length)
    return values[tuple(index)]


def _row_labels(rows: np.ndarray) -> np.ndarray:
    """An integer per row, equal for byte-identical rows."""
    keys = np.ascontiguousarray(rows).view(np.dtype((np.void, rows.shape[1]))).ravel()
    _, labels = np.unique(keys, return_inverse=True)
    return labels.ravel()


def _first_occurrence(labels: np.ndarray) -> np.ndarray:
    first = np.empty(labels.max() + 1, dtype=np.int64)
    first[labels[::-1]] = np.arange(len(labels))[::-1]
    return first


def _as_gray(gray: np.ndarray) -> np.ndarray:
    array = np.asarray(gray)
    if array.ndim == 2:
        array = array[None]
    if array.ndim != 3 or array.dtype != np.uint8 or len(array) == 0:
        raise ValueError(
            f"grayscale frames must be a non-empty uint8 array (N, H, W), got {array.dtype} {array.shape}; "
            "convert RGB frames with to_gray"
        )
    return array


def _as_embeddings(embeddings: np.ndarray) -> np.ndarray:
    array = np.asarray(embeddings, dtype=np.float64)
    if array.ndim != 2 or len(array) == 0:
        raise ValueError(f"embeddings must be a non-empty (N, D) array, got shape {array.shape}")
    return array


def _check_window_fits(shape: tuple[int, ...]) -> None:
    if min(shape) < WINDOW:
        raise ValueError(f"frames of {shape[1]}x{shape[0]} are smaller than the {WINDOW}x{WINDOW} SSIM window")
