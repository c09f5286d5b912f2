"""Each way to extend the project is one place (docs/architecture.md, "Where to add things"): a throwaway
strategy, provider, judge rule, metric and API endpoint, each added only as that page says, reach
everything that follows from them."""

from __future__ import annotations

import shutil
import subprocess
import sys
import textwrap
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import httpx
import uvicorn
from fastapi import APIRouter
from servers import free_port
from typer.testing import CliRunner

from manimgen.agent import STRATEGIES, AgentRun, RepairLoop, format_target, run_agent
from manimgen.agent.judge import SENTENCE_RULES, Candidate, problem_count, sentence_problems
from manimgen.bench import RunConfig
from manimgen.cli import app
from manimgen.llm import PROVIDERS, ModelSpec, Provider, load_model, spec_help
from manimgen.llm.scripted import ScriptedLLM
from manimgen.render import RenderResult
from manimgen.serve.api import MAX_BODY, create_app
from manimgen.serve.engine import JobEngine

SRC = Path(__file__).resolve().parent.parent / "src" / "manimgen"
WIDE = {"COLUMNS": "400"}
SCENE = "from manim import *\n\nclass Dot1(Scene):\n    def construct(self):\n        self.add(Dot())\n"


class NotedLoop(RepairLoop):
    """RITL that notes every render it is told of: a strategy is a class with hooks."""

    name = "noted"
    renders: list[str] = []

    def after_render(self, run: AgentRun, result: RenderResult) -> str | None:
        self.renders.append(result.status.value)
        return None


def test_a_strategy_is_one_registered_class(throwaway: Callable[..., None]) -> None:
    throwaway(STRATEGIES, "noted", NotedLoop, "RITL that notes its renders")
    trace = run_agent(ScriptedLLM(format_target(SCENE)), "A dot", "noted")
    assert trace.ok and trace.strategy == "noted" and NotedLoop.renders == ["ok"]
    config = RunConfig.model_validate({"models": [{"spec": "scripted"}], "strategies": [{"name": "noted"}], "split": "builtin"})
    assert config.strategies[0].name == "noted"
    listed = CliRunner().invoke(app, ["strategies"], env=WIDE)
    assert listed.exit_code == 0 and "RITL that notes its renders" in listed.output


def _parse_echo(text: str, rest: str) -> ModelSpec:
    return ModelSpec("echo", rest)


def _load_echo(spec: ModelSpec, name: str, progress: bool, options: dict[str, Any]) -> ScriptedLLM:
    return ScriptedLLM(format_target(SCENE), name=name)


def test_a_provider_is_one_registry_entry(throwaway: Callable[..., None]) -> None:
    echo = Provider("echo", "echo:TEXT", "answers a fixed scene (a test's provider)", _parse_echo, _load_echo)
    throwaway(PROVIDERS, "echo", echo, echo.summary)
    llm = load_model("echo:anything")
    assert llm.name == "echo:anything" and run_agent(llm, "A dot", "vanilla").ok
    assert "echo:TEXT" in spec_help()
    listed = CliRunner().invoke(app, ["models"], env=WIDE)
    assert listed.exit_code == 0 and "answers a fixed scene" in listed.output


def test_a_judge_rule_is_one_registered_function(throwaway: Callable[..., None]) -> None:
    def no_dots(seen: Candidate) -> list[str]:
        return ["the sentence asks for no dots, but the code draws one"] if "no dots" in seen.description and "Dot(" in seen.code else []

    throwaway(SENTENCE_RULES, "no-dots", no_dots, "a dot where the sentence says none")
    rendered = run_agent(ScriptedLLM(format_target(SCENE)), "A scene with no dots", "vanilla").final_render
    assert rendered is not None and rendered.ok
    assert sentence_problems("A scene with no dots", SCENE, rendered) == ["the sentence asks for no dots, but the code draws one"]
    assert problem_count("A scene with no dots", SCENE, rendered) == problem_count("A scene", SCENE, rendered) + 1


