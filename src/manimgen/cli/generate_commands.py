"""`manimgen generate`: a sentence (or a file of them) to a rendered scene, its code beside the video,
each agent round shown as it ends."""

from __future__ import annotations

import json
import time
from contextlib import closing
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any, Optional

import typer
from rich.markup import escape
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn
from rich.text import Text

from manimgen.agent.checked_search import DEFAULT_STRATEGY
from manimgen.cli.app import AspectOption, FormatOption, ResolutionOption, app, console, fail, literal, output_settings
from manimgen.cli.choices import model_help, strategy_help
from manimgen.cli.serve_commands import TOKEN_ENV
from manimgen.llm.base import Sampling
from manimgen.render.formats import FORMATS, DEFAULT_FORMAT
from manimgen.render.result import DEFAULT_QUALITY

if TYPE_CHECKING:
    from manimgen.agent import Round
    from manimgen.checks import Checklist
    from manimgen.llm.base import LLM
    from manimgen.render import Renderer
    from manimgen.serve.produce import Product, Request

DEFAULT_OUT_DIR = Path("runs") / "generate"
BATCH_RESULTS = "batch.jsonl"


def _show_round(round_: Round) -> None:
    from manimgen.serve.engine import first_error

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
        line.append_text(Text.assemble("  ", literal(first_error(round_.feedback)), style="dim"))
    console.print(line)
    for note in round_.autofixes:
        console.print(Text.assemble("  fixed ", (note, "dim")), soft_wrap=True)


def _sentences(batch: Path) -> list[str]:
    """One sentence per line of a text file, or a JSON Lines task file (`description` or `prompt`)."""
    from manimgen.data import DatasetError
    from manimgen.data.task_file import load_task_file

    if batch.suffix == ".jsonl":
        try:
            return [task.description for task in load_task_file(batch)]
        except DatasetError as error:
            fail(str(error))
    try:
        lines = [line.strip() for line in batch.read_text(encoding="utf-8").splitlines()]
    except (OSError, UnicodeDecodeError) as error:
        fail(f"cannot read {batch} ({error}); give a UTF-8 text file with one sentence per line")
    sentences = [line for line in lines if line and not line.startswith("#")]
    if not sentences:
        fail(f"{batch} holds no sentences; write one per line")
    return sentences


@app.command()
def generate(
    sentence: Annotated[Optional[str], typer.Argument(help="what the animation should show")] = None,
    model: Annotated[Optional[str], typer.Option(help=model_help())] = None,
    strategy: Annotated[str, typer.Option(help=strategy_help())] = DEFAULT_STRATEGY,
    rounds: Annotated[int, typer.Option(min=0, help="feedback rounds K after the first generation")] = 3,
    temperature: Annotated[float, typer.Option(min=0.0, help="sampling temperature")] = Sampling.temperature,
    max_tokens: Annotated[int, typer.Option(min=1, help="most tokens per answer")] = Sampling.max_tokens,
    seed: Annotated[int, typer.Option(help="sampling seed (round i uses seed + i)")] = 0,
    quality: Annotated[str, typer.Option(help="the video's quality; the search renders at low, then the accepted scene once at this quality")] = DEFAULT_QUALITY,
    aspect: AspectOption = None,
    resolution: ResolutionOption = None,
    video_format: FormatOption = DEFAULT_FORMAT,
    out: Annotated[Optional[Path], typer.Option(help="where the video goes (default runs/generate/<slug>.mp4, or the format's suffix); its .py beside it")] = None,
    trace: Annotated[Optional[Path], typer.Option(help="also write the run's trace (every prompt, answer, render) as JSON here")] = None,
    batch: Annotated[Optional[Path], typer.Option(help="a file of sentences (one per line, or JSON Lines): one video each into --out, resumable")] = None,
    checklist: Annotated[Optional[Path], typer.Option(help="an edited checklist (`manimgen check SENTENCE --json` prints one) for the strategies that check one")] = None,
    server: Annotated[Optional[str], typer.Option(help="hand the sentence to a running `manimgen serve` at this URL (its model stays loaded between calls; its rounds, sampling and token limit apply)")] = None,
    token: Annotated[Optional[str], typer.Option(envvar=TOKEN_ENV, help=f"the --server's token (default: ${TOKEN_ENV})")] = None,
) -> None:
    """Turn a sentence into a Manim scene with an LLM, render it, and print where the video and its code are."""
    from manimgen.render import open_renderer
    from manimgen.serve.produce import Request, RequestError

    if (sentence is None) == (batch is None):
        fail('give one sentence, or --batch FILE with one per line (e.g. manimgen generate "A blue circle grows")')
    spec = output_settings(quality, aspect, resolution, video_format)
    sentences = _sentences(batch) if batch is not None else [sentence or ""]
    plan = _checklist(checklist) if checklist is not None else None
    if server is not None:
        if batch is not None:
            fail("--server takes one sentence; a --batch already keeps one model loaded for all of its sentences")
        remote = {"sentence": sentences[0], "model": model, "strategy": strategy, "quality": quality, "aspect": aspect,
                  "resolution": resolution, "format": video_format, "checklist": plan.model_dump(mode="json") if plan else None}  # fmt: skip
        _run_remote(server, token, remote, out, trace)
        return
    try:
        requests = [Request(text, strategy, spec, video_format, rounds, temperature, max_tokens, seed, checklist=plan) for text in sentences]
    except RequestError as error:
        fail(str(error))
    llm, loaded_s = load_llm(model)
    try:
        with closing(open_renderer()) as renderer:
            if batch is not None:
                _run_batch(llm, renderer, requests, out or DEFAULT_OUT_DIR / f"batch-{batch.stem}")
                return
            _run_one(llm, renderer, requests[0], out, trace, loaded_s)
    finally:
        llm.close()


