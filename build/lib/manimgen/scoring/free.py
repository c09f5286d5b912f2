"""Scores of generated code for a task without a reference: what can be known from the code and its
render alone (did it render, does the rendered code match the task's patterns); the comparing metrics
are None."""

from __future__ import annotations

import re

from manimgen.metrics.code import syntax_error
from manimgen.render import RenderResult
from manimgen.scoring.schema import Scores

NO_REFERENCE = "none"


def reference_free_scores(code: str | None, result: RenderResult | None, patterns: tuple[str, ...]) -> Scores:
    """Scores of `code` (rendered as `result`) for a task whose only measure is its own sentence."""
    text = code if code and code.strip() else ""
    rendered = bool(text) and result is not None and result.ok and result.output is not None
    return Scores(
        render_status=result.status.value if text and result is not None else "no_code",
        rendered=rendered,
        vs=None,
        ssim_dtw=None,
        sem_dtw=None,
        codebleu=None,
        code_cosine=None,
        cbb=None,
        ast_distance=None,
        syntax_error=syntax_error(text),
        image_embedder="",
        code_embedder="",
        dtw="",
        reference_status=NO_REFERENCE,
        patterns_ok=(rendered and all(re.search(pattern, text) for pattern in patterns)) if patterns else None,
    )
