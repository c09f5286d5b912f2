"""SFT run config with the paper's defaults (§5), turned into TRL's `SFTConfig` at run time."""

from __future__ import annotations

from pathlib import Path
from typing import Any, Self

from pydantic import model_validator

from manimgen import config_file
from manimgen.train.base_config import BaseTrainingConfig, accumulation_steps

EVAL_STRATEGIES = ("epoch", "steps", "no")


class SFTTrainingConfig(BaseTrainingConfig):
    """2 epochs, lr 2e-6, linear schedule, warmup 0.1, batch 16, max length 2048, weight decay 0.01.

    `batch_size` is the effective batch per optimizer step over all processes; it is reached by
    gradient accumulation over `per_device_batch_size`. The best checkpoint by validation loss is
    kept (`eval_strategy` "epoch" or "steps"; the validation split, never test).
    """

    learning_rate: float = 2.0e-6
    num_train_epochs: float = 2.0
    warmup_ratio: float = 0.1
    weight_decay: float = 0.01
    batch_size: int = 16
    per_device_batch_size: int = 1
    max_length: int = 2048
    eval_strategy: str = "epoch"
    eval_steps: int | None = None

    _known = config_file.choices(eval_strategy=lambda: EVAL_STRATEGIES)

    @model_validator(mode="after")
    def _steps_have_an_interval(self) -> Self:
        if self.eval_strategy == "steps" and not self.eval_steps:
            raise ValueError("eval_strategy 'steps' needs eval_steps (e.g. eval_steps: 50)")
        return self

    def gradient_accumulation(self, world_size: int) -> int:
        return accumulation_steps(self.batch_size, self.per_device_batch_size, world_size, "batch_size")

    def trl_config(self, output_dir: str | Path, *, world_size: int, use_cpu: bool, has_eval: bool) -> Any:
        """TRL's SFTConfig: completion-only loss on prompt/completion rows, best checkpoint by eval loss."""
        from trl import SFTConfig

        evaluate = has_eval and self.eval_strategy != "no"
        selection: dict[str, Any] = {"eval_strategy": "no", "save_strategy": "steps"}
        if evaluate:
            selection = {
                "eval_strategy": self.eval_strategy,
                "save_strategy": self.eval_strategy,
                "load_best_model_at_end": True,
                "metric_for_best_model": "eval_loss",
                "greater_is_better": False,
                "per_device_eval_batch_size": self.per_device_batch_size,
            }
            if self.eval_strategy == "steps":
                selection |= {"eval_steps": self.eval_steps, "save_steps": self.eval_steps}
        options = {
            **self.common_trl_options(output_dir, world_size=world_size, use_cpu=use_cpu),
            **selection,
            "max_length": self.max_length,
            "completion_only_loss": True,
            "assistant_only_loss": False,
            "packing": False,
            **self.trl,
        }
        return SFTConfig(**options)
