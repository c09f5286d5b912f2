"""The study runner, store and report on a small real grid.

The model is the scripted provider (its answers are fixed so that the outcome of each sample is
known); prompts, extraction, every render, every metric, the store and the report are the real
ones. The command-line tests start `python -m manimgen.cli` as a separate process, reaching the
scripted model through a `py:MODULE:FUNCTION` spec.
"""

from __future__ import annotations

import importlib.metadata
import json
import os
import re
import signal
import sqlite3
import subprocess
import sys
import textwrap
import time
from collections.abc import Iterator
from dataclasses import fields, replace
from pathlib import Path

import pytest
from counting_renderer import CountingRenderer
from typer.testing import CliRunner

from manimgen.agent import Round, Trace, format_target
from manimgen.bench import BenchRunner, ConfigError, RunConfig, Sample, Store, StoreError
from manimgen.bench.config import ModelEntry, load_config, parse_config
from manimgen.bench.generations import CACHE_NAME
from manimgen.bench.report import compare_runs, run_info, write_report
from manimgen.bench.runner import plan
from manimgen.bench.store import exclusive
from manimgen.cli import app
from manimgen.data import load_tasks
from manimgen.llm.scripted import ScriptedLLM
from manimgen.render import RenderResult, RenderStatus
from manimgen.scoring import SCORE_COLUMNS, Scores

REPO = Path(__file__).resolve().parents[1]

GOOD = """from manim import *


class BlueCircle(Scene):
    def construct(self):
        self.play(Create(Circle(color=BLUE)), run_time=1)
"""
BROKEN = """from manim import *


class Broken(Scene):
    def construct(self):
        self.play(Create(NoSuchMobject()))
"""
TASKS = ["circle-to-square", "three-dots"]

# Answers in the order the grid asks (model-major, then strategy, task, seed); every strategy's
# first call repeats vanilla's (same messages, same seed), so it is replayed from the generation cache:
#   vanilla/circle-to-square: good                               -> ok, 1 round
#   vanilla/three-dots:       broken                             -> render_failed, 1 round
#   ritl/circle-to-square:    (good, replayed)                   -> ok, 1 round
#   ritl/three-dots:          (broken, replayed), no code, good  -> ok, 3 rounds
ANSWERS = [format_target(GOOD), format_target(BROKEN), "I cannot.", format_target(GOOD)]

MAIN_FIELDS_BY_FORMAT = {  # format -> report header prefix -> SQL expression over the config's rows
    "{:.0f}": {"n": "COUNT(*)", "tokens": "AVG(prompt_tokens + completion_tokens)"},
    "{:.1%}": {"RSR": "AVG(rendered)", "RSR, clean layout": "AVG(CASE WHEN rendered THEN layout_findings = 0 ELSE 0 END)", "VS[": "AVG(vs)"},
    "{:.3f}": {"CBB[": "AVG(cbb)", "CodeBLEU": "AVG(codebleu)", "COS[": "AVG(code_cosine)", "ASTDist": "AVG(ast_distance)"},
    "{:.2f}": {"rounds": "AVG(rounds)", "LLM calls": "AVG(llm_calls)"},
    "{:.1f}": {"seconds": "AVG(seconds)"},
}
MAIN_FIELDS = {prefix: (sql, form) for form, fields in MAIN_FIELDS_BY_FORMAT.items() for prefix, sql in fields.items()}


def grid_config(out: Path, **changes: object) -> RunConfig:
    data = {"out": out, "models": ["fixed=scripted"], "strategies": ["vanilla", "ritl"], "split": "builtin", "tasks": TASKS}
    return parse_config({**data, **changes})


@pytest.fixture(scope="module")
def grid(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Path, ScriptedLLM]]:
    run_dir = tmp_path_factory.mktemp("bench") / "grid"
    llm = ScriptedLLM(*ANSWERS, name="fixed")
    summary = BenchRunner(grid_config(run_dir), run_dir, llm_factory=lambda spec: llm, show_progress=False).run()
    assert summary.recorded == 4 and summary.skipped == 0
    write_report(run_dir)
    yield run_dir, llm


def markdown_section(text: str, heading: str) -> tuple[list[str], list[list[str]]]:
    """The header and rows of the Markdown table under `## heading`."""
    lines = text.split(f"## {heading}\n", 1)[1].split("\n## ", 1)[0].strip().splitlines()
    rows = [[cell.strip() for cell in line.strip("|").split(" | ")] for line in lines if line.startswith("|")]
    return rows[0], rows[2:]


