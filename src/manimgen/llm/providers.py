"""The providers: how a name or spec string becomes a ready chat model.

Each provider is one entry of the `PROVIDERS` registry: the spec prefix that picks it, its syntax and summary
(the CLI's help, `manimgen models` and docs/models.md's table are built from them), how the text after
the prefix parses, and how the model loads. A provider's module is imported only when a model of
its kind loads, so naming a server model never pays for importing torch or llama.cpp. An embedded
model's name (and `NAME+ADAPTER`) goes to llama.cpp.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from manimgen.llm.base import LLM, LLMError
from manimgen.llm.models import DEFAULT_MODEL, MODELS, ensure_gguf, shipped_adapter, tuned_base
from manimgen.registry import Registry


@dataclass(frozen=True)
class ModelSpec:
    """A parsed name or spec string: which provider, and what it loads."""

    provider: str  # a PROVIDERS key
    target: str  # registry name, path, hub id, server URL or module
    adapter: str | None = None
    model: str | None = None


@dataclass(frozen=True)
class Provider:
    """One kind of model: `prefix:REST` names it; `parse(text, rest)` and `load(spec, name, progress, options)`."""

    prefix: str
    syntax: str
    summary: str
    parse: Callable[[str, str], ModelSpec]
    load: Callable[[ModelSpec, str, bool, dict[str, Any]], LLM]


def _path_and_adapter(provider: str, text: str, rest: str, hint: str) -> ModelSpec:
    path, _, adapter = rest.partition("+")
    if not path:
        raise LLMError(f"model spec {text!r} has no {hint}")
    return ModelSpec(provider, path, adapter=adapter or None)


def _parse_openai(text: str, rest: str) -> ModelSpec:
    url, _, model = rest.partition("#")
    if not url:
        raise LLMError(f"model spec {text!r} has no server URL; write openai:http://HOST:PORT/v1#MODEL")
    return ModelSpec("openai", url, model=model or None)


def _parse_python(text: str, rest: str) -> ModelSpec:
    module_name, _, function = rest.partition(":")
    if not module_name or not function:
        raise LLMError(f"model spec {text!r}: write py:MODULE:FUNCTION, FUNCTION() returning an LLM")
    return ModelSpec("python", module_name, model=function)


def _load_openai(spec: ModelSpec, name: str, progress: bool, options: dict[str, Any]) -> LLM:
    from manimgen.llm.openai_compat import OpenAICompatLLM

    return OpenAICompatLLM(spec.target, spec.model, name=name, **options)


def _load_transformers(spec: ModelSpec, name: str, progress: bool, options: dict[str, Any]) -> LLM:
    if (base := tuned_base(spec.target)) is not None:
        raise LLMError(f"{spec.target}'s adapter runs in llama.cpp only: name it without hf:, or write hf:{base}+ADAPTER_DIR")
    from manimgen.llm.transformers import TransformersLLM

    path = ensure_gguf(spec.target, progress=progress) if spec.target in MODELS else spec.target
    return TransformersLLM(path, spec.adapter, name=name, **options)


def _load_llamacpp(spec: ModelSpec, name: str, progress: bool, options: dict[str, Any]) -> LLM:
    from manimgen.llm.llamacpp import LlamaCppLLM

    if spec.target not in MODELS:
        return LlamaCppLLM(Path(spec.target), adapter=spec.adapter, name=name, **options)
    path = ensure_gguf(spec.target, progress=progress)
    return LlamaCppLLM(path, adapter=spec.adapter or shipped_adapter(spec.target), name=name, **options)


def _load_python(spec: ModelSpec, name: str, progress: bool, options: dict[str, Any]) -> LLM:
    """A provider written outside this package (or a test double), by import path."""
    try:
        factory = getattr(importlib.import_module(spec.target), spec.model or "")
    except (ImportError, AttributeError) as error:
        raise LLMError(f"model spec py:{spec.target}:{spec.model}: {error}; put the module on PYTHONPATH") from None
    return factory()


_BUILT_IN = (
    ("openai", Provider(
        "openai",
        "openai:URL#MODEL",
        "an OpenAI-compatible server (vLLM, llama.cpp server, Ollama, OpenAI); `#MODEL` may be left out when it "
        "serves one model; the key comes from MANIMGEN_API_KEY or OPENAI_API_KEY",
        _parse_openai,
        _load_openai,
    )),
    ("transformers", Provider(
        "hf",
        "hf:PATH[+ADAPTER]",
        "transformers: a local model folder, hub id, `.gguf` file (loaded dequantised) or embedded model name, "
        "optionally with a PEFT adapter folder",
        lambda text, rest: _path_and_adapter("transformers", text, rest, "model path; write hf:PATH or hf:PATH+ADAPTER"),
        _load_transformers,
    )),
    ("llamacpp", Provider(
        "gguf",
        "gguf:PATH[+ADAPTER]",
        "a GGUF file run by llama.cpp, optionally with a PEFT LoRA adapter folder (converted once to llama.cpp's format) "
        "or a llama.cpp adapter `.gguf`; `NAME+ADAPTER` does the same on an embedded base model",
        lambda text, rest: _path_and_adapter("llamacpp", text, rest, "file; write gguf:PATH/TO/MODEL.gguf[+ADAPTER_DIR]"),
        _load_llamacpp,
    )),
    ("python", Provider(
        "py",
        "py:MODULE:FUNCTION",
        "a provider of your own: FUNCTION() returns an object with the `LLM` protocol's chat/close",
        _parse_python,
        _load_python,
    )),
)
PROVIDERS: Registry[Provider] = Registry("provider", ((name, provider, provider.summary) for name, provider in _BUILT_IN))


def spec_help() -> str:
    syntaxes = ", ".join(provider.syntax for provider in PROVIDERS.values())
    return f"an embedded model ({', '.join(MODELS)}) or a spec: NAME+ADAPTER, {syntaxes}"


def parse_spec(name_or_spec: str, *, bare_is_hf: bool = False) -> ModelSpec:
    """Split a registry name or spec string into provider and target; bad input names the syntax.

    With `bare_is_hf`, text that is neither a registry name nor a prefixed spec (a folder, file or
    hub id, as training takes them) reads as `hf:TEXT` instead of being refused.
    """
    text = name_or_spec.strip()
    if text in MODELS:
        return ModelSpec("llamacpp", text)
    name, plus, adapter = text.partition("+")
    if plus and name in MODELS:
        if not adapter:
            raise LLMError(f"model spec {text!r} has no adapter folder after '+'; write {name}+ADAPTER_DIR")
        if (base := tuned_base(name)) is not None:
            raise LLMError(f"{name} already applies its own adapter; write {base}+ADAPTER_DIR")
        return ModelSpec("llamacpp", name, adapter=adapter)
    prefix, colon, rest = text.partition(":")
    for provider in PROVIDERS.values():
        if colon and prefix == provider.prefix:
            return provider.parse(text, rest)
    if bare_is_hf:
        return PROVIDERS["transformers"].parse(text, text)
    raise LLMError(f"unknown model {text!r}: use {spec_help()}")


def load_model(name_or_spec: str = DEFAULT_MODEL, *, progress: bool = True, **options: Any) -> LLM:
    """Build the provider a name or spec string asks for; `options` go to its constructor."""
    spec = parse_spec(name_or_spec)
    return PROVIDERS[spec.provider].load(spec, name_or_spec, progress, options)
