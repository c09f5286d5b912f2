"""SFT: the paper's defaults reach TRL, the loss covers the completion only, a tiny Qwen2 with the
real tokenizer learns a repeated example, and its adapter loads in the transformers provider.
Marked slow: two processes under `accelerate launch` (gloo DDP) through the command line."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
import torch
from peft import PeftModel
from tiny_qwen import manimbench_folder, save_tiny_qwen

from manimgen.agent.prompts import format_target, generation_messages
from manimgen.data import BUILTIN_TASKS
from manimgen.llm import LLMError, Sampling, load_model
from manimgen.llm.transformers import TransformersLLM
from manimgen.train import SFTTrainingConfig
from manimgen.train.data import sft_rows
from manimgen.train.model import record_base, training_target
from manimgen.train.sft import build_sft_trainer, train_sft

REPO = Path(__file__).resolve().parents[1]
FAST = {"activation_checkpointing": False, "warmup_ratio": 0.0}


@pytest.fixture(scope="module")
def tiny_qwen(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return save_tiny_qwen(tmp_path_factory.mktemp("tiny-qwen"))


def test_shipped_config_is_the_papers_and_reaches_trl(tmp_path: Path) -> None:
    config = SFTTrainingConfig.from_yaml(REPO / "configs" / "sft.yaml")
    assert config == SFTTrainingConfig()
    assert (config.lora_r, config.lora_alpha, config.lora_dropout) == (8, 16, 0.0)
    assert set(config.lora_target_modules) == {"q_proj", "k_proj", "v_proj", "o_proj", "gate_proj", "up_proj", "down_proj"}
    args = config.trl_config(tmp_path, world_size=2, use_cpu=True, has_eval=True)
    assert args.learning_rate == 2e-6 and args.num_train_epochs == 2 and args.lr_scheduler_type == "linear"
    assert args.warmup_steps == 0.1 and args.weight_decay == 0.01 and args.max_length == 2048
    assert args.per_device_train_batch_size * args.gradient_accumulation_steps * 2 == 16
    assert args.completion_only_loss is True and args.bf16 is False
    assert args.eval_strategy == args.save_strategy == "epoch"
    assert args.load_best_model_at_end and args.metric_for_best_model == "eval_loss"


def test_cpu_config_checkpoints_where_it_evaluates(tmp_path: Path) -> None:
    config = SFTTrainingConfig.from_yaml(REPO / "configs" / "sft-cpu.yaml")
    args = config.trl_config(tmp_path, world_size=1, use_cpu=True, has_eval=True)
    assert (args.num_train_epochs, args.gradient_accumulation_steps, args.activation_checkpointing) == (1, 8, False)
    assert args.eval_strategy == args.save_strategy == "steps" and args.eval_steps == args.save_steps == 6
    assert args.load_best_model_at_end


def test_bf16_auto_follows_what_this_cpu_measures(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from manimgen.train import precision

    assert isinstance(precision.bf16_is_faster_on_this_cpu(), bool)  # the real probe runs
    auto = SFTTrainingConfig(bf16="auto")
    assert auto.uses_bf16(use_cpu=False) is True  # CUDA: always
    for measured in (True, False):
        monkeypatch.setattr(precision, "bf16_is_faster_on_this_cpu", lambda measured=measured: measured)
        assert auto.trl_config(tmp_path, world_size=1, use_cpu=True, has_eval=False).bf16 is measured
        assert SFTTrainingConfig(bf16=None).uses_bf16(use_cpu=True) is False  # unset: fp32 on a CPU, whatever it measures
        assert SFTTrainingConfig(bf16=True).uses_bf16(use_cpu=True) is True
    with pytest.raises(ValueError, match="must be true, false or auto"):
        SFTTrainingConfig(bf16="fast")


def test_yaml_overrides_and_bad_keys(tmp_path: Path) -> None:
    path = tmp_path / "run.yaml"
    path.write_text("learning_rate: 3e-5\nbatch_size: 4\ntrl:\n  logging_first_step: true\n")
    config = SFTTrainingConfig.from_yaml(path, max_steps=7, num_train_epochs=None)
    assert (config.learning_rate, config.batch_size, config.max_steps, config.num_train_epochs) == (3e-5, 4, 7, 2.0)
    assert config.trl_config(tmp_path, world_size=1, use_cpu=True, has_eval=False).logging_first_step
    path.write_text("learning_rte: 1.0e-5\n")
    with pytest.raises(ValueError, match="learning_rte"):
        SFTTrainingConfig.from_yaml(path)
    with pytest.raises(ValueError, match="multiple"):
        SFTTrainingConfig(batch_size=16, per_device_batch_size=3).gradient_accumulation(1)


@pytest.mark.parametrize(
    ("model", "target"),
    [
        ("qwen2.5-coder-0.5b", "qwen2.5-coder-0.5b"),
        (" hf:Qwen/Qwen2.5-0.5B ", "Qwen/Qwen2.5-0.5B"),
        ("gguf:models/base.gguf", "models/base.gguf"),
        ("runs/merged", "runs/merged"),
    ],
)
def test_training_target_of_each_spec(model: str, target: str) -> None:
    assert training_target(model) == target


@pytest.mark.parametrize(
    ("model", "meaning"),
    [
        ("openai:http://127.0.0.1:8000/v1#m", "has no weights here"),
        ("py:tests.fake:make", "has no weights here"),
        ("hf:Qwen/Qwen2.5-0.5B+runs/sft", "train from a base model"),
        ("qwen2.5-coder-0.5b+runs/sft", "train from a base model"),
        ("runs/merged+runs/sft", "train from a base model"),
        ("  ", "no model given"),
    ],
)
def test_training_target_refuses_what_has_no_base_weights(model: str, meaning: str) -> None:
    with pytest.raises(LLMError, match=meaning):
        training_target(model)


def test_accelerate_profiles_parse() -> None:
    from accelerate.commands.config.config_args import load_config_from_file

    kinds = {
        "single_gpu": "NO",
        "multi_gpu_ddp": "MULTI_GPU",
        "deepspeed_zero2": "DEEPSPEED",
        "deepspeed_zero3": "DEEPSPEED",
        "fsdp": "FSDP",
    }
    for name, kind in kinds.items():
        profile = load_config_from_file(str(REPO / "configs" / "accelerate" / f"{name}.yaml"))
        assert profile.distributed_type == kind, name
    assert load_config_from_file(str(REPO / "configs/accelerate/deepspeed_zero3.yaml")).deepspeed_config["zero_stage"] == 3


def test_labels_cover_the_completion_only(tiny_qwen: Path, tmp_path: Path) -> None:
    task = BUILTIN_TASKS[0]
    trainer = build_sft_trainer(f"hf:{tiny_qwen}", sft_rows([task]), [], tmp_path, SFTTrainingConfig(max_steps=1, **FAST))
    row = trainer.train_dataset[0]
    tokenizer = trainer.processing_class
    prompt_ids = tokenizer.apply_chat_template(
        generation_messages(task.description), tokenize=True, add_generation_prompt=True, return_dict=True
    )["input_ids"]
    labels, ids = row["labels"], row["input_ids"]
    assert ids[: len(prompt_ids)] == list(prompt_ids)
    assert all(label == -100 for label in labels[: len(prompt_ids)])
    assert labels[len(prompt_ids) :] == ids[len(prompt_ids) :]
    assert tokenizer.decode(labels[len(prompt_ids) :]).startswith(format_target(task.reference_code) + "<|im_end|>")


def test_an_embedded_base_is_recorded_and_saves_ask_the_hub_nothing(
    tiny_qwen: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The adapter names its registry base; PEFT's vocabulary check, which would look it up online, is skipped."""
    import peft.utils.save_and_load as peft_saving

    def no_hub(*args: object, **kwargs: object) -> None:
        raise AssertionError("a save asked the Hub about the base")

    monkeypatch.setattr(peft_saving, "check_file_exists_on_hf_hub", no_hub)
    trainer = build_sft_trainer(f"hf:{tiny_qwen}", sft_rows([BUILTIN_TASKS[0]]), [], tmp_path, SFTTrainingConfig(max_steps=1, **FAST))
    record_base(trainer, "qwen2.5-coder-0.5b")
    trainer.save_model(str(tmp_path / "adapter"))
    assert json.loads((tmp_path / "adapter/adapter_config.json").read_text())["base_model_name_or_path"] == "qwen2.5-coder-0.5b"


