"""Content-addressed render store: the same code at the same settings is rendered once.

Renders are deterministic (two renders of one scene give byte-identical MP4s), so a result keyed by
sha256(code, scene, quality, manim version, TeX template) can be reused by the agent, the bench and
the GRPO reward alike. Entries are written to a temporary folder and renamed into place, so
concurrent processes never see half an entry; the store is trimmed, oldest first, past its size bound.
"""

from __future__ import annotations

import functools
import hashlib
import json
import os
import shutil
import uuid
from dataclasses import replace
from pathlib import Path

from manimgen.manim_import import manim_version
from manimgen.paths import cache_root
from manimgen.render.geometry import GEOMETRY_VERSION
from manimgen.render.result import RenderResult, RenderStatus

CACHEABLE = {RenderStatus.OK, RenderStatus.CODE_ERROR, RenderStatus.LATEX_ERROR, RenderStatus.NO_SCENE}
DEFAULT_MAX_BYTES = 5 << 30
UNCACHED_MAX_BYTES = 1 << 30
TRIM_EVERY = 64
META = "result.json"


def render_key(code: str, scene: str | None, quality: str, tex_template: str | None = None, *, geometry: bool = False) -> str:
    """The identity of a render: everything that can change its pixels, and whether it recorded geometry."""
    fields = {"code": code, "scene": scene, "quality": quality, "manim": manim_version(), "tex": tex_template}
    if geometry:
        fields["geometry"] = GEOMETRY_VERSION
    material = json.dumps(fields, sort_keys=True)
    return hashlib.sha256(material.encode()).hexdigest()


class RenderCache:
    """A folder per key holding the output file and the RenderResult that described it."""

    def __init__(self, root: Path | None = None, max_bytes: int = DEFAULT_MAX_BYTES) -> None:
        self.root = root or cache_root() / "renders"
        self.max_bytes = max_bytes
        self._puts = 0
        self.root.mkdir(parents=True, exist_ok=True)

    def _entry(self, key: str) -> Path:
        return self.root / key[:2] / key

    def get(self, key: str) -> RenderResult | None:
        entry = self._entry(key)
        try:
            data = json.loads((entry / META).read_text())
        except (OSError, ValueError):
            return None
        result = RenderResult.from_dict(data)
        if result.output is not None:
            result = replace(result, output=entry / result.output.name)
            if not result.output.is_file():
                return None
        os.utime(entry)
        return replace(result, cached=True)

    def put(self, key: str, result: RenderResult, *, fresh: bool = False) -> RenderResult:
        """Store a result (moving its output in); returns it with the output's new home. `fresh`
        replaces an entry already there (a render asked to bypass the cache is kept, not reused)."""
        if result.status not in CACHEABLE:
            return result
        entry = self._entry(key)
        staging = self.root / f".staging-{uuid.uuid4().hex}"
        staging.mkdir(parents=True)
        stored = result
        if result.output is not None:
            shutil.copy2(result.output, staging / result.output.name)
            stored = replace(result, output=entry / result.output.name)
        (staging / META).write_text(json.dumps(stored.to_dict()))
        entry.parent.mkdir(parents=True, exist_ok=True)
        if fresh:
            shutil.rmtree(entry, ignore_errors=True)
        try:
            os.rename(staging, entry)
        except OSError:
            shutil.rmtree(staging, ignore_errors=True)
            return self.get(key) or stored
        self._puts += 1
        if self._puts % TRIM_EVERY == 1:
            self.trim()
        return stored

    def size_bytes(self) -> int:
        return sum(f.stat().st_size for f in self.root.rglob("*") if f.is_file())

    def trim(self) -> None:
        """Drop least recently used entries until the store fits its bound."""
        if not self.root.is_dir():
            return
        entries = [e for shard in self.root.iterdir() if shard.is_dir() and not shard.name.startswith(".") for e in shard.iterdir()]
        sizes = {e: sum(f.stat().st_size for f in e.iterdir()) for e in entries}
        total = sum(sizes.values())
        for entry in sorted(entries, key=lambda e: e.stat().st_mtime):
            if total <= self.max_bytes:
                break
            shutil.rmtree(entry, ignore_errors=True)
            total -= sizes[entry]

    def clear(self) -> None:
        shutil.rmtree(self.root, ignore_errors=True)
        self.root.mkdir(parents=True, exist_ok=True)


@functools.cache
def _cache_at(root: Path, max_bytes: int) -> RenderCache:
    return RenderCache(root, max_bytes)


def default_cache() -> RenderCache:
    """The process's render cache under the cache root (one object, so it trims every TRIM_EVERY puts)."""
    return _cache_at(cache_root() / "renders", DEFAULT_MAX_BYTES)


def uncached_store() -> RenderCache:
    """Where renders that bypass the cache keep their output: never read back, trimmed past 1 GiB."""
    return _cache_at(cache_root() / "renders-uncached", UNCACHED_MAX_BYTES)
