"""Check the visual metrics on ManimBench references before trusting them to judge models.

Three checks, for every image embedder this machine has (an unavailable one is reported with the
reason, not skipped silently):

a. each reference against itself must score VS = 1;
b. each reference against a different one (reference i against reference i+1 in split order, the
   last against the first) shows what unrelated scenes score;
c. discrimination: same-scene variants made by editing a reference's code (a colour constant
   swapped, the first mobject shifted by 0.4 units, the first run_time or wait stretched 1.5×, the
   first constant scale factor multiplied by 1.2; only variants that render and change the output)
   are scored against their reference as positives, the pairs of (b) are the negatives, and the ROC
   AUC of VS, SSIM_DTW, SEM_DTW and CVS says how well each separates them (0.5 is chance).

    python scripts/validate_metrics.py [--limit 10] [--variant-refs 50] [--out runs/metric-validation.json]

Renders go through the render cache, so references rendered before cost nothing.
"""

from __future__ import annotations

import ast
import json
import statistics
from collections import Counter
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Annotated, Any

import manim
import typer
from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn, TimeRemainingColumn
from rich.table import Table
from scipy.stats import mannwhitneyu

from manimgen.data import Task, load_tasks
from manimgen.metrics import EmbedderUnavailable
from manimgen.metrics.embedders import IMAGE_EMBEDDERS
from manimgen.render import RenderJob, RenderPool, RenderResult
from manimgen.scoring import Scorer, Scores

VISUAL_METRICS = ("vs", "ssim_dtw", "sem_dtw", "content_vs")
VISUAL_TITLES = ("VS", "SSIM_DTW", "SEM_DTW", "CVS")
CODE_METRICS = ("codebleu", "cbb", "ast_distance")
VARIANT_KINDS = ("colour", "shift", "timing", "scale")
COLOUR_RING = ("RED", "GREEN", "BLUE", "YELLOW", "ORANGE", "PURPLE", "TEAL", "PINK", "GOLD", "MAROON")
SHIFT = "0.4 * UP"
TIME_STRETCH = 1.5
SCALE_STRETCH = 1.2
SELF_TOLERANCE = 1e-9

console = Console()


@dataclass(frozen=True)
class Variant:
    task: Task
    kind: str
    code: str


@dataclass(frozen=True)
class Edit:
    """Replace the source between two (line, column) AST positions with new text."""

    start: tuple[int, int]
    end: tuple[int, int]
    text: str


def apply_edit(code: str, edit: Edit) -> str:
    """Splice an edit in; AST columns count UTF-8 bytes, so the splice works on bytes."""
    data = code.encode()
    line_starts = [0]
    for line in data.splitlines(keepends=True):
        line_starts.append(line_starts[-1] + len(line))
    begin = line_starts[edit.start[0] - 1] + edit.start[1]
    end = line_starts[edit.end[0] - 1] + edit.end[1]
    return (data[:begin] + edit.text.encode() + data[end:]).decode()


def replace_node(node: ast.AST, text: str) -> Edit:
    start = (node.lineno, node.col_offset)  # type: ignore[attr-defined]
    return Edit(start, (node.end_lineno, node.end_col_offset), text)  # type: ignore[attr-defined]


def in_source_order(tree: ast.AST) -> list[ast.AST]:
    located = [node for node in ast.walk(tree) if hasattr(node, "lineno")]
    return sorted(located, key=lambda node: (node.lineno, node.col_offset))  # type: ignore[attr-defined]


def number(node: ast.AST | None) -> float | None:
    if isinstance(node, ast.Constant) and isinstance(node.value, (int, float)) and not isinstance(node.value, bool):
        return float(node.value)
    return None


def recolour(code: str, tree: ast.Module) -> Edit | None:
    """The first colour constant (BLUE, RED_E, ...) becomes a colour three steps round the ring."""
    for node in in_source_order(tree):
        if isinstance(node, ast.Name) and node.id.split("_")[0] in COLOUR_RING:
            hue = COLOUR_RING.index(node.id.split("_")[0])
            return replace_node(node, COLOUR_RING[(hue + 3) % len(COLOUR_RING)])
    return None


