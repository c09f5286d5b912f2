"""Supervised fine-tuning: TRL's SFTTrainer with a LoRA adapter, taught to answer each description
with its reference scene in the agent's `<CODE>` format.

Loss is on the completion tokens only (TRL's `completion_only_loss` on prompt/completion rows sets
the prompt's labels to -100). The best checkpoint by loss on the validation split is the one
saved: the paper picked its checkpoint on the test split, which we never touch while training.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from manimgen.train.checkpoints import checkpoints_dir, resume_from
from manimgen.train.data import as_dataset
from manimgen.train.model import load_base, process_device, record_base, world_size
from manimgen.train.progress import replace_default_progress
from manimgen.train.result import TrainResult, finish
from manimgen.train.sft_config import SFTTrainingConfig


def build_sft_trainer(
    model: str,
    train_rows: Sequence[dict[str, Any]],
    eval_rows: Sequence[dict[str, Any]],
    output_dir: str | Path,
    config: SFTTrainingConfig | None = None,
    callbacks: Sequence[Any] = (),
) -> Any:
    """An SFTTrainer over prompt/completion rows (`train.data.sft_rows` of tasks, or harvested ones),
    selecting on `eval_rows`; checkpoints under output_dir."""
    import torch
    from trl import SFTTrainer

    config = config or SFTTrainingConfig()
    if not train_rows:
        raise ValueError("no training rows: check the data and --limit")
    base = load_base(model, four_bit=config.four_bit, device=process_device())
    args = config.trl_config(
        checkpoints_dir(output_dir),
        world_size=world_size(),
        use_cpu=not torch.cuda.is_available(),
        has_eval=bool(eval_rows),
    )
    trainer = SFTTrainer(
        model=base.model,
        args=args,
        train_dataset=as_dataset(list(train_rows)),
        eval_dataset=as_dataset(list(eval_rows)) if eval_rows else None,
        processing_class=base.tokenizer,
        peft_config=config.lora_config(),
        callbacks=list(callbacks),
    )
    record_base(trainer, base.base)
    replace_default_progress(trainer, callbacks)
    return trainer


def train_sft(
    model: str,
    train_rows: Sequence[dict[str, Any]],
    eval_rows: Sequence[dict[str, Any]],
    output_dir: str | Path,
    config: SFTTrainingConfig | None = None,
    callbacks: Sequence[Any] = (),
    *,
    resume: bool = False,
) -> TrainResult:
    """Train (or, with `resume`, continue from the newest checkpoint), keep the best checkpoint by
    validation loss, and save its adapter in `output_dir`."""
    config = config or SFTTrainingConfig()
    checkpoint = resume_from(output_dir, resume)
    started = time.monotonic()
    trainer = build_sft_trainer(model, train_rows, eval_rows, output_dir, config, callbacks)
    trainer.train(resume_from_checkpoint=checkpoint)
    result = TrainResult.of("sft", trainer, output_dir, started)
    extra = {
        "best_checkpoint": trainer.state.best_model_checkpoint,
        "train_rows": len(train_rows),
        "eval_rows": len(eval_rows),
    }
    return finish(trainer, result, config.model_dump(), extra)