def test_grid_outcomes_are_stored(grid: tuple[Path, ScriptedLLM]) -> None:
    run_dir, llm = grid
    assert llm.remaining == 0 and llm.closed
    with Store.open_existing(run_dir) as store:
        samples = {(s.strategy, s.task_id): s for s in store.samples(with_trace=True)}
        tasks = store.tasks()
        sessions = store.sessions()
    assert {key: (s.status, s.rounds) for key, s in samples.items()} == {
        ("vanilla", "circle-to-square"): ("ok", 1),
        ("vanilla", "three-dots"): ("render_failed", 1),
        ("ritl", "circle-to-square"): ("ok", 1),
        ("ritl", "three-dots"): ("ok", 3),
    }
    assert len(llm.calls) == 4
    for task in TASKS:
        vanilla_first, ritl_first = (json.loads(samples[(strategy, task)].trace_json)["rounds"][0] for strategy in ("vanilla", "ritl"))
        assert (vanilla_first["cached"], ritl_first["cached"]) == (False, True)
        assert ritl_first["completion"] == vanilla_first["completion"]
        assert 0 < ritl_first["llm_seconds"] <= vanilla_first["llm_seconds"], "the original call's time, cache write excluded"
    failed = samples[("vanilla", "three-dots")]
    assert failed.score("render_status") == "code_error" and failed.score("vs") == 0.0 and failed.media_path is None
    assert "NoSuchMobject" in json.loads(failed.trace_json)["rounds"][0]["render"]["error_tail"]
    for sample in samples.values():
        assert sample.score("image_embedder") and sample.score("code_embedder") and sample.model_spec == "scripted"
        if sample.status == "ok":
            assert 0.0 < sample.score("vs") <= 1.0 and (run_dir / sample.media_path).is_file()
            assert sample.score("layout_findings") == 0, "the layout of every rendered final code is checked"
        else:
            assert sample.score("layout_findings") is None
    assert all(task.reference_status == "ok" and (run_dir / task.reference_media).is_file() for task in tasks.values())
    assert sorted(tasks) == sorted(TASKS) and len(list((run_dir / "media" / "references").iterdir())) == 2
    assert (sessions[0].status, sessions[0].planned) == ("finished", 4)
    assert sessions[0].versions["manim"] == importlib.metadata.version("manim")
    with sqlite3.connect(run_dir / "results.sqlite") as connection:
        connection.row_factory = sqlite3.Row
        for row in connection.execute("SELECT * FROM samples"):
            assert {name: row[name] for name in SCORE_COLUMNS} == {
                name: int(value) if isinstance(value, bool) else value for name, value in json.loads(row["scores_json"]).items()
            }


def test_report_main_table_matches_the_store(grid: tuple[Path, ScriptedLLM]) -> None:
    run_dir, _ = grid
    headers, rows = markdown_section((run_dir / "report.md").read_text(), "Main table")
    ours = [row for row in rows if row[0] == "fixed"]
    assert [row[1] for row in ours] == ["vanilla", "ritl"]
    assert [row[0] for row in rows if row[0] != "fixed"] == ["published (paper)"] * 3
    connection = sqlite3.connect(run_dir / "results.sqlite")
    checked = 0
    for row in ours:
        for prefix, (expression, form) in MAIN_FIELDS.items():
            column = next(i for i, header in enumerate(headers) if header.startswith(prefix))
            (value,) = connection.execute(f"SELECT {expression} FROM samples WHERE strategy = ?", (row[1],)).fetchone()
            assert row[column] == form.format(value), (row[1], headers[column])
            checked += 1
    assert checked == 2 * len(MAIN_FIELDS)
    assert any(header.startswith("VS[") and header.endswith("]") for header in headers)
    vanilla_rsr = next(row for row in ours if row[1] == "vanilla")[headers.index("RSR")]
    assert vanilla_rsr == "50.0%"
    repeated = {row[1]: row[headers.index("repeated repairs")] for row in ours}
    assert repeated == {"vanilla": "–", "ritl": "0.0%"}, "ritl's two repairs: no code, then new code"
    assert {row[1]: row[headers.index("cut off")] for row in ours} == {"vanilla": "0.0%", "ritl": "0.0%"}


def test_report_complexity_and_correlation_tables(grid: tuple[Path, ScriptedLLM]) -> None:
    run_dir, _ = grid
    text = (run_dir / "report.md").read_text()
    _, by_complexity = markdown_section(text, "By complexity")
    assert {(row[1], row[2], row[3]) for row in by_complexity} == {("vanilla", "Basic", "2"), ("ritl", "Basic", "2")}
    headers, correlations = markdown_section(text, "Code ↔ visual correlation (per model × strategy)")
    assert headers[3:] == ["n", "Pearson r", "p", "Spearman ρ", "p"]
    assert len(correlations) == 8 and {row[3] for row in correlations} == {"2"}
    data = json.loads((run_dir / "report.json").read_text())
    assert [(row["strategy"], row["rsr"]) for row in data["main"]] == [("vanilla", 0.5), ("ritl", 1.0)]
    assert all(row["pearson"]["r"] is None for row in data["correlations"])  # two samples: undefined, not a number
    assert "CLIP ViT-L/14" in text  # our embedders are not the paper's: the report says so
    for plot in ("rsr_vs_by_strategy.png", "code_vs_visual.png", "vs_by_llm_calls.png"):
        assert (run_dir / "plots" / plot).read_bytes().startswith(b"\x89PNG")


def test_report_counts_renders_within_each_budget_of_generations(grid: tuple[Path, ScriptedLLM]) -> None:
    run_dir, _ = grid
    headers, rows = markdown_section((run_dir / "report.md").read_text(), "Rendered within k generations (pass@k)")
    assert headers == ["model", "strategy", "n", "k = 1", "k = 2", "k = 3"]
    assert rows == [["fixed", "vanilla", "2", "50.0%", "50.0%", "50.0%"], ["fixed", "ritl", "2", "50.0%", "50.0%", "100.0%"]]


def test_report_counts_failures_by_kind(grid: tuple[Path, ScriptedLLM]) -> None:
    run_dir, _ = grid
    headers, rows = markdown_section((run_dir / "report.md").read_text(), "Failures by kind")
    assert rows == [["fixed", "vanilla", "1", "lint:unknown-name 1"]]


