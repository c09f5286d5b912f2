"""How report tables name and format their columns, shared by the Markdown, HTML and terminal views.

Metric headers come from the Scores schema and the metric registry with the embedder that produced
the numbers, e.g. `VS[effnet-lite0]`, and an arrow where lower is better, so a table never passes off an offline embedder's numbers as the paper's.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from manimgen.bench.tables import SHOWN, Aggregate, is_number
from manimgen.scoring.schema import SHOWN_FIELDS, arrow, metric_label

MISSING = "–"


def percent(value: float | None) -> str:
    return f"{value:.1%}" if is_number(value) else MISSING


def score(value: float | None) -> str:
    return f"{value:.3f}" if is_number(value) else MISSING


def two_places(value: float | None) -> str:
    return f"{value:.2f}" if is_number(value) else MISSING


def whole(value: float | None) -> str:
    return f"{value:.0f}" if is_number(value) else MISSING


def one_place(value: float | None) -> str:
    return f"{value:.1f}" if is_number(value) else MISSING


def signed(value: float | None, places: int = 3) -> str:
    return f"{value:+.{places}f}" if is_number(value) else MISSING


def p_value(value: float | None) -> str:
    if not is_number(value):
        return MISSING
    return "<0.001" if value < 0.001 else f"{value:.3f}"


def metric_header(field: str, image_embedders: list[str], code_embedders: list[str]) -> str:
    """The label of a Scores field over a table's rows, naming every embedder behind them; lower-is-better
    metrics carry "↓" (higher is the default a reader assumes)."""
    label = metric_label(field, "/".join(image_embedders) or None, "/".join(code_embedders) or None)
    return f"{label} ↓" if arrow(field) == "↓" else label


@dataclass(frozen=True)
class Column:
    header: str
    field: str
    format: Callable[[float | None], str]

    def cell(self, row: Aggregate) -> str:
        return self.format(row.value(self.field))


def metric_columns(image_embedders: list[str], code_embedders: list[str]) -> list[Column]:
    """The main table's numeric columns, in the order the paper discusses them."""

    def label(field: str) -> str:
        return metric_header(field, image_embedders, code_embedders)

    formats = {"percent": percent, "score": score}
    shown = [Column(SHOWN_FIELDS[name][1] or label(name), name, formats[SHOWN_FIELDS[name][0]]) for name in SHOWN]
    return [
        Column("n", "n", whole),
        Column("RSR", "rsr", percent),
        Column("RSR, clean layout", "clean_rsr", percent),
        *shown,
        Column("rounds", "rounds", two_places),
        Column("LLM calls", "llm_calls", two_places),
        Column("repeated repairs", "repeated_repairs", percent),
        Column("cut off", "cut_off", percent),
        Column("tokens", "tokens", whole),
        Column("seconds", "seconds", one_place),
    ]
