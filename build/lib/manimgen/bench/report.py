"""`report.md`, `report.html`, `report.json` and `plots/` of a run directory, all from its store.

The main table is one row per (model, strategy); the same means split by task complexity; each
strategy against vanilla task by task (what its repairs fixed and broke, VS per LLM call); how each
code metric correlates with VS (Pearson and Spearman, with n and p); plots; and a gallery. The
paper's published numbers can be added as rows labelled as such, with a note whenever our
embedders are not the paper's (CLIP ViT-L/14, CodeBERT), since VS and CBB then differ in value.
"""

from __future__ import annotations

import json
from dataclasses import asdict, dataclass
from datetime import datetime
from pathlib import Path
from typing import Any

from manimgen.bench import html, plots
from manimgen.bench.columns import (
    MISSING,
    Column,
    metric_columns,
    metric_header,
    one_place,
    p_value,
    percent,
    score,
    signed,
    two_places,
)
from manimgen.bench.store import Sample, Session, Store
from manimgen.bench.tables import (
    PUBLISHED,
    Aggregate,
    BudgetRow,
    ConfigDelta,
    CorrelationRow,
    PairedGain,
    budget_table,
    compare,
    complexity_table,
    correlation_table,
    differs_from_paper,
    embedders,
    failure_table,
    main_table,
    paired_gains,
    spent_seconds,
)

Table = html.Table
COMPLEXITY_FIELDS = ("n", "rsr", "vs", "cbb", "codebleu", "ast_distance")
GAINS_HEADING = "Against vanilla (paired by task)"
BUDGET_HEADING = "Rendered within k generations (pass@k)"
FAILURES_HEADING = "Failures by kind"


@dataclass(frozen=True)
class ReportFiles:
    markdown: Path
    html: Path
    json: Path
    plots: list[Path]


def aggregate_table(rows: list[Aggregate], columns: list[Column], with_complexity: bool = False) -> Table:
    headers = ["model", "strategy", *(["complexity"] if with_complexity else []), *(column.header for column in columns)]
    show_errors = any(row.errors for row in rows)
    if show_errors:
        headers.append("errors")
    body = []
    for row in rows:
        cells = [row.model, row.strategy, *([row.complexity or ""] if with_complexity else [])]
        cells += [column.cell(row) for column in columns]
        body.append(cells + ([str(row.errors)] if show_errors else []))
    return headers, body


def published_rows(headers: list[str]) -> list[list[str]]:
    """The paper's rows under the main table's headers: only VS and RSR were published."""
    rows = []
    for row in PUBLISHED:
        cells = {"model": "published (paper)", "strategy": row.configuration, "n": "100", "RSR": percent(row.rsr)}
        vs_header = next((header for header in headers if header.startswith("VS")), None)
        if vs_header is not None:
            cells[vs_header] = percent(row.vs)
        rows.append([cells.get(header, MISSING) for header in headers])
    return rows


def correlations_table(rows: list[CorrelationRow], image_embedders: list[str], code_embedders: list[str]) -> Table:
    vs = metric_header("vs", image_embedders, code_embedders)
    headers = ["model", "strategy", f"code metric vs {vs}", "n", "Pearson r", "p", "Spearman ρ", "p"]
    body = [
        [
            row.model,
            row.strategy,
            metric_header(row.code_metric, image_embedders, code_embedders),
            str(row.pearson.n),
            signed(row.pearson.r),
            p_value(row.pearson.p),
            signed(row.spearman.r),
            p_value(row.spearman.p),
        ]
        for row in rows
    ]
    return headers, body


def gains_table(rows: list[PairedGain], image_embedders: list[str], code_embedders: list[str]) -> Table:
    vs = metric_header("vs", image_embedders, code_embedders)
    headers = [
        "model", "strategy", "n", "fixed", "broken", "RSR vanilla → strategy", f"{vs} vanilla → strategy",
        "LLM calls", "VS per call", "ΔVS per extra call", "seconds",
    ]
    body = [
        [
            row.model,
            row.strategy,
            str(row.n),
            str(row.fixed),
            str(row.broken),
            f"{percent(row.baseline.rsr)} → {percent(row.ours.rsr)}",
            f"{percent(row.baseline.vs)} → {percent(row.ours.vs)}",
            two_places(row.ours.llm_calls),
            score(row.vs_per_call),
            signed(row.vs_gain_per_extra_call),
            one_place(row.ours.seconds),
        ]
        for row in rows
    ]
    return headers, body


def budget_html_table(rows: list[BudgetRow]) -> Table:
    most = max((len(row.within) for row in rows), default=0)
    headers = ["model", "strategy", "n", *(f"k = {k}" for k in range(1, most + 1))]
    return headers, [[row.model, row.strategy, str(row.n), *(percent(value) for value in row.within)] for row in rows]


