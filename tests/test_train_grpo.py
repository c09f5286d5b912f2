"""GRPO: the paper's defaults reach TRL, and a tiny Qwen2 with the real tokenizer runs two steps
with the real reward (sandboxed renders of the references; its garbage completions score 0),
starting from a fresh LoRA or from an SFT adapter that keeps training."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from peft import LoraConfig, get_peft_model
from tiny_qwen import save_tiny_qwen
from transformers import AutoModelForCausalLM

from manimgen.data import BUILTIN_TASKS, Task
from manimgen.train import GRPOTrainingConfig, ManimReward
from manimgen.train.grpo import build_grpo_trainer, train_grpo

REPO = Path(__file__).resolve().parents[1]
TINY_RUN = {
    "num_generations": 2,
    "prompts_per_step": 2,
    "per_device_batch_size": 2,
    "num_iterations": 1,
    "max_completion_length": 8,
    "activation_checkpointing": False,
}


@pytest.fixture(scope="module")
def tiny_qwen(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return save_tiny_qwen(tmp_path_factory.mktemp("tiny-qwen"))


def test_shipped_config_is_the_papers_and_reaches_trl(tmp_path: Path) -> None:
    config = GRPOTrainingConfig.from_yaml(REPO / "configs" / "grpo.yaml")
    assert config == GRPOTrainingConfig()
    args = config.trl_config(tmp_path, world_size=1, use_cpu=True)
    assert args.learning_rate == 5e-7 and args.num_generations == 8 and args.num_iterations == 4
    assert args.generation_batch_size == 16  # 2 prompts x 8 completions per step
    assert (args.beta, args.epsilon, args.loss_type, args.scale_rewards) == (0.005, 0.2, "dr_grpo", "group")
    assert (args.temperature, args.top_p, args.min_p, args.max_completion_length) == (0.9, 0.9, 0.1, 1639)
    assert config.max_prompt_length == 409 and not args.use_vllm
    assert GRPOTrainingConfig.from_yaml(None, use_vllm=True).trl_config(tmp_path, world_size=1, use_cpu=True).use_vllm
    with pytest.raises(ValueError, match="multiple"):
        GRPOTrainingConfig(per_device_batch_size=3).gradient_accumulation(1)


def test_cpu_config_keeps_every_train_prompt_and_one_group_per_step(tmp_path: Path) -> None:
    config = GRPOTrainingConfig.from_yaml(REPO / "configs" / "grpo-cpu.yaml")
    args = config.trl_config(tmp_path, world_size=1, use_cpu=True)
    assert args.generation_batch_size == args.num_generations == 4 and args.num_iterations == 1
    assert (args.loss_type, args.max_completion_length, args.save_steps) == ("dr_grpo", 512, 1)
    assert config.max_prompt_length >= 608  # the longest ManimBench train prompt, in Qwen2.5 tokens


def test_two_steps_with_the_real_reward_and_long_prompts_left_out(tiny_qwen: Path, tmp_path: Path) -> None:
    long_task = Task("long", "a circle " * 300, BUILTIN_TASKS[0].reference_code, "Basic", "train")
    reward = ManimReward(workers=2)
    config = GRPOTrainingConfig(max_steps=2, learning_rate=1e-3, **TINY_RUN)
    out = tmp_path / "grpo"
    result = train_grpo(f"hf:{tiny_qwen}", [*BUILTIN_TASKS[:2], long_task], out, config, reward=reward)
    assert result.steps == 2 and result.skipped_tasks == ["long"]
    assert reward.last_stats is not None and reward.last_stats.count == 4
    state = json.loads(next((out / "checkpoints").glob("checkpoint-2/trainer_state.json")).read_text())
    logged = [entry for entry in state["log_history"] if "manim/render_ok" in entry]
    assert len(logged) == 2 and logged[-1]["manim/render_ok"] == pytest.approx(reward.last_stats.render_ok)
    assert logged[-1]["manim/visual"] == pytest.approx(reward.last_stats.visual)
    assert (out / "adapter_model.safetensors").is_file()
    assert json.loads((out / "manimgen_run.json").read_text())["skipped_tasks"] == ["long"]


def test_sft_adapter_keeps_training_against_a_frozen_copy(tiny_qwen: Path, tmp_path: Path) -> None:
    adapter = tmp_path / "sft"
    lora = LoraConfig(r=8, lora_alpha=16, target_modules=["q_proj", "v_proj"], task_type="CAUSAL_LM")
    get_peft_model(AutoModelForCausalLM.from_pretrained(tiny_qwen), lora).save_pretrained(adapter)
    config = GRPOTrainingConfig(max_steps=1, **TINY_RUN)
    run = build_grpo_trainer(f"hf:{tiny_qwen}", BUILTIN_TASKS[:2], tmp_path / "grpo", config, adapter=adapter)
    model = run.trainer.model
    assert set(model.peft_config) == {"default", "ref"}
    trainable = {name for name, parameter in model.named_parameters() if parameter.requires_grad}
    assert trainable and all(".default." in name for name in trainable)
    with pytest.raises(ValueError, match="no base model"):
        build_grpo_trainer(None, BUILTIN_TASKS[:2], tmp_path / "other", config, adapter=adapter)


def test_sentences_without_references_train_with_the_sentence_reward(tiny_qwen: Path, tmp_path: Path) -> None:
    """`train grpo --data FILE.jsonl` with `reward: sentence`: a real step whose reward reads the sentences;
    with the paper's reward the same file is refused, naming the setting."""
    import yaml
    from typer.testing import CliRunner

    from manimgen.cli import app

    sentences = tmp_path / "sentences.jsonl"
    sentences.write_text("".join(json.dumps({"id": task.id, "description": task.description}) + "\n" for task in BUILTIN_TASKS[:2]))
    config = tmp_path / "grpo.yaml"
    config.write_text(yaml.safe_dump({**TINY_RUN, "max_prompt_length": 640, "reward": "sentence", "render_workers": 2}))
    out = tmp_path / "grpo"
    runner = CliRunner()
    done = runner.invoke(app, ["train", "grpo", "--model", f"hf:{tiny_qwen}", "--data", str(sentences), "--config", str(config), "--max-steps", "1", "--out", str(out)])
    assert done.exit_code == 0, done.output
    state = json.loads(next((out / "checkpoints").glob("checkpoint-1/trainer_state.json")).read_text())
    logged = [entry for entry in state["log_history"] if "sentence/render_ok" in entry]
    assert len(logged) == 1 and logged[0]["sentence/render_ok"] == 0.0, "eight tokens of a tiny model render nothing"
    config.write_text(yaml.safe_dump({**TINY_RUN, "max_prompt_length": 640}))
    refused = runner.invoke(app, ["train", "grpo", "--model", f"hf:{tiny_qwen}", "--data", str(sentences), "--config", str(config), "--out", str(tmp_path / "no")])
    assert refused.exit_code == 2 and "set `reward: sentence` in the GRPO config" in refused.output and "Traceback" not in refused.output
