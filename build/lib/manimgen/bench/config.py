"""A study run's configuration: which models, strategies, tasks and seeds, and how to score them.

Loaded from YAML (see configs/bench/) or built from command-line options. Models and strategies
are given by name, optionally with a label that the store and the report use instead:

    models:
      - qwen2.5-coder-0.5b                      # a registry name, labelled by itself
      - SFT=hf:Qwen/Qwen2.5-Coder-1.5B-Instruct+runs/sft/adapter
      - {label: GRPO, spec: "hf:Qwen/Qwen2.5-Coder-1.5B-Instruct+runs/grpo/adapter"}
    strategies:
      - vanilla
      - {name: ritl-doc, label: ritl-doc-k5, rounds: 5}
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator, model_validator

from manimgen import config_file
from manimgen.agent import STRATEGIES
from manimgen.config_file import ConfigError as ConfigError
from manimgen.data.task import Split
from manimgen.llm.base import Sampling
from manimgen.metrics.dtw import DTW_METHODS
from manimgen.metrics.embedders import CODE_EMBEDDERS, IMAGE_EMBEDDERS
from manimgen.render.result import DEFAULT_QUALITY, DEFAULT_RENDER_TIMEOUT_S, QUALITIES
from manimgen.scoring.presets import PRESETS

LABEL_PREFIX = re.compile(r"^([A-Za-z0-9_.-]+)=(.+)$")
DEFAULT_TIME_LIMIT_S = 1800.0


class SamplingConfig(BaseModel):
    """Decoding settings; the seed comes from the run's seed list."""

    model_config = ConfigDict(extra="forbid")

    temperature: float = Field(Sampling.temperature, ge=0.0)
    top_p: float = Field(Sampling.top_p, gt=0.0, le=1.0)
    max_tokens: int = Field(Sampling.max_tokens, gt=0)
    min_p: float | None = Field(None, ge=0.0, le=1.0)

    def at_seed(self, seed: int) -> Sampling:
        """The provider's sampling for one sample of the grid."""
        return Sampling(temperature=self.temperature, top_p=self.top_p, max_tokens=self.max_tokens, seed=seed, min_p=self.min_p)


class ModelEntry(BaseModel):
    """A model: a registry name or spec string (see manimgen.llm), and the label results use."""

    model_config = ConfigDict(extra="forbid")

    spec: str = Field(min_length=1)
    label: str | None = None
    concurrency: int = Field(1, ge=1)  # samples generated at once: >1 for a model server (OpenAI-compatible, vLLM)

    @property
    def name(self) -> str:
        return self.label or self.spec

    @classmethod
    def parse(cls, text: str) -> ModelEntry:
        """`SPEC` or `LABEL=SPEC` (a label is letters, digits and `_.-`, so URLs stay intact)."""
        text = text.strip()
        match = LABEL_PREFIX.match(text)
        return cls(label=match.group(1), spec=match.group(2)) if match else cls(spec=text)


class StrategyEntry(BaseModel):
    """A registered agent strategy, with optional per-strategy rounds and sampling."""

    model_config = ConfigDict(extra="forbid")

    name: str = Field(min_length=1)
    label: str | None = None
    rounds: int | None = Field(None, ge=0)
    sampling: SamplingConfig | None = None

    @property
    def key(self) -> str:
        return self.label or self.name

    _registered = config_file.choices(name=lambda: STRATEGIES)


