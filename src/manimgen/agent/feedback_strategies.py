"""Strategies that feed back more than a crash: static findings before rendering, layout after it.

- `ritl-lint`: RITL, but every code is first checked statically against the installed manim
  (agent/lint.py). Findings go back to the model in place of render errors and the code is not
  rendered; code without findings is rendered as RITL does.
- `ritl-layout`: RITL, but a successful render records the scene's geometry, and layout problems
  (checks/layout.py: objects out of frame, overlapping texts, unreadably small things) are fed back
  as another round. The run ends with the rendered code that had the fewest layout problems, so a
  layout repair that breaks the render never loses the working video before it.
- `ritl-lint-layout`: both.
- `ritl-layout-frames`: ritl-layout for a model that sees images: each layout repair also carries the
  frames on screen when the problems first show (at most three), so the model sees what the
  findings describe. It refuses a provider without `accepts_images` rather than drop the frames.

All keep RITL's budget: 1 + K generations (K = config.rounds); lint and layout rounds count as
feedback rounds like a failed render does. Their feedback goes into the repair prompt's error slot.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace
from pathlib import Path
from typing import Any

from PIL import Image

from manimgen.checks.layout import LayoutFinding, format_layout, layout_findings
from manimgen.agent.lint import format_findings, lint
from manimgen.agent.strategies import AgentConfig, AgentRun, OnRound, RepairLoop, register_strategy
from manimgen.agent.trace import Round, Trace
from manimgen.llm.base import LLM, LLMError, Message, accepts_images
from manimgen.render.frames import frames_at
from manimgen.render.result import RenderResult

MAX_FRAMES = 3
FRAMES_DIR = "layout-frames"


class LintCheck:
    """Mixin: the static check as `before_render`; findings skip the render."""

    def before_render(self, run: AgentRun, code: str) -> str | None:
        findings = lint(code)
        return format_findings(findings) if findings else None


@register_strategy(
    "ritl-lint",
    summary=(
        "RITL, but every answer is first checked statically against the installed manim (unknown names, "
        "keyword arguments that do not bind, missing methods, ManimGL-only names with their replacement); "
        "findings are fed back without rendering"
    ),
    words="checks the code for things Manim does not have before rendering, and asks again with what is wrong",
)
class LintRepairLoop(LintCheck, RepairLoop):
    """RITL with a static check before every render."""


@register_strategy(
    "ritl-layout",
    summary=(
        "RITL, plus a repair round when a successful render leaves objects out of frame, texts overlapping or"
        " things too small to see (geometry recorded inside the sandboxed render); ends on the rendered "
        "version with the fewest of these problems, and a repair that only trades one problem for another "
        "does not replace an earlier video"
    ),
    words="also asks again when the video has things cut off, written over each other or too small",
)
class LayoutRepairLoop(RepairLoop):
    """RITL plus a layout round after each successful render, keeping the best rendered code."""

    def after_render(self, run: AgentRun, result: RenderResult) -> str | None:
        findings = layout_findings(result.geometry)
        return format_layout(findings) if findings else None

    def run(self, llm: LLM, description: str, config: AgentConfig, on_round: OnRound | None = None) -> Trace:
        return keep_best_render(super().run(llm, description, config, on_round))


@register_strategy(
    "ritl-lint-layout",
    summary="both checks",
    words="checks the code before rendering and the layout after",
)
class LintLayoutRepairLoop(LintCheck, LayoutRepairLoop):
    """The static check before rendering and the layout round after it."""


@register_strategy(
    "ritl-layout-frames",
    summary=(
        "ritl-layout for a model that sees images (`openai:URL#MODEL` of a vision model): each layout repair "
        "also carries the frames on screen when the problems first show (PNG, at most three); refuses a text-"
        "only provider"
    ),
    words="shows a model that sees pictures the frames where the layout goes wrong (needs such a model)",
)
class LayoutFramesRepairLoop(LayoutRepairLoop):
    """ritl-layout whose repair prompts also show the frames where the layout problems first appear."""

    def run(self, llm: LLM, description: str, config: AgentConfig, on_round: OnRound | None = None) -> Trace:
        if not accepts_images(llm):
            raise LLMError(f"{llm.name} takes no images; use ritl-layout, or a vision model (openai:URL#MODEL)")
        return super().run(llm, description, config, on_round)

    def after_render(self, run: AgentRun, result: RenderResult) -> str | None:
        findings = layout_findings(result.geometry)
        if not findings:
            return None
        shown = ", ".join(f"t={time:.1f} s" for time in frame_times(findings))
        return f"{format_layout(findings)}\nThe attached images are the frames on screen at {shown}."

    def repair_prompt(self, run: AgentRun, previous: Round) -> list[Message]:
        messages = super().repair_prompt(run, previous)
        result = previous.render
        if result is None or not result.ok or result.output is None:
            return messages
        findings = layout_findings(result.geometry)
        if not findings:
            return messages
        images = save_frames(result.output, frame_times(findings))
        return [*messages[:-1], Message(role=messages[-1]["role"], content=messages[-1]["content"], images=images)]


def frame_times(findings: list[LayoutFinding]) -> list[float]:
    """When the first few distinct problems show, in order."""
    return sorted({finding.time for finding in findings})[:MAX_FRAMES]


def save_frames(video: Path, times: list[float]) -> list[str]:
    """The frames at `times` as PNGs beside the render (its cache entry), so the trace can point at them."""
    folder = video.parent / FRAMES_DIR
    folder.mkdir(exist_ok=True)
    paths = []
    for time, frame in zip(times, frames_at(video, times), strict=True):
        path = folder / f"{video.stem}-{time:08.3f}.png"
        if not path.is_file():
            Image.fromarray(frame).save(path)
        paths.append(str(path))
    return paths


def layout_count(round_: Round) -> int:
    return len(layout_findings(round_.render.geometry if round_.render else None))


def keep_best_render(trace: Trace, problems: Callable[[Round], Any] = layout_count) -> Trace:
    """End on the rendered round with the fewest problems (any sortable measure), layout findings by default
    (the earliest among equals).

    A layout repair replaces a working video only when it leaves fewer problems: one that trades a
    problem for another (a dot shrunk out of sight "fixed" by growing it past the frame) is no
    better, and the earlier code is the closer to what the model first meant. Without a successful
    render the trace is left as it is: its last round is what RITL returns. A render without
    recorded geometry (one replayed from a trace stored before every render recorded it) counts as
    having no findings: nothing is known against it.
    """
    rendered = [(round_, round_.render) for round_ in trace.rounds if round_.render is not None and round_.render.ok]
    if not rendered:
        return trace
    best, result = min(rendered, key=lambda pair: (problems(pair[0]), pair[0].index))
    if result is trace.final_render:
        return trace
    return replace(trace, final_code=best.code, final_render=result)
