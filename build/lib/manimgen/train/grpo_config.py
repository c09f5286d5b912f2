"""GRPO run config with the paper's defaults (§5), turned into TRL's `GRPOConfig` at run time.

TRL 1.16 has no `max_prompt_length`: prompts longer than `max_prompt_length` tokens are dropped
from the dataset instead (cutting a chat prompt would cut its system message).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Literal

from pydantic import field_validator

from manimgen import config_file
from manimgen.render.result import DEFAULT_QUALITY, QUALITIES
from manimgen.train.base_config import BaseTrainingConfig, accumulation_steps

LOSS_TYPES = ("grpo", "dr_grpo", "dapo", "bnpo", "cispo", "sapo", "luspo", "vespo")
REWARD_SCALING = ("group", "batch", "none")
VLLM_MODES = ("colocate", "server")


def _presets() -> list[str]:
    """Read when a config is validated: the scoring package loads the renderer and metrics."""
    from manimgen.scoring.presets import PRESETS

    return list(PRESETS)


class GRPOTrainingConfig(BaseTrainingConfig):
    """lr 5e-7, G 8, 2 prompts x 8 completions per step, μ 4, β 0.005, ε 0.2, Dr. GRPO loss, group
    reward scaling, temperature 0.9, top-p 0.9, min-p 0.1, prompt/completion 409/1639 tokens.

    `per_device_batch_size` counts completions per forward/backward pass on one process; the
    remaining factor of prompts_per_step x num_generations is gradient accumulation. Each
    generated batch is reused for `num_iterations` (μ) optimizer steps. Every checkpoint is kept
    (LoRA checkpoints are small), one at each epoch's end among them.
    """

    learning_rate: float = 5.0e-7
    num_train_epochs: float = 2.0
    num_generations: int = 8
    prompts_per_step: int = 2
    per_device_batch_size: int = 8
    num_iterations: int = 4
    beta: float = 0.005
    epsilon: float = 0.2
    loss_type: str = "dr_grpo"
    scale_rewards: str = "group"
    temperature: float = 0.9
    top_p: float = 0.9
    min_p: float | None = 0.1
    max_prompt_length: int = 409
    max_completion_length: int = 1639
    reward: Literal["paper", "sentence"] = "paper"  # sentence: train/sentence_reward.py, no reference needed
    text_weight: float = 0.2
    visual_weight: float = 0.8
    reward_mode: Literal["arithmetic", "geometric"] = "arithmetic"
    render_quality: str = DEFAULT_QUALITY
    render_timeout_s: float | None = None
    metric_preset: str = "default"
    visual_metric: Literal["vs", "content_vs"] = "vs"
    render_workers: int | None = None
    render_ray: str | None = None  # a Ray cluster's address: its render actors do the reward's renders (docs/scale-out.md)
    use_vllm: bool = False
    vllm_mode: str = "colocate"
    save_total_limit: int | None = None

    _known = config_file.choices(
        loss_type=lambda: LOSS_TYPES, scale_rewards=lambda: REWARD_SCALING, vllm_mode=lambda: VLLM_MODES, render_quality=lambda: QUALITIES,
        metric_preset=lambda: _presets(),
    )

    @field_validator("num_generations")
    @classmethod
    def _a_group_to_compare(cls, value: int) -> int:
        if value < 2:
            raise ValueError(f"must be at least 2: GRPO compares completions within a group, got {value}")
        return value

    @property
    def reward_timeout_s(self) -> float:
        """`render_timeout_s`, else the metric preset's (default 120 s; paper 300 s, the original's)."""
        from manimgen.scoring.presets import PRESETS

        return self.render_timeout_s or PRESETS.pick(self.metric_preset).reward_render_timeout_s

    @property
    def completions_per_step(self) -> int:
        return self.prompts_per_step * self.num_generations

    def gradient_accumulation(self, world_size: int) -> int:
        total = "prompts_per_step x num_generations ="
        return accumulation_steps(self.completions_per_step, self.per_device_batch_size, world_size, total)

    def trl_config(self, output_dir: str | Path, *, world_size: int, use_cpu: bool) -> Any:
        """TRL's GRPOConfig; the generation batch is exactly one step's prompts x completions."""
        from trl import GRPOConfig

        options = {
            **self.common_trl_options(output_dir, world_size=world_size, use_cpu=use_cpu),
            "num_generations": self.num_generations,
            "num_iterations": self.num_iterations,
            "beta": self.beta,
            "epsilon": self.epsilon,
            "loss_type": self.loss_type,
            "scale_rewards": self.scale_rewards,
            "temperature": self.temperature,
            "top_p": self.top_p,
            "min_p": self.min_p,
            "max_completion_length": self.max_completion_length,
            "use_vllm": self.use_vllm,
            "vllm_mode": self.vllm_mode,
            "remove_unused_columns": False,
            **self.trl,
        }
        return GRPOConfig(**options)
