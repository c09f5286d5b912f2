"""ManimTrainer: LoRA SFT and GRPO with TRL, rewarded by rendering through the sandboxed pool.

Importing this package is cheap: torch, TRL and the scorer load when a run or reward starts.
"""

from manimgen.train.base_config import LORA_TARGET_MODULES, BaseTrainingConfig
from manimgen.train.grpo_config import GRPOTrainingConfig
from manimgen.train.result import TrainResult
from manimgen.train.reward import ManimReward, RewardStats
from manimgen.train.sft_config import SFTTrainingConfig

__all__ = [
    "LORA_TARGET_MODULES",
    "BaseTrainingConfig",
    "GRPOTrainingConfig",
    "ManimReward",
    "RewardStats",
    "SFTTrainingConfig",
    "TrainResult",
]