def test_failure_kinds_name_the_render_error_when_the_lint_finds_nothing() -> None:
    from manimgen.bench.tables import failure_kind

    failed = RenderResult(RenderStatus.CODE_ERROR, None, None, "Traceback ...\nZeroDivisionError: division by zero", "low", 1.0)
    trace = Trace(strategy="s", model="m", description="", final_render=failed)
    base = dict(model="m", strategy="s", task_id="t", seed=0, model_spec="m", strategy_name="s", strategy_params="{}",
                quality="low", complexity="Basic", trace_json=trace.to_json())
    assert failure_kind(Sample(**base, status="render_failed", final_code=GOOD.replace("run_time=1", "run_time=1 / 0"))) == "code_error:ZeroDivisionError"
    assert failure_kind(Sample(**base, status="render_failed", final_code=BROKEN)) == "lint:unknown-name"
    assert failure_kind(Sample(**base, status="timeout", final_code=GOOD)) == "time limit"
    assert failure_kind(Sample(**base, status="no_code", final_code=None)) == "no code"


def test_report_pairs_each_strategy_with_vanilla(grid: tuple[Path, ScriptedLLM]) -> None:
    run_dir, _ = grid
    headers, rows = markdown_section((run_dir / "report.md").read_text(), "Against vanilla (paired by task)")
    (ritl,) = rows
    cells = dict(zip(headers, ritl))
    assert (cells["strategy"], cells["n"], cells["fixed"], cells["broken"]) == ("ritl", "2", "1", "0")
    assert cells["RSR vanilla → strategy"] == "50.0% → 100.0%" and cells["LLM calls"] == "2.00"
    connection = sqlite3.connect(run_dir / "results.sqlite")
    vs = dict(connection.execute("SELECT strategy, AVG(vs) FROM samples GROUP BY strategy").fetchall())
    assert cells["VS per call"] == f"{vs['ritl'] / 2:.3f}"
    assert cells["ΔVS per extra call"] == f"{vs['ritl'] - vs['vanilla']:+.3f}"  # one extra call on average
    (data,) = json.loads((run_dir / "report.json").read_text())["against_vanilla"]
    assert (data["fixed"], data["broken"], data["baseline"]["rsr"], data["ours"]["rsr"]) == (1, 0, 0.5, 1.0)


def test_html_points_only_at_files_that_exist(grid: tuple[Path, ScriptedLLM]) -> None:
    run_dir, _ = grid
    page = (run_dir / "report.html").read_text()
    targets = re.findall(r'(?:src|href)="([^"#][^"]*)"', page)
    assert not [target for target in targets if not (run_dir / target).is_file()]
    assert sum(target.startswith("media/samples/") for target in targets) == 3  # the three renders that succeeded
    assert sum(target.startswith("media/references/") for target in targets) == 2
    assert "http://" not in page and "https://" not in page
    assert page.count('class="diff"') == 4 and "NoSuchMobject" in page


def test_rerun_skips_every_stored_key(grid: tuple[Path, ScriptedLLM]) -> None:
    run_dir, _ = grid
    untouched = ScriptedLLM(name="fixed")
    summary = BenchRunner(grid_config(run_dir), run_dir, llm_factory=lambda spec: untouched, show_progress=False).run()
    assert (summary.recorded, summary.skipped, untouched.calls) == (0, 4, [])
    with Store.open_existing(run_dir) as store:
        assert store.count() == 4 and [s.status for s in store.sessions()] == ["finished", "finished"]


def test_label_keeps_its_meaning_in_a_run_directory(grid: tuple[Path, ScriptedLLM]) -> None:
    run_dir, _ = grid
    other = grid_config(run_dir, models=["fixed=qwen2.5-coder-0.5b"])
    with pytest.raises(ConfigError, match="already holds model 'fixed'"):
        BenchRunner(other, run_dir, llm_factory=lambda spec: ScriptedLLM(), show_progress=False).run()
    more_rounds = grid_config(run_dir, rounds=5)
    with pytest.raises(ConfigError, match="already holds strategy 'vanilla'"):
        BenchRunner(more_rounds, run_dir, llm_factory=lambda spec: ScriptedLLM(), show_progress=False).run()


def test_a_run_refuses_rows_from_another_prompt_evaluation(tmp_path: Path) -> None:
    one = grid_config(tmp_path, strategies=["vanilla"], tasks=["circle-to-square"])
    BenchRunner(one, tmp_path, llm_factory=lambda spec: ScriptedLLM(format_target(GOOD), name="fixed"), show_progress=False).run()
    with Store.open_existing(tmp_path) as store:
        (session,) = store.sessions()
        assert session.versions["llamacpp-prompts"] == "chunks of 64 tokens" and "llama-cpp-python" in session.versions
    with sqlite3.connect(tmp_path / "results.sqlite") as connection:
        connection.execute("UPDATE sessions SET versions_json = json_set(versions_json, '$.\"llamacpp-prompts\"', 'whole prompts')")
    more = grid_config(tmp_path, strategies=["vanilla", "ritl"], tasks=["circle-to-square"])
    with pytest.raises(ConfigError, match=r"generated with llamacpp-prompts whole prompts \(now chunks of 64 tokens\); .* mix two providers"):
        BenchRunner(more, tmp_path, llm_factory=lambda spec: ScriptedLLM(format_target(GOOD), name="fixed"), show_progress=False).run()
    summary = BenchRunner(one, tmp_path, llm_factory=lambda spec: ScriptedLLM(name="fixed"), show_progress=False).run()
    assert summary.skipped == 1, "with nothing to add, the stored rows stay readable"


