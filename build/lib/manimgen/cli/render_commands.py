"""Commands of the render and data parts: render a file, render references, list tasks, doctor."""

from __future__ import annotations

from contextlib import closing
from pathlib import Path
from typing import Annotated, Optional

import typer
from rich.table import Table
from rich.text import Text

from manimgen.cli.app import (
    AspectOption,
    FormatOption,
    QualityOption,
    ResolutionOption,
    SplitOption,
    app,
    console,
    fail,
    literal,
    output_settings,
    read_scene_file,
    refs_app,
)
from manimgen.render.formats import DEFAULT_FORMAT
from manimgen.render.result import DEFAULT_QUALITY, DEFAULT_RENDER_TIMEOUT_S


@app.command()
def render(
    file: Annotated[Path, typer.Argument(help="a Python file holding a Manim scene")],
    scene: Annotated[Optional[str], typer.Option(help="scene class to render (default: the only or last scene)")] = None,
    quality: QualityOption = DEFAULT_QUALITY,
    aspect: AspectOption = None,
    resolution: ResolutionOption = None,
    video_format: FormatOption = DEFAULT_FORMAT,
    out: Annotated[Optional[Path], typer.Option(help="also write the video here, with the format's suffix (a format other than mp4 goes beside the scene file by default)")] = None,
    timeout: Annotated[float, typer.Option(help="seconds before the render is killed")] = DEFAULT_RENDER_TIMEOUT_S,
    no_cache: Annotated[bool, typer.Option("--no-cache", help="render even when a cached result exists")] = False,
) -> None:
    """Render one scene file in the sandbox and print where the video is."""
    from manimgen.render import RendererOptions, RenderJob, open_renderer
    from manimgen.render.formats import DeliveryError, deliver

    spec = output_settings(quality, aspect, resolution, video_format)
    code = read_scene_file(file)
    with closing(open_renderer("fresh", RendererOptions(workers=1, timeout_s=timeout, use_cache=not no_cache))) as renderer:
        result = renderer.render(RenderJob(code, scene, spec))
    if result.ok:
        assert result.output is not None
        note = " (cached)" if result.cached else ""
        shown = result.output
        if out is not None or video_format != DEFAULT_FORMAT:
            try:
                shown = deliver(result.output, (out or file).with_suffix(""), video_format)
            except DeliveryError as error:
                console.print(Text.assemble(("no video", "red"), f": {error}"), soft_wrap=True)
                raise typer.Exit(code=1) from None
        console.print(Text.assemble((result.status.value, "green"), f" {result.scene} in {result.seconds:.1f} s{note}: {shown}"), soft_wrap=True)
        return
    console.print(Text.assemble((result.status.value, "red"), f" after {result.seconds:.1f} s"))
    console.print(literal(result.error_tail))
    raise typer.Exit(code=1)


@refs_app.command("render")
def refs_render(
    split: SplitOption = "builtin",
    quality: QualityOption = DEFAULT_QUALITY,
    workers: Annotated[Optional[int], typer.Option(help="parallel renders (default: one per core)")] = None,
    timeout: Annotated[float, typer.Option(help="seconds before a render is killed")] = DEFAULT_RENDER_TIMEOUT_S,
    limit: Annotated[Optional[int], typer.Option(help="render only the first N references")] = None,
    no_cache: Annotated[bool, typer.Option("--no-cache", help="render even when a cached result exists")] = False,
    summary: Annotated[Optional[Path], typer.Option(help="where to write the JSON summary")] = None,
) -> None:
    """Render every reference scene of a split; print status counts and failures, write a JSON summary."""
    from manimgen.data import DatasetError, load_tasks
    from manimgen.refs import render_references

    try:
        tasks = load_tasks(split, limit=limit)
    except DatasetError as error:
        fail(str(error))
    result = render_references(tasks, split, quality, workers, timeout, not no_cache)
    table = Table(title=f"{split}: {len(tasks)} references in {result.seconds:.0f} s")
    table.add_column("status")
    table.add_column("count", justify="right")
    for status, count in sorted(result.counts.items()):
        table.add_row(status, str(count))
    console.print(table)
    for failure in result.failures:
        last_line = failure["error"].splitlines()[-1] if failure["error"] else ""
        console.print(Text.assemble((failure["task"], "red"), f" {failure['status']}: ", literal(last_line)))
    path = summary or Path("runs") / f"refs-{split}.json"
    result.write(path)
    console.print(Text(f"summary: {path}"), soft_wrap=True)


@app.command()
def tasks(split: SplitOption = "builtin", limit: Annotated[Optional[int], typer.Option()] = None) -> None:
    """List the tasks of a split."""
    from manimgen.data import DatasetError, load_tasks

    try:
        chosen = load_tasks(split, limit=limit)
    except DatasetError as error:
        fail(str(error))
    table = Table()
    for column in ("id", "complexity", "description"):
        table.add_column(column)
    for task in chosen:
        table.add_row(Text(task.id), Text(task.complexity), literal(" ".join(task.description.split()), max_line_chars=100))
    console.print(table)


@app.command()
def doctor(
    ray: Annotated[Optional[str], typer.Option(help="also check every node of the Ray cluster at this address (HOST:PORT or auto)")] = None,
) -> None:
    """Check manim, LaTeX, cairo/pango, the sandbox, the cache and the data; say how to fix what is missing."""
    from manimgen.doctor import run_checks

    table = Table(title="manimgen doctor")
    for column in ("check", "status", "detail", "fix"):
        table.add_column(column)
    checks = run_checks()
    for check in checks:
        status = Text("ok", "green") if check.ok else Text("not installed", "yellow") if check.optional else Text("missing", "red")
        table.add_row(check.name, status, literal(check.detail), literal("" if check.ok else check.fix))
    console.print(table)
    healthy = all(check.ok or check.optional for check in checks)
    if ray is not None:
        healthy = _doctor_ray(ray) and healthy
    if not healthy:
        raise typer.Exit(code=1)


def _doctor_ray(address: str) -> bool:
    """One row per node of the cluster: its `manim` units and any render-stack check it fails."""
    from manimgen.doctor import ray_node_checks
    from manimgen.render.ray_backend import RESOURCE, RayBackendError

    try:
        reports = ray_node_checks(address)
    except RayBackendError as error:
        fail(str(error))
    table = Table(title=f"Ray cluster at {address}")
    for column in ("node", RESOURCE, "render stack", "fix"):
        table.add_column(column)
    for report in reports:
        failed = [check for check in report.checks if not check.ok]
        stack = Text("ok", "green") if not failed else Text(", ".join(check.name for check in failed), "red")
        table.add_row(literal(report.node), f"{report.manim_units:g}", stack, literal("; ".join(check.fix for check in failed)))
    console.print(table)
    renderers = [report for report in reports if report.manim_units > 0]
    if not renderers:
        console.print(Text(f"no node offers the `{RESOURCE}` resource: start render nodes with `ray start --resources '{{\"{RESOURCE}\": N}}'`", "red"))
    return bool(renderers) and all(check.ok for report in renderers for check in report.checks)

