"""Correlation between two metrics over the same samples (the paper relates code and visual metrics).

Pairs where either value is missing (None or NaN) are dropped first, so ``n`` is the number of
samples the coefficient rests on. Fewer than three pairs or a constant side give NaN rather than a
warning, since a coefficient is undefined there.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

MIN_SAMPLES = 3


@dataclass(frozen=True)
class Correlation:
    r: float
    p: float
    n: int


def pearson(x: Sequence[float | None], y: Sequence[float | None]) -> Correlation:
    """Pearson's r with its two-sided p-value."""
    return _correlate(x, y, "pearsonr")


def spearman(x: Sequence[float | None], y: Sequence[float | None]) -> Correlation:
    """Spearman's rank correlation with its two-sided p-value."""
    return _correlate(x, y, "spearmanr")


def _correlate(x: Sequence[float | None], y: Sequence[float | None], test_name: str) -> Correlation:
    if len(x) != len(y):
        raise ValueError(f"correlation needs paired values, got {len(x)} and {len(y)}")
    xs = np.array([math.nan if v is None else v for v in x], dtype=np.float64)
    ys = np.array([math.nan if v is None else v for v in y], dtype=np.float64)
    keep = np.isfinite(xs) & np.isfinite(ys)
    xs, ys = xs[keep], ys[keep]
    n = int(keep.sum())
    if n < MIN_SAMPLES or np.ptp(xs) == 0 or np.ptp(ys) == 0:
        return Correlation(math.nan, math.nan, n)
    from scipy import stats  # imported here: scipy.stats takes a second to load

    result = getattr(stats, test_name)(xs, ys)
    return Correlation(float(result.statistic), float(result.pvalue), n)
