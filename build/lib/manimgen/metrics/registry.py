"""Named metrics, so the bench and reports can ask for them by name.

A metric compares a reference with a candidate: two code strings (``inputs="code"``) or two frame
arrays (``inputs="frames"``). Metrics built on an embedder take a name in brackets to choose it,
and their label says which one produced the numbers: ``get_metric("cbb[codebert]").label`` is
``"CBB[codebert]"``; without brackets the metric's default embedder is used.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, replace
from typing import Any, Literal, TypeVar

from manimgen.registry import Registry

Inputs = Literal["code", "frames"]
EmbedderKind = Literal["image", "code"]
MetricFn = TypeVar("MetricFn", bound=Callable[..., Any])

_NAME_WITH_EMBEDDER = re.compile(r"^(?P<name>[a-z0-9_]+)(\[(?P<embedder>[A-Za-z0-9_.\-/]+)\])?$")


@dataclass(frozen=True)
class Metric:
    """One registered metric; calling it scores (reference, candidate)."""

    name: str
    fn: Callable[..., Any]
    inputs: Inputs
    title: str
    higher_is_better: bool = True
    embedder_kind: EmbedderKind | None = None
    embedder: str | None = None

    @property
    def label(self) -> str:
        return f"{self.title}[{self.embedder}]" if self.embedder else self.title

    def __call__(self, reference: Any, candidate: Any, **options: Any) -> float:
        if self.embedder:
            options.setdefault("embedder", self.embedder)
        return float(self.fn(reference, candidate, **options))


METRICS: Registry[Metric] = Registry("metric")


def register_metric(
    name: str,
    *,
    inputs: Inputs,
    title: str | None = None,
    higher_is_better: bool = True,
    embedder_kind: EmbedderKind | None = None,
    default_embedder: str | None = None,
) -> Callable[[MetricFn], MetricFn]:
    """Decorator: register ``fn(reference, candidate, **options)`` under ``name``."""
    if not _NAME_WITH_EMBEDDER.match(name) or "[" in name:
        raise ValueError(f"metric name {name!r} must be lowercase letters, digits and underscores")
    if (embedder_kind is None) != (default_embedder is None):
        raise ValueError(f"metric {name!r}: give both embedder_kind and default_embedder, or neither")

    def register(fn: MetricFn) -> MetricFn:
        if name in METRICS and METRICS[name].fn is not fn:
            raise ValueError(f"metric {name!r} is already registered")
        metric = Metric(
            name=name, fn=fn, inputs=inputs, title=title or name, higher_is_better=higher_is_better, embedder_kind=embedder_kind, embedder=default_embedder
        )
        METRICS.add(name, metric, metric.title)
        return fn

    return register


def get_metric(spec: str) -> Metric:
    """The metric named ``spec``, e.g. ``"codebleu"``, ``"vs"`` or ``"vs[clip-vit-l-14]"``."""
    match = _NAME_WITH_EMBEDDER.match(spec.strip())
    metric = METRICS.pick(match["name"] if match else spec)
    embedder = match["embedder"]
    if embedder is None:
        return metric
    if metric.embedder_kind is None:
        raise ValueError(f"metric {metric.name!r} uses no embedder; drop the [{embedder}] suffix")
    return replace(metric, embedder=embedder)


def list_metrics(inputs: Inputs | None = None) -> list[str]:
    """Names of the registered metrics, optionally only those over code or over frames."""
    return sorted(name for name, metric in METRICS.items() if inputs in (None, metric.inputs))
