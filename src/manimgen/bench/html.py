"""The offline HTML report: tables, plots and a gallery with reference and generated side by side.

Every file it points at is relative to the run directory (media/ and plots/), and a link is only
written for a file that exists, so the folder can be copied or archived and still open anywhere.
No script, font or stylesheet is fetched from the network.
"""

from __future__ import annotations

import difflib
import json
from collections.abc import Sequence
from html import escape
from pathlib import Path
from typing import Any

from manimgen.bench.store import Sample, TaskRow

Table = tuple[list[str], list[list[str]]]

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


def table_html(table: Table, published_from: int | None = None) -> str:
    headers, rows = table
    head = "".join(f"<th>{escape(header)}</th>" for header in headers)
    body = []
    for index, row in enumerate(rows):
        css = ' class="published"' if published_from is not None and index >= published_from else ""
        body.append(f"<tr{css}>" + "".join(f"<td>{escape(cell)}</td>" for cell in row) + "</tr>")
    return f'<table class="data"><thead><tr>{head}</tr></thead><tbody>{"".join(body)}</tbody></table>'


def media_html(run_dir: Path, relative: str | None, caption: str, missing: str) -> str:
    """A figure showing a copied video or image, or a placeholder when there is none."""
    if relative and (run_dir / relative).is_file():
        source = escape(Path(relative).as_posix())
        if relative.lower().endswith(".png"):
            element = f'<img src="{source}" alt="{escape(caption)}" loading="lazy">'
        else:
            element = f'<video src="{source}" controls loop muted preload="metadata"></video>'
    else:
        element = f'<div class="placeholder">{escape(missing)}</div>'
    return f"<figure><figcaption>{caption}</figcaption>{element}</figure>"


def _status_html(sample: Sample) -> str:
    css = "ok" if sample.status == "ok" else "fail"
    vs = f", VS {sample.score('vs'):.2f}" if sample.score("vs") is not None else ""
    return f'<span class="{css}">{escape(sample.status)}</span>{vs}'


def _sample_name(sample: Sample) -> str:
    return f"{sample.model} · {sample.strategy} · seed {sample.seed}"


def _rounds_html(trace_json: str | None) -> str:
    """One line per agent round: its kind, how its render ended, and the error it fed back."""
    if not trace_json:
        return ""
    rounds: list[dict[str, Any]] = json.loads(trace_json).get("rounds") or []
    items = []
    for number, round_ in enumerate(rounds):
        rendered = round_.get("render") or {}
        status = rendered.get("status", "not rendered")
        error = rendered.get("error_tail") if status != "ok" else ""
        detail = f"<pre>{escape(error)}</pre>" if error else ""
        items.append(f"<li>round {round_.get('index', number)} ({escape(str(round_.get('kind', '?')))}): {escape(status)}{detail}</li>")
    return f"<ol>{''.join(items)}</ol>" if items else ""


def _diff_html(reference: str, code: str | None) -> str:
    if not code:
        return "<p>no code was extracted from the model's answer</p>"
    differ = difflib.HtmlDiff(tabsize=4, wrapcolumn=90)
    return differ.make_table(reference.splitlines(), code.splitlines(), "reference", "generated", context=True, numlines=3)


def gallery_html(run_dir: Path, tasks: dict[str, TaskRow], samples: Sequence[Sample]) -> str:
    """Per task: description, reference and every generated sample side by side, then diffs and rounds."""
    by_task: dict[str, list[Sample]] = {}
    for sample in samples:
        by_task.setdefault(sample.task_id, []).append(sample)
    sections = []
    for task_id in sorted(by_task):
        task = tasks.get(task_id)
        task_samples = by_task[task_id]
        reference_code = task.reference_code if task else ""
        missing = "reference did not render" if reference_code.strip() else "no reference: judged by its sentence"
        figures = [media_html(run_dir, task.reference_media if task else None, "reference", missing)]
        details = []
        for sample in task_samples:
            caption = f"{escape(_sample_name(sample))}: {_status_html(sample)}"
            figures.append(media_html(run_dir, sample.media_path, caption, "no render"))
            error = f"<pre>{escape(sample.error)}</pre>" if sample.error else ""
            details.append(
                f"<details><summary>{escape(_sample_name(sample))}: code diff and rounds</summary>"
                f"{error}{_diff_html(reference_code, sample.final_code)}{_rounds_html(sample.trace_json)}</details>"
            )
        heading = f"{escape(task_id)} ({escape(task.complexity)})" if task else escape(task_id)
        description = f"<p>{escape(task.description)}</p>" if task else ""
        sections.append(
            f'<section class="task" id="task-{escape(task_id)}"><h3>{heading}</h3>{description}'
            f'<div class="row">{"".join(figures)}</div>{"".join(details)}</section>'
        )
    return "".join(sections)


def page_html(
    title: str, run_info: list[str], notes: list[str], sections: list[tuple[str, str]], plots: list[str], gallery: str
) -> str:
    """The whole report page; `sections` are (heading, html) pairs already rendered."""
    info = "".join(f"<li>{escape(line)}</li>" for line in run_info)
    note_items = "".join(f"<li>{escape(note)}</li>" for note in notes)
    body = "".join(f"<h2>{escape(heading)}</h2>{content}" for heading, content in sections)
    images = "".join(f'<p><img src="{escape(plot)}" alt="{escape(plot)}" style="max-width:100%"></p>' for plot in plots)
    return (
        f'<!doctype html><html lang="en"><head><meta charset="utf-8"><title>{escape(title)}</title>'
        f"<style>{STYLE}</style></head><body><h1>{escape(title)}</h1><ul>{info}</ul>"
        f'<ul class="notes">{note_items}</ul>{body}<h2>Plots</h2>{images}<h2>Gallery</h2>{gallery}</body></html>'
    )
