"""One sentence to a video, its scene code and its trace: what `generate`, a server job and the MCP
tool all do, in one place.

The search (every agent round) renders at the benchmark's low quality, which is fast, in the frame
asked for (a portrait video is laid out and checked in a portrait frame); when a higher quality is
asked, the accepted scene is rendered once more at that quality, and the file a person asked for
(MP4, WebM, GIF or PNG) is made from that render. The scene's `.py` is
written beside the video so a user can edit and re-render it; a failed run still leaves the last
code and the trace, so nothing computed is lost.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, replace
from pathlib import Path

from manimgen.agent import STRATEGIES, AgentConfig, Round, Trace, get_strategy
from manimgen.agent.strategies import DEFAULT_SAMPLING
from manimgen.checks import Checklist
from manimgen.llm.base import LLM
from manimgen.render import Renderer, RenderJob, RenderResult
from manimgen.render.formats import DEFAULT_FORMAT, FORMATS, DeliveryError, deliver
from manimgen.render.result import DEFAULT_QUALITY, at_aspect, get_quality

SEARCH_QUALITY = DEFAULT_QUALITY
MAX_SENTENCE = 1000
EMPTY_SENTENCE = 'the sentence is empty: describe the animation, e.g. "A blue circle turns into a red square"'


class RequestError(ValueError):
    """A request that cannot be made; the message names the fix."""


@dataclass(frozen=True)
class Request:
    """What to make: the sentence, the strategy and its budget, the final render's quality spec (with its
    aspect or size, render/result.py) and the file format.

    The one check of a request, whoever makes it (the CLI, a server job, the MCP tool, the notebook):
    the sentence is stripped and must say something, the strategy, quality and format must exist;
    anything else raises `RequestError` naming the fix.
    """

    sentence: str
    strategy: str
    quality: str = DEFAULT_QUALITY
    video_format: str = DEFAULT_FORMAT
    rounds: int = 3
    temperature: float = DEFAULT_SAMPLING.temperature
    max_tokens: int = DEFAULT_SAMPLING.max_tokens
    seed: int = 0
    checklist: Checklist | None = None  # a person's edit of the sentence's checklist, for the strategies that check one

    def __post_init__(self) -> None:
        sentence = self.sentence.strip()
        if not sentence:
            raise RequestError(EMPTY_SENTENCE)
        if len(sentence) > MAX_SENTENCE:
            raise RequestError(f"the sentence is {len(sentence)} characters; keep it under {MAX_SENTENCE}")
        try:
            STRATEGIES.pick(self.strategy)
            quality, video_format = get_quality(self.quality).name, FORMATS.pick(self.video_format).name
        except ValueError as error:
            raise RequestError(str(error)) from None
        for name, value in (("sentence", sentence), ("quality", quality), ("video_format", video_format)):
            object.__setattr__(self, name, value)


@dataclass(frozen=True)
class Product:
    """What a run left: the video (None when nothing rendered), the scene code file, the trace."""

    trace: Trace
    video: Path | None
    code: Path | None
    render: RenderResult | None
    error: str | None

    @property
    def ok(self) -> bool:
        return self.video is not None


def slug(sentence: str, limit: int = 60) -> str:
    """A file name for a sentence's video: its words in lower case, joined by hyphens."""
    words = re.sub(r"[^a-z0-9]+", "-", sentence.lower()).strip("-")
    return words[:limit].rstrip("-") or "scene"


def search_config(request: Request, renderer: Renderer) -> AgentConfig:
    sampling = replace(DEFAULT_SAMPLING, temperature=request.temperature, max_tokens=request.max_tokens, seed=request.seed)
    return AgentConfig(rounds=request.rounds, sampling=sampling, quality=at_aspect(SEARCH_QUALITY, request.quality), renderer=renderer, checklist=request.checklist)


def produce(
    llm: LLM,
    request: Request,
    target: Path,
    *,
    renderer: Renderer,
    on_round: Callable[[Round], None] | None = None,
) -> Product:
    """Run the strategy, rendering on `renderer`, and leave `target`.py (the last code), the video in the
    asked format (or a .png for a still scene) when it rendered, and `target`.trace.json."""
    trace = get_strategy(request.strategy).run(llm, request.sentence, search_config(request, renderer), on_round)
    return finish(trace, request.quality, target, renderer, request.video_format)


def finish(trace: Trace, quality: str, target: Path, renderer: Renderer, video_format: str = DEFAULT_FORMAT) -> Product:
    """Write the code and trace, render the accepted scene at `quality` when that is not the search's,
    and deliver it as `video_format`."""
    target.parent.mkdir(parents=True, exist_ok=True)
    (target.parent / f"{target.name}.trace.json").write_text(trace.to_json(), encoding="utf-8")
    code = trace.final_code or next((round_.code for round_ in reversed(trace.rounds) if round_.code), None)
    code_path = None
    if code is not None:
        code_path = target.with_suffix(".py")
        code_path.write_text(code, encoding="utf-8")
    result = trace.final_render
    if not trace.ok or result is None or trace.final_code is None:
        return Product(trace, None, code_path, result, failure(trace))
    if quality != result.quality:
        result = renderer.render(RenderJob(trace.final_code, quality=quality))
        if not result.ok:
            return Product(trace, None, code_path, result, f"the scene rendered at {SEARCH_QUALITY} quality but not at {quality}: {last_line(result)}")
    assert result.output is not None
    try:
        return Product(trace, deliver(result.output, target, video_format), code_path, result, None)
    except DeliveryError as error:
        return Product(trace, None, code_path, result, str(error))


def failure(trace: Trace) -> str:
    """One line on why a run ended without a video."""
    if trace.final_code is None:
        return "no code in the final answer"
    result = trace.final_render
    if result is None:
        return "the final code was not rendered"
    return f"the scene did not render after {trace.llm_calls} generations ({result.status.value}: {last_line(result)})"


def last_line(result: RenderResult) -> str:
    lines = [line.strip() for line in result.error_tail.splitlines() if line.strip()]
    return lines[-1][:300] if lines else "no output"
