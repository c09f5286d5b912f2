"""What SFT and GRPO runs share: the LoRA adapter, precision, seed, and loading from a YAML file.

A run config is a flat YAML mapping of these dataclass fields; `trl:` holds any other option of
TRL's own config class, passed through untouched, so nothing TRL offers is out of reach.
"""

from __future__ import annotations

import dataclasses
import typing
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal, TypeVar

import yaml

LORA_TARGET_MODULES = ("q_proj", "k_proj", "v_proj", "o_proj", "gate_proj", "up_proj", "down_proj")

FourBit = bool | Literal["auto"]
ConfigT = TypeVar("ConfigT", bound="BaseTrainingConfig")


@dataclass
class BaseTrainingConfig:
    """LoRA (paper §5: r 8, alpha 16, dropout 0, all seven projections), precision and bookkeeping."""

    lora_r: int = 8
    lora_alpha: int = 16
    lora_dropout: float = 0.0
    lora_target_modules: list[str] = field(default_factory=lambda: list(LORA_TARGET_MODULES))
    learning_rate: float = 1.0e-5
    num_train_epochs: float = 1.0
    max_steps: int = -1
    lr_scheduler_type: str = "linear"
    warmup_ratio: float = 0.0
    weight_decay: float = 0.0
    four_bit: FourBit = "auto"
    bf16: bool | None = None
    activation_checkpointing: bool = True
    logging_steps: int = 1
    save_steps: int = 50
    save_total_limit: int | None = 2
    seed: int = 0
    trl: dict[str, Any] = field(default_factory=dict)

    def __post_init__(self) -> None:
        if self.four_bit not in (True, False, "auto"):
            raise ValueError(f"four_bit must be true, false or auto, got {self.four_bit!r}")
        if not 0.0 <= self.warmup_ratio < 1.0:
            raise ValueError(f"warmup_ratio must be in [0, 1), got {self.warmup_ratio}")
        if self.lora_r < 1 or not self.lora_target_modules:
            raise ValueError("LoRA needs lora_r >= 1 and at least one module in lora_target_modules")

    @classmethod
    def from_yaml(cls: type[ConfigT], path: str | Path | None = None, **overrides: Any) -> ConfigT:
        """Defaults, then the file's keys, then `overrides` that are not None (command-line flags)."""
        values = _read_mapping(Path(path)) if path else {}
        _check_keys(cls, values, str(path))
        values.update({key: value for key, value in overrides.items() if value is not None})
        _check_keys(cls, values, "overrides")
        return cls(**_coerce(cls, values))

    def to_dict(self) -> dict[str, Any]:
        return dataclasses.asdict(self)

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

    def common_trl_options(self, use_cpu: bool) -> dict[str, Any]:
        """TrainingArguments every run sets; bf16 defaults to on for CUDA, off (fp32) on CPU."""
        return {
            "learning_rate": self.learning_rate,
            "num_train_epochs": self.num_train_epochs,
            "max_steps": self.max_steps,
            "lr_scheduler_type": self.lr_scheduler_type,
            "warmup_steps": self.warmup_ratio,  # transformers 5: a float below 1 is a ratio of the total steps
            "weight_decay": self.weight_decay,
            "bf16": (not use_cpu) if self.bf16 is None else self.bf16,
            "use_cpu": use_cpu,
            "activation_checkpointing": self.activation_checkpointing,
            "logging_steps": self.logging_steps,
            "save_steps": self.save_steps,
            "save_total_limit": self.save_total_limit,
            "seed": self.seed,
            "report_to": "none",
        }


def _read_mapping(path: Path) -> dict[str, Any]:
    try:
        data = yaml.safe_load(path.read_text(encoding="utf-8"))
    except OSError as error:
        raise ValueError(f"cannot read config {path}: {error.strerror}; give an existing YAML file") from None
    except yaml.YAMLError as error:
        raise ValueError(f"{path} is not valid YAML ({error}); fix the file") from None
    if data is None:
        return {}
    if not isinstance(data, dict):
        raise ValueError(f"{path} must hold a mapping of option: value, got {type(data).__name__}")
    return data


def _check_keys(cls: type, values: dict[str, Any], where: str) -> None:
    known = {item.name for item in dataclasses.fields(cls)}
    unknown = sorted(set(values) - known)
    if unknown:
        raise ValueError(
            f"{where}: unknown option(s) {', '.join(unknown)}; known: {', '.join(sorted(known))} "
            "(other TRL options go under `trl:`)"
        )


def _coerce(cls: type, values: dict[str, Any]) -> dict[str, Any]:
    """YAML 1.1 reads `2e-6` as a string: turn strings into the numbers their fields expect."""
    hints = typing.get_type_hints(cls)
    coerced = dict(values)
    for name, value in values.items():
        if not isinstance(value, str):
            continue
        accepted = typing.get_args(hints[name]) or (hints[name],)
        for number in (int, float):
            if number in accepted:
                try:
                    coerced[name] = number(value)
                    break
                except ValueError:
                    continue
    return coerced
