"""A run directory's generation cache, `generations.sqlite`, kept in step with the samples stored.

Every round of every stored trace is entered under the key its call had (model spec, messages,
sampling at seed + round index), so a run whose samples predate the cache, or whose cache file was
deleted, still replays the calls it has already paid for.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

from manimgen.agent.strategies import round_sampling
from manimgen.agent.trace import Trace
from manimgen.bench.config import SamplingConfig
from manimgen.bench.store import Store
from manimgen.llm.base import ChatResult, Usage
from manimgen.llm.cache import GenerationCache, generation_key

CACHE_NAME = "generations.sqlite"


def open_generation_cache(run_dir: Path, store: Store) -> GenerationCache:
    """The run's cache, with the rounds of every stored trace entered (known keys are left as they are)."""
    cache = GenerationCache(Path(run_dir) / CACHE_NAME)
    cache.put_many(_stored_calls(store))
    return cache


def _stored_calls(store: Store) -> Iterator[tuple[str, str, ChatResult]]:
    """(key, model, result) of every round of every stored trace."""
    for sample in store.samples(with_trace=True):
        if not sample.trace_json:
            continue
        sampling = SamplingConfig.model_validate(json.loads(sample.strategy_params)["sampling"]).at_seed(sample.seed)
        for round_ in Trace.from_json(sample.trace_json).rounds:
            key = generation_key(sample.model_spec, round_.messages, 1, round_sampling(sampling, round_.index))
            usage = Usage(round_.prompt_tokens, round_.completion_tokens, round_.llm_seconds)
            yield key, sample.model_spec, ChatResult([round_.completion], usage)