def test_loss_falls_best_checkpoint_is_kept_and_adapter_loads(tiny_qwen: Path, tmp_path: Path) -> None:
    config = SFTTrainingConfig(learning_rate=1e-2, batch_size=1, max_steps=3, eval_strategy="steps", eval_steps=3, **FAST)
    out = tmp_path / "adapter"
    result = train_sft(f"hf:{tiny_qwen}", sft_rows([BUILTIN_TASKS[0]]), sft_rows([BUILTIN_TASKS[1]]), out, config)
    losses = [entry["loss"] for entry in result_history(out) if "loss" in entry]
    assert len(losses) == 3 and losses[-1] < losses[0]
    record = json.loads((out / "manimgen_run.json").read_text())
    assert record["kind"] == "sft" and record["steps"] == 3 and record["best_checkpoint"]
    assert "eval_loss" in record["metrics"]
    assert record["spec"] == result.spec == f"hf:{tiny_qwen}+{out}"

    trained = load_model(result.spec)
    assert isinstance(trained, TransformersLLM) and isinstance(trained.model, PeftModel)
    ids = trained.tokenizer("class Demo(Scene):", return_tensors="pt")["input_ids"]
    with torch.inference_mode():
        adapted = trained.model(ids).logits
        with trained.model.disable_adapter():
            assert not torch.allclose(adapted, trained.model(ids).logits)
    answer = trained.chat(generation_messages("A dot."), sampling=Sampling(temperature=0.0, max_tokens=4))
    assert answer.usage.completion_tokens > 0


