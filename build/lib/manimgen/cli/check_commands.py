"""`manimgen check`: a scene's code against what its sentence asks, one verdict a requirement."""

from __future__ import annotations

import json
from contextlib import closing
from pathlib import Path
from typing import Annotated, Optional

import typer
from rich.table import Table
from rich.text import Text

from manimgen.cli.app import QualityOption, app, console, fail, literal, read_scene_file
from manimgen.render.result import DEFAULT_QUALITY

MARKS = {"held": ("✓ held", "green"), "failed": ("✗ failed", "red"), "unverifiable": ("? not checked", "yellow")}


@app.command("check")
def check_command(
    sentence: Annotated[str, typer.Argument(help="what the scene should show, as a teacher would say it")],
    code: Annotated[Optional[Path], typer.Option(help="the scene file to render and check (leave out to print the checklist only)")] = None,
    checklist: Annotated[Optional[Path], typer.Option(help="an edited checklist (the JSON `--json` prints) instead of the sentence's own")] = None,
    quality: QualityOption = DEFAULT_QUALITY,
    as_json: Annotated[bool, typer.Option("--json", help="print the checklist and verdicts as JSON")] = False,
) -> None:
    """Render a scene and check it against its sentence: each requirement held, failed (and what was seen instead)
    or unverifiable. Exits 0 when every verifiable requirement holds, 1 otherwise."""
    from manimgen.checks import ChecklistError, check_code, checklist_for, load_checklist, report_json, summary
    from manimgen.render import RendererOptions, open_renderer

    if not sentence.strip():
        fail('the sentence is empty: say what the scene should show, e.g. "A blue circle turns into a red square"')
    try:
        given = load_checklist(checklist.read_text(encoding="utf-8"), str(checklist)) if checklist else None
    except (OSError, UnicodeDecodeError) as error:
        fail(f"cannot read the checklist {checklist} ({error}); give the JSON file `manimgen check --json` prints")
    except ChecklistError as error:
        fail(str(error))
    plan = checklist_for(sentence.strip(), given)
    if code is None:
        if as_json:
            typer.echo(plan.model_dump_json(indent=2))
        else:
            console.print(literal(plan.render_text() or "nothing the rules can read; write a checklist with --checklist"))
        return
    scene = read_scene_file(code)
    with console.status("rendering and checking"), closing(open_renderer("fresh", RendererOptions(workers=1))) as renderer:
        result, report = check_code(scene, plan, renderer, quality)
    if as_json:
        typer.echo(json.dumps(report_json(plan, result, report), indent=2, ensure_ascii=False))
    else:
        if not result.ok:
            console.print(Text.assemble((result.status.value, "red"), " the scene did not render:"))
            console.print(literal(result.error_tail))
        table = Table(title=f"{plan.sentence}", title_justify="left")
        for column in ("#", "requirement", "verdict", "what the video shows"):
            table.add_column(column)
        for number, verdict in enumerate(report.verdicts, 1):
            mark, colour = MARKS[verdict.status]
            table.add_row(str(number), literal(verdict.requirement.phrase), Text(mark, style=colour), literal(verdict.seen))
        console.print(table)
        console.print(Text(summary(report.count("held"), report.count("failed"), report.count("unverifiable"))))
    if not (result.ok and report.count("failed") == 0):
        raise typer.Exit(code=1)
