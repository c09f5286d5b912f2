"""The generation cache: seeded calls are answered once, from a real SQLite file, costs kept."""

from __future__ import annotations

import time
from pathlib import Path

from manimgen.agent import AgentConfig, format_target, run_agent
from manimgen.llm import ChatResult, Message, Sampling
from manimgen.llm.cache import CachedLLM, GenerationCache
from manimgen.llm.scripted import ScriptedLLM

ASK: list[Message] = [{"role": "user", "content": "Draw a circle."}]
SEEDED = Sampling(temperature=0.7, seed=3)


class SlowScriptedLLM(ScriptedLLM):
    """Takes 0.3 s per call, as a (very fast) real model would take some time."""

    def chat(self, messages: list[Message], n: int = 1, sampling: Sampling | None = None) -> ChatResult:
        time.sleep(0.3)
        return super().chat(messages, n, sampling)


def test_a_seeded_call_is_asked_once_and_replayed_with_its_usage(tmp_path: Path) -> None:
    inner = SlowScriptedLLM("first answer", "second answer")
    llm = CachedLLM(inner, GenerationCache(tmp_path / "g.sqlite"), model_key="m")
    first = llm.chat(ASK, sampling=SEEDED)
    again = llm.chat(ASK, sampling=SEEDED)
    assert (first.completions, first.cached) == (["first answer"], False)
    assert (again.completions, again.cached) == (["first answer"], True)
    assert (again.usage.prompt_tokens, again.usage.completion_tokens) == (first.usage.prompt_tokens, first.usage.completion_tokens)
    assert again.usage.seconds >= 0.3
    assert len(inner.calls) == 1


def test_anything_that_changes_the_call_misses(tmp_path: Path) -> None:
    inner = ScriptedLLM(*[f"answer {i}" for i in range(6)])
    llm = CachedLLM(inner, GenerationCache(tmp_path / "g.sqlite"), model_key="m")
    llm.chat(ASK, sampling=SEEDED)
    llm.chat(ASK, sampling=Sampling(temperature=0.7, seed=4))
    llm.chat(ASK, sampling=Sampling(temperature=0.8, seed=3))
    llm.chat([{"role": "user", "content": "Draw a square."}], sampling=SEEDED)
    llm.chat(ASK, n=2, sampling=SEEDED)
    assert len(inner.calls) == 5
    other_model = CachedLLM(ScriptedLLM("x"), llm.cache, model_key="other")
    assert other_model.chat(ASK, sampling=SEEDED).completions == ["x"]


def test_unseeded_calls_are_never_cached(tmp_path: Path) -> None:
    inner = ScriptedLLM("a", "b")
    llm = CachedLLM(inner, GenerationCache(tmp_path / "g.sqlite"))
    unseeded = Sampling(temperature=0.7)
    assert [llm.chat(ASK, sampling=unseeded).completions[0] for _ in range(2)] == ["a", "b"]
    assert len(llm.cache) == 0


def test_the_cache_outlives_the_process_that_wrote_it(tmp_path: Path) -> None:
    path = tmp_path / "g.sqlite"
    writer = GenerationCache(path)
    CachedLLM(ScriptedLLM("kept"), writer, model_key="m").chat(ASK, sampling=SEEDED)
    writer.close()
    reader = CachedLLM(ScriptedLLM(), GenerationCache(path), model_key="m")
    assert reader.chat(ASK, sampling=SEEDED).completions == ["kept"]


def test_a_replayed_round_costs_what_the_original_call_cost(tmp_path: Path) -> None:
    cache = GenerationCache(tmp_path / "g.sqlite")
    answer = format_target("from manim import *\n\nclass A(Scene):\n    def construct(self):\n        self.wait(0.2)\n")
    config = AgentConfig(rounds=0, sampling=SEEDED)
    fresh = run_agent(CachedLLM(SlowScriptedLLM(answer), cache), "wait", "vanilla", config)
    replayed = run_agent(CachedLLM(SlowScriptedLLM(), cache), "wait", "vanilla", config)
    assert fresh.ok and replayed.ok
    assert [r.cached for r in fresh.rounds + replayed.rounds] == [False, True]
    assert replayed.rounds[0].llm_seconds >= 0.3 and replayed.seconds >= 0.3


def test_images_are_keyed_by_their_bytes(tmp_path: Path) -> None:
    first, copy, other = (tmp_path / f"{name}.png" for name in ("first", "copy", "other"))
    first.write_bytes(b"frame one")
    copy.write_bytes(b"frame one")
    other.write_bytes(b"frame two")

    def asking(image: Path) -> list[Message]:
        return [Message(role="user", content="Fix the layout.", images=[str(image)])]

    inner = ScriptedLLM("a", "b", accepts_images=True)
    llm = CachedLLM(inner, GenerationCache(tmp_path / "g.sqlite"), model_key="m")
    assert llm.accepts_images
    assert [llm.chat(asking(image), sampling=SEEDED).completions for image in (first, copy, other)] == [["a"], ["a"], ["b"]]
    assert len(inner.calls) == 2 and inner.calls[0].messages[0]["images"] == [str(first)]


def test_a_setting_added_later_keeps_stored_keys_until_it_is_set() -> None:
    """A generation stored before `schema` existed was keyed on the other settings alone; it must still replay."""
    import hashlib
    import json
    from dataclasses import asdict

    from manimgen.llm.cache import generation_key

    messages = [Message(role="user", content="a blue circle")]
    before = {name: value for name, value in asdict(Sampling(seed=0)).items() if name != "schema"}
    stored = hashlib.sha256(json.dumps({"model": "m", "messages": [dict(messages[0])], "n": 1, "sampling": before}, sort_keys=True).encode()).hexdigest()
    assert generation_key("m", messages, 1, Sampling(seed=0)) == stored
    assert generation_key("m", messages, 1, Sampling(seed=0, schema='{"type":"object"}')) != stored
