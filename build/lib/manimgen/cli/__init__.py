"""The `manimgen` command line: each command is thin and calls one part of the package.

Every part owns one module here that adds its commands to the shared app when imported.
"""

from __future__ import annotations

from importlib import import_module

from manimgen.cli.app import app, say_error

COMMAND_MODULES = (
    "render_commands", "score_commands", "check_commands", "generate_commands", "lesson_commands", "serve_commands", "choices_commands", "bench_commands", "train_commands",
)

for _module in COMMAND_MODULES:
    import_module(f"manimgen.cli.{_module}")



def main() -> None:
    """The `manimgen` command: the app, with a missing optional part named in one line (exit 2)."""
    from manimgen.extras import missing_part

    try:
        app()
    except ModuleNotFoundError as error:
        message = missing_part(error)
        if message is None:
            raise
        say_error(message)
        raise SystemExit(2) from None


__all__ = ["app", "main"]
