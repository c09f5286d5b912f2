"""Commands of the trainer: `manimgen train sft`, `grpo`, `harvest`, `dpo` and `iterate`.

The training commands run unchanged under `accelerate launch ... -m manimgen.cli train ...` (DDP, DeepSpeed, FSDP);
only the main process draws the progress bar and prints the result.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Optional

import typer
from rich.table import Table
from rich.text import Text

from manimgen.cli.app import app, console, fail
from manimgen.cli.choices import one_of
from manimgen.extras import require
from manimgen.llm.models import MODELS

if TYPE_CHECKING:
    from manimgen.train.result import TrainResult

train_app = typer.Typer(help="Fine-tune a model on ManimBench: LoRA SFT, then GRPO with the render reward.", no_args_is_help=True)
app.add_typer(train_app, name="train")

ModelOption = Annotated[str, typer.Option("--model", help=f"{one_of(MODELS)}, hf:PATH, a folder or a hub id")]
SftDataOption = Annotated[str, typer.Option(
    "--data", help="manimbench, a folder holding the ManimBench v2 files, or a kept.jsonl that `train harvest` wrote"
)]
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
    data: SftDataOption = "manimbench",
    config: Annotated[Optional[Path], typer.Option("--config", help="YAML run config (default: the paper's, configs/sft.yaml)")] = None,
    epochs: Annotated[Optional[float], typer.Option("--epochs", help="training epochs (overrides the config)")] = None,
    max_steps: MaxStepsOption = None,
    limit: LimitOption = None,
    resume: ResumeOption = False,
) -> None:
    """Supervised LoRA fine-tuning on the train split's references or on harvested answers; the best
    checkpoint by loss on the validation split's references is kept."""
    require("train")
    from manimgen.data import DatasetError
    from manimgen.llm import LLMError
    from manimgen.train.data import load_split, sft_rows, training_rows
    from manimgen.train.progress import RichProgress
    from manimgen.train.sft import train_sft
    from manimgen.train.sft_config import SFTTrainingConfig

    try:
        settings = SFTTrainingConfig.from_yaml(config, num_train_epochs=epochs, max_steps=max_steps)
        train_rows = training_rows(data, limit)
        eval_rows = sft_rows(load_split("manimbench" if data.endswith(".jsonl") else data, "validation", limit))
        result = train_sft(model, train_rows, eval_rows, out, settings, callbacks=[RichProgress("sft")], resume=resume)
    except (ValueError, DatasetError, LLMError) as error:
        fail(str(error))
    _report(result)


@train_app.command("grpo")
def grpo(
    out: OutOption,
    model: Annotated[Optional[str], typer.Option("--model", help="base model (default: the one --adapter was trained on)")] = None,
    adapter: Annotated[Optional[Path], typer.Option("--adapter", help="SFT adapter folder to start from", exists=True, file_okay=False)] = None,
    data: Annotated[str, typer.Option(
        "--data", help="manimbench, a folder holding the ManimBench v2 files, or a task file of sentences (with `reward: sentence`)"
    )] = "manimbench",
    config: Annotated[Optional[Path], typer.Option("--config", help="YAML run config (default: the paper's, configs/grpo.yaml)")] = None,
    max_steps: MaxStepsOption = None,
    limit: LimitOption = None,
    use_vllm: Annotated[bool, typer.Option("--use-vllm", help="generate with vLLM (TRL's vllm_mode from the config; GPU only)")] = False,
    resume: ResumeOption = False,
) -> None:
    """GRPO on the train split with the render reward (or on a task file's sentences with the sentence reward), from
    an SFT adapter or a fresh LoRA."""
    require("train")
    from manimgen.data import DatasetError
    from manimgen.llm import LLMError
    from manimgen.train.data import grpo_tasks
    from manimgen.train.grpo import train_grpo
    from manimgen.train.grpo_config import GRPOTrainingConfig
    from manimgen.train.progress import RichProgress

    try:
        settings = GRPOTrainingConfig.from_yaml(config, max_steps=max_steps, use_vllm=use_vllm or None)
        tasks = grpo_tasks(data, limit)
        if settings.reward == "paper" and not all(task.reference_code for task in tasks):
            raise DatasetError(f"{data} has sentences without a reference scene; set `reward: sentence` in the GRPO config")
        result = train_grpo(model, tasks, out, settings, adapter=adapter, callbacks=[RichProgress("grpo")], resume=resume)
    except (ValueError, DatasetError, LLMError) as error:
        fail(str(error))
    _report(result)


