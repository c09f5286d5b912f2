"""What SFT and GRPO runs share: the LoRA adapter, precision, seed, and loading from a YAML file.

A run config is a flat YAML mapping of these fields; `trl:` holds any other option of TRL's own
config class, passed through untouched, so nothing TRL offers is out of reach.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Literal, Self

from pydantic import BaseModel, ConfigDict, Field, ValidationInfo, field_validator

from manimgen import config_file

LORA_TARGET_MODULES = ("q_proj", "k_proj", "v_proj", "o_proj", "gate_proj", "up_proj", "down_proj")
TRL_HINT = "other TRL options go under `trl:`"

FourBit = bool | Literal["auto"]
Bf16 = bool | Literal["auto"] | None


def accumulation_steps(total: int, per_device: int, world_size: int, total_name: str) -> int:
    """Micro-batches per optimizer step so that `total` rows are seen over all processes."""
    per_pass = per_device * world_size
    if total % per_pass:
        raise ValueError(
            f"{total_name} {total} is not a multiple of per_device_batch_size {per_device} x {world_size} processes; change one of them"
        )
    return total // per_pass


class BaseTrainingConfig(BaseModel):
    """LoRA (paper §5: r 8, alpha 16, dropout 0, all seven projections), precision and bookkeeping."""

    model_config = ConfigDict(extra="forbid")

    lora_r: int = 8
    lora_alpha: int = 16
    lora_dropout: float = 0.0
    lora_target_modules: list[str] = Field(default_factory=lambda: list(LORA_TARGET_MODULES))
    learning_rate: float = 1.0e-5
    num_train_epochs: float = 1.0
    max_steps: int = -1
    lr_scheduler_type: str = "linear"
    warmup_ratio: float = 0.0
    weight_decay: float = 0.0
    four_bit: FourBit = "auto"
    bf16: Bf16 = None
    activation_checkpointing: bool = True
    logging_steps: int = 1
    save_steps: int = 50
    save_total_limit: int | None = 2
    seed: int = 0
    trl: dict[str, Any] = Field(default_factory=dict)

    @field_validator("four_bit", "bf16", mode="before")
    @classmethod
    def _true_false_or_auto(cls, value: Any, info: ValidationInfo) -> Any:
        """Checked before the union is, whose own message would name its branches instead; bf16 may be left unset."""
        if value not in (True, False, "auto") and not (value is None and info.field_name == "bf16"):
            raise ValueError(f"must be true, false or auto, got {value!r}")
        return value

    @field_validator("warmup_ratio")
    @classmethod
    def _warmup_is_a_ratio(cls, value: float) -> float:
        if not 0.0 <= value < 1.0:
            raise ValueError(f"must be in [0, 1), got {value}")
        return value

    @field_validator("lora_r")
    @classmethod
    def _lora_has_rank(cls, value: int) -> int:
        if value < 1:
            raise ValueError(f"LoRA needs lora_r >= 1, got {value}")
        return value

    @field_validator("lora_target_modules")
    @classmethod
    def _lora_has_modules(cls, value: list[str]) -> list[str]:
        if not value:
            raise ValueError("LoRA needs at least one module, e.g. [q_proj, v_proj]")
        return value

    @classmethod
    def from_yaml(cls, path: str | Path | None = None, **overrides: Any) -> Self:
        """Defaults, then the file's keys, then `overrides` that are not None (command-line flags)."""
        return config_file.load(cls, path, overrides, hint=TRL_HINT)

    def lora_config(self) -> Any:
        from peft import LoraConfig

        return LoraConfig(
            r=self.lora_r,
            lora_alpha=self.lora_alpha,
            lora_dropout=self.lora_dropout,
            target_modules=list(self.lora_target_modules),
            bias="none",
            task_type="CAUSAL_LM",
        )

    def uses_bf16(self, use_cpu: bool) -> bool:
        if self.bf16 == "auto" and use_cpu:
            from manimgen.train.precision import bf16_is_faster_on_this_cpu

            return bf16_is_faster_on_this_cpu()
        if self.bf16 in (None, "auto"):
            return not use_cpu
        return bool(self.bf16)

    def common_trl_options(self, output_dir: str | Path, *, world_size: int, use_cpu: bool) -> dict[str, Any]:
        """TrainingArguments every run sets; bf16 defaults to on for CUDA, off (fp32) on CPU, and `auto` turns it on for
        a CPU whose bf16 products measure faster; a checkpoint every `save_steps`."""
        return {
            "output_dir": str(output_dir),
            "save_strategy": "steps",
            "per_device_train_batch_size": self.per_device_batch_size,
            "gradient_accumulation_steps": self.gradient_accumulation(world_size),
            "learning_rate": self.learning_rate,
            "num_train_epochs": self.num_train_epochs,
            "max_steps": self.max_steps,
            "lr_scheduler_type": self.lr_scheduler_type,
            "warmup_steps": self.warmup_ratio,  # transformers 5: a float below 1 is a ratio of the total steps
            "weight_decay": self.weight_decay,
            "bf16": self.uses_bf16(use_cpu),
            "use_cpu": use_cpu,
            "activation_checkpointing": self.activation_checkpointing,
            "logging_steps": self.logging_steps,
            "save_steps": self.save_steps,
            "save_total_limit": self.save_total_limit,
            "seed": self.seed,
            "report_to": "none",
        }

