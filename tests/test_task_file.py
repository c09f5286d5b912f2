"""Reference-free task files: the loader's one-line errors and a study over sentences without answers."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

import pytest
from typer.testing import CliRunner

from manimgen.agent import format_target
from manimgen.bench import BenchRunner
from manimgen.bench.config import parse_config
from manimgen.bench.report import write_report
from manimgen.bench.store import Store
from manimgen.cli import app
from manimgen.data import DatasetError, load_task_file, load_tasks
from manimgen.llm.scripted import ScriptedLLM

CIRCLE = "from manim import *\n\n\nclass Blue(Scene):\n    def construct(self):\n        self.play(Create(Circle(color=BLUE)), run_time=1)\n"
CRAMPED = (
    "from manim import *\n\n\nclass Words(Scene):\n    def construct(self):\n"
    "        self.add(Text('left'), Text('right').shift(0.3 * RIGHT))\n"
)
ROWS = [
    {"id": "circle", "description": "A blue circle is drawn.", "patterns": [r"Circle\(", r"for .* in"]},
    {"prompt": "Two words side by side.", "code": "an example answer, ignored"},
]


def write_rows(path: Path, rows: list[object]) -> Path:
    path.write_text("".join(json.dumps(row) + "\n" for row in rows))
    return path


def test_rows_become_tasks_without_references(tmp_path: Path) -> None:
    first, second = load_task_file(write_rows(tmp_path / "outside.jsonl", ROWS))
    assert (first.id, first.patterns, first.has_reference, first.split) == ("circle", (r"Circle\(", r"for .* in"), False, "file")
    assert (second.id, second.description, second.reference_code) == ("outside-2", "Two words side by side.", "")


@pytest.mark.parametrize(
    ("content", "message"),
    [
        (b'{"description": "ok"}\nnot json\n', r"tasks.jsonl:2 is not JSON"),
        (b'{"id": "a"}\n', r"tasks.jsonl:1 has no description \(or prompt\) text"),
        (b'{"description": "  "}\n', r"tasks.jsonl:1 has no description"),
        (b'["a list"]\n', r"tasks.jsonl:1 is not a JSON object"),
        (b'{"description": "x", "patterns": "Circle"}\n', r"patterns must be a list of regular expressions"),
        (b'{"description": "x", "patterns": ["(unclosed"]}\n', r"pattern '\(unclosed' is not a regular expression"),
        (b'{"id": "a", "description": "x"}\n{"id": "a", "description": "y"}\n', r"task id 'a' appears twice"),
        (b"\n\n", r"holds no tasks"),
        (b"\x89PNG\r\n\x1a\n\x00\xff", r"is not a UTF-8 text file"),
    ],
)
def test_a_bad_file_fails_with_its_line_and_the_fix(tmp_path: Path, content: bytes, message: str) -> None:
    path = tmp_path / "tasks.jsonl"
    path.write_bytes(content)
    with pytest.raises(DatasetError, match=message):
        load_task_file(path)


def test_the_cli_reports_a_bad_file_in_one_line(tmp_path: Path) -> None:
    bad = write_rows(tmp_path / "bad.jsonl", [{"id": "x"}])
    for target, expected in ((bad, "bad.jsonl:1 has no description"), (tmp_path / "absent.jsonl", "absent.jsonl does not exist")):
        result = CliRunner().invoke(
            app, ["bench", "run", "--out", str(tmp_path / "run"), "--models", "scripted", "--strategies", "vanilla",
                  "--tasks-file", str(target)], env={"COLUMNS": "300"},
        )
        assert result.exit_code == 2 and expected in result.output and "Traceback" not in result.output
        assert len(result.output.strip().splitlines()) == 1
    with pytest.raises(DatasetError, match="pass --tasks-file FILE.jsonl"):
        load_tasks("file")


def test_a_study_over_sentences_reports_renders_layout_and_patterns(tmp_path: Path) -> None:
    tasks_file = write_rows(tmp_path / "outside.jsonl", ROWS)
    run_dir = tmp_path / "run"
    llm = ScriptedLLM(format_target(CIRCLE), format_target(CRAMPED), name="fixed")
    config = parse_config({"out": run_dir, "models": ["fixed=scripted"], "strategies": ["vanilla"], "tasks_file": tasks_file})
    summary = BenchRunner(config, run_dir, llm_factory=lambda spec: llm, show_progress=False).run()
    assert summary.recorded == 2
    with Store.open_existing(run_dir) as store:
        samples = {sample.task_id: sample for sample in store.samples()}
        tasks = store.tasks()
    circle, words = samples["circle"], samples["outside-2"]
    assert circle.status == words.status == "ok"
    assert (circle.score("vs"), circle.score("cbb"), circle.score("reference_status")) == (None, None, "none")
    assert (circle.score("patterns_ok"), words.score("patterns_ok")) == (False, None), "no loop, so one pattern fails"
    assert circle.score("layout_findings") == 0 and words.score("layout_findings") >= 1
    assert (run_dir / circle.media_path).is_file() and tasks["circle"].reference_media is None
    write_report(run_dir)
    report = (run_dir / "report.md").read_text()
    header = next(line for line in report.splitlines() if line.startswith("| model"))
    row = next(line for line in report.splitlines() if line.startswith("| fixed"))
    cells = dict(zip([c.strip() for c in header.strip("|").split("|")], [c.strip() for c in row.strip("|").split("|")]))
    assert (cells["RSR"], cells["RSR, clean layout"], cells["patterns met"]) == ("100.0%", "50.0%", "0.0%")
    assert not any(key.startswith(("VS", "CodeBERTBLEU", "CodeBLEU")) for key in cells), "a study without references shows no comparing column"
    assert "tasks file outside.jsonl (no references), seeds [0]" in report
    assert "published (paper)" not in report, "the paper's rows are ManimBench test numbers"
    assert "Code ↔ visual" not in report, "no reference, so no code metric to correlate"
    assert "no reference: judged by its sentence" in (run_dir / "report.html").read_text()
    with sqlite3.connect(run_dir / "results.sqlite") as connection:
        assert connection.execute("SELECT COUNT(*) FROM samples WHERE vs IS NULL").fetchone()[0] == 2