def failures_html_table(rows: list[tuple[str, str, dict[str, int]]]) -> Table:
    body = [[model, strategy, str(sum(kinds.values())), ", ".join(f"{kind} {count}" for kind, count in kinds.items())]
            for model, strategy, kinds in rows]
    return ["model", "strategy", "failed", "by kind (first static finding, else the render's error)"], body


def markdown_table(table: Table) -> str:
    headers, rows = table

    def line(cells: list[str]) -> str:
        return "| " + " | ".join(cell.replace("|", "\\|") for cell in cells) + " |"

    return "\n".join([line(headers), line(["---"] * len(headers)), *(line(row) for row in rows)])


def run_info(run_dir: Path, sessions: list[Session], samples: list[Sample]) -> list[str]:
    lines = [f"run directory: {run_dir.name}", f"samples: {len(samples)}"]
    agent_seconds = sum(spent_seconds(sample) for sample in samples)
    if agent_seconds:
        lines.append(
            f"agent time: {agent_seconds / 3600:.2f} h, the sum of the samples' seconds less the model calls they replayed "
            "from the generation cache (samples are generated one after another and scored alongside, so this is the "
            "run's wall time less model loading and pauses)"
        )
    if sessions:
        last = sessions[-1]
        config = last.config
        lines.append(
            f"{_task_source(config)}, seeds {config.get('seeds')}, quality {config.get('quality')}, "
            f"render timeout {config.get('render_timeout_s')} s, per-sample limit {config.get('time_limit_s')} s"
        )
        lines.append("versions: " + ", ".join(f"{name} {value}" for name, value in sorted(last.versions.items())))
        for session in sessions:
            end = (
                f"{session.status} {session.finished_at} ({_hours_between(session.started_at, session.finished_at)})"
                if session.finished_at else f"{session.status}, not finished"
            )
            message = f": {session.message}" if session.message else ""
            lines.append(f"session {session.id}: started {session.started_at}, {end}{message}")
    return lines


def _task_source(config: dict[str, Any]) -> str:
    """Where the run's tasks came from: a ManimBench split, or a file of sentences without references."""
    tasks_file = config.get("tasks_file")
    return f"tasks file {Path(tasks_file).name} (no references)" if tasks_file else f"split {config.get('split')}"


def _hours_between(started: str, finished: str) -> str:
    seconds = (datetime.fromisoformat(finished) - datetime.fromisoformat(started)).total_seconds()
    return f"{seconds / 3600:.2f} h"


def notes(samples: list[Sample], sessions: list[Session], paper_rows: bool) -> list[str]:
    images, codes = embedders(samples)
    presets = sorted({sample.score("preset") for sample in samples if sample.status != "error" and sample.scores is not None})
    found = [
        f"Metric preset {', '.join(presets) or MISSING} (docs/metrics.md); image embedder {', '.join(images) or MISSING} "
        f"and code embedder {', '.join(codes) or MISSING}; each metric's header names its embedder.",
        "RSR: share of samples whose final code rendered. VS = √(SSIM_DTW × SEM_DTW), 0 for a sample that did "
        "not render, averaged over all samples. CVS: what is drawn, where and in what colour, aligned over time "
        "(near 0 for unrelated scenes, 1 for the same; ours, not the paper's). ASTDist: lower is better. "
        "Repeated repairs: repair answers whose code is the code they were shown. Cut off: model answers that "
        "stopped at the token limit.",
    ]
    if paper_rows:
        if differs_from_paper(samples):
            found.append(
                "The published rows were measured with CLIP ViT-L/14 (VS) and CodeBERT (CBB); these results use "
                f"{', '.join(images) or MISSING} and {', '.join(codes) or MISSING}, so VS values are comparable in "
                "kind, not in value."
            )
        split = sessions[-1].config.get("split") if sessions else None
        if split != "test":
            found.append(f"The published rows are on the ManimBench test split (100 samples); this run used split {split}.")
    errors = sum(sample.status == "error" for sample in samples)
    if errors:
        found.append(f"{errors} samples raised in the agent or the scorer and are left out of the means; a rerun retries them.")
    return found