def shift_first_mobject(code: str, tree: ast.Module) -> Edit | None:
    """The first mobject built by an assignment (``x = Circle(...)``) is shifted a little."""

    for node in in_source_order(tree):
        if not (isinstance(node, ast.Assign) and isinstance(node.value, ast.Call)):
            continue
        func = node.value.func
        cls = getattr(manim, func.id, None) if isinstance(func, ast.Name) else None
        if isinstance(cls, type) and issubclass(cls, manim.Mobject) and not issubclass(cls, manim.ValueTracker):
            return replace_node(node.value, f"{ast.get_source_segment(code, node.value)}.shift({SHIFT})")
    return None


def stretch_timing(code: str, tree: ast.Module) -> Edit | None:
    """The first constant ``run_time=`` (else the first ``self.wait(x)``) lasts 1.5× longer."""
    calls = [node for node in in_source_order(tree) if isinstance(node, ast.Call)]
    for call in calls:
        for keyword in call.keywords:
            seconds = number(keyword.value)
            if keyword.arg == "run_time" and seconds:
                return replace_node(keyword.value, f"{seconds * TIME_STRETCH:g}")
    for call in calls:
        if isinstance(call.func, ast.Attribute) and call.func.attr == "wait" and call.args and number(call.args[0]):
            return replace_node(call.args[0], f"{number(call.args[0]) * TIME_STRETCH:g}")
    return None


def rescale(code: str, tree: ast.Module) -> Edit | None:
    """The first ``.scale(<number>)`` scales 1.2× more."""
    for node in in_source_order(tree):
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "scale":
            factor = number(node.args[0]) if node.args else None
            if factor:
                return replace_node(node.args[0], f"{factor * SCALE_STRETCH:g}")
    return None


TRANSFORMS: dict[str, Callable[[str, ast.Module], Edit | None]] = {
    "colour": recolour,
    "shift": shift_first_mobject,
    "timing": stretch_timing,
    "scale": rescale,
}


def make_variants(tasks: Sequence[Task], per_task: int) -> list[Variant]:
    """Up to ``per_task`` variants per task; the kinds tried first rotate with the task's position."""
    variants = []
    for position, task in enumerate(tasks):
        tree = ast.parse(task.reference_code)
        kinds = VARIANT_KINDS[position % len(VARIANT_KINDS) :] + VARIANT_KINDS[: position % len(VARIANT_KINDS)]
        made = 0
        for kind in kinds:
            edit = TRANSFORMS[kind](task.reference_code, tree) if made < per_task else None
            if edit is not None:
                variants.append(Variant(task, kind, apply_edit(task.reference_code, edit)))
                made += 1
    return variants


def render_all(codes: Sequence[str], title: str, quality: str, workers: int | None) -> list[RenderResult]:
    with progress_bar() as progress, RenderPool(workers) as pool:
        bar = progress.add_task(title, total=len(codes))
        return pool.map([RenderJob(code, quality=quality) for code in codes], on_done=lambda *_: progress.advance(bar))


def progress_bar() -> Progress:
    columns = (TextColumn("[bold]{task.description}"), BarColumn(), MofNCompleteColumn())
    return Progress(*columns, TimeElapsedColumn(), TimeRemainingColumn(), console=console)


def auc(positives: Sequence[float], negatives: Sequence[float]) -> float | None:
    """ROC AUC as the Mann–Whitney U statistic over all (positive, negative) pairs; ties count half."""
    if not positives or not negatives:
        return None
    return float(mannwhitneyu(positives, negatives).statistic) / (len(positives) * len(negatives))


def summary(values: Iterable[float]) -> dict[str, float]:
    values = list(values)
    return {
        "mean": statistics.fmean(values),
        "median": statistics.median(values),
        "min": min(values),
        "max": max(values),
    }


def pair_record(kind: str, reference: Task, other: str, scores: Scores, video_pair: bool) -> dict[str, Any]:
    record = {"kind": kind, "reference": reference.id, "other": other, "video_pair": video_pair}
    record.update({metric: getattr(scores, metric) for metric in VISUAL_METRICS + CODE_METRICS})
    return record