def test_an_interrupted_run_resumes_from_its_newest_checkpoint(tiny_qwen: Path, tmp_path: Path) -> None:
    out = tmp_path / "adapter"
    rows = sft_rows([BUILTIN_TASKS[0]])
    with pytest.raises(ValueError, match="no checkpoint"):
        train_sft(f"hf:{tiny_qwen}", rows, [], out, SFTTrainingConfig(max_steps=1, **FAST), resume=True)
    settings = {"learning_rate": 1e-2, "batch_size": 1, "eval_strategy": "no", "save_steps": 1, **FAST}
    train_sft(f"hf:{tiny_qwen}", rows, [], out, SFTTrainingConfig(max_steps=2, **settings))
    first_losses = [entry["loss"] for entry in result_history(out) if "loss" in entry]
    result = train_sft(f"hf:{tiny_qwen}", rows, [], out, SFTTrainingConfig(max_steps=4, **settings), resume=True)
    history = [entry for entry in result_history(out) if "loss" in entry]
    assert result.steps == 4 and [entry["step"] for entry in history] == [1, 2, 3, 4]
    assert [entry["loss"] for entry in history[:2]] == first_losses
    mean_loss = sum(entry["loss"] for entry in history) / 4  # over the whole run, not only the resumed steps
    assert json.loads((out / "manimgen_run.json").read_text())["metrics"]["train_loss"] == pytest.approx(mean_loss)


def result_history(out: Path) -> list[dict]:
    """The log history of the last checkpoint the run wrote."""
    states = sorted((out / "checkpoints").glob("checkpoint-*/trainer_state.json"), key=lambda p: int(p.parent.name.split("-")[1]))
    return json.loads(states[-1].read_text())["log_history"]


@pytest.mark.slow
@pytest.mark.skipif(torch.cuda.is_available(), reason="checks gloo DDP on a machine without CUDA")
def test_ddp_on_cpu_with_two_processes(tiny_qwen: Path, tmp_path: Path) -> None:
    config = tmp_path / "sft.yaml"
    config.write_text("batch_size: 2\nlearning_rate: 1.0e-3\neval_strategy: steps\neval_steps: 2\nactivation_checkpointing: false\n")
    out = tmp_path / "ddp"
    command = [
        sys.executable, "-m", "accelerate.commands.launch",
        "--config_file", str(REPO / "configs/accelerate/multi_gpu_ddp.yaml"),
        "--num_processes", "2", "--mixed_precision", "no",
        "-m", "manimgen.cli", "train", "sft",
        "--model", f"hf:{tiny_qwen}", "--data", str(manimbench_folder(tmp_path / "bench")),
        "--out", str(out), "--config", str(config), "--max-steps", "2",
    ]  # fmt: skip
    done = subprocess.run(command, capture_output=True, text=True, timeout=600, env={**os.environ, "OMP_NUM_THREADS": "1"})
    assert done.returncode == 0, done.stderr[-3000:]
    record = json.loads((out / "manimgen_run.json").read_text())
    assert record["processes"] == 2 and record["distributed"] == "MULTI_CPU (gloo)"
    assert record["steps"] == 2 and record["train_rows"] == 3
    assert "sft done: 2 steps" in done.stdout
