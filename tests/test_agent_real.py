"""ManimAgent with a real model: the embedded Qwen2.5-Coder-0.5B through llama.cpp.

The model is small and often writes scenes that fail, so these tests check that the run is real and
its record is sound, not that the scene renders.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path

import pytest
from typer.testing import CliRunner

from manimgen.agent import AgentConfig, Round, Trace, run_agent
from manimgen.agent.strategies import DEFAULT_SAMPLING
from manimgen.agent.trace import STOP_MAX_ROUNDS, STOP_RENDERED
from manimgen.cli import app
from manimgen.data import load_tasks
from manimgen.llm import LLM, MissingWeightsError, ensure_gguf, load_model

pytest.importorskip("llama_cpp", reason="needs llama-cpp-python: pip install -e '.[llamacpp]'")

MODEL = "qwen2.5-coder-0.5b"
MAX_TOKENS = 512
ROUNDS = 1  # one feedback round exercises the whole loop and keeps the test near a minute on 2 cores


@pytest.fixture(scope="module")
def small_model() -> Iterator[LLM]:
    try:
        ensure_gguf(MODEL, progress=False)
    except MissingWeightsError as error:
        pytest.skip(str(error))
    model = load_model(MODEL, progress=False)
    yield model
    model.close()


def test_ritl_runs_end_to_end_on_a_builtin_task(small_model: LLM) -> None:
    task = load_tasks("builtin")[0]
    config = AgentConfig(rounds=ROUNDS, sampling=replace(DEFAULT_SAMPLING, max_tokens=MAX_TOKENS))
    reported: list[Round] = []
    trace = run_agent(small_model, task.description, "ritl", config, on_round=reported.append)

    assert trace.strategy == "ritl" and trace.model == MODEL and trace.description == task.description
    assert 1 <= trace.llm_calls <= 1 + ROUNDS and reported == trace.rounds
    assert [round_.kind for round_ in trace.rounds] == ["generate"] + ["repair"] * (trace.llm_calls - 1)
    for position, round_ in enumerate(trace.rounds):
        assert round_.index == position
        assert round_.completion.strip(), "a real generation"
        assert 0 < round_.completion_tokens <= MAX_TOKENS and round_.prompt_tokens > 0 and round_.llm_seconds > 0
        assert (round_.render is None) == (round_.code is None), "every answer with code is rendered"
        if round_ is not trace.rounds[-1]:
            assert round_.feedback, "only a failed round is followed by another"
            repair = trace.rounds[position + 1].messages[1]["content"]
            assert round_.feedback in repair and (round_.code or round_.completion).strip() in repair
    assert trace.final_code == trace.rounds[-1].code and trace.final_render is trace.rounds[-1].render
    assert trace.stop_reason == (STOP_RENDERED if trace.ok else STOP_MAX_ROUNDS)
    assert trace.ok or trace.llm_calls == 1 + ROUNDS
    assert Trace.from_json(trace.to_json()) == trace


def test_generate_command_writes_a_trace(small_model: LLM, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    trace_path = tmp_path / "trace.json"
    sentence = "A green dot moves from left to right"
    arguments = ["generate", sentence, "--model", MODEL, "--strategy", "vanilla", "--max-tokens", str(MAX_TOKENS)]
    result = CliRunner().invoke(app, [*arguments, "--trace", str(trace_path)])

    trace = Trace.from_json(trace_path.read_text(encoding="utf-8"))
    assert trace.strategy == "vanilla" and trace.model == MODEL and trace.llm_calls == 1
    assert trace.description == sentence
    assert result.exit_code == (0 if trace.ok else 1), result.output
    assert "round 1 generate" in result.output
    if trace.ok:
        assert trace.final_render is not None and trace.final_render.output is not None
        video = Path("runs/generate/a-green-dot-moves-from-left-to-right").with_suffix(trace.final_render.output.suffix)
        assert video.is_file() and str(video) in result.output
