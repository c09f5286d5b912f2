"""A run directory's generation cache, `generations.sqlite`, kept in step with the samples stored.

Every round of every stored trace is entered under the key its call had (model spec, messages,
sampling at seed + round index), so a run whose samples predate the cache, or whose cache file was
deleted, still replays the calls it has already paid for. An exported sample has no messages (they
quote the dataset) but carries each round's key, so an imported run replays its calls too.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Iterator
from pathlib import Path

from manimgen.agent.strategies import round_sampling
from manimgen.agent.trace import Round
from manimgen.bench.config import SamplingConfig
from manimgen.bench.store import Sample, Store
from manimgen.llm.base import ChatResult, Usage
from manimgen.llm.cache import GenerationCache, generation_key

CACHE_NAME = "generations.sqlite"


def open_generation_cache(run_dir: Path, store: Store) -> GenerationCache:
    """The run's cache, with the rounds of every stored trace entered (known keys are left as they are)."""
    cache = GenerationCache(Path(run_dir) / CACHE_NAME)
    cache.put_many(_stored_calls(store))
    return cache


def enter_calls(run_dir: Path, calls: Iterable[tuple[str, str, ChatResult]]) -> None:
    """Add (key, model, result) calls to RUN_DIR's cache; recorded keys keep their first answer."""
    cache = GenerationCache(Path(run_dir) / CACHE_NAME)
    try:
        cache.put_many(calls)
    finally:
        cache.close()


def round_keys(sample: Sample) -> list[str | None]:
    """The generation key of each round of SAMPLE's trace; None where the round's messages are gone."""
    return [key for _, key in _keyed_rounds(sample)]


def round_calls(sample: Sample, keys: list[str | None]) -> Iterator[tuple[str, str, ChatResult]]:
    """(key, model, result) of each round of SAMPLE's trace that has a key in KEYS (one per round)."""
    for round_, key in zip(sample.trace.rounds if sample.trace else [], keys):
        if key is not None:
            yield key, sample.model_spec, _result(round_)


def _keyed_rounds(sample: Sample) -> list[tuple[Round, str | None]]:
    """Each round of SAMPLE's trace (parsed once) with its generation key, None where its messages are gone."""
    if sample.trace is None:
        return []
    sampling = SamplingConfig.model_validate(json.loads(sample.strategy_params)["sampling"]).at_seed(sample.seed)
    return [
        (round_, generation_key(sample.model_spec, round_.messages, 1, round_sampling(sampling, round_.index)) if round_.messages else None)
        for round_ in sample.trace.rounds
    ]


def _result(round_: Round) -> ChatResult:
    return ChatResult([round_.completion], Usage(round_.prompt_tokens, round_.completion_tokens, round_.llm_seconds))


def _stored_calls(store: Store) -> Iterator[tuple[str, str, ChatResult]]:
    """(key, model, result) of every round of every stored trace that still holds its messages."""
    for sample in store.samples(with_trace=True):
        for round_, key in _keyed_rounds(sample):
            if key is not None:
                yield key, sample.model_spec, _result(round_)
