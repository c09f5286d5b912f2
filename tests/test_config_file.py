"""The one YAML loader behind study and training configs: every problem is one line naming the
field (or the file) and the fix, raised as ConfigError, a ValueError the command lines catch."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from manimgen.bench import ConfigError as BenchConfigError
from manimgen.bench.config import load_config
from manimgen.config_file import ConfigError
from manimgen.train import GRPOTrainingConfig, SFTTrainingConfig

Loader = Callable[[Path], Any]
LOADERS: dict[str, tuple[Loader, str]] = {
    "bench": (load_config, "models: [a]\nstrategies: [vanilla]\n"),
    "sft": (SFTTrainingConfig.from_yaml, "learning_rate: 3.0e-5\n"),
    "grpo": (GRPOTrainingConfig.from_yaml, "beta: 0.01\n"),
}
READ_BACK: dict[str, Callable[[Any], Any]] = {  # the value the valid file sets, read off the loaded config
    "bench": lambda config: ([model.spec for model in config.models], [strategy.name for strategy in config.strategies]),
    "sft": lambda config: config.learning_rate,
    "grpo": lambda config: config.beta,
}
SET = {"bench": (["a"], ["vanilla"]), "sft": 3.0e-5, "grpo": 0.01}


def problem(loader: Loader, path: Path) -> str:
    with pytest.raises(ConfigError) as caught:
        loader(path)
    message = str(caught.value)
    assert "\n" not in message
    return message


@pytest.fixture(params=sorted(LOADERS))
def kind(request: pytest.FixtureRequest) -> str:
    return request.param


def test_one_error_type_for_bench_and_train() -> None:
    assert BenchConfigError is ConfigError and issubclass(ConfigError, ValueError)


def test_a_valid_file_loads(kind: str, tmp_path: Path) -> None:
    loader, valid = LOADERS[kind]
    path = tmp_path / "run.yaml"
    path.write_text(valid)
    assert READ_BACK[kind](loader(path)) == SET[kind]


def test_missing_file(kind: str, tmp_path: Path) -> None:
    loader, _ = LOADERS[kind]
    message = problem(loader, tmp_path / "absent.yaml")
    assert "cannot read config" in message and "absent.yaml" in message and "No such file" in message


def test_not_a_mapping(kind: str, tmp_path: Path) -> None:
    loader, _ = LOADERS[kind]
    path = tmp_path / "list.yaml"
    path.write_text("- learning_rate\n- 0.1\n")
    assert "must hold a mapping of option: value" in problem(loader, path)


def test_bad_yaml_says_where(kind: str, tmp_path: Path) -> None:
    loader, valid = LOADERS[kind]
    path = tmp_path / "broken.yaml"
    path.write_text(valid + "seed: [1,\n")
    message = problem(loader, path)
    assert message.startswith(f"{path} is not valid YAML") and "line" in message and message.endswith("fix the file")


def test_unknown_key_names_the_known_ones(kind: str, tmp_path: Path) -> None:
    loader, valid = LOADERS[kind]
    path = tmp_path / "typo.yaml"
    path.write_text(valid + "seedz: 1\n")
    message = problem(loader, path)
    assert message.startswith(f"{path}: seedz: Extra inputs are not permitted; known: ")
    assert "seeds" in message if kind == "bench" else "seed" in message
    assert ("`trl:`" in message) == (kind != "bench")


def test_wrong_type_names_the_field(kind: str, tmp_path: Path) -> None:
    loader, valid = LOADERS[kind]
    field = "rounds" if kind == "bench" else "max_steps"
    path = tmp_path / "type.yaml"
    path.write_text(valid + f"{field}: many\n")
    assert problem(loader, path).startswith(f"{path}: {field}: Input should be a valid integer")


def test_a_rule_of_the_config_names_its_field(tmp_path: Path) -> None:
    path = tmp_path / "run.yaml"
    path.write_text("warmup_ratio: 1.5\n")
    assert problem(SFTTrainingConfig.from_yaml, path) == f"{path}: warmup_ratio: must be in [0, 1), got 1.5"
    path.write_text("loss_type: ppo\n")
    assert problem(GRPOTrainingConfig.from_yaml, path).startswith(f"{path}: loss_type: must be one of grpo, dr_grpo")
    path.write_text("render_quality: ultra\n")
    assert problem(GRPOTrainingConfig.from_yaml, path) == f"{path}: render_quality: must be one of low, preview, medium, high, got 'ultra'"
    path.write_text("models: [a]\nstrategies: [{name: vanilla, roundz: 2}]\n")
    assert problem(load_config, path) == (
        f"{path}: strategies.0.roundz: Extra inputs are not permitted; known: label, name, rounds, sampling"
    )


def test_empty_file_and_no_file_mean_the_defaults(tmp_path: Path) -> None:
    path = tmp_path / "empty.yaml"
    path.write_text("")
    assert SFTTrainingConfig.from_yaml(path) == SFTTrainingConfig.from_yaml(None) == SFTTrainingConfig()
    with pytest.raises(ConfigError, match=r"^options: "):
        GRPOTrainingConfig.from_yaml(None, num_generations=1)
