"""Scoring on a Ray cluster's render actors: the render and the metrics run on the node, the driver records.

Why: on one machine a study's scoring threads (frames, embeddings, DTW) cost about as much CPU as
its renders; on a cluster they would make the one driver the limit. `score_remotely` sends a sample's
code and its task's reference to an idle render actor (`RayRenderer.apply`), which renders the code
with its layout and scores it with a `Scorer` of its own (kept per actor process, its references
cached there); the driver gets the scores and the render, checks both and enters the render in its
cache, so the study stores exactly what a local run stores.
"""

from __future__ import annotations

import json
from typing import Any

from manimgen.render import Renderer, RenderJob, RenderResult
from manimgen.render.ray_backend import RayBackendError, RayRenderer
from manimgen.scoring.schema import Scores
from manimgen.scoring.scorer import Scorer

_SCORERS: dict[str, Scorer] = {}
"""The scorers of this process by their options: on an actor, one per configuration of the study."""


def score_on_node(renderer: Renderer, reference_code: str, code: str, options: dict[str, Any]) -> tuple[dict[str, Any], dict[str, Any], bytes | None]:
    """Render `code` with its layout and score it against the reference on this node (an actor runs this)."""
    key = json.dumps(options, sort_keys=True)
    if key not in _SCORERS:
        _SCORERS[key] = Scorer(**options, renderer=renderer)
    result = renderer.render(RenderJob(code, quality=options["quality"], geometry=True))
    scores = _SCORERS[key].score(reference_code, code, render=result)
    payload = result.output.read_bytes() if result.output is not None else None
    return scores.to_dict(), result.to_dict(), payload


def score_remotely(cluster: RayRenderer, reference_code: str, code: str, options: dict[str, Any]) -> tuple[Scores, RenderResult]:
    """The scores of `code` against the reference, and its render (in the caller's cache), from the cluster.

    `options` are the Scorer's keyword arguments (JSON values, no renderer)."""
    answer = cluster.apply(score_on_node, reference_code, code, options)
    try:
        scores_data, data, payload = answer
        scores = Scores.from_dict(scores_data)
    except (TypeError, ValueError, AttributeError):
        raise RayBackendError("RenderBackendError: the render actor's scores could not be read") from None
    result = cluster.enter(RenderJob(code, quality=options["quality"], geometry=True), data, payload)
    if bool(scores.rendered) != result.ok:
        raise RayBackendError(f"RenderBackendError: the render actor's scores and render disagree ({result.error_tail or 'rendered'})")
    return scores, result
