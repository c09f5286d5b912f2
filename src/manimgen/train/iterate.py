"""Expert iteration (rejection-sampling fine-tuning), and distillation as the same loop with a teacher.

Each iteration: sample candidates for the train prompts (a `bench run`: sandboxed renders, VS against
the reference, every candidate's trace), harvest the answers that render cleanly, hold what their
sentence asks and look like the reference (train/harvest.py), SFT a fresh LoRA on the student base with
everything harvested so far, optionally DPO on kept-vs-failed pairs from the same sampling (the SFT
adapter is then evaluated alone too, so DPO is measured against SFT alone), and evaluate the result on
the validation split (the split checkpoints are chosen on). The next iteration samples with that adapter;
with a `teacher` (distillation), the teacher keeps sampling and the student keeps learning.

Every stage is resumable: a bench run resumes from its store, harvesting is a pure function of the
stores (a candidate is kept once however often it is read), a training stage with a finished record is
skipped and one with checkpoints continues from the newest.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, field_validator, model_validator

from manimgen import config_file
from manimgen.agent import STRATEGIES
from manimgen.bench.config import ModelEntry, RunConfig, SamplingConfig, StrategyEntry
from manimgen.bench.runner import BenchRunner
from manimgen.bench.store import Store
from manimgen.data.task_file import load_task_file
from manimgen.llm import MODELS
from manimgen.train.checkpoints import ADAPTER_FILES, KeepAdapters, checkpoints_dir, kept_adapter
from manimgen.train.data import load_split, sft_rows
from manimgen.train.dpo import PAIR_COLUMNS, train_dpo
from manimgen.train.dpo_config import DPOTrainingConfig
from manimgen.train.harvest import HELD_OUT, KEPT_FILE, PAIRS_FILE, KeepRule, harvest, held_out_sentences, read_rows, write_harvest
from manimgen.train.model import RUN_RECORD
from manimgen.train.sft import train_sft
from manimgen.train.sft_config import SFTTrainingConfig

SUMMARY_FILE = "iterate.json"


class TaskFileEntry(BaseModel):
    """Extra prompts from a licence-clean task file; the first `skip` lines are left out (an evaluation set, say)."""

    model_config = ConfigDict(extra="forbid")

    path: Path
    skip: int = Field(0, ge=0)


class IterateConfig(BaseModel):
    """What one expert-iteration (or distillation) run does; loaded from YAML like every run config."""

    model_config = ConfigDict(extra="forbid")

    student: str = "qwen2.5-coder-0.5b"
    teacher: str | None = None
    strategy: str = "vanilla"
    seeds: list[int] = Field(default_factory=lambda: [0, 1, 2, 3], min_length=1)
    temperature: float = Field(0.7, ge=0.0)
    max_tokens: int = Field(1024, gt=0)
    iterations: int = Field(1, ge=1)
    limit: int | None = Field(None, gt=0)
    task_files: list[TaskFileEntry] = Field(default_factory=list)
    min_visual: float = 0.6
    per_task: int = Field(2, ge=1)
    pairs_per_task: int = Field(2, ge=0)
    references_max_chars: int | None = None
    all_held: bool = True
    repairs: bool = True
    held_out: Path | None = HELD_OUT
    sft: SFTTrainingConfig = Field(default_factory=SFTTrainingConfig)
    select_steps: list[int] = Field(default_factory=list)
    """SFT steps whose adapters are kept and evaluated on validation beside the last; the best is the iteration's."""
    dpo: DPOTrainingConfig | None = None
    evaluate: list[str] = Field(default_factory=lambda: ["vanilla"])
    eval_limit: int | None = Field(None, gt=0)

    _known = config_file.choices(strategy=lambda: STRATEGIES)

    @field_validator("evaluate")
    @classmethod
    def _registered_strategies(cls, value: list[str]) -> list[str]:
        return [config_file.one_of(name, STRATEGIES) for name in value]

    @model_validator(mode="after")
    def _selected_steps_are_saved(self) -> IterateConfig:
        """A kept step must be one the trainer checkpoints, or there is nothing to keep."""
        if self.select_steps and self.sft.eval_strategy == "epoch":
            raise ValueError("select_steps needs checkpoints by steps; set sft.eval_strategy to no (or steps)")
        every = (self.sft.eval_steps if self.sft.eval_strategy == "steps" else None) or self.sft.save_steps
        missed = [step for step in self.select_steps if step < 1 or step % every]
        if missed:
            raise ValueError(f"select_steps {missed} are not checkpointed steps: use multiples of {every} (sft.save_steps)")
        return self

    @property
    def keep_rule(self) -> KeepRule:
        return KeepRule(self.min_visual, self.per_task, self.pairs_per_task, self.references_max_chars, self.all_held, self.repairs)