def evaluate_embedder(
    name: str,
    tasks: Sequence[Task],
    renders: dict[str, RenderResult],
    variants: Sequence[tuple[Variant, RenderResult]],
    dtw: str | None,
    quality: str,
    preset: str,
) -> dict[str, Any]:
    """Checks (a)–(c) with one image embedder; the same pairs for every embedder."""
    try:
        scorer = Scorer(image_embedder=name, quality=quality, dtw=dtw, preset=preset)
    except EmbedderUnavailable as error:
        return {"available": False, "reason": str(error)}
    variants_of: dict[str, list[tuple[Variant, RenderResult]]] = {}
    for variant, result in variants:
        variants_of.setdefault(variant.task.id, []).append((variant, result))
    records: list[dict[str, Any]] = []
    with progress_bar() as progress:
        bar = progress.add_task(f"scoring with {name}", total=2 * len(tasks) + len(variants))
        for position, task in enumerate(tasks):
            own = renders[task.id]
            other = tasks[(position + 1) % len(tasks)]
            other_render = renders[other.id]
            pairs = [("self", task.id, task.reference_code, own)]
            pairs += [("different", other.id, other.reference_code, other_render)]
            pairs += [(f"variant:{v.kind}", task.id, v.code, result) for v, result in variants_of.get(task.id, [])]
            for kind, other_id, code, result in pairs:
                scores = scorer.score_task(task, code, render=result)
                records.append(pair_record(kind, task, other_id, scores, not own.is_image and not result.is_image))
                progress.advance(bar)
    return {"available": True, "reason": None, **figures(records), "pairs": records}


def figures(records: Sequence[dict[str, Any]]) -> dict[str, Any]:
    selves = [r for r in records if r["kind"] == "self"]
    different = [r for r in records if r["kind"] == "different"]
    positives = [r for r in records if r["kind"].startswith("variant:")]
    discrimination: dict[str, Any] = {"positives": len(positives), "negatives": len(different)}
    for subset, keep in (("all", lambda r: True), ("video_pairs", lambda r: r["video_pair"])):
        kept_pos, kept_neg = [r for r in positives if keep(r)], [r for r in different if keep(r)]
        discrimination[subset] = {
            "positives": len(kept_pos),
            "negatives": len(kept_neg),
            **{f"auc_{m}": auc([r[m] for r in kept_pos], [r[m] for r in kept_neg]) for m in VISUAL_METRICS},
        }
    by_kind = {}
    for kind in sorted({r["kind"] for r in positives}):
        chosen = [r for r in positives if r["kind"] == kind]
        means = {m: statistics.fmean(r[m] for r in chosen) for m in VISUAL_METRICS}
        by_kind[kind.removeprefix("variant:")] = {"count": len(chosen), **means}
    return {
        "self": {
            "pairs": len(selves),
            "vs_equal_one": sum(abs(r["vs"] - 1.0) <= SELF_TOLERANCE for r in selves),
            "min_vs": min(r["vs"] for r in selves),
        },
        "different": {m: summary(r[m] for r in different) for m in VISUAL_METRICS + CODE_METRICS},
        "variants": {m: summary(r[m] for r in positives) for m in VISUAL_METRICS} if positives else {},
        "variants_by_kind": by_kind,
        "discrimination": discrimination,
    }


