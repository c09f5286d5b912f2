"""GRPO: TRL's GRPOTrainer on ManimBench prompts with the render reward, or on any sentences with the
sentence reward (train/sentence_reward.py), from an SFT adapter or a fresh LoRA.

Starting from an adapter, that adapter keeps training and TRL copies it as the frozen reference
for the KL term (β > 0); from a fresh LoRA the reference is the base with the adapter switched
off. Generation runs through transformers' `generate`, or vLLM with `use_vllm` (GPU only; TRL's
"colocate" mode shares the training GPUs, "server" talks to `trl vllm-serve`).
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from transformers import TrainerCallback

from manimgen.data import Task
from manimgen.train.checkpoints import checkpoints_dir, resume_from
from manimgen.train.data import as_dataset, grpo_rows, prompt_length
from manimgen.train.grpo_config import GRPOTrainingConfig
from manimgen.train.model import (
    base_for,
    load_base,
    process_device,
    record_base,
    with_trainable_adapter,
    world_size,
)
from manimgen.train.progress import replace_default_progress
from manimgen.train.result import TrainResult, finish
from manimgen.train.reward import ManimReward
from manimgen.train.sentence_reward import SentenceReward


class SaveAtEpochEnd(TrainerCallback):
    """Also checkpoint at every epoch's end: the paper evaluated its epoch-1 GRPO checkpoint."""

    def on_epoch_end(self, args: Any, state: Any, control: Any, **kwargs: Any) -> Any:
        control.should_save = True
        return control


@dataclass
class GRPORun:
    """A ready trainer, its reward (whose `last_stats` show the latest batch) and the prompts left out."""

    trainer: Any
    reward: Any
    skipped_tasks: list[str] = field(default_factory=list)


def build_grpo_trainer(
    model: str | None,
    tasks: Sequence[Task],
    output_dir: str | Path,
    config: GRPOTrainingConfig | None = None,
    *,
    adapter: str | Path | None = None,
    reward: Any | None = None,
    callbacks: Sequence[Any] = (),
) -> GRPORun:
    """A GRPOTrainer over `tasks` whose prompts fit `max_prompt_length`; checkpoints under output_dir."""
    import torch
    from trl import GRPOTrainer

    config = config or GRPOTrainingConfig()
    use_cpu = not torch.cuda.is_available()
    if config.use_vllm and use_cpu:
        raise ValueError("vLLM generation needs a CUDA GPU; drop --use-vllm on CPU")
    base = load_base(base_for(model, adapter), four_bit=config.four_bit, device=process_device())
    rows = grpo_rows(tasks)
    kept = [row for row in rows if prompt_length(base.tokenizer, row["prompt"]) <= config.max_prompt_length]
    if not kept:
        raise ValueError(f"every prompt is longer than max_prompt_length {config.max_prompt_length} tokens; raise it")
    kept_ids = {row["task_id"] for row in kept}
    args = config.trl_config(checkpoints_dir(output_dir), world_size=world_size(), use_cpu=use_cpu)
    reward = reward or _reward(config)
    policy = with_trainable_adapter(base, adapter) if adapter else base.model
    trainer = GRPOTrainer(
        model=policy,
        reward_funcs=[reward],
        args=args,
        train_dataset=as_dataset(kept),
        processing_class=base.tokenizer,
        peft_config=None if adapter else config.lora_config(),
        callbacks=[SaveAtEpochEnd(), *callbacks],
    )
    record_base(trainer, base.base)
    replace_default_progress(trainer, callbacks)
    return GRPORun(trainer, reward, [row["task_id"] for row in rows if row["task_id"] not in kept_ids])


def _reward(config: GRPOTrainingConfig) -> ManimReward | SentenceReward:
    """The reward the config names: the paper's against each task's reference, or the sentence's own."""
    if config.reward == "sentence":
        return SentenceReward(quality=config.render_quality, timeout_s=config.reward_timeout_s, workers=config.render_workers)
    return ManimReward(
        config.text_weight,
        config.visual_weight,
        config.reward_mode,
        quality=config.render_quality,
        timeout_s=config.reward_timeout_s,
        preset=config.metric_preset,
        visual_metric=config.visual_metric,
        workers=config.render_workers,
        ray=config.render_ray,
    )


def train_grpo(
    model: str | None,
    tasks: Sequence[Task],
    output_dir: str | Path,
    config: GRPOTrainingConfig | None = None,
    *,
    adapter: str | Path | None = None,
    reward: Any | None = None,
    callbacks: Sequence[Any] = (),
    resume: bool = False,
) -> TrainResult:
    """Train with the render reward (or, with `resume`, continue from the newest checkpoint) and save
    the final adapter in `output_dir`."""
    config = config or GRPOTrainingConfig()
    checkpoint = resume_from(output_dir, resume)
    started = time.monotonic()
    run = build_grpo_trainer(model, tasks, output_dir, config, adapter=adapter, reward=reward, callbacks=callbacks)
    try:
        run.trainer.train(resume_from_checkpoint=checkpoint)
    finally:
        if reward is None:  # ours: stop its render workers; a caller's reward is the caller's to close
            run.reward.close()
    result = TrainResult.of("grpo", run.trainer, output_dir, started, run.skipped_tasks)
    extra = {
        "start_adapter": str(adapter) if adapter else None,
        "tasks": len(tasks) - len(run.skipped_tasks),
    }
    return finish(run.trainer, result, config.model_dump(), extra)
