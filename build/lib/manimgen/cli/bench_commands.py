"""Commands of the study: `manimgen bench run`, `report`, `export`, `import` and `compare`."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Optional

import typer
from rich.markup import escape
from rich.table import Table
from rich.text import Text

from manimgen.cli.app import app, console, fail
from manimgen.cli.choices import model_help, quality_help, split_help, strategy_help
from manimgen.extras import require

bench_app = typer.Typer(help="The study: models × strategies over a split, stored, reported and compared.", no_args_is_help=True)
app.add_typer(bench_app, name="bench")

RunDir = Annotated[Path, typer.Argument(help="a run directory written by `manimgen bench run`")]


@bench_app.command("run")
def bench_run(
    out: Annotated[Optional[Path], typer.Option(help="run directory, e.g. runs/NAME (resumed when it exists)")] = None,
    config: Annotated[Optional[Path], typer.Option(help="YAML run config; the options below override it")] = None,
    models: Annotated[Optional[str], typer.Option(help=f"comma-separated, each optionally LABEL=SPEC: {model_help()}")] = None,
    strategies: Annotated[Optional[str], typer.Option(help=f"comma-separated: {strategy_help()}")] = None,
    split: Annotated[Optional[str], typer.Option(help=split_help())] = None,
    limit: Annotated[Optional[int], typer.Option(help="only the first N tasks of the split")] = None,
    tasks: Annotated[Optional[str], typer.Option(help="comma-separated task ids")] = None,
    tasks_file: Annotated[Optional[Path], typer.Option(help="a JSON Lines file of sentences without references (instead of --split)")] = None,
    seed: Annotated[Optional[str], typer.Option(help="sampling seed, or comma-separated seeds")] = None,
    rounds: Annotated[Optional[int], typer.Option(help="feedback rounds K of the repair strategies")] = None,
    quality: Annotated[Optional[str], typer.Option(help=quality_help())] = None,
    time_limit: Annotated[Optional[float], typer.Option(help="seconds one sample's agent run may take (default 1800)")] = None,
    score_workers: Annotated[Optional[int], typer.Option(help="threads scoring while the model generates")] = None,
    ray: Annotated[Optional[str], typer.Option(help="render on the Ray cluster at this address (HOST:PORT or auto); docs/scale-out.md")] = None,
) -> None:
    """Run (or resume) the grid and store every sample under OUT; then `bench report OUT`."""
    require("bench")
    from manimgen.bench import BenchRunner, BenchStopped, ConfigError, StoreError
    from manimgen.bench.config import config_from_options, load_config
    from manimgen.data import DatasetError
    from manimgen.render.ray_backend import RayBackendError

    overrides = {
        "out": out, "models": models, "strategies": strategies, "split": split, "limit": limit, "tasks": tasks, "tasks_file": tasks_file,
        "seeds": seed, "rounds": rounds, "quality": quality, "time_limit_s": time_limit, "score_workers": score_workers,
        "ray": ray,
    }
    try:
        run_config = load_config(config, overrides) if config else config_from_options(overrides)
        if run_config.out is None:
            fail("say where results go: --out runs/NAME (or `out:` in the config)")
        summary = BenchRunner(run_config, run_config.out, console=console).run()
    except BenchStopped as stopped:
        console.print(Text.assemble(("stopped:", "red"), " ", str(stopped)), soft_wrap=True)
        raise typer.Exit(code=1) from None
    except (ConfigError, StoreError, DatasetError, RayBackendError) as error:
        fail(str(error))
    rsr = f"{summary.rsr:.1%}" if summary.rsr is not None else "-"
    console.print(Text(
        f"{summary.recorded} samples recorded, {summary.skipped} already stored, {summary.planned} in the grid; "
        f"RSR {rsr}; {summary.seconds:.0f} s. Report: manimgen bench report {summary.run_dir}"
    ))


@bench_app.command("report")
def bench_report(
    run_dir: RunDir,
    paper_rows: Annotated[bool, typer.Option("--paper-rows/--no-paper-rows", help="add the paper's published VS and RSR")] = True,
) -> None:
    """Write report.md, report.html (with the gallery), report.json and plots/ from the run's store."""
    require("bench")
    from manimgen.bench import StoreError
    from manimgen.bench.report import write_report

    try:
        files = write_report(run_dir, paper_rows=paper_rows)
    except StoreError as error:
        fail(str(error))
    console.print(Text(f"report: {files.markdown}, {files.html}, {files.json}; plots: {', '.join(str(p) for p in files.plots)}"))