def test_stored_traces_are_replayed_without_the_cache_file(tmp_path: Path) -> None:
    first = ScriptedLLM(format_target(GOOD), name="fixed")
    BenchRunner(grid_config(tmp_path, strategies=["vanilla"], tasks=["circle-to-square"]), tmp_path,
                llm_factory=lambda spec: first, show_progress=False).run()
    (tmp_path / CACHE_NAME).unlink()
    silent = ScriptedLLM(name="fixed")
    BenchRunner(grid_config(tmp_path, strategies=["vanilla", "ritl"], tasks=["circle-to-square"]), tmp_path,
                llm_factory=lambda spec: silent, show_progress=False).run()
    with Store.open_existing(tmp_path) as store:
        assert {sample.strategy: sample.status for sample in store.samples()} == {"vanilla": "ok", "ritl": "ok"}
    assert silent.calls == []


def test_one_renderer_serves_the_agent_and_the_scoring(tmp_path: Path) -> None:
    llm = ScriptedLLM(format_target(BROKEN), format_target(GOOD), name="fixed")
    config = grid_config(tmp_path, strategies=["ritl"], tasks=["circle-to-square"])
    with CountingRenderer() as renderer:
        BenchRunner(config, tmp_path, llm_factory=lambda spec: llm, show_progress=False, renderer=renderer).run()
    (reference,) = [task.reference_code for task in load_tasks("builtin") if task.id == "circle-to-square"]
    assert renderer.codes[:2] == [BROKEN, GOOD]  # the agent's draft and its repair
    assert sorted(renderer.codes[2:]) == [reference, reference]  # scored against, then copied into the run
    with Store.open_existing(tmp_path) as store:
        (sample,) = store.samples()
    assert (sample.status, sample.rounds) == ("ok", 2)


def test_generation_cache_can_be_turned_off(tmp_path: Path) -> None:
    llm = ScriptedLLM(format_target(GOOD), format_target(BROKEN), format_target(GOOD), name="fixed")
    config = grid_config(tmp_path, tasks=["circle-to-square"], cache_generations=False)
    BenchRunner(config, tmp_path, llm_factory=lambda spec: llm, show_progress=False).run()
    with Store.open_existing(tmp_path) as store:
        assert {sample.strategy: sample.rounds for sample in store.samples()} == {"vanilla": 1, "ritl": 2}
    assert len(llm.calls) == 3 and not (tmp_path / CACHE_NAME).exists()


def test_sample_out_of_time_is_a_timeout(tmp_path: Path) -> None:
    llm = ScriptedLLM(format_target(BROKEN), format_target(GOOD), name="fixed")
    config = grid_config(tmp_path, strategies=["ritl"], tasks=["three-dots"], time_limit_s=1e-6)
    BenchRunner(config, tmp_path, llm_factory=lambda spec: llm, show_progress=False).run()
    with Store.open_existing(tmp_path) as store:
        (sample,) = store.samples(with_trace=True)
    assert (sample.status, sample.rounds, sample.score("rendered"), sample.score("vs")) == ("timeout", 1, False, 0.0)
    assert json.loads(sample.trace_json)["stop_reason"] == "deadline" and llm.remaining == 1


def test_compare_gives_per_config_deltas(grid: tuple[Path, ScriptedLLM], tmp_path: Path) -> None:
    run_dir, _ = grid
    other = tmp_path / "all-good"
    llm = ScriptedLLM(format_target(GOOD), format_target(GOOD), name="fixed")
    config = grid_config(other, strategies=["vanilla"])
    BenchRunner(config, other, llm_factory=lambda spec: llm, show_progress=False).run()
    comparison = compare_runs(run_dir, other)
    (delta,) = comparison.deltas
    assert (delta.model, delta.strategy, delta.before.n, delta.after.n) == ("fixed", "vanilla", 2, 2)
    assert (delta.before.rsr, delta.after.rsr) == (0.5, 1.0)
    assert comparison.only_a == ["fixed · ritl"] and comparison.only_b == [] and comparison.same_embedders
    result = CliRunner().invoke(app, ["bench", "compare", str(run_dir), str(other)])
    assert result.exit_code == 0, result.output
    assert "only in A: fixed · ritl" in result.output


# --- the command line, as separate processes -------------------------------------------------

FACTORY = """
import os
import pathlib
import time

from manimgen.agent import format_target
from manimgen.llm.scripted import ScriptedLLM

CODE = {good!r}


class GatedLLM(ScriptedLLM):
    \"\"\"Answers good code; with BENCH_GATE set, the call numbered BENCH_GATE_AT marks the gate file and waits.\"\"\"

    def chat(self, messages, n=1, sampling=None):
        gate = os.environ.get("BENCH_GATE")
        if gate and len(self.calls) == int(os.environ["BENCH_GATE_AT"]):
            pathlib.Path(gate).touch()
            while True:
                time.sleep(1)
        return super().chat(messages, n, sampling)


def make():
    return GatedLLM(*[format_target(CODE)] * 100, name="fixed")
"""


@pytest.fixture
def factory_dir(tmp_path: Path) -> Path:
    directory = tmp_path / "factory"
    directory.mkdir()
    (directory / "bench_fixed_model.py").write_text(textwrap.dedent(FACTORY.format(good=GOOD)))
    return directory


def cli_env(factory_dir: Path, **extra: str) -> dict[str, str]:
    env = {**os.environ, "PYTHONPATH": f"{factory_dir}{os.pathsep}{os.environ.get('PYTHONPATH', '')}", "COLUMNS": "200"}
    return {**env, **extra}


def bench_command(out: Path, models: str, *options: str) -> list[str]:
    return [sys.executable, "-m", "manimgen.cli", "bench", "run", "--models", models, "--out", str(out), *options]