class RunConfig(BaseModel):
    """The grid {models} × {strategies} × {tasks} × {seeds}, and how each sample is judged.

    `time_limit_s` bounds one sample's whole agent run (1800 s, as in the paper); `render_timeout_s`
    bounds each render (300 s, the paper's). `metric_preset` names how scores are computed
    (scoring/presets.py); embedders and DTW left empty mean the preset's.
    `cache_generations` replays a seeded model call already made in this run directory (see
    manimgen.llm.cache), so the strategies share their first draft and pay for it once.
    `ray` is the address of a Ray cluster whose render actors do every render of the run (agent and
    scorer); a model's `concurrency` says how many of its samples are generated at once.
    """

    model_config = ConfigDict(extra="forbid")

    out: Path | None = None
    models: list[ModelEntry] = Field(min_length=1)
    strategies: list[StrategyEntry] = Field(min_length=1)
    seeds: list[int] = Field(default_factory=lambda: [0], min_length=1)
    split: Split = "test"
    tasks_file: Path | None = None
    tasks: list[str] | None = None
    complexity: Literal["Basic", "Intermediate", "Advanced"] | None = None
    limit: int | None = Field(None, gt=0)
    rounds: int = Field(3, ge=0)
    sampling: SamplingConfig = Field(default_factory=SamplingConfig)
    quality: str = DEFAULT_QUALITY
    image_embedder: str | None = None
    code_embedder: str | None = None
    dtw: str | None = None
    metric_preset: str = "default"
    time_limit_s: float = Field(DEFAULT_TIME_LIMIT_S, gt=0)
    render_timeout_s: float = Field(DEFAULT_RENDER_TIMEOUT_S, gt=0)
    score_workers: int = Field(1, ge=1)
    cache_generations: bool = True
    ray: str | None = None

    @field_validator("models", mode="before")
    @classmethod
    def _models_from_strings(cls, value: Any) -> Any:
        if isinstance(value, str):
            value = value.split(",")
        return [ModelEntry.parse(item) if isinstance(item, str) else item for item in value] if isinstance(value, list) else value

    @field_validator("strategies", mode="before")
    @classmethod
    def _strategies_from_strings(cls, value: Any) -> Any:
        if isinstance(value, str):
            value = value.split(",")
        return [{"name": item.strip()} if isinstance(item, str) else item for item in value] if isinstance(value, list) else value

    @field_validator("seeds", "tasks", mode="before")
    @classmethod
    def _list_from_scalar(cls, value: Any) -> Any:
        if isinstance(value, str):
            return [item.strip() for item in value.split(",") if item.strip()]
        return [value] if isinstance(value, int) else value

    _registered = config_file.choices(
        quality=lambda: QUALITIES, dtw=lambda: DTW_METHODS, image_embedder=lambda: IMAGE_EMBEDDERS, code_embedder=lambda: CODE_EMBEDDERS,
        metric_preset=lambda: PRESETS,
    )

    @model_validator(mode="after")
    def _labels_unique(self) -> RunConfig:
        for kind, labels in (("model", [m.name for m in self.models]), ("strategy", [s.key for s in self.strategies])):
            duplicates = sorted({label for label in labels if labels.count(label) > 1})
            if duplicates:
                raise ValueError(f"two {kind} entries are both called {duplicates[0]!r}; give one a distinct label")
        if len(set(self.seeds)) != len(self.seeds):
            raise ValueError("seeds repeat; list each seed once")
        return self

    def strategy_rounds(self, strategy: StrategyEntry) -> int:
        return self.rounds if strategy.rounds is None else strategy.rounds

    def strategy_sampling(self, strategy: StrategyEntry) -> SamplingConfig:
        return strategy.sampling or self.sampling

    def strategy_params(self, strategy: StrategyEntry) -> dict[str, Any]:
        """What makes a strategy label mean one thing: its name, rounds and sampling."""
        return {
            "name": strategy.name,
            "rounds": self.strategy_rounds(strategy),
            "sampling": self.strategy_sampling(strategy).model_dump(),
        }


def parse_config(data: dict[str, Any], source: str = "config") -> RunConfig:
    """Validate a mapping; the first problem becomes one line naming its field."""
    return config_file.validate(RunConfig, data, source)


def load_config(path: Path, overrides: dict[str, Any] | None = None) -> RunConfig:
    """A YAML run config, with command-line values (those not None) taking precedence."""
    return config_file.load(RunConfig, path, overrides)


def config_from_options(options: dict[str, Any]) -> RunConfig:
    """A config from command-line options alone (no file)."""
    return parse_config(config_file.given(options), "options")

