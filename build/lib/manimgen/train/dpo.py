"""Preference tuning: TRL's DPOTrainer on harvested pairs (train/harvest.py), a rendered answer
preferred to a failed one for the same prompt.

It is the CPU-sized stand-in for GRPO: the renders were paid for once, while sampling, instead of at
every step. From an SFT adapter that adapter keeps training against a frozen copy of itself; from a
fresh LoRA the reference is the base with the adapter switched off.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from manimgen.train.checkpoints import checkpoints_dir, resume_from
from manimgen.train.data import as_dataset
from manimgen.train.dpo_config import DPOTrainingConfig
from manimgen.train.model import base_for, load_base, process_device, record_base, with_trainable_adapter, world_size
from manimgen.train.progress import replace_default_progress
from manimgen.train.result import TrainResult, finish

PAIR_COLUMNS = ("prompt", "chosen", "rejected", "task_id")


def build_dpo_trainer(
    model: str | None,
    pairs: Sequence[dict[str, Any]],
    output_dir: str | Path,
    config: DPOTrainingConfig | None = None,
    *,
    adapter: str | Path | None = None,
    callbacks: Sequence[Any] = (),
) -> Any:
    import torch
    from trl import DPOTrainer

    config = config or DPOTrainingConfig()
    if not pairs:
        raise ValueError("no preference pairs: sample more candidates (bench run with several seeds) and harvest again")
    base = load_base(base_for(model, adapter), four_bit=config.four_bit, device=process_device())
    args = config.trl_config(checkpoints_dir(output_dir), world_size=world_size(), use_cpu=not torch.cuda.is_available())
    trainer = DPOTrainer(
        model=with_trainable_adapter(base, adapter) if adapter else base.model,
        args=args,
        train_dataset=as_dataset([{name: row[name] for name in PAIR_COLUMNS} for row in pairs]),
        processing_class=base.tokenizer,
        peft_config=None if adapter else config.lora_config(),
        callbacks=list(callbacks),
    )
    record_base(trainer, base.base)
    replace_default_progress(trainer, callbacks)
    return trainer


def train_dpo(
    model: str | None,
    pairs: Sequence[dict[str, Any]],
    output_dir: str | Path,
    config: DPOTrainingConfig | None = None,
    *,
    adapter: str | Path | None = None,
    callbacks: Sequence[Any] = (),
    resume: bool = False,
) -> TrainResult:
    """Train on the pairs (or, with `resume`, continue from the newest checkpoint) and save the adapter."""
    config = config or DPOTrainingConfig()
    checkpoint = resume_from(output_dir, resume)
    started = time.monotonic()
    trainer = build_dpo_trainer(model, pairs, output_dir, config, adapter=adapter, callbacks=callbacks)
    trainer.train(resume_from_checkpoint=checkpoint)
    result = TrainResult.of("dpo", trainer, output_dir, started)
    return finish(trainer, result, config.model_dump(), {"start_adapter": str(adapter) if adapter else None, "pairs": len(pairs)})