def sample_rows(run_dir: Path) -> list[tuple]:
    with sqlite3.connect(run_dir / "results.sqlite") as connection:
        return connection.execute("SELECT model, strategy, task_id, seed, id, recorded_at FROM samples ORDER BY id").fetchall()


def integrity(run_dir: Path) -> str:
    with sqlite3.connect(run_dir / "results.sqlite") as connection:
        return connection.execute("PRAGMA integrity_check").fetchone()[0]


def test_killed_run_resumes_without_duplicates(tmp_path: Path, factory_dir: Path) -> None:
    run_dir = tmp_path / "killed"
    gate = tmp_path / "gate"
    command = bench_command(run_dir, "fixed=py:bench_fixed_model:make", "--strategies", "vanilla", "--split", "builtin", "--limit", "4")
    log = tmp_path / "first-run.log"
    with log.open("w") as output:
        process = subprocess.Popen(
            command, cwd=REPO, env=cli_env(factory_dir, BENCH_GATE=str(gate), BENCH_GATE_AT="2"),
            stdout=output, stderr=subprocess.STDOUT, start_new_session=True,
        )
    try:
        waited = 0
        while not (gate.exists() and (run_dir / "results.sqlite").exists() and sample_rows(run_dir)):
            assert process.poll() is None, log.read_text()
            assert waited < 600, "the run never reached its third model call with a sample stored"
            time.sleep(0.5)
            waited += 1
    finally:
        os.killpg(process.pid, signal.SIGKILL)
        process.wait()
    assert process.returncode == -signal.SIGKILL
    assert integrity(run_dir) == "ok"
    before = sample_rows(run_dir)
    assert 1 <= len(before) <= 2

    finished = subprocess.run(command, cwd=REPO, env=cli_env(factory_dir), capture_output=True, text=True, timeout=900)
    assert finished.returncode == 0, finished.stdout + finished.stderr
    after = sample_rows(run_dir)
    keys = [row[:4] for row in after]
    assert len(keys) == len(set(keys)) == 4
    assert {row[2] for row in after} == {"circle-to-square", "three-dots", "hello-text", "pythagoras-formula"}
    assert after[: len(before)] == before  # stored samples were skipped, not redone
    with Store.open_existing(run_dir) as store:
        sessions = store.sessions()
    assert [(s.status, s.finished_at is None) for s in sessions] == [("interrupted", True), ("finished", False)]
    assert not list(run_dir.rglob("*.partial"))


def test_unreachable_server_stops_with_a_clear_message(tmp_path: Path, factory_dir: Path) -> None:
    run_dir = tmp_path / "down"
    command = bench_command(
        run_dir, "fixed=py:bench_fixed_model:make,down=openai:http://127.0.0.1:9/v1#x",
        "--strategies", "vanilla", "--split", "builtin", "--tasks", "three-dots",
    )
    result = subprocess.run(command, cwd=REPO, env=cli_env(factory_dir), capture_output=True, text=True, timeout=600)
    assert result.returncode == 1, result.stdout + result.stderr
    stopped = [line for line in result.stdout.splitlines() if line.startswith("stopped:")]
    assert len(stopped) == 1, result.stdout
    assert "model 'down'" in stopped[0] and "cannot reach http://127.0.0.1:9/v1" in stopped[0]
    assert "start the server" in stopped[0] and "rerun the same command to resume" in stopped[0]
    assert "Traceback" not in result.stdout + result.stderr
    assert integrity(run_dir) == "ok"
    assert [row[:4] for row in sample_rows(run_dir)] == [("fixed", "vanilla", "three-dots", 0)]
    with Store.open_existing(run_dir) as store:
        (session,) = store.sessions()
    assert session.status == "stopped" and "cannot reach" in session.message and session.finished_at


# --- configuration and store, without renders ------------------------------------------------


def test_shipped_configs_load() -> None:
    smoke = load_config(REPO / "configs" / "bench" / "smoke.yaml")
    assert (smoke.split, [m.spec for m in smoke.models], [s.name for s in smoke.strategies]) == ("builtin", ["qwen2.5-coder-0.5b"], ["vanilla"])
    grid = load_config(REPO / "configs" / "bench" / "paper-grid.yaml")
    assert [m.name for m in grid.models] == ["base", "SFT", "GRPO"]
    assert [s.name for s in grid.strategies] == ["vanilla", "ritl", "ritl-doc"]
    assert (grid.split, grid.rounds, grid.time_limit_s, grid.render_timeout_s) == ("test", 3, 1800, 300)
    for name in ("search-validation", "search-test", "outside-prompts", "repair-feedback"):
        config = load_config(REPO / "configs" / "bench" / f"{name}.yaml")
        assert {"ritl-lint"} <= {s.name for s in config.strategies}
    outside = load_config(REPO / "configs" / "bench" / "outside-prompts.yaml")
    if outside.tasks_file.is_file():  # the shared data beside the checkout
        items = plan(outside)
        assert len({item.task.id for item in items}) == 50 and not any(item.task.has_reference for item in items)