def print_report(report: dict[str, Any]) -> None:
    for name, result in report["embedders"].items():
        if not result["available"]:
            console.print(f"[yellow]{name}: unavailable[/yellow] ({result['reason']})")
            continue
        selves = result["self"]
        console.print(
            f"[bold]{name}[/bold]: reference vs itself VS = 1 in {selves['vs_equal_one']}/{selves['pairs']}"
            f" (min {selves['min_vs']:.12f})"
        )
        table = Table(title=f"{name}: means (medians) by pair kind")
        table.add_column("pairs")
        for metric in VISUAL_TITLES:
            table.add_column(metric, justify="right")
        rows = [("different reference", result["different"]), ("variant", result["variants"])]
        for title, stats in rows:
            if stats:
                table.add_row(title, *(f"{stats[m]['mean']:.4f} ({stats[m]['median']:.4f})" for m in VISUAL_METRICS))
        for kind, stats in result["variants_by_kind"].items():
            table.add_row(f"  {kind} ×{stats['count']}", *(f"{stats[m]:.4f}" for m in VISUAL_METRICS))
        console.print(table)
        auc_table = Table(title=f"{name}: ROC AUC, variant vs its reference (+) against different references (−)")
        auc_table.add_column("pairs")
        for metric in VISUAL_TITLES:
            auc_table.add_column(metric, justify="right")
        for subset, stats in result["discrimination"].items():
            if isinstance(stats, dict):
                values = [stats[f"auc_{m}"] for m in VISUAL_METRICS]
                label = f"{subset} ({stats['positives']}+ / {stats['negatives']}−)"
                auc_table.add_row(label, *("n/a" if v is None else f"{v:.3f}" for v in values))
        console.print(auc_table)


def main(
    split: Annotated[str, typer.Option(help="task split whose references are checked")] = "test",
    limit: Annotated[int | None, typer.Option(help="check only the first N references")] = None,
    variant_refs: Annotated[int, typer.Option(help="make variants of the first N references")] = 50,
    variants_per_ref: Annotated[int, typer.Option(help="variants per reference (different kinds)")] = 2,
    preset: Annotated[str, typer.Option(help="metric preset: default or paper (frame sampling, DTW, AST labels)")] = "default",
    dtw: Annotated[str | None, typer.Option(help="exact or fastdtw (default: the preset's)")] = None,
    quality: Annotated[str, typer.Option(help="render quality")] = "low",
    workers: Annotated[int | None, typer.Option(help="parallel renders (default: one per core)")] = None,
    out: Annotated[Path, typer.Option(help="where to write the JSON report")] = Path("runs/metric-validation.json"),
) -> None:
    """Self, different-reference and variant checks of VS, SSIM_DTW and SEM_DTW on a task split."""
    tasks = load_tasks(split, limit=limit)
    if len(tasks) < 2:
        raise typer.BadParameter("need at least two references to pair them", param_hint="--limit")
    reference_renders = render_all([task.reference_code for task in tasks], "references", quality, workers)
    failed = [task.id for task, result in zip(tasks, reference_renders) if not result.ok]
    if failed:
        console.print(f"[yellow]left out {len(failed)} references that do not render: {', '.join(failed)}[/yellow]")
    renders = {task.id: result for task, result in zip(tasks, reference_renders) if result.ok}
    tasks = [task for task in tasks if task.id in renders]

    candidates = make_variants(tasks[:variant_refs], variants_per_ref)
    variant_renders = render_all([variant.code for variant in candidates], "variants", quality, workers)
    dropped: Counter[str] = Counter()
    variants = []
    for variant, result in zip(candidates, variant_renders):
        if not result.ok:
            dropped[f"{variant.kind}: {result.status.value}"] += 1
        elif result.output.read_bytes() == renders[variant.task.id].output.read_bytes():
            dropped[f"{variant.kind}: output unchanged"] += 1
        else:
            variants.append((variant, result))
    console.print(
        f"variants: {len(variants)} of {len(candidates)} made render and change the output;"
        f" dropped {dict(dropped) or 'none'}"
    )

    report = {
        "split": split,
        "quality": quality,
        "preset": preset,
        "dtw": dtw,
        "references": len(tasks),
        "reference_failures": failed,
        "different_pairing": "reference i against reference i+1 in split order (the last against the first)",
        "variants": {
            "references": min(variant_refs, len(tasks)),
            "made": len(candidates),
            "kept": len(variants),
            "kinds": dict(Counter(variant.kind for variant, _ in variants)),
            "dropped": dict(dropped),
        },
        "embedders": {
            name: evaluate_embedder(name, tasks, renders, variants, dtw, quality, preset) for name in IMAGE_EMBEDDERS
        },
    }
    print_report(report)
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps(report, indent=2))
    console.print(f"report: {out}")


if __name__ == "__main__":
    typer.run(main)