@bench_app.command("export")
def bench_export(
    run_dir: RunDir,
    out: Annotated[Path, typer.Option(help="the file to write, e.g. results/NAME.jsonl.gz")],
    with_prompts: Annotated[bool, typer.Option("--with-prompts", help="keep the prompts and sentences (a run over a task file whose licence allows passing them on)")] = False,
) -> None:
    """Write the run's samples (scores, code, traces; no prompts, descriptions or media) to a portable file."""
    from manimgen.bench import StoreError
    from manimgen.bench.transfer import export_run

    try:
        count = export_run(run_dir, out, with_prompts=with_prompts)
    except StoreError as error:
        fail(str(error))
    console.print(Text(f"{count} samples written to {out}; merge them into a run with: manimgen bench import {out} --out RUN"))


@bench_app.command("import")
def bench_import(
    files: Annotated[list[Path], typer.Argument(help="files written by `manimgen bench export`")],
    out: Annotated[Path, typer.Option(help="the run directory to merge into (created when missing)")],
) -> None:
    """Merge exported samples into a run directory; samples it already holds are kept, so a rerun changes nothing."""
    from manimgen.bench import StoreError
    from manimgen.bench.transfer import import_runs

    try:
        summary = import_runs(files, out)
    except StoreError as error:
        fail(str(error))
    console.print(Text(f"{summary.imported} samples imported, {summary.already_stored} already stored in {out}"))


@bench_app.command("compare")
def bench_compare(run_a: RunDir, run_b: RunDir) -> None:
    """Per-configuration deltas (B − A) over the tasks and seeds both runs hold."""
    require("bench")
    from manimgen.bench import StoreError
    from manimgen.bench.columns import one_place, percent, signed, two_places
    from manimgen.bench.report import compare_runs
    from manimgen.scoring import arrow

    try:
        comparison = compare_runs(run_a, run_b)
    except StoreError as error:
        fail(str(error))
    table = Table(title=escape(f"{run_b} − {run_a}"))
    for column in ("model", "strategy", "n", "RSR A → B", "Δ RSR", "VS A → B", "Δ VS", "Δ CBB", "Δ AST dist", "rounds A → B", "seconds A → B"):
        table.add_column(column, justify="left" if column in ("model", "strategy") else "right")

    def delta(before: float | None, after: float | None, field: str | None = None) -> str:
        """The change, green when it is an improvement (the Scores schema says which way is better)."""
        if before is None or after is None:
            return "–"
        change = after - before
        gain = -change if field and arrow(field) == "↓" else change
        colour = "green" if gain > 0 else "red" if gain < 0 else "white"
        return f"[{colour}]{signed(change)}[/{colour}]"

    for row in comparison.deltas:
        a, b = row.before, row.after
        table.add_row(
            Text(row.model), Text(row.strategy), str(a.n),
            f"{percent(a.rsr)} → {percent(b.rsr)}", delta(a.rsr, b.rsr),
            f"{percent(a.vs)} → {percent(b.vs)}", delta(a.vs, b.vs, "vs"),
            delta(a.value("cbb"), b.value("cbb"), "cbb"), delta(a.value("ast_distance"), b.value("ast_distance"), "ast_distance"),
            f"{two_places(a.rounds)} → {two_places(b.rounds)}",
            f"{one_place(a.seconds)} → {one_place(b.seconds)}",
        )
    console.print(table)
    for name, only in (("A", comparison.only_a), ("B", comparison.only_b)):
        if only:
            console.print(Text(f"only in {name}: {', '.join(only)}"))
    if not comparison.same_embedders:
        console.print(
            f"[yellow]note:[/yellow] the runs were scored with different embedders "
            f"(A: {escape(str(comparison.embedders_a))}, B: {escape(str(comparison.embedders_b))}); "
            "VS and CBB deltas mix embedder and model changes"
        )