def load_llm(model: str | None) -> tuple[LLM, float]:
    from manimgen.llm import DEFAULT_MODEL, MODELS, LLMError, ensure_gguf, load_model

    name = model or DEFAULT_MODEL
    started = time.monotonic()
    try:
        if name in MODELS:
            ensure_gguf(name, progress=True)
        with console.status(f"loading {name} …"):
            return load_model(name), time.monotonic() - started
    except LLMError as error:
        fail(str(error))


def _checklist(path: Path) -> Checklist:
    from manimgen.checks import ChecklistError, load_checklist

    try:
        return load_checklist(path.read_text(encoding="utf-8"), str(path))
    except (OSError, UnicodeDecodeError) as error:
        fail(f"cannot read the checklist {path} ({error}); give the JSON file `manimgen check SENTENCE --json` prints")
    except ChecklistError as error:
        fail(str(error))


def _show_checks(checks: dict[str, Any]) -> None:
    """The checklist with a tick, a cross or a question mark per item, and what was seen for a cross."""
    from manimgen.checks import summary

    marks = {"held": ("✓", "green"), "failed": ("✗", "red"), "unverifiable": ("?", "yellow")}
    console.print(Text(f"checklist: {summary(checks['held'], checks['failed'], checks['unverifiable'])}"))
    for verdict in checks["verdicts"]:
        mark, colour = marks.get(verdict.get("status"), ("?", "yellow"))
        seen = f" — {verdict.get('seen')}" if verdict.get("status") != "held" else ""
        console.print(Text.assemble("  ", (mark, colour), " ", literal(f"{verdict['phrase']}{seen}")))


def _run_one(llm: LLM, renderer: Renderer, request: Request, out: Path | None, trace: Path | None, loaded_s: float) -> None:
    from manimgen.checks.layout import layout_findings
    from manimgen.llm import LLMError
    from manimgen.serve.produce import produce, slug

    target = (out or DEFAULT_OUT_DIR / slug(request.sentence)).with_suffix("")
    try:
        with console.status("generating …") as status:

            def on_round(round_: Round) -> None:
                if round_.index == 0:
                    console.print(
                        f"model [bold]{escape(llm.name)}[/bold] ready: loaded in {loaded_s:.1f} s, "
                        f"first answer in {round_.llm_seconds:.1f} s; strategy {request.strategy}"
                    )
                _show_round(round_)
                status.update(f"round {round_.index + 2} …")

            product = produce(llm, request, target, renderer=renderer, on_round=on_round)
    except LLMError as error:
        fail(str(error))
    result = product.trace
    if trace is not None:
        trace.parent.mkdir(parents=True, exist_ok=True)
        trace.write_text(result.to_json(), encoding="utf-8")
        console.print(Text(f"trace: {trace}"), soft_wrap=True)
    summary = f"{result.llm_calls} generations, {result.seconds:.1f} s, stopped: {result.stop_reason}"
    if result.checks is not None:
        _show_checks(result.checks)
    if not product.ok:
        console.print(Text.assemble(("failed", "red"), f" ({product.error}); {summary}"))
        if product.render is not None and product.render.error_tail:
            console.print(literal(product.render.error_tail))
        if product.code is not None:
            console.print(Text(f"the last code: {product.code}"), soft_wrap=True)
        raise typer.Exit(code=1)
    assert product.video is not None and product.render is not None
    console.print(Text.assemble(("ok", "green"), f" {product.render.scene}; {summary}"))
    problems = layout_findings(result.final_render.geometry if result.final_render else None)
    if problems:
        count = f"{len(problems)} layout problem{'s' if len(problems) > 1 else ''}"
        console.print(Text.assemble((f"check the video: {count}", "yellow"), "; the first: ", literal(problems[0].message)))
    console.print(Text(f"{product.video}\n{product.code}"), soft_wrap=True)


