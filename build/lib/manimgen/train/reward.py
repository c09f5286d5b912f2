"""The paper's unified reward as a plain TRL reward function: R = λ_T·R_T + λ_V·R_V.

R_T is CodeBERTBLEU of the extracted code against the reference (0 with no code); R_V is VS of
its render against the reference's render (0 when the render fails or times out). A whole batch
goes through one `Scorer.score_many` call, so every completion renders in parallel in the
sandboxed pool, identical completions render once, and each reference is rendered and embedded
once and then served from the scorer's cache (the paper re-renders it for every completion). The
pool's warm workers live from the first step to `close()`, the code metrics are computed while the
renders run, and the AST distance, which the reward does not use, is not computed.

"geometric" mode is the weighted geometric mean R_T^(λ_T/Σλ) · R_V^(λ_V/Σλ); equal weights give
the paper's √(R_T·R_V).

A reference that does not render (a broken task, not the model's fault) gets its completions no
reward (None: TRL leaves them out of the group baseline, with zero advantage) instead of stopping the run.

Per batch the mean R_T, mean R_V, render success rate and mean R are kept in `last_stats` and, when
TRL passes its `log_metric` hook (TRL 1.16 does, averaging over each logging step), logged beside
the trainer's metrics as `manim/text`, `manim/visual`, `manim/render_ok` and `manim/unscored`.
"""

from __future__ import annotations

import math
import os
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Literal

from manimgen.render.result import DEFAULT_QUALITY

if TYPE_CHECKING:
    from manimgen.render import Renderer

RewardMode = Literal["arithmetic", "geometric"]
VisualMetric = Literal["vs", "content_vs"]
VISUAL_METRICS = ("vs", "content_vs")


@dataclass(frozen=True)
class RewardStats:
    """One batch's reward components, averaged over its scored completions."""

    count: int
    text: float
    visual: float
    render_ok: float
    reward: float
    broken_references: int = 0

    def as_metrics(self) -> dict[str, float]:
        """What is logged each step (TRL logs the mean reward itself as `reward`)."""
        return {
            "manim/text": self.text,
            "manim/visual": self.visual,
            "manim/render_ok": self.render_ok,
            "manim/unscored": float(self.broken_references),
        }


def completion_text(completion: Any) -> str:
    """A completion as TRL passes it: plain text, or a conversational list of messages."""
    if isinstance(completion, str):
        return completion
    if isinstance(completion, Sequence):
        return "".join(str(message.get("content") or "") for message in completion if message.get("role") == "assistant")
    raise TypeError(f"a completion must be text or a list of chat messages, got {type(completion).__name__}")


