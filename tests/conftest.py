"""Test-wide settings: renders go to a private cache so runs never see each other's results."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from manimgen.paths import cache_root


@pytest.fixture(scope="session", autouse=True)
def private_render_cache(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Keep downloaded or assembled models where they are; give renders a fresh store."""
    os.environ.setdefault("MANIMGEN_MODEL_DIR", str(cache_root() / "models"))
    root = tmp_path_factory.mktemp("manimgen-cache")
    os.environ["MANIMGEN_CACHE"] = str(root)
    return root


@pytest.fixture(scope="session")
def small_gguf() -> Path:
    """The embedded 0.5B GGUF, or a skip naming the missing install."""
    from manimgen.llm import MissingWeightsError, ensure_gguf

    try:
        return ensure_gguf("qwen2.5-coder-0.5b", progress=False)
    except MissingWeightsError as error:
        pytest.skip(str(error))
