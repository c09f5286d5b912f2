"""Where manimgen keeps what it derives: renders, exported embedders and downloaded models, under one root.

`$MANIMGEN_CACHE` moves all of it (default `~/.cache/manimgen`); `$MANIMGEN_MODEL_DIR` moves the models alone.
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