def test_config_parsing_and_errors(tmp_path: Path) -> None:
    assert ModelEntry.parse("openai:http://host:8000/v1#m") == ModelEntry(spec="openai:http://host:8000/v1#m")
    assert ModelEntry.parse("SFT=hf:base+adapters/sft") == ModelEntry(spec="hf:base+adapters/sft", label="SFT")
    config = parse_config({"models": "a,b", "strategies": "vanilla,ritl", "seeds": "0,1", "tasks": "x,y"})
    assert ([m.name for m in config.models], config.seeds, config.tasks, config.time_limit_s) == (["a", "b"], [0, 1], ["x", "y"], 1800)
    custom = parse_config({"models": ["a"], "strategies": [{"name": "ritl", "label": "ritl-k5", "rounds": 5}]})
    assert custom.strategy_params(custom.strategies[0])["rounds"] == 5
    with pytest.raises(ConfigError, match="both called 'a'"):
        parse_config({"models": ["a", "a"], "strategies": ["vanilla"]})
    with pytest.raises(ConfigError, match=r"^options: split: "):
        parse_config({"models": ["a"], "strategies": ["vanilla"], "split": "dev"}, "options")
    bad = tmp_path / "bad.yaml"
    bad.write_text("models: [a]\nstrategies: [vanilla]\nroundz: 3\n")
    with pytest.raises(ConfigError, match="roundz: Extra inputs are not permitted"):
        load_config(bad)
    with pytest.raises(ConfigError, match=r"strategies\.0\.name: must be one of .*ritl-lint.*, got 'no-such-strategy'"):
        parse_config({"models": ["a"], "strategies": ["no-such-strategy"], "split": "builtin"})
    for field, value, first in (("quality", "ultra", "low"), ("dtw", "slow", "exact"),
                                ("image_embedder", "resnet", "effnet-lite0"), ("code_embedder", "bert", "minilm-l6")):
        with pytest.raises(ConfigError, match=f"{field}: must be one of {first}, .*got '{value}'"):
            parse_config({"models": ["a"], "strategies": ["vanilla"], field: value})


def test_store_has_a_column_for_every_score(tmp_path: Path) -> None:
    with Store.open(tmp_path):
        pass
    with sqlite3.connect(tmp_path / "results.sqlite") as connection:
        columns = {row[1]: row[2] for row in connection.execute("PRAGMA table_info(samples)")}
    assert {name: columns.get(name) for name in SCORE_COLUMNS} == {item.name: item.metadata["sql"] for item in fields(Scores)}
    assert list(SCORE_COLUMNS) == [item.name for item in fields(Scores)]


def test_a_store_written_before_a_score_existed_gains_its_column(tmp_path: Path) -> None:
    scores = Scores("ok", True, 0.5, 0.4, 0.6, 0.2, 0.3, 0.25, None, False, "effnet-lite0", "minilm-l6", "exact", "ok")
    base = dict(model="m", strategy="s", task_id="t", seed=0, model_spec="m", strategy_name="s",
                strategy_params="{}", quality="low", complexity="Basic", status="ok")
    with Store.open(tmp_path) as store:
        store.put_sample(Sample(**base, scores=scores))
    old_json = json.dumps({key: value for key, value in scores.to_dict().items() if key != "layout_findings"})
    with sqlite3.connect(tmp_path / "results.sqlite") as connection:
        connection.execute("ALTER TABLE samples DROP COLUMN layout_findings")
        connection.execute("UPDATE samples SET scores_json = ?", (old_json,))
    with Store.open(tmp_path) as store:
        (sample,) = store.samples()
        assert sample.scores == scores and sample.score("layout_findings") is None
        store.put_sample(Sample(**{**base, "task_id": "u"}, scores=replace(scores, layout_findings=2)))
        assert [s.score("layout_findings") for s in store.samples()] == [None, 2]


def test_store_upserts_and_retries_errors(tmp_path: Path) -> None:
    base = dict(model="m", strategy="s", task_id="t", seed=0, model_spec="m", strategy_name="s",
                strategy_params="{}", quality="low", complexity="Basic")
    with Store.open(tmp_path) as store:
        store.put_sample(Sample(**base, status="error", error="scoring: boom"))
        assert store.done_keys() == set() and store.count() == 1
        scores = Scores("ok", True, 0.5, 0.4, 0.6, 0.2, 0.3, 0.25, None, False, "effnet-lite0", "minilm-l6", "exact", "ok")
        store.put_sample(Sample(**base, status="ok", scores=scores))
        assert store.done_keys() == {("m", "s", "t", 0)} and store.count() == 1
        (sample,) = store.samples()
        assert (sample.status, sample.score("vs"), sample.score("rendered"), sample.error) == ("ok", 0.5, True, None)
        assert sample.scores == scores
    with sqlite3.connect(tmp_path / "results.sqlite") as connection:
        assert connection.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
        connection.execute("PRAGMA user_version=99")
    with pytest.raises(StoreError, match="schema version 99"):
        Store.open(tmp_path)
    with pytest.raises(StoreError, match="bench run --out"):
        Store.open_existing(tmp_path / "nowhere")


SESSION_HOLDER = """
import sys
import time
from pathlib import Path

from manimgen.bench.store import Store, exclusive

run_dir = Path(sys.argv[1])
with exclusive(run_dir), Store.open(run_dir) as store:
    store.start_session({"split": "builtin"}, {}, 4)
    print("started", flush=True)
    time.sleep(600)
"""


def test_session_of_a_killed_run_reads_as_interrupted(tmp_path: Path) -> None:
    holder = subprocess.Popen([sys.executable, "-c", SESSION_HOLDER, str(tmp_path)], stdout=subprocess.PIPE, text=True)
    try:
        assert holder.stdout is not None and holder.stdout.readline() == "started\n"
        with Store.open_existing(tmp_path) as store:
            assert [session.status for session in store.sessions()] == ["running"]
    finally:
        holder.kill()
        holder.wait()
    assert holder.returncode == -signal.SIGKILL
    with Store.open_existing(tmp_path) as store:
        (session,) = store.sessions()
    assert (session.status, session.finished_at) == ("interrupted", None) and "killed" in (session.message or "")
    assert "session 1: started" in run_info(tmp_path, [session], [])[-1]
    assert "interrupted, not finished: its process ended" in run_info(tmp_path, [session], [])[-1]
    with exclusive(tmp_path), Store.open(tmp_path) as store:
        store.interrupt_orphans()
        assert [session.status for session in store.sessions()] == ["interrupted"]
    with sqlite3.connect(tmp_path / "results.sqlite") as connection:
        assert connection.execute("SELECT status FROM sessions").fetchall() == [("interrupted",)]


