"""Copies of rendered videos and images inside the run directory.

The render cache is trimmed oldest-first, so a gallery that pointed into it would rot; every
sample's output and every reference's render is copied under `runs/NAME/media/` before its row is
written. Copies land under a temporary name and are renamed into place, so a killed run never
leaves half a file under a final name.
"""

from __future__ import annotations

import hashlib
import re
import shutil
from pathlib import Path

from manimgen.paths import staged

MEDIA_DIR = "media"
UNSAFE = re.compile(r"[^A-Za-z0-9_.-]+")


def slug(label: str) -> str:
    """A file-name-safe form of a label; a digest keeps labels that differ only in symbols apart."""
    cleaned = UNSAFE.sub("_", label).strip("._") or "x"
    if cleaned == label:
        return label
    return f"{cleaned[:60]}-{hashlib.sha256(label.encode()).hexdigest()[:8]}"


def sample_media_path(model: str, strategy: str, task_id: str, seed: int, suffix: str) -> Path:
    """Where a sample's output goes, relative to the run directory."""
    return Path(MEDIA_DIR) / "samples" / slug(model) / slug(strategy) / f"{slug(task_id)}-seed{seed}{suffix}"


def reference_media_path(task_id: str, suffix: str) -> Path:
    return Path(MEDIA_DIR) / "references" / f"{slug(task_id)}{suffix}"


def remove_partials(run_dir: Path) -> None:
    """Drop copies a killed run left half-written (only ever under a temporary name)."""
    for partial in (run_dir / MEDIA_DIR).rglob(".*.partial"):
        if partial.is_dir():
            shutil.rmtree(partial, ignore_errors=True)
        else:
            partial.unlink(missing_ok=True)


def copy_into(run_dir: Path, source: Path, relative: Path) -> Path:
    """Copy `source` to `run_dir/relative` atomically; returns `relative`."""
    with staged(run_dir / relative) as partial:
        shutil.copyfile(source, partial)
    return relative
