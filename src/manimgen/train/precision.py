"""Whether to train in bf16 on this CPU: measured, since CPUs differ in which precision multiplies faster."""

from __future__ import annotations

import functools
import time


@functools.cache
def bf16_is_faster_on_this_cpu(margin: float = 1.2) -> bool:
    """Whether this CPU multiplies bf16 matrices at least `margin` times as fast as fp32 ones, measured.

    CPUs differ both ways: one measured 378 GFLOP/s in bf16 against 184 in fp32, another 138 against 225,
    both flagging avx512_bf16; so the choice is made by timing a product of a decoder's shape.
    """
    import torch

    def rate(dtype: torch.dtype) -> float:
        left, right = torch.randn(1024, 1536, dtype=dtype), torch.randn(1536, 4096, dtype=dtype)
        left @ right
        best = float("inf")
        for _ in range(3):
            started = time.perf_counter()
            left @ right
            best = min(best, time.perf_counter() - started)
        return 1.0 / best

    return rate(torch.bfloat16) >= margin * rate(torch.float32)