@train_app.command("harvest")
def harvest_command(
    runs: Annotated[list[Path], typer.Argument(help="run directories of `manimgen bench run` on the train split or a task file")],
    out: Annotated[Path, typer.Option("--out", help="folder for kept.jsonl, pairs.jsonl and harvest.json")],
    min_visual: Annotated[float, typer.Option("--min-visual", help="least VS against the reference for a kept answer")] = 0.6,
    per_task: Annotated[int, typer.Option("--per-task", help="most distinct answers kept per task")] = 2,
    pairs_per_task: Annotated[int, typer.Option("--pairs-per-task", help="most preference pairs per task")] = 2,
    references_max_chars: Annotated[Optional[int], typer.Option(
        "--references-max-chars", help="also keep the train references no longer than this many characters"
    )] = None,
    all_held: Annotated[bool, typer.Option(
        "--all-held/--any-held", help="keep only answers whose render holds every verifiable requirement of the sentence"
    )] = True,
    repairs: Annotated[bool, typer.Option("--repairs/--no-repairs", help="add a row for each repair turn that wrote a kept answer")] = True,
    held_out: Annotated[Optional[Path], typer.Option(
        "--held-out", help="a sentence file never trained on (default: sentences/evaluation.jsonl when it exists)"
    )] = None,
) -> None:
    """Turn sampled runs into training data: the answers that render cleanly and hold what was asked, and the repair
    turns that wrote them (SFT), and kept-vs-failed pairs (DPO)."""
    from manimgen.bench import StoreError
    from manimgen.data import DatasetError
    from manimgen.train.harvest import HELD_OUT, KeepRule, harvest, held_out_sentences, write_harvest

    rule = KeepRule(min_visual, per_task, pairs_per_task, references_max_chars, all_held, repairs)
    try:
        result = harvest(runs, rule, held_out=held_out_sentences(held_out or HELD_OUT))
    except (StoreError, DatasetError) as error:
        fail(str(error))
    files = write_harvest(result, out, run_dirs=runs, rule=rule)
    console.print(_harvest_table(result.summary()))
    console.print(Text(f"kept: {files['kept']}\npairs: {files['pairs']}\nsummary: {files['summary']}"), soft_wrap=True)


def _harvest_table(summary: dict) -> Table:
    table = Table(title="harvest", show_header=False)
    table.add_row("samples read", str(summary["considered"]))
    table.add_row("kept (SFT rows)", f"{summary['kept']} over {summary['tasks_with_kept']} tasks")
    table.add_row("repair turns (SFT rows)", str(summary["repair_rows"]))
    for source, count in summary["kept_by_source"].items():
        table.add_row(f"  from {source}", str(count))
    table.add_row("preference pairs", str(summary["pairs"]))
    for reason, count in sorted(summary["left_out"].items(), key=lambda item: -item[1]):
        table.add_row(f"left out: {reason}", str(count))
    return table


@train_app.command("dpo")
def dpo(
    data: Annotated[Path, typer.Option("--data", help="a pairs.jsonl that `train harvest` wrote")],
    out: OutOption,
    model: Annotated[Optional[str], typer.Option("--model", help="base model (default: the one --adapter was trained on)")] = None,
    adapter: Annotated[Optional[Path], typer.Option("--adapter", help="SFT adapter folder to start from", exists=True, file_okay=False)] = None,
    config: Annotated[Optional[Path], typer.Option("--config", help="YAML run config (default: configs/dpo.yaml's values)")] = None,
    max_steps: MaxStepsOption = None,
    resume: ResumeOption = False,
) -> None:
    """Preference tuning (TRL's DPO) on rendered-vs-failed answers to the same prompt."""
    require("train")
    from manimgen.data import DatasetError
    from manimgen.llm import LLMError
    from manimgen.train.dpo import PAIR_COLUMNS, train_dpo
    from manimgen.train.dpo_config import DPOTrainingConfig
    from manimgen.train.harvest import read_rows
    from manimgen.train.progress import RichProgress

    try:
        settings = DPOTrainingConfig.from_yaml(config, max_steps=max_steps)
        pairs = read_rows(data, PAIR_COLUMNS)
        result = train_dpo(model, pairs, out, settings, adapter=adapter, callbacks=[RichProgress("dpo")], resume=resume)
    except (ValueError, DatasetError, LLMError) as error:
        fail(str(error))
    _report(result)


@train_app.command("iterate")
def iterate(
    out: Annotated[Path, typer.Option("--out", help="run folder: every iteration's samples, data, adapters and evaluations")],
    config: Annotated[Optional[Path], typer.Option("--config", help="YAML (e.g. configs/expert-iteration-cpu.yaml)")] = None,
    iterations: Annotated[Optional[int], typer.Option("--iterations", help="rounds of sample → harvest → train → evaluate")] = None,
    limit: LimitOption = None,
) -> None:
    """Expert iteration: sample, keep what renders cleanly, SFT on it, evaluate on validation; resumable.
    With `teacher:` in the config it is distillation: the teacher samples, the student learns."""
    require("train")
    from manimgen.bench import BenchStopped, ConfigError, StoreError
    from manimgen.data import DatasetError
    from manimgen.llm import LLMError
    from manimgen.train.iterate import load_iterate_config, run_iterations

    try:
        settings = load_iterate_config(config, {"iterations": iterations, "limit": limit})
        summary = run_iterations(settings, out, say=lambda line: console.print(Text(line)))
    except (BenchStopped, ConfigError, StoreError, ValueError, DatasetError, LLMError) as error:
        fail(str(error))
    table = Table(title=f"validation RSR ({out})")
    strategies = list(summary["base"])
    for column in ("model", "kept", "pairs", *strategies):
        table.add_column(column, justify="left" if column == "model" else "right")
    table.add_row("base", "–", "–", *(f"{summary['base'][name]:.1%}" for name in strategies))
    for step in summary["iterations"]:
        scores = step["validation"]
        table.add_row(
            Text(step["adapter"]), str(step["harvest"]["kept"]), str(step["harvest"]["pairs"]),
            *(f"{scores[name]:.1%}" if name in scores else "–" for name in strategies),
        )
    console.print(table)