def _run_remote(url: str, token: str | None, request: dict[str, Any], out: Path | None, trace: Path | None) -> None:
    """The sentence as a job of the server at `url`: its rounds shown as they end, its files fetched here."""
    from manimgen.serve import client
    from manimgen.serve.produce import slug

    target = (out or DEFAULT_OUT_DIR / slug(request["sentence"])).with_suffix("")
    started = time.monotonic()
    try:
        with client.connect(url, token) as session:
            job = client.submit(session, request)
            console.print(Text(f"job {job['id']} on {url}: model {job.get('model')}, strategy {job.get('strategy')}"), soft_wrap=True)
            try:
                with console.status("queued …") as status:
                    finished = client.follow(session, job["id"], lambda kind, payload: _show_event(kind, payload, status))
            except KeyboardInterrupt:
                client.cancel(session, job["id"])
                console.print("cancelled on the server")
                raise typer.Exit(code=130) from None
            record = client.trace(session, job["id"])
            if trace is not None and record is not None:
                trace.parent.mkdir(parents=True, exist_ok=True)
                trace.write_text(json.dumps(record, indent=2), encoding="utf-8")
            code = client.fetch(session, job["id"], "code", target.with_suffix(".py")) if finished.get("scene") else None
            video = client.fetch(session, job["id"], "video", client.video_path(finished, target)) if finished.get("video") else None
    except client.ServerError as error:
        fail(str(error))
    summary = f"{finished.get('rounds')} rounds, {time.monotonic() - started:.1f} s"
    checks = (record or {}).get("checks")
    if _readable_checks(checks):
        _show_checks(checks)
    if finished.get("status") != "done" or video is None:
        console.print(Text.assemble((str(finished.get("status")), "red"), " (", literal(str(finished.get("error") or "no video")), f"); {summary}"))
        if code is not None:
            console.print(Text(f"the last code: {code}"), soft_wrap=True)
        raise typer.Exit(code=1)
    console.print(Text.assemble(("ok", "green"), f" {summary}"))
    console.print(Text(f"{video}\n{code}"), soft_wrap=True)


def _show_event(kind: str, payload: dict[str, Any], status: Any) -> None:
    """A server's event as `generate` shows its own: a line per round, the stage in the spinner."""
    if kind in ("status", "stage"):
        status.update(Text.assemble(literal(str(payload.get(kind)), max_lines=1), " …"))
    elif kind == "round":
        index = payload.get("index")
        head = f"round {index + 1 if isinstance(index, int) else '?'} {payload.get('kind')}  {payload.get('seconds')} s  {payload.get('status')}"
        line = Text(head, style="green" if payload.get("rendered") else "red")
        if payload.get("error"):
            line.append_text(Text.assemble("  ", literal(str(payload["error"]), max_lines=1), style="dim"))
        console.print(line)


def _readable_checks(checks: object) -> bool:
    """Whether a server's `checks` has the shape `_show_checks` reads."""
    if not isinstance(checks, dict) or not isinstance(checks.get("verdicts"), list):
        return False
    counts = all(isinstance(checks.get(key), int) for key in ("held", "failed", "unverifiable"))
    return counts and all(isinstance(verdict, dict) and isinstance(verdict.get("phrase"), str) for verdict in checks["verdicts"])


def _run_batch(llm: LLM, renderer: Renderer, requests: list[Request], folder: Path) -> None:
    """One video per sentence; a rerun skips the sentences whose video is already there."""
    from manimgen.serve.produce import produce, slug

    folder.mkdir(parents=True, exist_ok=True)
    results = folder / BATCH_RESULTS
    targets = [folder / f"{number:03d}-{slug(request.sentence, 40)}" for number, request in enumerate(requests, 1)]
    made = done = 0
    columns = (TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn(), TextColumn("{task.fields[made]} videos"))
    with Progress(*columns, console=console) as progress:
        bar = progress.add_task("batch", total=len(requests), made=0)
        for request, target in zip(requests, targets):
            if any(target.with_suffix(format_.suffix).is_file() for format_ in FORMATS.values()):
                made += 1
                progress.update(bar, advance=1, made=made)
                continue
            progress.update(bar, description=escape(request.sentence[:40]))
            product = produce(llm, request, target, renderer=renderer)
            made += product.ok
            done += 1
            _append(results, request, product)
            progress.update(bar, advance=1, made=made)
    console.print(Text(f"{made} of {len(requests)} sentences have a video ({done} run now) in {folder}; results: {results}"), soft_wrap=True)
    if made < len(requests):
        raise typer.Exit(code=1)


def _append(results: Path, request: Request, product: Product) -> None:
    record = {
        "sentence": request.sentence,
        "ok": product.ok,
        "video": str(product.video) if product.video else None,
        "code": str(product.code) if product.code else None,
        "error": product.error,
        "generations": product.trace.llm_calls,
        "seconds": round(product.trace.seconds, 1),
    }
    with results.open("a", encoding="utf-8") as handle:
        handle.write(json.dumps(record, ensure_ascii=False) + "\n")
