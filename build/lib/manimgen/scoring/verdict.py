"""A sample's verdict, in one place for whoever asks (the study's runner, the rewards).

A sample is a task and the code a model wrote for it. Its scores are the metrics against the task's
reference, computed on a Ray cluster's render actor when the renderer is a cluster's (the code renders
there, scoring/ray_scoring.py) and here otherwise; or, for a task without a reference, the scores of
its own sentence (scoring/free.py). Either way they end with what the render shows: its layout
findings and how much of the sentence's checklist it holds.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace
from typing import Any

from manimgen.checks.layout import layout_findings
from manimgen.data import Task
from manimgen.render import Renderer, RenderJob, RenderResult
from manimgen.render.ray_backend import RayRenderer
from manimgen.scoring.free import reference_free_scores
from manimgen.scoring.schema import Scores
from manimgen.scoring.scorer import Scorer
from manimgen.scoring.shown import requirement_scores


def what_it_shows(description: str, result: RenderResult | None) -> dict[str, Any]:
    """The score fields read from a render's recorded timeline: `layout_findings` (None unless it rendered
    with its geometry) and the sentence's requirements held (scoring/shown.py)."""
    rendered = result if result is not None and result.ok else None
    findings = len(layout_findings(rendered.geometry)) if rendered is not None and rendered.geometry is not None else None
    return {"layout_findings": findings, **requirement_scores(description, rendered)}


def score_sample(
    task: Task,
    code: str | None,
    result: RenderResult | None,
    *,
    renderer: Renderer,
    scorer: Callable[[], Scorer],
    options: dict[str, Any],
) -> tuple[Scores, RenderResult | None]:
    """The scores of `code` for `task` and the render they are of.

    `result` is the code's render if the caller has one at `options["quality"]` with its geometry
    (else the code is rendered here, on `renderer`); `scorer()` gives this thread's Scorer, built
    with `options` (the Scorer's keyword arguments but its renderer), which a cluster's actor uses too.
    """
    written = code if code is not None and code.strip() else None
    if isinstance(renderer, RayRenderer) and task.has_reference and written is not None:
        from manimgen.scoring.ray_scoring import score_remotely

        scores, result = score_remotely(renderer, task.reference_code, written, options)
    else:
        if written is not None and result is None:
            result = renderer.render(RenderJob(written, quality=options["quality"], geometry=True))
        scores = scorer().score_task(task, code, render=result) if task.has_reference else reference_free_scores(code, result, task.patterns)
    return replace(scores, **what_it_shows(task.description, result if scores.rendered else None)), result
