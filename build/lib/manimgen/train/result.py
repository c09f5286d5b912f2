"""What a finished run hands back, and the record it leaves beside its adapter."""

from __future__ import annotations

import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from manimgen.llm.models import MODELS
from manimgen.train.model import recorded_base_of, write_record


@dataclass
class TrainResult:
    """The adapter folder and the model spec that loads it (`hf:BASE+ADAPTER`)."""

    kind: str
    output_dir: Path
    base: str
    steps: int
    seconds: float
    metrics: dict[str, float] = field(default_factory=dict)
    skipped_tasks: list[str] = field(default_factory=list)

    @classmethod
    def of(cls, kind: str, trainer: Any, output_dir: str | Path, started: float, skipped_tasks: Sequence[str] = ()) -> TrainResult:
        """What a trainer that has just finished reports; `started` is `time.monotonic()` before it was built."""
        return cls(
            kind=kind,
            output_dir=Path(output_dir),
            base=recorded_base_of(trainer),
            steps=trainer.state.global_step,
            seconds=time.monotonic() - started,
            metrics=final_metrics(trainer),
            skipped_tasks=list(skipped_tasks),
        )

    @property
    def spec(self) -> str:
        return f"hf:{self.base}+{self.output_dir}"

    @property
    def llama_cpp_spec(self) -> str | None:
        """For an embedded GGUF base, the spec that runs the adapter through llama.cpp (faster on a CPU)."""
        return f"{self.base}+{self.output_dir}" if self.base in MODELS else None


def finish(trainer: Any, result: TrainResult, config: dict[str, Any], extra: dict[str, Any] | None = None) -> TrainResult:
    """Save the adapter (and tokenizer) to the output folder and write the run record there."""
    trainer.save_model(str(result.output_dir))
    if trainer.is_world_process_zero():
        write_record(
            result.output_dir,
            {
                "kind": result.kind,
                "base": result.base,
                "spec": result.spec,
                "llama_cpp_spec": result.llama_cpp_spec,
                "steps": result.steps,
                "seconds": round(result.seconds, 1),
                "metrics": result.metrics,
                "skipped_tasks": result.skipped_tasks,
                "four_bit": bool(getattr(trainer.model.get_base_model(), "is_loaded_in_4bit", False)),
                "processes": trainer.accelerator.num_processes,
                "distributed": f"{trainer.accelerator.distributed_type.value} ({trainer.accelerator.state.backend or 'no backend'})",
                "config": config,
                **(extra or {}),
                "log_history": trainer.state.log_history,
            },
        )
    return result


def final_metrics(trainer: Any) -> dict[str, float]:
    """The last value of every scalar the trainer logged, and the best checkpoint's metric.

    `train_loss` is the mean over every step of the run: transformers averages only the steps its
    own process ran, which after a resume leaves out the steps before it.
    """
    history = trainer.state.log_history
    metrics: dict[str, float] = {}
    for entry in history:
        metrics.update({key: float(value) for key, value in entry.items() if isinstance(value, (int, float))})
    if trainer.state.best_metric is not None:
        metrics["best_metric"] = float(trainer.state.best_metric)
    if (mean := mean_logged_loss(history)) is not None:
        metrics["train_loss"] = mean
    return metrics


def mean_logged_loss(history: list[dict[str, Any]]) -> float | None:
    """The step-weighted mean of the logged training losses (each averages the steps since the last log)."""
    total = steps = 0.0
    previous = 0
    for entry in history:
        if "loss" in entry and "step" in entry:
            span = entry["step"] - previous
            total += float(entry["loss"]) * span
            steps += span
            previous = entry["step"]
    return total / steps if steps else None
