"""The embedded llama.cpp provider on the real 0.5B model."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from manimgen.llm import LLMError, Message, Sampling, load_model

pytest.importorskip("llama_cpp", reason="needs llama-cpp-python: pip install -e '.[llamacpp]'")

from manimgen.llm.llamacpp import _LOADED, PROMPT_CHUNK, LlamaCppLLM, reusable_tokens  # noqa: E402

PROMPT: list[Message] = [
    {"role": "system", "content": "You are a concise Python assistant."},
    {"role": "user", "content": "Write a Python function that returns the square of a number."},
]


@pytest.fixture(scope="module")
def small_model(small_gguf: Path) -> Iterator[LlamaCppLLM]:
    model = LlamaCppLLM(small_gguf, n_ctx=2048)
    yield model
    model.close()


def test_registry_name_builds_llamacpp_provider(small_gguf: Path) -> None:
    model = load_model("qwen2.5-coder-0.5b", n_ctx=2048)
    try:
        assert isinstance(model, LlamaCppLLM)
        assert model.name == "qwen2.5-coder-0.5b"
        assert model.path == small_gguf.resolve()
    finally:
        model.close()


def test_chat_writes_code(small_model: LlamaCppLLM) -> None:
    result = small_model.chat(PROMPT, sampling=Sampling(temperature=0.0, max_tokens=48))
    [text] = result.completions
    assert "def " in text
    assert result.usage.prompt_tokens > 10
    assert 0 < result.usage.completion_tokens <= 48
    assert result.usage.seconds > 0


def test_seed_makes_sampling_repeatable(small_model: LlamaCppLLM) -> None:
    sampling = Sampling(temperature=1.0, max_tokens=24, seed=1234)
    first = small_model.chat(PROMPT, n=2, sampling=sampling)
    second = small_model.chat(PROMPT, n=2, sampling=sampling)
    assert first.completions == second.completions
    assert first.completions[0] != first.completions[1], "completion i uses seed + i, so the two differ"
    assert first.usage.prompt_tokens == second.usage.prompt_tokens > 0


def test_stop_string_ends_the_text(small_model: LlamaCppLLM) -> None:
    greedy = Sampling(temperature=0.0, max_tokens=48)
    [full] = small_model.chat(PROMPT, sampling=greedy).completions
    stop = "def "
    assert stop in full
    [stopped] = small_model.chat(PROMPT, sampling=Sampling(temperature=0.0, max_tokens=48, stop=(stop,))).completions
    assert stopped == full[: full.index(stop)]


def test_model_is_loaded_once_per_path(small_gguf: Path, small_model: LlamaCppLLM) -> None:
    other = LlamaCppLLM(small_gguf, n_ctx=2048)
    assert other._loaded is small_model._loaded
    other.close()
    assert small_model._key in _LOADED, "closing one user must not free the shared model"
    assert small_model.chat(PROMPT, sampling=Sampling(temperature=0.0, max_tokens=4)).completions[0]
    with pytest.raises(LLMError, match="closed"):
        other.chat(PROMPT)


def test_missing_file_is_llm_error(tmp_path: Path) -> None:
    with pytest.raises(LLMError, match="not found"):
        load_model(f"gguf:{tmp_path / 'absent.gguf'}")


def test_seeded_answer_does_not_depend_on_the_previous_call(small_model: LlamaCppLLM) -> None:
    """With llama.cpp's own prefix reuse, seed 2 of these four answered differently after `longer`."""
    longer = [PROMPT[0], {"role": "user", "content": PROMPT[1]["content"] + " Add a docstring and type hints."}]
    for seed in range(4):
        sampling = Sampling(temperature=0.8, max_tokens=40, seed=seed)
        after_nothing = small_model.chat(PROMPT, sampling=sampling).completions
        small_model.chat(longer, sampling=sampling)
        assert small_model.chat(PROMPT, sampling=sampling).completions == after_nothing, f"seed {seed}"


RULES = " ".join(f"Rule {n}: name every helper function after what it returns, and keep it under {n + 5} lines." for n in range(1, 16))
LONG_SYSTEM: Message = {"role": "system", "content": f"You are a concise Python assistant. {RULES}"}


