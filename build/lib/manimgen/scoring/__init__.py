"""Scoring: renders generated and reference code, joins the pure metrics over their frames and
sources, and defines the one `Scores` schema the store, the report and the CLI derive from."""

from manimgen.scoring.schema import METRIC_FIELDS, SCORE_COLUMNS, Scores, arrow, metric_label
from manimgen.scoring.scorer import ReferenceRenderError, Scorer

__all__ = ["METRIC_FIELDS", "SCORE_COLUMNS", "ReferenceRenderError", "Scorer", "Scores", "arrow", "metric_label"]