def default_render_workers() -> int:
    """The cores of this node shared among the trainer processes on it (each rank renders its own)."""
    local_processes = int(os.environ.get("LOCAL_WORLD_SIZE", "1"))
    return max(1, (os.cpu_count() or 1) // max(1, local_processes))


class ManimReward:
    """A TRL reward function `(prompts, completions, reference_code, **kwargs) -> list[float | None]`."""

    def __init__(
        self,
        text_weight: float = 0.2,
        visual_weight: float = 0.8,
        mode: RewardMode = "arithmetic",
        *,
        quality: str = DEFAULT_QUALITY,
        timeout_s: float = 120.0,
        workers: int | None = None,
        scorer: Any | None = None,
        renderer: Renderer | None = None,
        preset: str = "default",
        visual_metric: VisualMetric = "vs",
        ray: str | None = None,
    ) -> None:
        """`renderer` renders the completions and references (default: a warm pool of `workers`, kept between
        steps; with `ray`, the render actors of the Ray cluster at that address, so the training node only
        trains); `preset` names the metric preset (scoring/presets.py) the text and visual parts follow, and
        `visual_metric` the visual part: the paper's VS, or CVS, which spreads unrelated scenes towards 0."""
        from manimgen.scoring.presets import PRESETS

        if text_weight < 0 or visual_weight < 0 or text_weight + visual_weight <= 0:
            raise ValueError(f"reward weights must be non-negative and not both 0, got {text_weight}, {visual_weight}")
        if visual_metric not in VISUAL_METRICS:
            raise ValueError(f"the reward's visual part is one of {', '.join(VISUAL_METRICS)}, got {visual_metric!r}")
        if mode not in ("arithmetic", "geometric"):
            raise ValueError(f"reward mode must be arithmetic or geometric, got {mode!r}")
        self.text_weight = text_weight
        self.visual_weight = visual_weight
        self.mode = mode
        self.visual_metric = visual_metric
        self._failed_reference_visual = PRESETS.pick(preset).failed_reference_visual
        self._strict_extraction = PRESETS.pick(preset).extraction == "strict"
        self._scorer_options = {
            "quality": quality, "timeout_s": timeout_s, "workers": workers or default_render_workers(), "with_ast_distance": False,
            "renderer": renderer, "preset": preset,
        }
        self._scorer = scorer
        self._ray = ray
        self._cluster: Renderer | None = None
        self.last_stats: RewardStats | None = None

    @property
    def scorer(self) -> Any:
        """Built on first use: the embedders load only when a reward is actually computed."""
        if self._scorer is None:
            from manimgen.scoring import Scorer

            options = dict(self._scorer_options)
            if self._ray is not None and options["renderer"] is None:
                from manimgen.render import RendererOptions, open_renderer

                ranks = int(os.environ.get("WORLD_SIZE", "1"))
                self._cluster = options["renderer"] = open_renderer("ray", RendererOptions(address=self._ray, timeout_s=options["timeout_s"], share=ranks))
            self._scorer = Scorer(**options)
        return self._scorer

    def close(self) -> None:
        """Stop the scorer's render workers (they stay up between steps); the next call starts them again."""
        if self._scorer is not None:
            self._scorer.close()
        if self._cluster is not None:
            self._cluster.close()
            self._cluster = self._scorer = None

    def combine(self, text: float, visual: float) -> float:
        if self.mode == "arithmetic":
            return self.text_weight * text + self.visual_weight * visual
        total = self.text_weight + self.visual_weight
        return math.prod(max(value, 0.0) ** (weight / total) for value, weight in ((text, self.text_weight), (visual, self.visual_weight)))

    def __call__(
        self,
        prompts: Sequence[Any],
        completions: Sequence[Any],
        reference_code: Sequence[str],
        log_metric: Callable[[str, float], None] | None = None,
        **_: Any,
    ) -> list[float | None]:
        from manimgen.agent.extract import extract_code, extract_code_strict

        extract = extract_code_strict if self._strict_extraction else extract_code
        if len(completions) != len(reference_code):
            raise ValueError(f"{len(completions)} completions but {len(reference_code)} references; pass one per completion")
        codes = [extract(completion_text(completion)) for completion in completions]
        scores = self._score(list(zip(reference_code, codes)))
        rewards: list[float | None] = []
        texts, visuals, rendered = [], [], []
        for score, code, reference in zip(scores, codes, reference_code):
            if score is None:
                if self._failed_reference_visual is None:
                    rewards.append(None)
                    continue
                texts.append(self.scorer.code_scores(reference, code)["cbb"] if code is not None else 0.0)
                visuals.append(self._failed_reference_visual)
                rendered.append(0.0)
            else:
                texts.append(score.cbb if code is not None else 0.0)
                visuals.append(getattr(score, self.visual_metric) if score.rendered else 0.0)
                rendered.append(float(score.rendered))
            rewards.append(self.combine(texts[-1], visuals[-1]))
        scored = [reward for reward in rewards if reward is not None]
        self.last_stats = RewardStats(
            count=len(scored),
            text=_mean(texts),
            visual=_mean(visuals),
            render_ok=_mean(rendered),
            reward=_mean(scored),
            broken_references=len(rewards) - len(scored),
        )
        if log_metric is not None:
            for name, value in self.last_stats.as_metrics().items():
                log_metric(name, value)
        return rewards

    def _score(self, items: list[tuple[str, str | None]]) -> list[Any | None]:
        """One `score_many` for the batch; if a reference does not render, its completions get None
        (TRL's "no reward": zero advantage) and the other references are scored from the render cache."""
        from manimgen.scoring import ReferenceRenderError

        try:
            return self.scorer.score_many(items)
        except ReferenceRenderError:
            pass
        scores: list[Any | None] = [None] * len(items)
        for reference in dict.fromkeys(reference for reference, _ in items):
            positions = [index for index, (other, _) in enumerate(items) if other == reference]
            try:
                group = self.scorer.score_many([items[index] for index in positions])
            except ReferenceRenderError:
                continue
            for index, score in zip(positions, group):
                scores[index] = score
        return scores


def _mean(values: Sequence[float]) -> float:
    return sum(values) / len(values) if values else 0.0