def load_iterate_config(path: Path | None, overrides: dict[str, Any] | None = None) -> IterateConfig:
    return config_file.load(IterateConfig, path, overrides or {})


Say = Callable[[str], None]


class Iteration:
    """The folders of one iteration under the run directory, and whether each stage has finished."""

    def __init__(self, out: Path, number: int) -> None:
        self.number = number
        self.dir = out / f"iteration-{number}"
        self.samples = self.dir / "samples"
        self.data = self.dir / "data"
        self.sft = self.dir / "sft"
        self.dpo = self.dir / "dpo"
        self.eval = self.dir / "eval"
        self.eval_sft = self.dir / "eval-sft"
        self.sft_steps = self.dir / "sft-steps"

    def step_eval(self, step: int) -> Path:
        return self.dir / f"eval-sft-step-{step}"

    def sample_runs(self, config: IterateConfig) -> list[tuple[Path, TaskFileEntry | None]]:
        """Each sampling run's folder and its task file (None: the train split). The task files' runs come
        first: a project's own sentences are what users ask, and their runs can be exported whole
        (`bench export --with-prompts`) when sampling outlasts a machine."""
        return [*((self.dir / f"samples-{entry.path.stem}", entry) for entry in config.task_files), (self.samples, None)]

    def sample_dirs(self, config: IterateConfig) -> list[Path]:
        return [run_dir for run_dir, _ in self.sample_runs(config)]


def adapter_spec(student: str, adapter: Path) -> str:
    """The spec that runs the adapter: through llama.cpp for an embedded base (fast on a CPU), else transformers."""
    return f"{student}+{adapter}" if student in MODELS else f"hf:{student.removeprefix('hf:')}+{adapter}"


def run_iterations(config: IterateConfig, out: Path, *, say: Say = print, llm_factory: Any = None) -> dict[str, Any]:
    """Run (or resume) every iteration; returns and writes the summary (`iterate.json`)."""
    out.mkdir(parents=True, exist_ok=True)
    runner_options = {"llm_factory": llm_factory} if llm_factory else {}
    summary: dict[str, Any] = {"config": config.model_dump(mode="json"), "base": {}, "iterations": []}
    say(f"evaluating the base {config.student} on validation")
    base_eval = out / "base-eval"
    _bench(_eval_config(config, config.student), base_eval, runner_options)
    summary["base"] = _rsr_by_strategy(base_eval)
    sampler = config.teacher or config.student
    harvested: list[Path] = []
    for number in range(1, config.iterations + 1):
        step = Iteration(out, number)
        say(f"iteration {number}: sampling {len(config.seeds)} candidates per prompt with {sampler}")
        for run_dir, task_file in step.sample_runs(config):
            _bench(_sample_config(config, sampler, task_file), run_dir, runner_options)
        harvested += step.sample_dirs(config)
        result = harvest(harvested, config.keep_rule, held_out=held_out_sentences(config.held_out))
        write_harvest(result, step.data, run_dirs=harvested, rule=config.keep_rule)
        say(f"iteration {number}: kept {len(result.kept)} answers over {result.summary()['tasks_with_kept']} tasks, {len(result.pairs)} pairs")
        _train_sft(config, step)
        adapter, evaluated, compared = step.sft, step.eval, {}
        if config.select_steps or config.dpo is not None:
            adapter, evaluated, by_step = _choose_sft(config, step, runner_options, say)
            compared = {"validation_sft": _rsr_by_strategy(evaluated), **by_step}
        if config.dpo is not None:
            _train_dpo(config, step, adapter)
            adapter, evaluated = step.dpo, step.eval
        spec = adapter_spec(config.student, adapter)
        if evaluated == step.eval:
            say(f"iteration {number}: evaluating {spec} on validation")
            _bench(_eval_config(config, spec), step.eval, runner_options)
        summary["iterations"].append({
            "iteration": number,
            "sampler": sampler,
            "adapter": spec,
            "harvest": result.summary(),
            "sampling": _cost(step.sample_dirs(config)),
            "train_seconds": _train_seconds(step, config),
            "validation": _rsr_by_strategy(evaluated),
            **compared,
            "validation_cost": _cost([evaluated]),
        })
        (out / SUMMARY_FILE).write_text(json.dumps(summary, indent=2) + "\n")
        if config.teacher is None:
            sampler = spec
    return summary


def _bench(run_config: RunConfig, run_dir: Path, options: dict[str, Any]) -> None:
    BenchRunner(run_config, run_dir, show_progress=True, **options).run()


