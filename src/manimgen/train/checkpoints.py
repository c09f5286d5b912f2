"""Where a training run keeps its checkpoints, and which one `--resume` continues from.

A CPU epoch takes hours; a run stopped at any point (a closed laptop, a pre-empted node) resumes
from its newest checkpoint with the optimizer, scheduler, RNG state and best-checkpoint record
that TRL saved beside the adapter.
"""

from __future__ import annotations

import shutil
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from transformers import TrainerCallback

from manimgen.paths import staged

CHECKPOINTS = "checkpoints"
ADAPTER_FILES = ("adapter_config.json", "adapter_model.safetensors")


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


class KeepAdapters(TrainerCallback):
    """Copy the adapter of each checkpoint saved at one of `steps` to `folder/step-N`, where the checkpoint
    rotation (`save_total_limit`) cannot remove it, so those steps can be evaluated after training and the best
    chosen on validation. A step that is not a save step is never copied: the config checks that."""

    def __init__(self, steps: Iterable[int], folder: Path) -> None:
        self.steps = set(steps)
        self.folder = folder

    def on_save(self, args: Any, state: Any, control: Any, **kwargs: Any) -> None:
        if state.global_step in self.steps and state.is_world_process_zero:
            checkpoint = Path(args.output_dir) / f"checkpoint-{state.global_step}"
            for name in ADAPTER_FILES:
                with staged(kept_adapter(self.folder, state.global_step) / name) as partial:
                    shutil.copyfile(checkpoint / name, partial)


def kept_adapter(folder: Path, step: int) -> Path:
    return folder / f"step-{step}"
