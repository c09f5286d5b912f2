"""Commands of the render and data parts: render a file, render references, list tasks, doctor."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Optional

import typer
from rich.table import Table

from manimgen.cli.app import QualityOption, SplitOption, app, console, fail, refs_app


@app.command()
def render(
    file: Annotated[Path, typer.Argument(exists=True, dir_okay=False, help="a Python file holding a Manim scene")],
    scene: Annotated[Optional[str], typer.Option(help="scene class to render (default: the only or last scene)")] = None,
    quality: QualityOption = "low",
    timeout: Annotated[float, typer.Option(help="seconds before the render is killed")] = 300.0,
    no_cache: Annotated[bool, typer.Option("--no-cache", help="render even when a cached result exists")] = False,
) -> None:
    """Render one scene file in the sandbox and print where the video is."""
    from manimgen.render import render as render_code

    result = render_code(file.read_text(encoding="utf-8"), scene, quality, timeout_s=timeout, use_cache=not no_cache)
    if result.ok:
        note = " (cached)" if result.cached else ""
        console.print(f"[green]{result.status.value}[/green] {result.scene} in {result.seconds:.1f} s{note}: {result.output}")
        return
    console.print(f"[red]{result.status.value}[/red] after {result.seconds:.1f} s\n{result.error_tail}")
    raise typer.Exit(code=1)


@refs_app.command("render")
def refs_render(
    split: SplitOption = "builtin",
    quality: QualityOption = "low",
    workers: Annotated[Optional[int], typer.Option(help="parallel renders (default: one per core)")] = None,
    timeout: Annotated[float, typer.Option(help="seconds before a render is killed")] = 300.0,
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
        console.print(f"[red]{failure['task']}[/red] {failure['status']}: {failure['error'].splitlines()[-1] if failure['error'] else ''}")
    path = summary or Path("runs") / f"refs-{split}.json"
    result.write(path)
    console.print(f"summary: {path}")


@app.command()
def tasks(split: SplitOption = "builtin", limit: Annotated[Optional[int], typer.Option()] = None) -> None:
    """List the tasks of a split."""
    from manimgen.data import load_tasks

    table = Table()
    for column in ("id", "complexity", "description"):
        table.add_column(column)
    for task in load_tasks(split, limit=limit):
        table.add_row(task.id, task.complexity, task.description[:100])
    console.print(table)


@app.command()
def doctor() -> None:
    """Check manim, LaTeX, cairo/pango, the sandbox, the cache and the data; say how to fix what is missing."""
    from manimgen.doctor import run_checks

    table = Table(title="manimgen doctor")
    for column in ("check", "status", "detail", "fix"):
        table.add_column(column)
    checks = run_checks()
    for check in checks:
        table.add_row(check.name, "[green]ok[/green]" if check.ok else "[red]missing[/red]", check.detail, "" if check.ok else check.fix)
    console.print(table)
    if not all(check.ok for check in checks):
        raise typer.Exit(code=1)

