"""CVS, a visual similarity that tells scenes apart: what is drawn, where, in what colour, over time.

The paper's VS is compressed near 1 because most of every Manim frame is the same black background:
SSIM over a mostly empty frame is high for any two scenes, and so is the cosine of generic image
embeddings. CVS compares only what is drawn. Each frame is shrunk to a small grid (area averaging)
and every cell gets a foreground weight: how far its colour is from the video's background colour
(the median of the border cells over all frames), saturating at `FULL_CONTRAST`. Two frames agree
by the weighted overlap of their drawn cells, each overlap discounted by the colour difference:

    s(a, b) = Σ min(wa, wb) · (1 − |ca − cb| / √3·255) / Σ max(wa, wb)        (1 when both are empty)

after a small blur of weights and colours, so an object drawn a few pixels off still overlaps. The
videos are aligned by exact DTW over the cost 1 − s, and CVS = 1 − cost / max(N, M): 1 for the same
scene, near 0 for scenes that draw different things in different places.
"""

from __future__ import annotations

import numpy as np

from manimgen.metrics.dtw import accumulated_cost
from manimgen.metrics.registry import register_metric

GRID = (27, 48)
"""Rows and columns of the grid a frame is compared on (16:9)."""
FULL_CONTRAST = 48.0
"""A cell whose colour is this far (Euclidean, 0–255 RGB) from the background counts fully as drawn."""
BLUR_SIGMA = 1.0
MAX_COLOUR_DISTANCE = float(np.sqrt(3.0) * 255.0)


Cells = tuple[np.ndarray, np.ndarray]
"""A video's blurred grid colours (N, R, C, 3) and foreground weights (N, R, C): see `drawn_cells`."""


@register_metric("content_vs", inputs="frames", title="CVS")
def content_similarity(ref_frames: np.ndarray, test_frames: np.ndarray) -> float:
    """CVS in [0, 1] of two renders' RGB frames (N, H, W, 3)."""
    return compare_cells(drawn_cells(ref_frames), drawn_cells(test_frames))


def compare_cells(ref: Cells, test: Cells) -> float:
    """CVS from cells already computed (a scorer keeps the reference's)."""
    similarity = frame_similarities(*ref, *test)
    cost = accumulated_cost(1.0 - similarity)
    return float(max(0.0, 1.0 - cost / max(similarity.shape)))


def drawn_cells(frames: np.ndarray) -> Cells:
    """Per frame, the grid's blurred colours (N, R, C, 3) and foreground weights in [0, 1] (N, R, C)."""
    array = np.asarray(frames)
    if array.ndim == 3:
        array = array[None]
    if array.ndim != 4 or array.shape[-1] != 3 or len(array) == 0:
        raise ValueError(f"frames must be a non-empty (N, H, W, 3) array, got shape {array.shape}")
    cells = _area_resize(array.astype(np.float64), GRID)
    border = np.concatenate([cells[:, 0], cells[:, -1], cells[:, :, 0], cells[:, :, -1]], axis=1).reshape(-1, 3)
    background = np.median(border, axis=0)
    weights = np.clip(np.linalg.norm(cells - background, axis=-1) / FULL_CONTRAST, 0.0, 1.0)
    return _blur(cells * weights[..., None]), _blur(weights)


def frame_similarities(ref_colours: np.ndarray, ref_weights: np.ndarray, test_colours: np.ndarray, test_weights: np.ndarray) -> np.ndarray:
    """The (N, M) matrix s(a, b) of every reference frame against every test frame (one row at a time,
    so memory stays at one video's grids)."""
    test_mean = test_colours / np.maximum(test_weights[..., None], 1e-9)
    rows = []
    for colours, weights in zip(ref_colours, ref_weights):
        mean = colours / np.maximum(weights[..., None], 1e-9)
        agreement = 1.0 - np.linalg.norm(mean[None] - test_mean, axis=-1) / MAX_COLOUR_DISTANCE
        overlap = (np.minimum(weights[None], test_weights) * agreement).sum(axis=(1, 2))
        union = np.maximum(weights[None], test_weights).sum(axis=(1, 2))
        rows.append(np.where(union < 1e-6, 1.0, overlap / np.maximum(union, 1e-6)))
    return np.stack(rows)


def _area_resize(frames: np.ndarray, shape: tuple[int, int]) -> np.ndarray:
    """Average each frame over a rows × cols grid of nearly equal blocks."""
    rows = np.linspace(0, frames.shape[1], shape[0] + 1).astype(int)
    cols = np.linspace(0, frames.shape[2], shape[1] + 1).astype(int)
    summed = np.add.reduceat(np.add.reduceat(frames, rows[:-1], axis=1), cols[:-1], axis=2)
    counts = np.diff(rows)[:, None] * np.diff(cols)[None, :]
    return summed / counts[None, :, :, None]


def _blur(values: np.ndarray) -> np.ndarray:
    """Gaussian blur over the grid's two axes (the frame axis and any channel axis untouched)."""
    from scipy.ndimage import gaussian_filter

    sigma = (0.0, BLUR_SIGMA, BLUR_SIGMA) + (0.0,) * (values.ndim - 3)
    return gaussian_filter(values, sigma=sigma, mode="constant")