def test_reused_prompt_state_gives_the_fresh_answer(small_model: LlamaCppLLM, monkeypatch: pytest.MonkeyPatch) -> None:
    """A repair-like prompt after another with the same long opening keeps that opening's state, and
    the seeded answer is the one a fresh evaluation gives."""
    monkeypatch.setattr(small_model._loaded.llama, "prompt_states", None)  # the state in memory alone; the disk's is tested below
    repair = [LONG_SYSTEM, {"role": "user", "content": "Fix this function: def square(x): return x * 2"}]
    draft = [LONG_SYSTEM, {"role": "user", "content": "Write a Python function that returns the cube of a number."}]
    sampling = Sampling(temperature=0.8, max_tokens=32, seed=7)
    small_model.chat(PROMPT, sampling=sampling)
    fresh = small_model.chat(repair, sampling=sampling)
    assert fresh.usage.reused_prompt_tokens == 0, "PROMPT shares no whole chunk with the repair prompt"
    small_model.chat(draft, sampling=sampling)
    resumed = small_model.chat(repair, sampling=sampling)
    assert resumed.usage.reused_prompt_tokens >= 2 * PROMPT_CHUNK
    assert resumed.usage.reused_prompt_tokens % PROMPT_CHUNK == 0
    assert resumed.completions == fresh.completions


def test_a_system_prompts_state_saved_by_one_load_gives_the_next_load_the_fresh_answer(
    small_gguf: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """What a fresh `generate` gains: the system message's whole chunks are evaluated once and loaded by later loads of
    the model; an unreadable state is evaluated afresh and saved again; the newest KEEP states stay."""
    import numpy as np

    from manimgen.llm import prompt_states

    monkeypatch.setenv("MANIMGEN_CACHE", str(tmp_path))
    asked = [LONG_SYSTEM, {"role": "user", "content": "Fix this function: def square(x): return x * 2"}]
    sampling = Sampling(temperature=0.8, max_tokens=32, seed=7)

    def answer(messages: list[Message] = asked) -> tuple[list[str], int]:
        model = LlamaCppLLM(small_gguf, n_ctx=1024)  # a context no other test holds: a fresh load, as in a new process
        try:
            result = model.chat(messages, sampling=sampling)
        finally:
            model.close()
        return result.completions, result.usage.reused_prompt_tokens

    fresh, reused = answer()
    assert reused == 0
    [saved] = (tmp_path / "prompt-states").glob("*.npz")
    loaded, reused = answer()
    assert loaded == fresh and reused >= 2 * PROMPT_CHUNK and reused % PROMPT_CHUNK == 0
    saved.write_bytes(b"not a state")
    again, reused = answer()
    assert again == fresh and reused == 0
    assert np.load(saved)["state"].size > 0, "the state is saved again"
    monkeypatch.setattr(prompt_states, "KEEP", 1)
    answer([{"role": "system", "content": LONG_SYSTEM["content"] + " Answer in one line."}, asked[1]])
    assert len(list((tmp_path / "prompt-states").glob("*"))) == 1, "only the newest state stays, and nothing staged is left"


@pytest.mark.parametrize(
    ("previous", "prompt", "evaluated", "kept"),
    [
        ([], list(range(200)), 0, 0),
        (list(range(200)), list(range(200)), 300, 192),  # the same prompt: all whole chunks but the last token's
        (list(range(130)), list(range(200)), 300, 128),  # the prefix ends inside the third chunk
        (list(range(130)), list(range(200)), 100, 64),  # the earlier call was cut short after 100 tokens
        (list(range(63)), list(range(200)), 300, 0),  # less than one chunk in common
        (list(range(128)), list(range(128)), 300, 64),  # one token must be left to evaluate
    ],
)
def test_reusable_tokens_are_whole_evaluated_chunks(previous: list[int], prompt: list[int], evaluated: int, kept: int) -> None:
    assert reusable_tokens(previous, prompt, evaluated, chunk=64) == kept