def write_report(run_dir: Path, *, paper_rows: bool = True) -> ReportFiles:
    """Write every report file of a run directory; returns their paths."""
    run_dir = Path(run_dir)
    with Store.open_existing(run_dir) as store:
        samples = store.samples(with_trace=True)
        tasks = store.tasks()
        sessions = store.sessions()
    images, codes = embedders(samples)
    main_rows = main_table(samples)
    columns = [column for column in metric_columns(images, codes) if any(row.value(column.field) is not None for row in main_rows)]
    main = aggregate_table(main_rows, columns)
    paper_rows = paper_rows and not (sessions and sessions[-1].config.get("tasks_file"))
    published_from = len(main[1]) if paper_rows else None
    if paper_rows:
        main = (main[0], main[1] + published_rows(main[0]))
    by_complexity = aggregate_table(
        complexity_table(samples), [column for column in columns if column.field in COMPLEXITY_FIELDS], with_complexity=True
    )
    correlation_rows = correlation_table(samples)
    gain_rows = paired_gains(samples)
    plot_dir = run_dir / plots.PLOTS_DIR
    plot_files = [
        plots.rsr_vs_bars(main_rows, images, plot_dir / plots.RSR_VS_NAME),
        plots.code_vs_scatter(samples, images, codes, plot_dir / plots.SCATTER_NAME),
        plots.vs_by_calls(main_rows, images, plot_dir / plots.COST_NAME),
    ]
    plot_paths = [path.relative_to(run_dir).as_posix() for path in plot_files]
    info = run_info(run_dir, sessions, samples)
    note_lines = notes(samples, sessions, paper_rows)
    title = f"manimgen study: {run_dir.name}"
    sections = [
        ("Main table", main),
        ("By complexity", by_complexity),
        (GAINS_HEADING, gains_table(gain_rows, images, codes)),
        (BUDGET_HEADING, budget_html_table(budget_table(samples))),
        (FAILURES_HEADING, failures_html_table(failure_table(samples))),
    ]
    if any(row.pearson.n for row in correlation_rows):
        sections.append(("Code ↔ visual correlation (per model × strategy)", correlations_table(correlation_rows, images, codes)))

    markdown = [f"# {title}", "", *(f"- {line}" for line in info), "", *(f"> {note}" for note in note_lines), ""]
    for heading, table in sections:
        markdown += [f"## {heading}", "", markdown_table(table), ""]
    markdown += ["## Plots", "", *(f"![{path}]({path})" for path in plot_paths), "", "Gallery: report.html", ""]
    markdown_path = run_dir / "report.md"
    markdown_path.write_text("\n".join(markdown), encoding="utf-8")

    html_sections = [(heading, table, published_from if heading == "Main table" else None) for heading, table in sections]
    page = html.page_html(title, info, note_lines, html_sections, plot_paths, html.gallery(run_dir, tasks, samples))
    html_path = run_dir / "report.html"
    html_path.write_text(page, encoding="utf-8")

    json_path = run_dir / "report.json"
    json_path.write_text(json.dumps(_report_data(main_rows, samples, correlation_rows, gain_rows), indent=2, allow_nan=False, default=str))
    return ReportFiles(markdown_path, html_path, json_path, plot_files)


def _report_data(
    main_rows: list[Aggregate], samples: list[Sample], correlation_rows: list[CorrelationRow], gain_rows: list[PairedGain]
) -> dict[str, Any]:
    """The tables' unrounded numbers, for anyone who wants to plot or test them."""

    def clean(value: Any) -> Any:
        if isinstance(value, float) and value != value:
            return None
        if isinstance(value, dict):
            return {key: clean(item) for key, item in value.items()}
        return value

    images, codes = embedders(samples)
    return {
        "image_embedders": images,
        "code_embedders": codes,
        "main": [clean(row.to_dict()) for row in main_rows],
        "by_complexity": [clean(row.to_dict()) for row in complexity_table(samples)],
        "correlations": [clean(asdict(row)) for row in correlation_rows],
        "against_vanilla": [
            clean({**asdict(row), "baseline": row.baseline.to_dict(), "ours": row.ours.to_dict(), "vs_per_call": row.vs_per_call, "vs_gain_per_extra_call": row.vs_gain_per_extra_call})
            for row in gain_rows
        ],
    }


@dataclass(frozen=True)
class Comparison:
    """Two runs' configurations side by side, over the (task, seed) pairs both hold."""

    deltas: list[ConfigDelta]
    only_a: list[str]
    only_b: list[str]
    embedders_a: tuple[list[str], list[str]]
    embedders_b: tuple[list[str], list[str]]

    @property
    def same_embedders(self) -> bool:
        return self.embedders_a == self.embedders_b


def compare_runs(run_a: Path, run_b: Path) -> Comparison:
    with Store.open_existing(run_a) as store_a, Store.open_existing(run_b) as store_b:
        samples_a, samples_b = store_a.samples(), store_b.samples()
    deltas, only_a, only_b = compare(samples_a, samples_b)
    return Comparison(deltas, only_a, only_b, embedders(samples_a), embedders(samples_b))