METRIC = '''

@register_metric("line_ratio", inputs="code", title="LineRatio")
def line_ratio(reference: str, candidate: str) -> float:
    """A test's metric: the shorter source's line count over the longer's."""
    lines = sorted((len(reference.splitlines()), len(candidate.splitlines())))
    return lines[0] / lines[1] if lines[1] else 1.0
'''
FIELD = '    line_ratio: float | None = _score("REAL", "line_ratio", shown="score", default=None)\n'
CHECK = '''
    import sqlite3
    import tempfile
    from pathlib import Path

    import manimgen
    from manimgen.bench.columns import metric_columns
    from manimgen.bench.store import Sample, Store
    from manimgen.bench.tables import aggregate
    from manimgen.scoring import Scorer

    assert manimgen.__file__.startswith(sys.argv[1]), manimgen.__file__
    reference = "from manim import *\\nclass A(Scene):\\n    def construct(self):\\n        self.add(Dot())\\n        self.wait()\\n"
    scores = Scorer().code_scores(reference, reference.replace("        self.wait()\\n", ""))
    assert scores["line_ratio"] == 0.8, scores
    full = {"render_status": "ok", "rendered": True, "vs": 1.0, "ssim_dtw": 1.0, "sem_dtw": 1.0, "image_embedder": "e",
            "code_embedder": "c", "dtw": "exact", "reference_status": "ok", **scores}
    from manimgen.scoring import Scores
    sample = Sample("m", "s", "t", 0, "m", "s", "{}", "low", "Basic", "ok", scores=Scores(**full))
    with tempfile.TemporaryDirectory() as folder:
        with Store.open(Path(folder)) as store:
            store.put_sample(sample)
            (stored,) = store.samples()
        assert stored.score("line_ratio") == 0.8
        with sqlite3.connect(Path(folder) / "results.sqlite") as connection:
            assert "line_ratio" in [row[1] for row in connection.execute("PRAGMA table_info(samples)")]
    row = aggregate("m", "s", [stored])
    column = next(column for column in metric_columns(["e"], ["c"]) if column.field == "line_ratio")
    assert (column.header, column.cell(row)) == ("LineRatio", "0.800"), (column.header, column.cell(row))
    print("line_ratio stored, averaged and shown")
'''


def test_a_metric_is_one_function_and_one_schema_field(tmp_path: Path) -> None:
    """On a copy of the package: a registered function in metrics/ and a field in scoring/schema.py, nothing else,
    and the Scorer computes it, the store keeps it and the report's table shows it."""
    copy = tmp_path / "src" / "manimgen"
    shutil.copytree(SRC, copy, ignore=shutil.ignore_patterns("__pycache__"))
    with (copy / "metrics" / "code.py").open("a", encoding="utf-8") as code:
        code.write(METRIC)
    schema = copy / "scoring" / "schema.py"
    text = schema.read_text(encoding="utf-8")
    anchor = next(line for line in text.splitlines(keepends=True) if line.lstrip().startswith("sentence_held:"))
    schema.write_text(text.replace(anchor, anchor + FIELD), encoding="utf-8")
    script = "import sys\n" + textwrap.dedent(CHECK)
    done = subprocess.run([sys.executable, "-c", script, str(copy)], env={"PYTHONPATH": str(copy.parent), "PATH": "/usr/bin:/bin", "HOME": str(Path.home())},
                          capture_output=True, text=True, timeout=600)  # fmt: skip
    assert done.returncode == 0, done.stderr[-3000:]
    assert "line_ratio stored, averaged and shown" in done.stdout


def test_an_api_endpoint_is_one_route_and_the_guard_covers_it(tmp_path: Path) -> None:
    """A route of one router handed to the app is behind the token and the body cap with no more code, and in the OpenAPI schema."""
    engine = JobEngine(tmp_path / "serve", llm_factory=lambda spec: ScriptedLLM(), render_workers=1)
    router = APIRouter(prefix="/api")

    @router.get("/ping")
    def ping() -> dict[str, str]:
        return {"pong": "yes"}

    api = create_app(engine, token="secret", routers=[router])

    port = free_port()
    server = uvicorn.Server(uvicorn.Config(api, host="127.0.0.1", port=port, log_level="warning"))
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    try:
        deadline = time.monotonic() + 30
        while not server.started and time.monotonic() < deadline:
            time.sleep(0.05)
        base = f"http://127.0.0.1:{port}"
        assert httpx.get(f"{base}/api/ping", timeout=10).status_code == 401
        answered = httpx.get(f"{base}/api/ping", headers={"Authorization": "Bearer secret"}, timeout=10)
        assert (answered.status_code, answered.json()) == (200, {"pong": "yes"})
        assert "/api/ping" in httpx.get(f"{base}/openapi.json", timeout=10).json()["paths"]
        oversized = httpx.post(f"{base}/api/ping", headers={"Authorization": "Bearer secret"}, content=b"x" * (MAX_BODY + 1), timeout=10)
        assert oversized.status_code == 413
    finally:
        server.should_exit = True
        thread.join(timeout=10)
        engine.close()