def _sample_config(config: IterateConfig, sampler: str, task_file: TaskFileEntry | None) -> RunConfig:
    sampling = SamplingConfig(temperature=config.temperature, max_tokens=config.max_tokens)
    where: dict[str, Any] = {"split": "train", "limit": config.limit}
    if task_file is not None:
        ids = [task.id for task in load_task_file(task_file.path)[task_file.skip :]]
        where = {"tasks_file": task_file.path, "tasks": ids[: config.limit] if config.limit else ids}
    return RunConfig(
        models=[ModelEntry(spec=sampler, label="sampler")],
        strategies=[StrategyEntry(name=config.strategy)],
        seeds=config.seeds,
        sampling=sampling,
        **where,
    )


def _eval_config(config: IterateConfig, spec: str) -> RunConfig:
    return RunConfig(
        models=[ModelEntry(spec=spec, label="model")],
        strategies=[StrategyEntry(name=name) for name in config.evaluate],
        split="validation",
        limit=config.eval_limit,
    )


def _train_sft(config: IterateConfig, step: Iteration) -> None:
    if (step.sft / RUN_RECORD).is_file():
        return
    rows = read_rows(step.data / KEPT_FILE, ("prompt", "completion", "task_id"))
    eval_rows = sft_rows(load_split("manimbench", "validation"))
    keep = [KeepAdapters(config.select_steps, step.sft_steps)] if config.select_steps else []
    train_sft(config.student, rows, eval_rows, step.sft, config.sft, keep, resume=_has_checkpoints(step.sft))


def _choose_sft(config: IterateConfig, step: Iteration, options: dict[str, Any], say: Say) -> tuple[Path, Path, dict[str, Any]]:
    """Evaluate each kept step's SFT adapter and the last one alone on validation; the best (mean RSR over the
    evaluated strategies; a tie goes to the later step) is what DPO continues, or the iteration's adapter.
    Returns it, its evaluation's folder and, with kept steps, every candidate's validation."""
    candidates = [
        (kept_adapter(step.sft_steps, number), step.step_eval(number))
        for number in sorted(config.select_steps)
        if all((kept_adapter(step.sft_steps, number) / name).is_file() for name in ADAPTER_FILES)
    ]
    candidates.append((step.sft, step.eval_sft))
    for adapter, run_dir in candidates:
        say(f"iteration {step.number}: evaluating the SFT adapter {adapter} alone on validation")
        _bench(_eval_config(config, adapter_spec(config.student, adapter)), run_dir, options)
    scores = [_rsr_by_strategy(run_dir) for _, run_dir in candidates]
    best = max(range(len(candidates)), key=lambda index: (_mean(scores[index].values()), index))
    if not config.select_steps:
        return *candidates[best], {}
    by_step = {adapter.name: score for (adapter, _), score in zip(candidates, scores)}
    return *candidates[best], {"validation_by_step": by_step, "sft_chosen": str(candidates[best][0])}


def _mean(values: Any) -> float:
    values = list(values)
    return sum(values) / len(values) if values else 0.0


def _train_dpo(config: IterateConfig, step: Iteration, adapter: Path) -> None:
    assert config.dpo is not None
    if (step.dpo / RUN_RECORD).is_file():
        return
    pairs = read_rows(step.data / PAIRS_FILE, PAIR_COLUMNS)
    train_dpo(config.student, pairs, step.dpo, config.dpo, adapter=adapter, resume=_has_checkpoints(step.dpo))


def _has_checkpoints(output_dir: Path) -> bool:
    folder = checkpoints_dir(output_dir)
    return folder.is_dir() and any(folder.glob("checkpoint-*"))


def _train_seconds(step: Iteration, config: IterateConfig) -> dict[str, float]:
    stages = {"sft": step.sft, **({"dpo": step.dpo} if config.dpo is not None else {})}
    return {name: json.loads((folder / RUN_RECORD).read_text())["seconds"] for name, folder in stages.items()}


def _cost(run_dirs: list[Path]) -> dict[str, float]:
    """Samples, model tokens and agent seconds the bench runs took (replayed generations count what they cost)."""
    samples = []
    for run_dir in run_dirs:
        with Store.open_existing(run_dir) as store:
            samples += store.samples()
    return {
        "samples": len(samples),
        "tokens": sum(sample.tokens or 0 for sample in samples),
        "seconds": round(sum(sample.seconds or 0.0 for sample in samples), 1),
    }


def _rsr_by_strategy(run_dir: Path) -> dict[str, float]:
    with Store.open_existing(run_dir) as store:
        samples = [sample for sample in store.samples() if sample.status != "error"]
    by_strategy: dict[str, list[bool]] = {}
    for sample in samples:
        by_strategy.setdefault(sample.strategy, []).append(sample.status == "ok")
    return {strategy: sum(flags) / len(flags) for strategy, flags in by_strategy.items()}
