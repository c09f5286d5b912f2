"""How much of what its sentence asks a render shows: the checklist's verdicts as two scores."""

from __future__ import annotations

from manimgen.checks import Timeline, check, extract
from manimgen.render import RenderResult


def requirement_scores(description: str, result: RenderResult | None) -> dict[str, float | bool | None]:
    """`requirements_held` (share of the verifiable requirements), `all_held` (all of those) and `sentence_held`
    (all of them, and no part of the sentence left unchecked) of `result` (None, or a failed render, holds none);
    all None when the sentence states nothing a check can verify."""
    geometry = result.geometry if result is not None and result.ok else None
    report = check(extract(description), Timeline.from_geometry(geometry))
    if report.verifiable == 0:
        return {"requirements_held": None, "all_held": None, "sentence_held": None}
    return {"requirements_held": report.held_share, "all_held": report.all_held, "sentence_held": report.sentence_held}
