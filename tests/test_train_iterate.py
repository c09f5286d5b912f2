"""Expert iteration: harvesting a study's samples into SFT rows and DPO pairs, a real DPO step, and
the sample → harvest → SFT → evaluate loop, resumed without repeating a stage.

Samples come from real bench runs (real prompts, sandboxed renders, VS against the reference, the
SQLite store) whose answers are scripted, so which sample must be kept is known; the trainers are
TRL's on a tiny Qwen2 with the real tokenizer. The loop's real-model run is in docs/training.md.
"""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path

import pytest
from tiny_qwen import manimbench_folder, save_tiny_qwen

from manimgen.agent import format_target, generation_messages
from manimgen.bench import BenchRunner, Store
from manimgen.bench.config import parse_config
from manimgen.data import BUILTIN_TASKS, DatasetError
from manimgen.llm import LLMError
from manimgen.llm.scripted import ScriptedLLM
from manimgen.train.data import sft_rows
from manimgen.train.dpo import PAIR_COLUMNS, train_dpo
from manimgen.train.dpo_config import DPOTrainingConfig
from manimgen.train.harvest import KeepRule, harvest, read_rows, write_harvest
from manimgen.train.iterate import IterateConfig, load_iterate_config, run_iterations
from manimgen.train.sft import train_sft
from manimgen.train.sft_config import SFTTrainingConfig

REPO = Path(__file__).resolve().parents[1]
TASKS = {task.id: task for task in BUILTIN_TASKS}
CIRCLE = TASKS["circle-to-square"]
DOTS = TASKS["three-dots"]
BROKEN = """from manim import *


class Broken(Scene):
    def construct(self):
        self.play(Create(NoSuchMobject()))
"""
LINT_FLAGGED = DOTS.reference_code + "\n\ndef never_called():\n    return ShowCreation(Circle())\n"
"""Renders (the function never runs), yet the lint flags ManimGL's `ShowCreation`."""
FAST = {"activation_checkpointing": False, "warmup_ratio": 0.0, "batch_size": 1, "learning_rate": 1e-3}

# vanilla, seeds 0-2, task-major: circle answered with its reference twice (one answer, kept once)
# and a broken scene; the dots with no code, a broken scene, and a render the lint flags.
ANSWERS = [
    format_target(CIRCLE.reference_code), format_target(CIRCLE.reference_code), format_target(BROKEN),
    "I cannot do that.", format_target(BROKEN), format_target(LINT_FLAGGED),
]


@pytest.fixture(scope="module")
def sampled(tmp_path_factory: pytest.TempPathFactory) -> Path:
    run_dir = tmp_path_factory.mktemp("harvest") / "samples"
    config = parse_config({
        "models": ["sampler=scripted"], "strategies": ["vanilla"], "split": "builtin",
        "tasks": [CIRCLE.id, DOTS.id], "seeds": [0, 1, 2],
    })
    llm = ScriptedLLM(*ANSWERS)
    BenchRunner(config, run_dir, llm_factory=lambda spec: llm, show_progress=False).run()
    assert llm.remaining == 0
    return run_dir


def test_a_clean_render_is_kept_once_with_its_provenance(sampled: Path) -> None:
    result = harvest([sampled], KeepRule(min_visual=0.9))
    assert result.considered == 6
    assert [row["task_id"] for row in result.kept] == [CIRCLE.id]
    row = result.kept[0]
    assert row["prompt"] == [dict(message) for message in generation_messages(CIRCLE.description)]
    assert row["completion"] == [{"role": "assistant", "content": format_target(CIRCLE.reference_code)}]
    provenance = row["provenance"]
    assert (provenance["source"], provenance["model_spec"], provenance["strategy"], provenance["seed"]) == ("builtin", "scripted", "vanilla", 0)
    assert provenance["vs"] > 0.99 and provenance["run"] == str(sampled)
    assert result.left_out == {"did not render": 3, "a task's answer already kept": 1, "lint findings": 1}
    assert result.sources == {"builtin": 1}


