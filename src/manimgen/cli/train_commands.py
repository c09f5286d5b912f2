"""Commands of the trainer: `manimgen train sft` and `manimgen train grpo`.

Both run unchanged under `accelerate launch ... -m manimgen.cli train ...` (DDP, DeepSpeed, FSDP);
only the main process draws the progress bar and prints the result.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Optional

import typer
from rich.text import Text

from manimgen.cli.app import app, console, fail
from manimgen.cli.choices import one_of
from manimgen.llm.models import MODELS

if TYPE_CHECKING:
    from manimgen.train.result import TrainResult

train_app = typer.Typer(help="Fine-tune a model on ManimBench: LoRA SFT, then GRPO with the render reward.", no_args_is_help=True)
app.add_typer(train_app, name="train")

ModelOption = Annotated[str, typer.Option("--model", help=f"{one_of(MODELS)}, hf:PATH, a folder or a hub id")]
DataOption = Annotated[str, typer.Option("--data", help="manimbench, or a folder holding the ManimBench v2 files")]
OutOption = Annotated[Path, typer.Option("--out", help="folder for the adapter, its run record and checkpoints")]
MaxStepsOption = Annotated[Optional[int], typer.Option("--max-steps", help="stop after this many optimizer steps")]
LimitOption = Annotated[Optional[int], typer.Option("--limit", help="use only the first N tasks of each split")]
ResumeOption = Annotated[bool, typer.Option("--resume", help="continue an interrupted run in OUT from its newest checkpoint")]


def _report(result: TrainResult) -> None:
    """Printed by the main process only (RANK 0 under a multi-process launch)."""
    if int(os.environ.get("RANK", "0")) != 0:
        return
    watched = {key: value for key, value in result.metrics.items() if key in ("train_loss", "best_metric", "reward")}
    numbers = ", ".join(f"{key} {value:.4g}" for key, value in watched.items())
    console.print(f"[green]{result.kind} done[/green]: {result.steps} steps in {result.seconds:.0f} s{'; ' + numbers if numbers else ''}")
    if result.skipped_tasks:
        console.print(Text(
            f"left out {len(result.skipped_tasks)} tasks whose prompt is longer than max_prompt_length "
            f"(raise it in the config to keep them): {', '.join(result.skipped_tasks)}"
        ))
    console.print(Text(f"adapter: {result.output_dir}\nuse it with: --model '{result.spec}'"), soft_wrap=True)
    if result.llama_cpp_spec:
        console.print(Text(f"or, faster on a CPU, through llama.cpp: --model '{result.llama_cpp_spec}'"), soft_wrap=True)


@train_app.command("sft")
def sft(
    model: ModelOption,
    out: OutOption,
    data: DataOption = "manimbench",
    config: Annotated[Optional[Path], typer.Option("--config", help="YAML run config (default: the paper's, configs/sft.yaml)")] = None,
    epochs: Annotated[Optional[float], typer.Option("--epochs", help="training epochs (overrides the config)")] = None,
    max_steps: MaxStepsOption = None,
    limit: LimitOption = None,
    resume: ResumeOption = False,
) -> None:
    """Supervised LoRA fine-tuning on the train split; the best checkpoint by validation loss is kept."""
    from manimgen.data import DatasetError
    from manimgen.llm import LLMError
    from manimgen.train.data import load_split
    from manimgen.train.progress import RichProgress
    from manimgen.train.sft import train_sft
    from manimgen.train.sft_config import SFTTrainingConfig

    try:
        settings = SFTTrainingConfig.from_yaml(config, num_train_epochs=epochs, max_steps=max_steps)
        train_tasks = load_split(data, "train", limit)
        eval_tasks = load_split(data, "validation", limit)
        result = train_sft(model, train_tasks, eval_tasks, out, settings, callbacks=[RichProgress("sft")], resume=resume)
    except (ValueError, DatasetError, LLMError) as error:
        fail(str(error))
    _report(result)


@train_app.command("grpo")
def grpo(
    out: OutOption,
    model: Annotated[Optional[str], typer.Option("--model", help="base model (default: the one --adapter was trained on)")] = None,
    adapter: Annotated[Optional[Path], typer.Option("--adapter", help="SFT adapter folder to start from", exists=True, file_okay=False)] = None,
    data: DataOption = "manimbench",
    config: Annotated[Optional[Path], typer.Option("--config", help="YAML run config (default: the paper's, configs/grpo.yaml)")] = None,
    max_steps: MaxStepsOption = None,
    limit: LimitOption = None,
    use_vllm: Annotated[bool, typer.Option("--use-vllm", help="generate with vLLM (TRL's vllm_mode from the config; GPU only)")] = False,
    resume: ResumeOption = False,
) -> None:
    """GRPO on the train split with the render reward, from an SFT adapter or a fresh LoRA."""
    from manimgen.data import DatasetError
    from manimgen.llm import LLMError
    from manimgen.train.data import load_split
    from manimgen.train.grpo import train_grpo
    from manimgen.train.grpo_config import GRPOTrainingConfig
    from manimgen.train.progress import RichProgress

    try:
        settings = GRPOTrainingConfig.from_yaml(config, max_steps=max_steps, use_vllm=use_vllm or None)
        tasks = load_split(data, "train", limit)
        result = train_grpo(model, tasks, out, settings, adapter=adapter, callbacks=[RichProgress("grpo")], resume=resume)
    except (ValueError, DatasetError, LLMError) as error:
        fail(str(error))
    _report(result)
