"""Replay seeded model calls from a SQLite file, so a question asked twice is paid for once.

In a study every strategy opens with the same call (same messages, same seed), so a grid of five
strategies would pay for one draft five times; with the cache it pays once, and the strategies are
compared on the very same first draft. Only seeded calls are cached: an unseeded call is meant to
differ every time. A replayed result carries the tokens and the wall-clock seconds of the call that
produced it, so reported costs stay those of a fresh run, and `ChatResult.cached` says it was replayed.
"""

from __future__ import annotations

import hashlib
import json
import sqlite3
import threading
import time
from collections.abc import Iterable
from dataclasses import asdict, replace
from pathlib import Path

from manimgen.llm.base import LLM, ChatResult, Message, Sampling, Usage, accepts_images

SCHEMA = """
CREATE TABLE IF NOT EXISTS generations (
    key TEXT PRIMARY KEY,
    model TEXT NOT NULL,
    completions_json TEXT NOT NULL,
    prompt_tokens INTEGER NOT NULL,
    completion_tokens INTEGER NOT NULL,
    seconds REAL NOT NULL
)
"""


LATER_SETTINGS = ("schema",)
"""Sampling settings added after generations were stored: keyed only when set, so stored keys stay valid."""


def generation_key(model: str, messages: list[Message], n: int, sampling: Sampling) -> str:
    """What makes two calls the same call: the model, the exact messages (images by their bytes), n and
    every sampling setting."""
    settings = {name: value for name, value in asdict(sampling).items() if not (name in LATER_SETTINGS and value is None)}
    payload = {"model": model, "messages": [_keyed(message) for message in messages], "n": n, "sampling": settings}
    return hashlib.sha256(json.dumps(payload, sort_keys=True).encode()).hexdigest()


def _keyed(message: Message) -> dict[str, object]:
    """A message as its key sees it: an image is its content's digest, or its path once the file is gone."""
    keyed: dict[str, object] = dict(message)
    if "images" in message:
        keyed["images"] = [_image_digest(Path(path)) for path in message["images"]]
    return keyed


def _image_digest(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest() if path.is_file() else str(path)


class GenerationCache:
    """The table of recorded calls; one connection, shared by the threads that generate under a lock."""

    def __init__(self, path: str | Path) -> None:
        self.path = Path(path)
        self._lock = threading.Lock()
        self._db = sqlite3.connect(self.path, check_same_thread=False)
        self._db.execute("PRAGMA journal_mode=WAL")
        self._db.execute("PRAGMA synchronous=NORMAL")  # a lost last entry costs one model call, never consistency
        self._db.execute(SCHEMA)
        self._db.commit()

    def get(self, key: str) -> ChatResult | None:
        with self._lock:
            row = self._db.execute(
                "SELECT completions_json, prompt_tokens, completion_tokens, seconds FROM generations WHERE key = ?", (key,)
            ).fetchone()
        if row is None:
            return None
        completions, prompt_tokens, completion_tokens, seconds = row
        return ChatResult(json.loads(completions), Usage(prompt_tokens, completion_tokens, seconds), cached=True)

    def put(self, key: str, model: str, result: ChatResult) -> None:
        """Record a call; a key already recorded keeps its first answer."""
        self.put_many([(key, model, result)])

    def put_many(self, entries: Iterable[tuple[str, str, ChatResult]]) -> None:
        """Record (key, model, result) calls in one transaction; recorded keys keep their first answer."""
        rows = [
            (key, model, json.dumps(result.completions), result.usage.prompt_tokens, result.usage.completion_tokens, result.usage.seconds)
            for key, model, result in entries
        ]
        with self._lock, self._db:
            self._db.executemany("INSERT OR IGNORE INTO generations VALUES (?, ?, ?, ?, ?, ?)", rows)

    def __len__(self) -> int:
        with self._lock:
            return self._db.execute("SELECT COUNT(*) FROM generations").fetchone()[0]

    def close(self) -> None:
        with self._lock:
            self._db.close()


class CachedLLM:
    """Any provider, with its seeded calls answered from `cache` when they were asked before.

    `model_key` names the weights in the key (a registry name or spec string); it defaults to the
    provider's name.
    """

    def __init__(self, llm: LLM, cache: GenerationCache, model_key: str | None = None) -> None:
        self.llm = llm
        self.cache = cache
        self.name = llm.name
        self.model_key = model_key or llm.name
        self.accepts_images = accepts_images(llm)

    def chat(self, messages: list[Message], n: int = 1, sampling: Sampling | None = None) -> ChatResult:
        sampling = sampling or Sampling()
        if sampling.seed is None:
            return self.llm.chat(messages, n=n, sampling=sampling)
        key = generation_key(self.model_key, messages, n, sampling)
        cached = self.cache.get(key)
        if cached is not None:
            return cached
        started = time.monotonic()
        result = self.llm.chat(messages, n=n, sampling=sampling)
        elapsed = time.monotonic() - started
        self.cache.put(key, self.model_key, ChatResult(result.completions, replace(result.usage, seconds=elapsed)))
        return result

    def close(self) -> None:
        self.llm.close()