def test_a_pair_prefers_the_kept_answer_to_a_failed_one_of_the_same_prompt(sampled: Path) -> None:
    result = harvest([sampled], KeepRule(min_visual=0.9))
    assert len(result.pairs) == 1, "the dots have no kept answer, so no pair"
    pair = result.pairs[0]
    assert pair["prompt"] == result.kept[0]["prompt"] and pair["chosen"] == result.kept[0]["completion"]
    assert pair["rejected"] == [{"role": "assistant", "content": format_target(BROKEN)}]
    assert pair["provenance"]["rejected"]["seed"] == 2


@pytest.fixture(scope="module")
def searched(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    """The circle answered by vanilla with the three dots' scene (renders, shows no circle) and with its
    reference; and by ritl with a broken scene, then, repaired, its reference."""
    root = tmp_path_factory.mktemp("searched")
    runs = []
    for strategy, seeds, answers in (("vanilla", [0, 1], [DOTS.reference_code, CIRCLE.reference_code]), ("ritl", [0], [BROKEN, CIRCLE.reference_code])):
        config = parse_config({"models": ["sampler=scripted"], "strategies": [strategy], "split": "builtin", "tasks": [CIRCLE.id], "seeds": seeds})
        llm = ScriptedLLM(*(format_target(code) for code in answers))
        BenchRunner(config, root / strategy, llm_factory=lambda spec, llm=llm: llm, show_progress=False).run()
        assert llm.remaining == 0
        runs.append(root / strategy)
    return runs[0], runs[1]


def test_a_render_without_what_was_asked_is_left_out_and_becomes_the_rejected_side(searched: tuple[Path, Path]) -> None:
    vanilla, _ = searched
    result = harvest([vanilla], KeepRule(min_visual=0.0))
    assert result.left_out == {"requirements not held": 1}
    assert [row["completion"][0]["content"] for row in result.kept] == [format_target(CIRCLE.reference_code)]
    assert [(pair["rejected"][0]["content"], pair["provenance"]["rejected"]["failed"]) for pair in result.pairs] == [
        (format_target(DOTS.reference_code), "requirements not held")
    ]
    assert [row["task_id"] for row in harvest([vanilla], KeepRule(min_visual=0.0, all_held=False)).kept] == [CIRCLE.id] * 2


def test_a_repair_that_worked_is_a_row_of_its_own_prompt(searched: tuple[Path, Path]) -> None:
    vanilla, ritl = searched
    result = harvest([vanilla, ritl], KeepRule(min_visual=0.0))
    assert len(result.kept) == 1 and result.summary()["repair_rows"] == 1
    row = result.repairs[0]
    assert row["completion"] == [{"role": "assistant", "content": format_target(CIRCLE.reference_code)}]
    assert row["provenance"]["turn"] == "repair" and row["provenance"]["strategy"] == "ritl"
    asked = row["prompt"][-1]["content"]
    assert "NoSuchMobject" in asked and CIRCLE.description in asked, "the repair prompt carries the failed code and the sentence"
    assert {pair["provenance"]["rejected"]["failed"] for pair in result.pairs} == {"requirements not held", "render failed"}
    assert harvest([ritl], KeepRule(min_visual=0.0, repairs=False)).repairs == []


def test_a_held_out_sentence_is_never_kept(searched: tuple[Path, Path]) -> None:
    result = harvest(list(searched), KeepRule(min_visual=0.0), held_out=[CIRCLE.description.upper()])
    assert result.kept == [] and result.pairs == []
    assert result.left_out == {"a held-out evaluation sentence": 3}


def test_visual_threshold_and_short_references(sampled: Path) -> None:
    strict = harvest([sampled], KeepRule(min_visual=1.01))
    assert strict.kept == [] and strict.left_out["VS below 1.01"] == 2
    with_references = harvest([sampled], KeepRule(min_visual=1.01, references_max_chars=200))
    assert [(row["task_id"], row["provenance"]["source"]) for row in with_references.kept] == [(DOTS.id, "reference")]
    assert len(DOTS.reference_code) <= 200 < len(CIRCLE.reference_code)


def test_test_and_validation_samples_and_test_sentences_are_never_kept(sampled: Path, tmp_path: Path) -> None:
    """The same samples relabelled as test, validation and a task file that repeats a test sentence."""
    with Store.open_existing(sampled) as store:
        samples, tasks = store.samples(with_trace=True), store.tasks()
    relabelled = tmp_path / "relabelled"
    with Store.open(relabelled) as store:
        for split, suffix in (("test", "-t"), ("validation", "-v"), ("file", "-f")):
            for task in tasks.values():
                store.put_task(replace(task, task_id=task.task_id + suffix, split=split))
            for sample in samples:
                store.put_sample(replace(sample, task_id=sample.task_id + suffix))
    result = harvest([relabelled], KeepRule(min_visual=0.0), test_descriptions=lambda: {" ".join(CIRCLE.description.lower().split())})
    assert result.left_out["test split (never trained on)"] == 6
    assert result.left_out["validation split (never trained on)"] == 6
    assert result.left_out["same sentence as a test task"] == 3
    assert all(row["task_id"] != CIRCLE.id + "-f" for row in result.kept)


def test_written_files_read_back_and_bad_files_name_the_fix(sampled: Path, tmp_path: Path) -> None:
    rule = KeepRule(min_visual=0.9)
    files = write_harvest(harvest([sampled], rule), tmp_path / "data", run_dirs=[sampled], rule=rule)
    assert read_rows(files["kept"], ("prompt", "completion", "task_id"))[0]["task_id"] == CIRCLE.id
    assert set(read_rows(files["pairs"], PAIR_COLUMNS)[0]) == set(PAIR_COLUMNS)
    summary = json.loads(files["summary"].read_text())
    assert (summary["kept"], summary["pairs"], summary["runs"]) == (1, 1, [str(sampled)])
    broken = tmp_path / "broken.jsonl"
    broken.write_text('{"prompt": []}\nnot json\n')
    with pytest.raises(DatasetError, match=r"broken.jsonl:1 lacks completion, task_id; give the file `manimgen train harvest` wrote"):
        read_rows(broken, ("prompt", "completion", "task_id"))
    broken.write_text("")
    with pytest.raises(DatasetError, match="holds no rows"):
        read_rows(broken, PAIR_COLUMNS)


@pytest.fixture(scope="module")
def tiny_qwen(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return save_tiny_qwen(tmp_path_factory.mktemp("tiny-qwen"))


def test_dpo_continues_an_sft_adapter_and_moves_it(sampled: Path, tiny_qwen: Path, tmp_path: Path) -> None:
    import torch
    from safetensors.torch import load_file

    pairs = harvest([sampled], KeepRule(min_visual=0.9)).pairs
    sft = train_sft(f"hf:{tiny_qwen}", sft_rows([CIRCLE]), [], tmp_path / "sft", SFTTrainingConfig(max_steps=1, eval_strategy="no", **FAST))
    result = train_dpo(None, pairs, tmp_path / "dpo", DPOTrainingConfig(max_steps=2, **FAST), adapter=sft.output_dir)
    record = json.loads((tmp_path / "dpo/manimgen_run.json").read_text())
    assert (record["kind"], record["steps"], record["pairs"], record["start_adapter"]) == ("dpo", 2, 1, str(sft.output_dir))
    assert result.base == str(tiny_qwen) and "loss" in record["metrics"]
    before = load_file(str(sft.output_dir / "adapter_model.safetensors"))
    after = load_file(str(tmp_path / "dpo/adapter_model.safetensors"))
    assert before.keys() == after.keys()
    assert any(not torch.equal(before[name], after[name]) for name in before), "DPO changed the adapter it started from"


def test_dpo_without_pairs_names_the_fix(tmp_path: Path) -> None:
    with pytest.raises(ValueError, match="no preference pairs: sample more candidates"):
        train_dpo("qwen2.5-coder-0.5b", [], tmp_path / "dpo")


def test_shipped_iteration_configs_load(tmp_path: Path) -> None:
    expert, distill = (load_iterate_config(REPO / "configs" / name) for name in ("expert-iteration-cpu.yaml", "distill-cpu.yaml"))
    assert [(config.sft.eval_strategy, config.min_visual) for config in (expert, distill)] == [("no", 0.7), ("no", 0.6)]
    assert (distill.teacher, distill.strategy) == ("qwen2.5-coder-1.5b", "vanilla")
    dpo = DPOTrainingConfig.from_yaml(REPO / "configs/dpo-cpu.yaml").trl_config(tmp_path, world_size=1, use_cpu=True)
    assert (dpo.learning_rate, dpo.gradient_accumulation_steps, dpo.activation_checkpointing) == (5e-5, 8, False)
    own = load_iterate_config(REPO / "configs/expert-iteration-1.5b-cpu.yaml")
    assert (own.student, own.strategy, own.keep_rule.all_held, own.keep_rule.repairs) == ("qwen2.5-coder-1.5b", "sample-check-examples", True, True)
    assert own.held_out == Path("sentences/evaluation.jsonl") and all(entry.path.is_file() for entry in own.task_files)
    with pytest.raises(ValueError, match="evaluate.*must be one of"):
        load_iterate_config(None, {"evaluate": ["nonesuch"]})


def test_the_loop_samples_keeps_trains_evaluates_and_resumes(tiny_qwen: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Three train tasks and one validation task (the built-in ones as a ManimBench folder), two seeds."""
    monkeypatch.setenv("MANIMGEN_MANIMBENCH", str(manimbench_folder(tmp_path / "manimbench")))
    train_tasks, validation_task = BUILTIN_TASKS[:3], BUILTIN_TASKS[3]
    answers = {
        "base-eval": [format_target(BROKEN)],
        "iteration-1/samples": [format_target(task.reference_code) for task in train_tasks for _ in range(2)],
        "iteration-1/eval": [format_target(validation_task.reference_code)],
    }
    asked: list[str] = []

    def scripted(spec: str) -> ScriptedLLM:
        stage = next(name for name in answers if name not in asked)
        asked.append(stage)
        return ScriptedLLM(*answers[stage])

    config = IterateConfig(student=f"hf:{tiny_qwen}", seeds=[0, 1], sft=SFTTrainingConfig(max_steps=2, eval_strategy="no", **FAST))
    out = tmp_path / "ei"
    lines: list[str] = []
    summary = run_iterations(config, out, say=lines.append, llm_factory=scripted)
    assert asked == list(answers)
    assert summary["base"] == {"vanilla": 0.0}
    step = summary["iterations"][0]
    assert step["harvest"]["kept"] == 3 and step["harvest"]["tasks_with_kept"] == 3, "each task's answer once, though sampled twice"
    assert step["adapter"] == f"hf:{tiny_qwen}+{out / 'iteration-1/sft'}"
    assert step["validation"] == {"vanilla": 1.0} and step["train_seconds"]["sft"] > 0
    assert step["sampling"]["samples"] == 6 and step["sampling"]["tokens"] > 0 and step["validation_cost"]["samples"] == 1
    assert json.loads((out / "iteration-1/sft/manimgen_run.json").read_text())["steps"] == 2
    assert json.loads((out / "iterate.json").read_text()) == summary
    assert any("kept 3 answers over 3 tasks" in line for line in lines)

    def untouched(spec: str) -> ScriptedLLM:
        raise LLMError("a resumed loop asked the model again")

    record = (out / "iteration-1/sft/manimgen_run.json").stat().st_mtime_ns
    assert run_iterations(config, out, say=lines.append, llm_factory=untouched) == summary
    assert (out / "iteration-1/sft/manimgen_run.json").stat().st_mtime_ns == record, "a finished SFT stage is not trained again"


def test_with_dpo_the_sft_adapter_is_evaluated_alone_beside_it(tiny_qwen: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("MANIMGEN_MANIMBENCH", str(manimbench_folder(tmp_path / "manimbench")))
    train_tasks, validation_task = BUILTIN_TASKS[:2], BUILTIN_TASKS[3]
    answers = {
        "base-eval": [format_target(BROKEN)],
        "samples": [format_target(code) for task in train_tasks for code in (task.reference_code, BROKEN)],
        "eval-sft": [format_target(BROKEN)],
        "eval": [format_target(validation_task.reference_code)],
    }
    asked: list[str] = []

    def scripted(spec: str) -> ScriptedLLM:
        stage = list(answers)[len(asked)]
        asked.append(stage)
        return ScriptedLLM(*answers[stage])

    config = IterateConfig(
        student=f"hf:{tiny_qwen}", seeds=[0, 1], limit=2,
        sft=SFTTrainingConfig(max_steps=1, eval_strategy="no", **FAST), dpo=DPOTrainingConfig(max_steps=1, **FAST),
    )
    step = run_iterations(config, tmp_path / "ei", say=lambda line: None, llm_factory=scripted)["iterations"][0]
    assert asked == list(answers)
    assert step["harvest"]["pairs"] == 2 and step["adapter"].endswith("iteration-1/dpo")
    assert step["validation_sft"] == {"vanilla": 0.0} and step["validation"] == {"vanilla": 1.0}


def test_kept_steps_are_evaluated_beside_the_last_and_the_best_on_validation_is_the_iterations(
    tiny_qwen: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Step 1's adapter survives the checkpoint rotation; it renders the validation task and the last step's does not."""
    monkeypatch.setenv("MANIMGEN_MANIMBENCH", str(manimbench_folder(tmp_path / "manimbench")))
    train_tasks, validation_task = BUILTIN_TASKS[:2], BUILTIN_TASKS[3]
    answers = {
        "base-eval": [format_target(BROKEN)],
        "samples": [format_target(task.reference_code) for task in train_tasks],
        "eval-sft-step-1": [format_target(validation_task.reference_code)],
        "eval-sft": [format_target(BROKEN)],
    }
    asked: list[str] = []

    def scripted(spec: str) -> ScriptedLLM:
        stage = list(answers)[len(asked)]
        asked.append(stage)
        return ScriptedLLM(*answers[stage])

    sft = SFTTrainingConfig(max_steps=3, eval_strategy="no", save_steps=1, save_total_limit=1, **FAST)
    config = IterateConfig(student=f"hf:{tiny_qwen}", seeds=[0], limit=2, sft=sft, select_steps=[1])
    out = tmp_path / "ei"
    step = run_iterations(config, out, say=lambda line: None, llm_factory=scripted)["iterations"][0]
    assert asked == list(answers), "the chosen step is not evaluated a second time"
    kept = out / "iteration-1/sft-steps/step-1"
    assert sorted(path.name for path in kept.iterdir()) == ["adapter_config.json", "adapter_model.safetensors"]
    assert not (out / "iteration-1/sft/checkpoints/checkpoint-1").exists(), "the rotation removed the checkpoint itself"
    assert step["adapter"] == f"hf:{tiny_qwen}+{kept}" and step["sft_chosen"] == str(kept)
    assert step["validation_by_step"] == {"step-1": {"vanilla": 1.0}, "sft": {"vanilla": 0.0}}
    assert step["validation"] == step["validation_sft"] == {"vanilla": 1.0} and not (out / "iteration-1/eval").exists()
    with pytest.raises(ValueError, match=r"select_steps \[3\] are not checkpointed steps: use multiples of 2"):
        IterateConfig(select_steps=[2, 3], sft=SFTTrainingConfig(eval_strategy="no", save_steps=2))


def test_harvest_command_prints_the_account_and_refuses_a_missing_run(sampled: Path, tmp_path: Path) -> None:
    from typer.testing import CliRunner

    from manimgen.cli import app

    runner = CliRunner()
    done = runner.invoke(app, ["train", "harvest", str(sampled), "--out", str(tmp_path / "data"), "--min-visual", "0.9"])
    assert done.exit_code == 0, done.output
    assert "kept (SFT rows)" in done.output and "1 over 1 tasks" in done.output and "left out: did not render" in done.output
    assert (tmp_path / "data/kept.jsonl").is_file()
    missing = runner.invoke(app, ["train", "harvest", str(tmp_path / "nowhere"), "--out", str(tmp_path / "data")])
    assert missing.exit_code == 2
    assert "results.sqlite does not exist; create it with `manimgen bench run" in missing.output and "Traceback" not in missing.output
