"""A reward any sentence can earn, with no reference scene: what the render shows of the sentence.

The paper's reward (train/reward.py) needs a reference to compare against, so only ManimBench tasks can
earn it. This one reads the sentence alone, through the checks a search already trusts:

    R = 0.1·L + rendered · (0.2 + 0.5·H + 0.2·C)

- L: 1 when the lint finds nothing in the code (agent/lint.py), else 0; 0 without code. It is the
  only part a render that fails can earn, so a failed draft with real Manim names beats one without.
- rendered: 1 when the scene rendered in the sandbox, else 0.
- H: the share of the sentence's verifiable requirements the render holds (checks/; scoring/shown.py),
  1 when the sentence states none a check can verify (then rendering is all that can be asked).
- C: 1 − 0.25 per layout finding (checks/layout.py: off frame, overlaps, text over a filled shape), at
  least 0.

A scene that renders, holds everything and is cleanly laid out with clean code earns 1; one that renders
and shows none of it 0.3 to 0.5; one that fails 0 or 0.1. The weights put most of the reward on what
a viewer checks (H) and enough on rendering that a group of failures still has a gradient towards code
that runs. Each batch renders its distinct codes once, in parallel, in the sandboxed pool.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from manimgen.render.pool import RendererOptions
from manimgen.render.result import DEFAULT_QUALITY
from manimgen.train.reward import completion_text, default_render_workers

if TYPE_CHECKING:
    from manimgen.render import Renderer, RenderResult

LINT_WEIGHT, RENDER_WEIGHT, HELD_WEIGHT, LAYOUT_WEIGHT = 0.1, 0.2, 0.5, 0.2
LAYOUT_PENALTY = 0.25


@dataclass(frozen=True)
class SentenceParts:
    """One completion's parts of the reward."""

    lint_clean: bool
    rendered: bool
    held: float
    layout: float

    @property
    def reward(self) -> float:
        return LINT_WEIGHT * self.lint_clean + self.rendered * (RENDER_WEIGHT + HELD_WEIGHT * self.held + LAYOUT_WEIGHT * self.layout)


class SentenceReward:
    """A TRL reward function `(prompts, completions, description, **kwargs) -> list[float]`."""

    def __init__(self, *, quality: str = DEFAULT_QUALITY, timeout_s: float = 120.0, workers: int | None = None, renderer: Renderer | None = None) -> None:
        """`renderer` renders the completions (default: a warm sandboxed pool of `workers`, kept between steps)."""
        self.quality = quality
        self._renderer = renderer
        self._own: Renderer | None = None
        self._options = RendererOptions(workers=workers or default_render_workers(), timeout_s=timeout_s)
        self.last_parts: list[SentenceParts] = []

    @property
    def renderer(self) -> Renderer:
        if self._renderer is None:
            from manimgen.render import open_renderer

            self._own = self._renderer = open_renderer(options=self._options)
        return self._renderer

    def close(self) -> None:
        """Stop the pool this reward opened (a renderer handed in is its owner's to close)."""
        if self._own is not None:
            self._own.close()
            self._own = self._renderer = None

    def __call__(
        self,
        prompts: Sequence[Any],
        completions: Sequence[Any],
        description: Sequence[str],
        log_metric: Callable[[str, float], None] | None = None,
        **_: Any,
    ) -> list[float]:
        from manimgen.agent.extract import extract_code

        if len(completions) != len(description):
            raise ValueError(f"{len(completions)} completions but {len(description)} descriptions; pass one per completion")
        codes = [extract_code(completion_text(completion)) for completion in completions]
        renders = self._render([code for code in codes if code is not None])
        self.last_parts = [sentence_parts(text, code, renders.get(code) if code else None) for text, code in zip(description, codes)]
        if log_metric is not None:
            for name, value in self.stats().items():
                log_metric(name, value)
        return [parts.reward for parts in self.last_parts]

    def stats(self) -> dict[str, float]:
        """The last batch's means, logged each step beside TRL's own `reward`."""
        count = max(1, len(self.last_parts))
        return {
            "sentence/lint_clean": sum(parts.lint_clean for parts in self.last_parts) / count,
            "sentence/render_ok": sum(parts.rendered for parts in self.last_parts) / count,
            "sentence/held": sum(parts.held for parts in self.last_parts if parts.rendered) / max(1, sum(parts.rendered for parts in self.last_parts)),
            "sentence/layout": sum(parts.layout for parts in self.last_parts if parts.rendered) / max(1, sum(parts.rendered for parts in self.last_parts)),
        }

    def _render(self, codes: list[str]) -> dict[str, RenderResult]:
        from manimgen.render import RenderJob

        distinct = list(dict.fromkeys(codes))
        results = self.renderer.map([RenderJob(code, quality=self.quality, geometry=True) for code in distinct])
        return dict(zip(distinct, results))


def sentence_parts(description: str, code: str | None, render: RenderResult | None) -> SentenceParts:
    """The parts of the reward for `code`, rendered as `render` (None without code)."""
    from manimgen.agent.lint import lint
    from manimgen.scoring.verdict import what_it_shows

    if code is None:
        return SentenceParts(lint_clean=False, rendered=False, held=0.0, layout=0.0)
    lint_clean = not lint(code)
    if render is None or not render.ok:
        return SentenceParts(lint_clean=lint_clean, rendered=False, held=0.0, layout=0.0)
    shown = what_it_shows(description, render)
    held, findings = shown["requirements_held"], shown["layout_findings"] or 0
    return SentenceParts(lint_clean, True, 1.0 if held is None else float(held), max(0.0, 1.0 - LAYOUT_PENALTY * findings))
