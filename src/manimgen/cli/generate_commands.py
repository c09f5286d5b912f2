"""`manimgen generate`: one sentence to a rendered scene, with each agent round shown as it ends."""

from __future__ import annotations

import re
import shutil
import time
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Optional

import typer
from rich.markup import escape
from rich.text import Text

from manimgen.agent.search_strategies import DEFAULT_STRATEGY
from manimgen.cli.app import QualityOption, app, console, fail, literal
from manimgen.cli.choices import model_help, strategy_help
from manimgen.llm.base import Sampling

if TYPE_CHECKING:
    from manimgen.agent import Round

ERROR_LINE = re.compile(r"^\s*[\w.]*(Error|Exception|Interrupt|Exit)\b.*")
DEFAULT_OUT_DIR = Path("runs") / "generate"
EMPTY_SENTENCE = 'the sentence is empty: describe the animation, e.g. manimgen generate "A blue circle turns into a red square"'


def _slug(sentence: str, limit: int = 60) -> str:
    slug = re.sub(r"[^a-z0-9]+", "-", sentence.lower()).strip("-")
    return slug[:limit].rstrip("-") or "scene"


def _first_error(feedback: str) -> str:
    """The line that names the error (`NameError: ...`), else the last line of the feedback."""
    lines = [line.strip() for line in feedback.splitlines() if line.strip()]
    named = [line for line in lines if ERROR_LINE.match(line)]
    return (named or lines or [""])[0]


def _show_round(round_: Round) -> None:
    tokens = f"{round_.prompt_tokens}+{round_.completion_tokens} tok"
    head = f"round {round_.index + 1} [bold]{round_.kind}[/bold]  {tokens}  {round_.llm_seconds:.1f} s"
    if round_.render is not None:
        status = round_.render.status.value
        colour = "green" if round_.render.ok else "red"
        head += f"  render [{colour}]{status}[/{colour}] {round_.render_seconds:.1f} s"
    elif round_.code is None:
        head += "  [red]no code[/red]"
    else:
        head += "  [dim]not rendered[/dim]"
    line = Text.from_markup(head)
    if round_.feedback:
        line.append_text(Text.assemble("  ", literal(_first_error(round_.feedback)), style="dim"))
    console.print(line)
    for note in round_.autofixes:
        console.print(Text.assemble("  fixed ", (note, "dim")), soft_wrap=True)


def _place_output(output: Path, out: Path | None, sentence: str) -> Path:
    """Copy the render to `out` (its suffix follows the real file: .mp4, or .png for a still scene)."""
    target = out or DEFAULT_OUT_DIR / _slug(sentence)
    target = target.with_suffix(output.suffix)
    target.parent.mkdir(parents=True, exist_ok=True)
    shutil.copyfile(output, target)
    return target


@app.command()
def generate(
    sentence: Annotated[str, typer.Argument(help="what the animation should show")],
    model: Annotated[Optional[str], typer.Option(help=model_help())] = None,
    strategy: Annotated[str, typer.Option(help=strategy_help())] = DEFAULT_STRATEGY,
    rounds: Annotated[int, typer.Option(min=0, help="feedback rounds K after the first generation")] = 3,
    temperature: Annotated[float, typer.Option(min=0.0, help="sampling temperature")] = Sampling.temperature,
    max_tokens: Annotated[int, typer.Option(min=1, help="most tokens per answer")] = Sampling.max_tokens,
    seed: Annotated[int, typer.Option(help="sampling seed (round i uses seed + i)")] = 0,
    quality: QualityOption = "low",
    out: Annotated[Optional[Path], typer.Option(help="where to copy the video (default runs/generate/<slug>.mp4)")] = None,
    trace: Annotated[Optional[Path], typer.Option(help="write the run's trace (every prompt, answer, render) as JSON here")] = None,
) -> None:
    """Turn a sentence into a Manim scene with an LLM, render it, and print where the video is."""
    if not sentence.strip():
        fail(EMPTY_SENTENCE)
    from dataclasses import replace

    from manimgen.agent import AgentConfig, get_strategy
    from manimgen.agent.layout import layout_findings
    from manimgen.agent.strategies import DEFAULT_SAMPLING
    from manimgen.llm import DEFAULT_MODEL, MODELS, LLMError, ensure_gguf, load_model

    try:
        agent = get_strategy(strategy)
        sampling = replace(DEFAULT_SAMPLING, temperature=temperature, max_tokens=max_tokens, seed=seed)
        config = AgentConfig(rounds=rounds, sampling=sampling, quality=quality)
    except ValueError as error:
        fail(str(error))
    name = model or DEFAULT_MODEL
    started = time.monotonic()
    try:
        if name in MODELS:
            ensure_gguf(name, progress=True)
        with console.status(f"loading {name} …"):
            llm = load_model(name)
    except LLMError as error:
        fail(str(error))
    loaded_s = time.monotonic() - started
    try:
        with console.status("generating …") as status:

            def on_round(round_: Round) -> None:
                if round_.index == 0:
                    console.print(
                        f"model [bold]{escape(llm.name)}[/bold] ready: loaded in {loaded_s:.1f} s, "
                        f"first answer in {round_.llm_seconds:.1f} s; strategy {agent.name}"
                    )
                _show_round(round_)
                status.update(f"round {round_.index + 2} …")

            result = agent.run(llm, sentence, config, on_round)
    except LLMError as error:
        fail(str(error))
    finally:
        llm.close()
    if trace is not None:
        trace.parent.mkdir(parents=True, exist_ok=True)
        trace.write_text(result.to_json(), encoding="utf-8")
        console.print(Text(f"trace: {trace}"), soft_wrap=True)
    summary = f"{result.llm_calls} generations, {result.seconds:.1f} s, stopped: {result.stop_reason}"
    final = result.final_render
    if final is None or not final.ok or final.output is None:
        if result.final_code is None:
            reason = "no code in the final answer"
        else:
            reason = final.status.value if final is not None else "not rendered"
        console.print(Text.assemble(("failed", "red"), f" ({reason}); {summary}"))
        if final is not None and final.error_tail:
            console.print(literal(final.error_tail))
        raise typer.Exit(code=1)
    console.print(Text.assemble(("ok", "green"), f" {final.scene}; {summary}"))
    problems = layout_findings(final.geometry)
    if problems:
        count = f"{len(problems)} layout problem{'s' if len(problems) > 1 else ''}"
        console.print(Text.assemble((f"check the video: {count}", "yellow"), "; the first: ", literal(problems[0].message)))
    console.print(Text(str(_place_output(final.output, out, sentence))), soft_wrap=True)
