"""How much of what its sentence asks a render shows: the checklist's verdicts as two scores."""

from __future__ import annotations

from manimgen.checks import Timeline, check, extract
from manimgen.render import RenderResult


def requirement_scores(description: str, result: RenderResult | None) -> dict[str, float | bool | None]:
    """`requirements_held` (share of the verifiable requirements) and `all_held` of `result` (None, or a failed
    render, holds none); both None when the sentence states nothing a check can verify."""
    geometry = result.geometry if result is not None and result.ok else None
    report = check(extract(description), Timeline.from_geometry(geometry))
    if report.verifiable == 0:
        return {"requirements_held": None, "all_held": None}
    return {"requirements_held": report.held_share, "all_held": report.all_held}
