"""DPO run config, turned into TRL's `DPOConfig` at run time.

The paper has no preference stage; these defaults are the usual ones for LoRA DPO (β 0.1, the
sigmoid loss, a learning rate ten times SFT's), sized for a few hundred pairs on a CPU.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from pydantic import field_validator

from manimgen import config_file
from manimgen.train.base_config import BaseTrainingConfig, accumulation_steps

LOSS_TYPES = ("sigmoid", "hinge", "ipo", "robust", "bco_pair", "sppo_hard", "nca_pair", "apo_zero", "apo_down")


class DPOTrainingConfig(BaseTrainingConfig):
    """β 0.1, sigmoid loss, lr 5e-6, 1 epoch, batch 8, prompt + answer up to 2048 tokens.

    Pairs come from one sampling (a rendered and a failed answer to the same prompt); starting from
    an SFT adapter, TRL keeps a frozen copy of it as the reference, else the base with the adapter off.
    """

    learning_rate: float = 5.0e-6
    num_train_epochs: float = 1.0
    beta: float = 0.1
    loss_type: str = "sigmoid"
    batch_size: int = 8
    per_device_batch_size: int = 1
    max_length: int = 2048

    _known = config_file.choices(loss_type=lambda: LOSS_TYPES)

    @field_validator("beta")
    @classmethod
    def _beta_positive(cls, value: float) -> float:
        if value <= 0:
            raise ValueError(f"must be positive (how far the policy may move from the reference), got {value}")
        return value

    def gradient_accumulation(self, world_size: int) -> int:
        return accumulation_steps(self.batch_size, self.per_device_batch_size, world_size, "batch_size")

    def trl_config(self, output_dir: str | Path, *, world_size: int, use_cpu: bool) -> Any:
        from trl import DPOConfig

        options = {
            **self.common_trl_options(output_dir, world_size=world_size, use_cpu=use_cpu),
            "beta": self.beta,
            "loss_type": [self.loss_type],
            "max_length": self.max_length,
            **self.trl,
        }
        return DPOConfig(**options)