def test_repeated_repairs_count_answers_that_echo_the_code_shown() -> None:
    from manimgen.bench.tables import repeated_repairs

    def sample(*rounds: tuple[str, str | None]) -> Sample:
        trace = Trace("s", "m", "", rounds=[Round(index, kind, [], "", code) for index, (kind, code) in enumerate(rounds)])
        return Sample("m", "s", "t", 0, "m", "s", "{}", "low", "Basic", "ok", trace_json=trace.to_json())

    echoed = sample(("generate", "a"), ("repair", "a"), ("repair", "b"))
    fresh = sample(("generate", "a"), ("resample", "a"), ("repair", None))
    assert repeated_repairs([echoed, fresh]) == pytest.approx(1 / 3), "a resample is not a repair; no code is not an echo"
    assert repeated_repairs([sample(("generate", "a"))]) is None


def test_cut_off_counts_answers_that_reached_the_token_limit() -> None:
    from manimgen.bench.tables import cut_off_answers

    def sample(*completion_tokens: int, limit: int | None = 100) -> Sample:
        rounds = [Round(index, "generate", [], "", None, completion_tokens=tokens) for index, tokens in enumerate(completion_tokens)]
        params = json.dumps({"sampling": {"max_tokens": limit}} if limit else {})
        return Sample("m", "s", "t", 0, "m", "s", params, "low", "Basic", "ok", trace_json=Trace("s", "m", "", rounds=rounds).to_json())

    assert cut_off_answers([sample(100, 40), sample(99, 120)]) == pytest.approx(2 / 4)
    assert cut_off_answers([sample(500, limit=None)]) == 0.0, "no recorded limit: nothing is known to be cut off"
    assert cut_off_answers([Sample("m", "s", "t", 0, "m", "s", "{}", "low", "Basic", "error")]) is None


def report_sections(run_dir: Path) -> list[list[list[str]]]:
    """Every table of the report but the run-info lines (which name the run directory and sessions)."""
    text = (run_dir / "report.md").read_text()
    headings = [line[3:] for line in text.splitlines() if line.startswith("## ") and line != "## Plots"]
    return [markdown_section(text, heading)[1] for heading in headings]


def test_an_exported_run_imports_into_the_same_report_without_the_datasets_text(grid: tuple[Path, ScriptedLLM], tmp_path: Path) -> None:
    import gzip

    run_dir, _ = grid
    exported = tmp_path / "grid.jsonl.gz"
    result = CliRunner().invoke(app, ["bench", "export", str(run_dir), "--out", str(exported)])
    assert result.exit_code == 0 and "4 samples written" in result.output
    text = gzip.decompress(exported.read_bytes()).decode()
    for task in load_tasks("builtin", ids=TASKS):
        assert task.description not in text  # prompts and descriptions stay behind
    assert json.dumps(GOOD)[1:-1] in text  # the code does not

    merged = tmp_path / "merged"
    result = CliRunner().invoke(app, ["bench", "import", str(exported), "--out", str(merged)])
    assert result.exit_code == 0 and "4 samples imported, 0 already stored" in result.output
    again = CliRunner().invoke(app, ["bench", "import", str(exported), "--out", str(merged)])
    assert "0 samples imported, 4 already stored" in again.output
    with Store.open_existing(run_dir) as store:
        before = {sample.key: (sample.status, sample.final_code, sample.scores, sample.llm_calls) for sample in store.samples()}
    with Store.open_existing(merged) as store:
        after = {sample.key: (sample.status, sample.final_code, sample.scores, sample.llm_calls) for sample in store.samples()}
        assert store.sessions()[-1].config["imported_from"] == exported.name
    assert after == before
    write_report(merged)
    assert report_sections(merged) == report_sections(run_dir)

    # a later `bench run` into the merged directory resumes from it: nothing left to do
    summary = BenchRunner(grid_config(merged), merged, llm_factory=lambda spec: ScriptedLLM(), show_progress=False).run()
    assert summary.recorded == 0 and summary.skipped == 4


def test_prompts_travel_only_with_a_task_file_run(grid: tuple[Path, ScriptedLLM], tmp_path: Path) -> None:
    import gzip

    run_dir, _ = grid
    refused = CliRunner().invoke(app, ["bench", "export", str(run_dir), "--out", str(tmp_path / "grid.jsonl.gz"), "--with-prompts"])
    assert refused.exit_code == 2 and "is not a run over a task file: its prompts quote ManimBench" in refused.output
    assert not (tmp_path / "grid.jsonl.gz").exists()

    sentence = "Draw a blue circle in the middle of the screen."
    tasks_file = tmp_path / "own.jsonl"
    tasks_file.write_text(json.dumps({"id": "own01", "description": sentence}) + "\n")
    source = tmp_path / "own"
    config = parse_config({"out": source, "models": ["fixed=scripted"], "strategies": ["ritl"], "tasks_file": tasks_file})
    BenchRunner(config, source, llm_factory=lambda spec: ScriptedLLM(format_target(BROKEN), format_target(GOOD), name="fixed"), show_progress=False).run()
    for flags, kept in (([], False), (["--with-prompts"], True)):
        exported = tmp_path / f"own-{kept}.jsonl.gz"
        assert CliRunner().invoke(app, ["bench", "export", str(source), "--out", str(exported), *flags]).exit_code == 0
        assert (sentence in gzip.decompress(exported.read_bytes()).decode()) is kept
    merged = tmp_path / "merged"
    assert CliRunner().invoke(app, ["bench", "import", str(tmp_path / "own-True.jsonl.gz"), "--out", str(merged)]).exit_code == 0
    with Store.open_existing(merged) as store:
        (sample,) = store.samples(with_trace=True)
    repair = json.loads(sample.trace_json)["rounds"][-1]
    assert sample.status == "ok" and any("NoSuchMobject" in message["content"] for message in repair["messages"])


