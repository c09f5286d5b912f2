"""Report figures as PNG files, drawn with matplotlib's object API (no pyplot state, no display)."""

from __future__ import annotations

from pathlib import Path

import numpy as np
from matplotlib.figure import Figure

from manimgen.bench.columns import metric_header
from manimgen.bench.store import Sample
from manimgen.bench.tables import Aggregate, group

PLOTS_DIR = "plots"
RSR_VS_NAME = "rsr_vs_by_strategy.png"
SCATTER_NAME = "code_vs_visual.png"
COST_NAME = "vs_by_llm_calls.png"


def _ordered(values: list[str]) -> list[str]:
    return list(dict.fromkeys(values))


def rsr_vs_bars(rows: list[Aggregate], image_embedders: list[str], path: Path) -> Path:
    """RSR and VS per strategy, one bar per model: the paper's main comparison at a glance."""
    models = _ordered([row.model for row in rows])
    strategies = _ordered([row.strategy for row in rows])
    by_config = {(row.model, row.strategy): row for row in rows}
    figure = Figure(figsize=(max(6.0, 1.6 * len(strategies) * max(1, len(models)) ** 0.5 + 3), 4.2), layout="constrained")
    axes = figure.subplots(1, 2, sharey=True)
    width = 0.8 / max(1, len(models))
    positions = np.arange(len(strategies))
    for ax, field, title in ((axes[0], "rsr", "RSR"), (axes[1], "vs", metric_header("vs", image_embedders, []))):
        for index, model in enumerate(models):
            values = [getattr(by_config.get((model, strategy)), field, None) or 0.0 for strategy in strategies]
            ax.bar(positions + (index - (len(models) - 1) / 2) * width, [100 * v for v in values], width, label=model)
        ax.set_xticks(positions, strategies)
        ax.set_title(title)
        ax.set_ylim(0, 100)
        ax.set_ylabel("%")
        ax.grid(axis="y", alpha=0.3)
    axes[1].legend(fontsize="small", loc="upper left")
    return _save(figure, path)


def code_vs_scatter(samples: list[Sample], image_embedders: list[str], code_embedders: list[str], path: Path) -> Path:
    """The code metric (CBB) against VS per sample, one panel per model, coloured by strategy."""
    measured = [sample for sample in samples if sample.status != "error"]
    models = _ordered([sample.model for sample in measured]) or ["(no samples)"]
    figure = Figure(figsize=(4.2 * len(models), 4.0), layout="constrained")
    axes = np.atleast_1d(figure.subplots(1, len(models), sharey=True, squeeze=False)[0])
    groups = group(measured)
    for ax, model in zip(axes, models):
        for (group_model, strategy), rows in groups.items():
            if group_model == model:
                ax.scatter([s.score("cbb") or 0.0 for s in rows], [s.score("vs") or 0.0 for s in rows], s=18, alpha=0.7, label=strategy)
        ax.set_title(model, fontsize="medium")
        ax.set_xlabel(metric_header("cbb", image_embedders, code_embedders))
        ax.set_xlim(0, 1)
        ax.set_ylim(-0.02, 1.02)
        ax.grid(alpha=0.3)
        if ax.has_data():
            ax.legend(fontsize="small")
    axes[0].set_ylabel(metric_header("vs", image_embedders, code_embedders))
    return _save(figure, path)


def vs_by_calls(rows: list[Aggregate], image_embedders: list[str], path: Path) -> Path:
    """VS against mean LLM calls per configuration, one line per model: what each strategy buys per call."""
    figure = Figure(figsize=(6.4, 4.4), layout="constrained")
    ax = figure.subplots()
    for model in _ordered([row.model for row in rows]):
        points = sorted(
            ((row.llm_calls, 100 * row.vs, row.strategy) for row in rows if row.model == model and row.llm_calls and row.vs is not None),
        )
        if not points:
            continue
        ax.plot([x for x, _, _ in points], [y for _, y, _ in points], marker="o", label=model)
        for x, y, strategy in points:
            ax.annotate(strategy, (x, y), textcoords="offset points", xytext=(4, 4), fontsize="x-small")
    ax.set_xlabel("mean LLM calls per task")
    ax.set_ylabel(f"{metric_header('vs', image_embedders, [])} (%)")
    ax.set_ylim(0, 100)
    ax.grid(alpha=0.3)
    if ax.has_data():
        ax.legend(fontsize="small")
    return _save(figure, path)


def _save(figure: Figure, path: Path) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    figure.savefig(path, dpi=110)
    return path
