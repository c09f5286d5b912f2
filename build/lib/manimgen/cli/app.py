"""The typer app and the options every command module shares."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Annotated, NoReturn, Optional

import typer
from rich.console import Console
from rich.text import Text

from manimgen.cli.choices import aspect_help, format_help, quality_help, split_help

app = typer.Typer(help="Sentence to Manim scene and video with LLMs; the ManimBench study and trainer.", no_args_is_help=True)
refs_app = typer.Typer(help="Reference scenes of a task set.", no_args_is_help=True)
app.add_typer(refs_app, name="refs")
console = Console()

SplitOption = Annotated[str, typer.Option(help=split_help())]
QualityOption = Annotated[str, typer.Option(help=quality_help())]
AspectOption = Annotated[Optional[str], typer.Option(help=aspect_help())]
ResolutionOption = Annotated[Optional[str], typer.Option(help="exact pixels WIDTHxHEIGHT, e.g. 1080x1920 (sets the aspect; the quality gives the frame rate)")]
FormatOption = Annotated[str, typer.Option("--format", help=format_help())]

CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f]")
SCENE_FILE_HINT = "pass a Python file holding a Manim scene"


def say_error(message: str) -> None:
    console.print(Text.assemble(("error:", "red"), " ", message), soft_wrap=True)


def fail(message: str) -> NoReturn:
    """Print a one-line error and exit with status 2, the code for bad input."""
    say_error(message)
    raise typer.Exit(code=2)


def output_settings(quality: str, aspect: str | None, resolution: str | None, video_format: str) -> str:
    """The quality spec for the output options (render/formats.py checks them); bad ones fail in one line."""
    from manimgen.render.formats import output_spec

    try:
        return output_spec(quality, aspect, resolution, video_format)
    except ValueError as error:
        fail(str(error))


def literal(text: str, max_lines: int = 40, max_line_chars: int = 300) -> Text:
    """Text from a render, a scene, a model or a dataset, shown as written and at a bounded cost.

    It is never read as markup, so `[/etc/manim.cfg]` prints as itself; control characters print
    escaped, a carriage return keeps what a terminal would show (the text after it), and only the last
    `max_lines` lines (where an error names itself) are kept, each cut to `max_line_chars`.
    """
    text = text.rstrip("\n")
    lines = text.rsplit("\n", max_lines)[-max_lines:]
    hidden = text.count("\n") + 1 - len(lines)
    shown = [_cut(line.rstrip("\r").rpartition("\r")[2], max_line_chars) for line in lines]
    if hidden > 0:
        shown.insert(0, f"… {hidden} earlier line{'s' if hidden > 1 else ''} not shown")
    return Text("\n".join(shown))


def _cut(line: str, limit: int) -> str:
    """One line at most `limit` characters long (plus a note of what was cut), control characters escaped."""
    cut = f"… ({len(line) - limit} more characters)" if len(line) > limit else ""
    return CONTROL.sub(lambda match: f"\\x{ord(match.group()):02x}", line[:limit]) + cut


def read_scene_file(path: Path) -> str:
    """The text of a scene file the user named; anything else (missing, a folder, binary) fails in one line."""
    try:
        data = path.read_bytes()
    except IsADirectoryError:
        fail(f"{path} is a directory: {SCENE_FILE_HINT}")
    except FileNotFoundError:
        fail(f"{path} does not exist: {SCENE_FILE_HINT}")
    except OSError as error:
        fail(f"cannot read {path} ({error.strerror}): {SCENE_FILE_HINT}")
    if b"\0" not in data:
        try:
            return data.decode("utf-8")
        except UnicodeDecodeError:
            pass
    fail(f"{path} is not a UTF-8 text file: {SCENE_FILE_HINT}")