def test_an_imported_run_replays_its_first_drafts_to_a_strategy_resumed_there(tmp_path: Path) -> None:
    import gzip

    source = tmp_path / "vanilla-only"
    drafts = ScriptedLLM(*ANSWERS[:2], name="fixed")
    BenchRunner(grid_config(source, strategies=["vanilla"]), source, llm_factory=lambda spec: drafts, show_progress=False).run()
    exported = tmp_path / "vanilla.jsonl.gz"
    assert CliRunner().invoke(app, ["bench", "export", str(source), "--out", str(exported)]).exit_code == 0
    lines = [json.loads(line) for line in gzip.decompress(exported.read_bytes()).decode().splitlines()[1:]]
    assert [len(line["generation_keys"]) for line in lines] == [1, 1] and all(len(key) == 64 for line in lines for key in line["generation_keys"])

    merged = tmp_path / "merged"
    assert CliRunner().invoke(app, ["bench", "import", str(exported), "--out", str(merged)]).exit_code == 0
    repairs = ScriptedLLM(*ANSWERS[2:], name="fixed")  # no first draft: those must come from the imported cache
    summary = BenchRunner(grid_config(merged), merged, llm_factory=lambda spec: repairs, show_progress=False).run()
    assert summary.recorded == 2 and summary.skipped == 2 and repairs.remaining == 0
    with Store.open_existing(merged) as store:
        outcomes = {(s.strategy, s.task_id): (s.status, s.rounds) for s in store.samples()}
    assert outcomes[("ritl", "circle-to-square")] == ("ok", 1) and outcomes[("ritl", "three-dots")] == ("ok", 3)


def test_an_export_without_generation_keys_still_imports(grid: tuple[Path, ScriptedLLM], tmp_path: Path) -> None:
    import gzip

    run_dir, _ = grid
    exported = tmp_path / "grid.jsonl.gz"
    CliRunner().invoke(app, ["bench", "export", str(run_dir), "--out", str(exported)])
    header, *rows = [json.loads(line) for line in gzip.decompress(exported.read_bytes()).decode().splitlines()]
    old = tmp_path / "version-1.jsonl.gz"
    rows = [{key: value for key, value in row.items() if key != "generation_keys"} for row in rows]
    old.write_bytes(gzip.compress("\n".join(json.dumps(line) for line in [{**header, "version": 1}, *rows]).encode()))
    result = CliRunner().invoke(app, ["bench", "import", str(old), "--out", str(tmp_path / "target")])
    assert result.exit_code == 0 and "4 samples imported" in result.output


def test_a_bad_export_is_refused_before_anything_is_written(grid: tuple[Path, ScriptedLLM], tmp_path: Path) -> None:
    import gzip

    run_dir, _ = grid
    good = tmp_path / "good.jsonl.gz"
    CliRunner().invoke(app, ["bench", "export", str(run_dir), "--out", str(good)])
    lines = gzip.decompress(good.read_bytes()).decode().splitlines()
    broken = tmp_path / "broken.jsonl.gz"
    broken.write_bytes(gzip.compress("\n".join([*lines[:3], '{"model": "fixed"}']).encode()))
    plain = tmp_path / "plain.jsonl.gz"
    plain.write_text("not gzip")
    forged = tmp_path / "forged.jsonl.gz"
    forged.write_bytes(gzip.compress("\n".join([*lines[:2], lines[2].replace('"generation_keys": [', '"generation_keys": ["x", ')]).encode()))
    relabelled = tmp_path / "relabelled.jsonl.gz"
    relabelled.write_bytes(gzip.compress("\n".join(line.replace('"model_spec": "scripted"', '"model_spec": "other"') for line in lines).encode()))
    target = tmp_path / "target"
    for path, message in (
        (broken, "broken.jsonl.gz:4 is not a sample"),
        (plain, "plain.jsonl.gz:1 is not JSON (Expecting value); write the export with `manimgen bench export"),
        (forged, "forged.jsonl.gz:3 is not a sample (generation_keys is not a list of digests)"),
        (tmp_path / "missing.jsonl.gz", "missing.jsonl.gz does not exist; write the export with `manimgen bench export"),
    ):
        result = CliRunner().invoke(app, ["bench", "import", str(good), str(path), "--out", str(target)])
        assert result.exit_code == 2 and message in result.output and "Traceback" not in result.output
        assert not (target / "results.sqlite").exists()  # the good file was not half-imported
    CliRunner().invoke(app, ["bench", "import", str(good), "--out", str(target)])
    result = CliRunner().invoke(app, ["bench", "import", str(relabelled), "--out", str(target)])
    assert result.exit_code == 2 and "holds model 'fixed' as other" in result.output
