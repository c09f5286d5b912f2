"""Check a scene's code against what was asked: render it with its timeline, then check every requirement.

One entry for the command line (`manimgen check`), Python callers and the study: a sentence (or an
edited checklist) and the code in, the render and the report out, and the report as JSON the same
way everywhere.
"""

from __future__ import annotations

from typing import Any

from manimgen.checks.extract import extract
from manimgen.checks.requirements import Checklist
from manimgen.checks.timeline import Timeline
from manimgen.checks.verify import Report, check
from manimgen.render import Renderer, RenderJob, RenderResult
from manimgen.render.result import DEFAULT_QUALITY


def checklist_for(sentence: str, checklist: Checklist | None = None) -> Checklist:
    """The checklist to check against: the one given (edited by a person), else the sentence's own."""
    return checklist if checklist is not None else extract(sentence)


def check_code(code: str, checklist: Checklist, renderer: Renderer, quality: str = DEFAULT_QUALITY) -> tuple[RenderResult, Report]:
    """Render `code` on `renderer`, recording its timeline, and check it against `checklist`."""
    result = renderer.render(RenderJob(code, quality=quality, geometry=True))
    return result, check(checklist, Timeline.from_geometry(result.geometry if result.ok else None))


def checks_json(checklist: Checklist, report: Report) -> dict[str, Any]:
    """The checklist with each requirement's verdict: what the trace, the page and `--json` show."""
    return {
        "checklist": checklist.model_dump(mode="json"),
        "verdicts": [
            {"phrase": verdict.requirement.phrase, "kind": verdict.requirement.kind, "status": verdict.status, "seen": verdict.seen}
            for verdict in report.verdicts
        ],
        "held": report.count("held"),
        "failed": report.count("failed"),
        "unverifiable": report.count("unverifiable"),
        "all_held": report.all_held,
        "sentence_held": report.sentence_held,
    }


def summary(held: int, failed: int, unchecked: int) -> str:
    """The verdicts in one line, naming what no check decided as what a person must look for."""
    line = f"{held} held, {failed} failed"
    return line + (f", {unchecked} not checked (look for them in the video)" if unchecked else "")


def report_json(checklist: Checklist, result: RenderResult, report: Report) -> dict[str, Any]:
    """One check of one scene as `manimgen check --json` prints it."""
    return {"sentence": checklist.sentence, "render_status": result.status.value, **checks_json(checklist, report)}
