"""The typer app and the options every command module shares."""

from __future__ import annotations

from typing import Annotated, NoReturn

import typer
from rich.console import Console

app = typer.Typer(help="Sentence to Manim scene and video with LLMs; the ManimBench study and trainer.", no_args_is_help=True)
refs_app = typer.Typer(help="Reference scenes of a task set.", no_args_is_help=True)
app.add_typer(refs_app, name="refs")
console = Console()

SplitOption = Annotated[str, typer.Option(help="test, train, validation or builtin")]
QualityOption = Annotated[str, typer.Option(help="low (854x480 15 fps, the benchmark's), preview, medium, high")]


def fail(message: str) -> NoReturn:
    """Print a one-line error and exit with status 2, the code for bad input."""
    console.print(f"[red]error:[/red] {message}", soft_wrap=True)
    raise typer.Exit(code=2)
