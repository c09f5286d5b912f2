"""Where a training run keeps its checkpoints, and which one `--resume` continues from.

A CPU epoch takes hours; a run stopped at any point (a closed laptop, a pre-empted node) resumes
from its newest checkpoint with the optimizer, scheduler, RNG state and best-checkpoint record
that TRL saved beside the adapter.
"""

from __future__ import annotations

from pathlib import Path

CHECKPOINTS = "checkpoints"


def checkpoints_dir(output_dir: str | Path) -> Path:
    return Path(output_dir) / CHECKPOINTS


def resume_from(output_dir: str | Path, resume: bool) -> str | None:
    """The newest checkpoint under `output_dir` when resuming, else None (a fresh start)."""
    if not resume:
        return None
    from transformers.trainer_utils import get_last_checkpoint

    folder = checkpoints_dir(output_dir)
    last = get_last_checkpoint(str(folder)) if folder.is_dir() else None
    if last is None:
        raise ValueError(f"--resume: no checkpoint under {folder}; run without --resume to start afresh")
    return last
