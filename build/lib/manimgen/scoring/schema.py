"""The one schema of a sample's scores: its fields, their SQL column types, and the registered metric
behind each measured field, from which every label and direction arrow is derived.

The store makes a column of each field, the report averages each `shown` field into a column headed
with `label()` and `arrow()`, and `manimgen score` prints them; the Scorer computes any measured field
whose metric it does not compute itself from the registered function. Adding a score is adding a field
here, and the metric it reads (metrics/registry.py).
"""

from __future__ import annotations

from dataclasses import MISSING, asdict, dataclass, field, fields
from typing import Any, Literal

from manimgen.metrics.registry import Metric, get_metric

SqlType = str
Shown = Literal["percent", "score"]


def _score(sql: SqlType, metric: str | None = None, *, shown: Shown | None = None, title: str | None = None, **default: Any) -> Any:
    """A Scores field: its SQLite column type and, for a measured value, the registered metric's name.
    `shown` makes it a column of the report's tables (the mean over a configuration's samples, as a
    percentage or a score), headed by `title` or else by the metric's label. A field added after
    stores were written takes a `default`, which older stored scores read as."""
    return field(metadata={"sql": sql, "metric": metric, "shown": shown, "title": title}, **default)


@dataclass
class Scores:
    """Every metric of one generated code against its reference, and what produced them. Against no
    reference (a task file's task) the comparing metrics are None and the embedders empty."""

    render_status: str = _score("TEXT")
    rendered: bool = _score("INTEGER")
    vs: float | None = _score("REAL", "vs", shown="percent")
    ssim_dtw: float | None = _score("REAL", "ssim_dtw")
    sem_dtw: float | None = _score("REAL", "sem_dtw")
    codebleu: float | None = _score("REAL", "codebleu", shown="score")
    code_cosine: float | None = _score("REAL", "embedding_cosine", shown="score")
    cbb: float | None = _score("REAL", "cbb", shown="score")
    ast_distance: float | None = _score("REAL", "ast_distance", shown="score")  # None when the scorer skips it (the GRPO reward)
    syntax_error: bool = _score("INTEGER", "syntax_error")
    image_embedder: str = _score("TEXT")
    code_embedder: str = _score("TEXT")
    dtw: str = _score("TEXT")
    reference_status: str = _score("TEXT")
    layout_findings: int | None = _score("INTEGER", default=None)  # of the rendered code; None: not rendered or unknown
    patterns_ok: bool | None = _score("INTEGER", shown="percent", title="patterns met", default=None)  # the code matches its task's patterns; None: the task has none
    content_vs: float | None = _score("REAL", "content_vs", shown="percent", default=None)  # CVS; None in scores stored before it existed
    preset: str = _score("TEXT", default="default")  # the metric preset (scoring/presets.py) the values were computed with
    requirements_held: float | None = _score("REAL", shown="percent", title="requirements held", default=None)  # share of the sentence's verifiable requirements the render holds; None: none verifiable
    all_held: bool | None = _score("INTEGER", shown="percent", title="all held", default=None)  # every verifiable requirement holds; None: none verifiable
    sentence_held: bool | None = _score("INTEGER", shown="percent", title="whole sentence held", default=None)  # all held and no part of the sentence left unchecked

    def label(self, name: str) -> str:
        """The metric's display name with the embedder behind it, e.g. ``VS[effnet-lite0]``."""
        return metric_label(name, self.image_embedder, self.code_embedder)

    def labels(self) -> dict[str, str]:
        return {name: self.label(name) for name in METRIC_FIELDS}

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Scores:
        required = [item.name for item in fields(cls) if item.default is MISSING]
        missing = [name for name in required if name not in data]
        if missing:
            raise ValueError(f"scores lack {', '.join(missing)}: pass a dict written by Scores.to_dict")
        return cls(**{name: data[name] for name in SCORE_COLUMNS if name in data})


SCORE_COLUMNS: dict[str, SqlType] = {item.name: item.metadata["sql"] for item in fields(Scores)}
"""Each field's SQLite column type, in field order."""

METRIC_FIELDS: dict[str, str] = {item.name: item.metadata["metric"] for item in fields(Scores) if item.metadata["metric"]}
"""Each measured field and the registered metric whose title, embedder kind and direction it takes."""

SHOWN_FIELDS: dict[str, tuple[Shown, str | None]] = {item.name: (item.metadata["shown"], item.metadata["title"]) for item in fields(Scores) if item.metadata["shown"]}
"""Each field the report averages into a column: how its mean is written, and its title (None: the metric's label)."""


def metric_label(name: str, image_embedder: str | None, code_embedder: str | None) -> str:
    """A measured field's display name with the embedder(s) behind it ("a/b" for several), e.g. ``VS[effnet-lite0]``."""
    registered = _metric_of(name)
    embedder = {"image": image_embedder, "code": code_embedder}.get(registered.embedder_kind or "")
    return get_metric(f"{registered.name}[{embedder}]").label if embedder else registered.label


def arrow(name: str) -> str:
    """"↑" when a higher value of the measured field is better, "↓" when lower is."""
    return "↑" if _metric_of(name).higher_is_better else "↓"


def _metric_of(name: str) -> Metric:
    """The registered metric behind a measured field; any other name is refused naming the fields."""
    if name not in METRIC_FIELDS:
        raise ValueError(f"unknown score {name!r}; choose one of: {', '.join(METRIC_FIELDS)}")
    return get_metric(METRIC_FIELDS[name])
