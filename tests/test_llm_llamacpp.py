"""The embedded llama.cpp provider on the real 0.5B model."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from manimgen.llm import LLMError, Message, Sampling, load_model

pytest.importorskip("llama_cpp", reason="needs llama-cpp-python: pip install -e '.[llamacpp]'")

from manimgen.llm.llamacpp import _LOADED, LlamaCppLLM  # noqa: E402

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
    """With llama.cpp's prefix reuse left on, seed 2 of these four answered differently after `longer`."""
    longer = [PROMPT[0], {"role": "user", "content": PROMPT[1]["content"] + " Add a docstring and type hints."}]
    for seed in range(4):
        sampling = Sampling(temperature=0.8, max_tokens=40, seed=seed)
        after_nothing = small_model.chat(PROMPT, sampling=sampling).completions
        small_model.chat(longer, sampling=sampling)
        assert small_model.chat(PROMPT, sampling=sampling).completions == after_nothing, f"seed {seed}"
