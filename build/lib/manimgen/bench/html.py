"""The offline HTML report: tables, plots and a gallery with reference and generated side by side.

The page is a Jinja2 template (bench/templates/report.html.j2, every value escaped); this module
gathers what it shows. Every file it points at is relative to the run directory (media/ and plots/),
and a link is only written for a file that exists, so the folder can be copied or archived and still
open anywhere. No script, font or stylesheet is fetched from the network.
"""

from __future__ import annotations

import difflib
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from jinja2 import Environment, PackageLoader, StrictUndefined

from manimgen.bench.store import Sample, TaskRow

Table = tuple[list[str], list[list[str]]]
TEMPLATES = Environment(loader=PackageLoader("manimgen.bench"), autoescape=True, undefined=StrictUndefined, keep_trailing_newline=True)

STYLE = """
body { font-family: system-ui, sans-serif; margin: 2em auto; max-width: 1400px; padding: 0 1em; color: #222; }
table.data { border-collapse: collapse; margin: 1em 0; font-size: 0.9em; }
table.data th, table.data td { border: 1px solid #ccc; padding: 0.25em 0.6em; text-align: right; }
table.data th:nth-child(-n+2), table.data td:nth-child(-n+2) { text-align: left; }
table.data tr.published td { color: #666; font-style: italic; }
.notes li { margin: 0.3em 0; }
.task { border-top: 2px solid #ddd; margin-top: 2em; padding-top: 0.5em; }
.row { display: flex; flex-wrap: wrap; gap: 1em; }
figure { margin: 0; width: 340px; }
figure video, figure img { width: 340px; border: 1px solid #ccc; background: #000; }
figcaption { font-size: 0.85em; margin-bottom: 0.3em; }
.placeholder { width: 340px; height: 191px; display: flex; align-items: center; justify-content: center;
  background: #f3f3f3; border: 1px dashed #bbb; color: #888; font-size: 0.9em; }
.ok { color: #17702a; } .fail { color: #b02020; }
pre { background: #f7f7f7; padding: 0.5em; overflow-x: auto; font-size: 0.8em; white-space: pre-wrap; }
table.diff { font-family: monospace; font-size: 0.78em; border-collapse: collapse; }
table.diff td { padding: 0 0.4em; vertical-align: top; white-space: pre-wrap; }
.diff_header { background: #eee; color: #888; } .diff_next { display: none; }
.diff_add { background: #d7f5d7; } .diff_chg { background: #fff1b8; } .diff_sub { background: #f8d0d0; }
details { margin: 0.4em 0; }
"""


def media(run_dir: Path, relative: str | None) -> dict[str, Any] | None:
    """A copied video or image to show, or None when there is none."""
    if not relative or not (run_dir / relative).is_file():
        return None
    return {"src": Path(relative).as_posix(), "image": relative.lower().endswith(".png")}


def _rounds(sample: Sample) -> list[dict[str, Any]]:
    """One entry per agent round: its kind, how its render ended, and the error it fed back."""
    rounds = sample.trace.rounds if sample.trace is not None else []
    return [
        {
            "index": round_.index,
            "kind": round_.kind,
            "status": round_.render.status.value if round_.render else "not rendered",
            "error": round_.render.error_tail if round_.render and not round_.render.ok else "",
        }
        for round_ in rounds
    ]


def _diff(reference: str, code: str | None) -> str | None:
    """difflib's HTML table of the two sources (it escapes them), or None without code."""
    if not code:
        return None
    differ = difflib.HtmlDiff(tabsize=4, wrapcolumn=90)
    return differ.make_table(reference.splitlines(), code.splitlines(), "reference", "generated", context=True, numlines=3)


def gallery(run_dir: Path, tasks: dict[str, TaskRow], samples: Sequence[Sample]) -> list[dict[str, Any]]:
    """Per task: description, reference and every generated sample, with its diff and rounds."""
    by_task: dict[str, list[Sample]] = {}
    for sample in samples:
        by_task.setdefault(sample.task_id, []).append(sample)
    shown = []
    for task_id in sorted(by_task):
        task = tasks.get(task_id)
        reference_code = task.reference_code if task else ""
        shown.append(
            {
                "id": task_id,
                "complexity": task.complexity if task else None,
                "description": task.description if task else None,
                "reference": media(run_dir, task.reference_media if task else None),
                "missing": "reference did not render" if reference_code.strip() else "no reference: judged by its sentence",
                "samples": [
                    {
                        "name": f"{sample.model} · {sample.strategy} · seed {sample.seed}",
                        "status": sample.status,
                        "vs": sample.score("vs"),
                        "media": media(run_dir, sample.media_path),
                        "error": sample.error,
                        "diff": _diff(reference_code, sample.final_code),
                        "rounds": _rounds(sample),
                    }
                    for sample in by_task[task_id]
                ],
            }
        )
    return shown


def page_html(
    title: str, run_info: list[str], notes: list[str], sections: list[tuple[str, Table, int | None]], plots: list[str], tasks: list[dict[str, Any]]
) -> str:
    """The whole report page; `sections` are (heading, table, the row where the paper's published rows start)."""
    return TEMPLATES.get_template("report.html.j2").render(
        title=title,
        style=STYLE,
        run_info=run_info,
        notes=notes,
        sections=[{"heading": heading, "headers": table[0], "rows": table[1], "published_from": start} for heading, table, start in sections],
        plots=plots,
        tasks=tasks,
    )
