"""Dynamic time warping for the visual metrics.

Two methods give the accumulated cost of the best warping path (steps: diagonal, down, right;
every visited cell's cost counted once):

- ``"exact"``: the full O(N·M) dynamic programme, vectorised over anti-diagonals so it needs no
  compiler (about 1 ms for 25 × 25 frames, 15 ms for 300 × 300).
- ``"fastdtw"``: the approximation the paper's authors used (package ``fastdtw``, radius 1). It
  only searches a band around a path found at coarser resolutions, so it can miss the optimum
  and returns a cost that is never lower than the exact one.

How far apart they are on real inputs: over all 256 ordered pairs of 16 ManimBench references
rendered at ``-ql`` and sampled at 5 fps (5–35 frames each), fastdtw lowered SSIM_DTW by at most
0.0063 (mean |Δ| 0.0003) and SEM_DTW (``effnet-lite0``) by at most 0.040 (mean |Δ| 0.0009), and
never raised either. The exact method is the default; ``fastdtw`` reproduces the paper's numbers.
"""

from __future__ import annotations

from typing import Literal

import numpy as np

DtwMethod = Literal["exact", "fastdtw"]
CostName = Literal["euclidean", "cosine"]
DTW_METHODS: tuple[str, ...] = ("exact", "fastdtw")


def accumulated_cost(cost: np.ndarray) -> float:
    """Exact DTW: the cheapest monotone path's summed cost through an (N, M) cost matrix."""
    cost = np.asarray(cost, dtype=np.float64)
    if cost.ndim != 2 or 0 in cost.shape:
        raise ValueError(f"DTW needs a non-empty 2-D cost matrix, got shape {cost.shape}")
    n, m = cost.shape
    acc = np.full((n + 1, m + 1), np.inf)
    acc[0, 0] = 0.0
    for diagonal in range(2, n + m + 1):
        rows = np.arange(max(1, diagonal - m), min(n, diagonal - 1) + 1)
        cols = diagonal - rows
        best_previous = np.minimum(
            np.minimum(acc[rows - 1, cols], acc[rows, cols - 1]), acc[rows - 1, cols - 1]
        )
        acc[rows, cols] = cost[rows - 1, cols - 1] + best_previous
    return float(acc[n, m])


def cost_matrix(a: np.ndarray, b: np.ndarray, cost: CostName) -> np.ndarray:
    """Pairwise costs between the elements of two sequences (scalars or vectors)."""
    a2, b2 = _as_rows(a), _as_rows(b)
    if cost == "euclidean":
        diff = a2[:, None, :] - b2[None, :, :]
        return np.sqrt(np.einsum("ijk,ijk->ij", diff, diff))
    if cost == "cosine":
        return 1.0 - _unit_rows(a2) @ _unit_rows(b2).T
    raise ValueError(f"unknown DTW cost {cost!r}; use 'euclidean' or 'cosine'")


def dtw_distance(
    a: np.ndarray, b: np.ndarray, cost: CostName = "euclidean", method: DtwMethod = "exact"
) -> float:
    """Accumulated DTW cost between two sequences (1-D profiles or (N, D) vectors), unnormalised."""
    if method == "exact":
        return accumulated_cost(cost_matrix(a, b, cost))
    if method == "fastdtw":
        return _fastdtw_distance(_as_rows(a), _as_rows(b), cost)
    raise ValueError(f"unknown DTW method {method!r}; use one of {DTW_METHODS}")


def _fastdtw_distance(a: np.ndarray, b: np.ndarray, cost: CostName) -> float:
    from fastdtw import fastdtw

    if cost == "euclidean":
        distance, _ = fastdtw(a, b, dist=2)
    elif cost == "cosine":
        distance, _ = fastdtw(_unit_rows(a), _unit_rows(b), dist=lambda u, v: 1.0 - float(u @ v))
    else:
        raise ValueError(f"unknown DTW cost {cost!r}; use 'euclidean' or 'cosine'")
    return float(distance)


def _as_rows(sequence: np.ndarray) -> np.ndarray:
    rows = np.asarray(sequence, dtype=np.float64)
    if rows.ndim == 1:
        rows = rows[:, None]
    if rows.ndim != 2 or len(rows) == 0:
        raise ValueError(f"DTW needs a non-empty 1-D or 2-D sequence, got shape {rows.shape}")
    return rows


def _unit_rows(rows: np.ndarray) -> np.ndarray:
    norms = np.linalg.norm(rows, axis=1, keepdims=True)
    return rows / np.where(norms > 0, norms, 1.0)
