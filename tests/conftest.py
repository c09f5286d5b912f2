"""Test-wide settings: renders go to a private cache so runs never see each other's results."""

from __future__ import annotations

import os
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from servers import llama_server_on

from manimgen.paths import cache_root
from manimgen.registry import Registry


@pytest.fixture(scope="session", autouse=True)
def private_render_cache(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Keep downloaded or assembled models where they are; give renders a fresh store."""
    os.environ.setdefault("MANIMGEN_MODEL_DIR", str(cache_root() / "models"))
    root = tmp_path_factory.mktemp("manimgen-cache")
    os.environ["MANIMGEN_CACHE"] = str(root)
    return root


@pytest.fixture
def throwaway() -> Iterator[Callable[..., None]]:
    """Register items for one test: `throwaway(REGISTRY, name, item, summary)`; each is removed after it."""
    added: list[tuple[Registry[object], str]] = []

    def register(registry: Registry[object], name: str, item: object, summary: str = "") -> None:
        registry.add(name, item, summary)
        added.append((registry, name))

    yield register
    for registry, name in added:
        registry.remove(name)


@pytest.fixture(scope="session")
def small_gguf() -> Path:
    """The embedded 0.5B GGUF, or a skip naming the missing install."""
    from manimgen.llm import MissingWeightsError, ensure_gguf

    try:
        return ensure_gguf("qwen2.5-coder-0.5b", progress=False)
    except MissingWeightsError as error:
        pytest.skip(str(error))


@pytest.fixture(scope="module")
def llama_server(small_gguf: Path) -> Iterator[str]:
    """A llama.cpp server on the 0.5B model (OpenAI-compatible); yields its API root once it answers."""
    pytest.importorskip("llama_cpp.server", reason="needs llama-cpp-python[server]: pip install -e '.[llamacpp]'")
    with llama_server_on(small_gguf) as url:
        yield url
