"""Where manimgen keeps what it derives (renders, exported embedders) and the models it builds, and
where it looks for the datasets it reads.

`$MANIMGEN_CACHE` moves the derived files (default `~/.cache/manimgen`); the models stay in
`~/.cache/manimgen/models` unless `$MANIMGEN_MODEL_DIR` moves them, so a run with a fresh render
cache does not rebuild a gigabyte of weights.
Datasets are read from a `shared/data/` folder beside the checkout (or the working directory's parent).
Every file manimgen derives is written through `staged`, so no reader ever sees half of one.
"""

from __future__ import annotations

import os
import tempfile
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import IO

CACHE_ENV = "MANIMGEN_CACHE"
MODEL_DIR_ENV = "MANIMGEN_MODEL_DIR"


def default_root() -> Path:
    return Path.home() / ".cache" / "manimgen"


def cache_root() -> Path:
    """`$MANIMGEN_CACHE`, else ~/.cache/manimgen: renders and embedders live below it."""
    return Path(os.environ.get(CACHE_ENV) or default_root())


def models_dir() -> Path:
    """`$MANIMGEN_MODEL_DIR`, else ~/.cache/manimgen/models, wherever `$MANIMGEN_CACHE` points."""
    return Path(os.environ.get(MODEL_DIR_ENV) or default_root() / "models")


def shared_data(name: str) -> Path | None:
    """`shared/data/<name>` beside the working directory or the checkout, if there is one."""
    repo_root = Path(__file__).resolve().parents[2]
    for base in (Path.cwd(), repo_root):
        candidate = base.parent / "shared" / "data" / name
        if candidate.exists():
            return candidate
    return None


@contextmanager
def staged(path: Path) -> Iterator[Path]:
    """A fresh path with `path`'s name (writers that read the suffix still work) in a hidden folder beside it:
    write it in the block, and it replaces `path` whole when the block ends; when the block raises, it and its
    folder are removed and `path` is left as it was."""
    path.parent.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(dir=path.parent, prefix=f".{path.name}.", suffix=".partial") as folder:
        partial = Path(folder) / path.name
        yield partial
        os.replace(partial, path)


def keep_in_cache(path: Path, write: Callable[[IO[bytes]], None]) -> None:
    """Write a derived file with `write` and publish it whole; a full or read-only cache costs the next process
    the work again, nothing else, and leaves nothing staged."""
    try:
        with staged(path) as partial, partial.open("wb") as file:
            write(file)
    except OSError:
        pass
