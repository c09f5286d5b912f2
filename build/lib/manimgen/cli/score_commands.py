"""The score command: one generated scene against a task's reference or a reference file."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Annotated, Optional

import typer
from rich.markup import escape
from rich.table import Table

from manimgen.cli.app import QualityOption, app, console, fail, read_scene_file
from manimgen.cli.choices import code_embedder_help, dtw_help, image_embedder_help, preset_help
from manimgen.extras import require
from manimgen.render.result import DEFAULT_QUALITY

ImageEmbedderOption = Annotated[Optional[str], typer.Option(help=image_embedder_help())]
CodeEmbedderOption = Annotated[Optional[str], typer.Option(help=code_embedder_help())]
DtwOption = Annotated[Optional[str], typer.Option(help=dtw_help())]
PresetOption = Annotated[str, typer.Option(help=preset_help())]


@app.command()
def score(
    task: Annotated[Optional[str], typer.Option(help="task id whose reference is used (`manimgen tasks`)")] = None,
    ref: Annotated[Optional[Path], typer.Option(help="a reference scene file, instead of --task")] = None,
    code: Annotated[Optional[Path], typer.Option(help="the generated scene file to score")] = None,
    gen: Annotated[Optional[Path], typer.Option(help="the generated scene file (same as --code)")] = None,
    quality: QualityOption = DEFAULT_QUALITY,
    preset: PresetOption = "default",
    image_embedder: ImageEmbedderOption = None,
    code_embedder: CodeEmbedderOption = None,
    dtw: DtwOption = None,
    as_json: Annotated[bool, typer.Option("--json", help="print the scores as JSON instead of a table")] = False,
) -> None:
    """Render a generated scene and its reference, and print every metric with the embedder behind it."""
    require("bench")
    from manimgen.data import DatasetError, find_task
    from manimgen.metrics import EmbedderUnavailable
    from manimgen.scoring import ReferenceRenderError, Scorer, arrow

    if (task is None) == (ref is None):
        fail("give the reference as exactly one of --task ID or --ref FILE")
    if (code is None) == (gen is None):
        fail("give the generated scene as exactly one of --code FILE or --gen FILE")
    generated_path = code or gen
    generated = read_scene_file(generated_path)
    reference = read_scene_file(ref) if ref is not None else None
    try:
        found = find_task(task) if task else None
        scorer = Scorer(image_embedder=image_embedder, code_embedder=code_embedder, quality=quality, dtw=dtw, preset=preset)
        with console.status("rendering and scoring"):
            if found is not None:
                scores = scorer.score_task(found, generated)
            else:
                scores = scorer.score(reference, generated)
    except (DatasetError, EmbedderUnavailable, ReferenceRenderError, ValueError) as error:
        fail(str(error))
    reference_name = f"task {task}" if task else str(ref)
    if as_json:
        report = {"reference": reference_name, "generated": str(generated_path), "quality": quality}
        typer.echo(json.dumps({**report, "scores": scores.to_dict(), "labels": scores.labels()}, indent=2))
        return
    title = escape(f"{generated_path} against {reference_name}")
    table = Table(title=title, caption=f"preset {scores.preset}, quality {quality}, DTW {scores.dtw}")
    table.add_column("metric")
    table.add_column("value", justify="right")
    table.add_row("render (generated)", _status(scores.render_status))
    table.add_row("render (reference)", _status(scores.reference_status))
    for metric, label in scores.labels().items():
        value = getattr(scores, metric)
        table.add_row(escape(f"{label} {arrow(metric)}"), ("yes" if value else "no") if isinstance(value, bool) else f"{value:.4f}")
    console.print(table)


def _status(status: str) -> str:
    return f"[green]{status}[/green]" if status == "ok" else f"[red]{status}[/red]"
