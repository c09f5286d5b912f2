"""Where manimgen keeps what it derives: renders, exported embedders and downloaded models, under one root;
and where it looks for the datasets it reads.

`$MANIMGEN_CACHE` moves all of it (default `~/.cache/manimgen`); `$MANIMGEN_MODEL_DIR` moves the models alone.
Datasets are read from a `shared/data/` folder beside the checkout (or the working directory's parent).
"""

from __future__ import annotations

import os
from pathlib import Path

CACHE_ENV = "MANIMGEN_CACHE"
MODEL_DIR_ENV = "MANIMGEN_MODEL_DIR"


def cache_root() -> Path:
    """`$MANIMGEN_CACHE`, else ~/.cache/manimgen: models, renders and embedders live below it."""
    return Path(os.environ.get(CACHE_ENV) or Path.home() / ".cache" / "manimgen")


def models_dir() -> Path:
    """`$MANIMGEN_MODEL_DIR`, else the cache root's `models`."""
    if explicit := os.environ.get(MODEL_DIR_ENV):
        return Path(explicit)
    return cache_root() / "models"


def shared_data(name: str) -> Path | None:
    """`shared/data/<name>` beside the working directory or the checkout, if there is one."""
    repo_root = Path(__file__).resolve().parents[2]
    for base in (Path.cwd(), repo_root):
        candidate = base.parent / "shared" / "data" / name
        if candidate.exists():
            return candidate
    return None
