"""Example scenes to show a model: working scenes for the sentences nearest the one asked.

Two banks. The verified bank (`verified_bank`) is the scene builder's scenes of this project's development
sentences that held their whole checklist when rendered, and the scenes written by hand for development
sentences no block covers (`sentences/scenes/`), kept when they render with a clean layout
(scripts/verified_examples.py writes it beside this module): this project's own code for its own sentences,
so licence-clean, and measured against ManimBench's test split with the cut below before it is kept. The default bank (`example_bank`) is described next.

The bank is licence-clean data that is not the benchmark's answer: by default generative-manim's
Claude-written prompt/code pairs (Apache-2.0) after its first 50, which are the outside-ManimBench
evaluation set (configs/bench/outside-prompts.yaml), so no evaluated sentence sees its own answer.
Measured against ManimBench's test split with the minilm-l6 embedder, no kept example's code is closer
than cosine 0.824 to any test reference (median of the nearest 0.642) and no description closer than
0.659; the cut is code cosine 0.85 and description cosine 0.8 (`CUT_CODE`, `CUT_DESCRIPTION`), and
tests/test_search_strategies.py fails if an example of the bank reaches it. `$MANIMGEN_EXAMPLES` names
another JSON Lines file of {prompt or description, code} rows (all of them are used).
"""

from __future__ import annotations

import functools
import hashlib
import json
import logging
import os
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from manimgen.extras import extra_for
from manimgen.jsonl import read_jsonl
from manimgen.metrics.embedders import CodeEmbedder, code_embedder
from manimgen.paths import cache_root, keep_in_cache, shared_data

EXAMPLES_ENV = "MANIMGEN_EXAMPLES"
DEFAULT_FILE = Path("generative-manim") / "claude_generated.jsonl"
DEFAULT_SKIP = 50
"""The default file's first 50 rows are the outside evaluation set: never shown as examples."""
CUT_CODE, CUT_DESCRIPTION = 0.85, 0.8
EMBEDDER = "minilm-l6"

log = logging.getLogger(__name__)


class ExamplesUnavailable(RuntimeError):
    """No example file is found; the message names how to give one."""


@dataclass(frozen=True)
class Example:
    description: str
    code: str


class ExampleBank:
    """Examples and their description embeddings; `nearest` ranks them by cosine to a sentence."""

    def __init__(self, examples: list[Example]) -> None:
        if not examples:
            raise ExamplesUnavailable("the example file holds no rows with a description and code")
        self.examples = examples
        self._embedder = code_embedder(EMBEDDER)
        self._vectors = cached_vectors(self._embedder, [example.description for example in examples])

    def nearest(self, description: str, k: int) -> list[Example]:
        """The `k` examples nearest `description`, never the sentence itself (a development sentence measured
        against the bank built from it sees other sentences' scenes only)."""
        scores = self._vectors @ self._embedder.embed([description])[0]
        ranked = [self.examples[index] for index in np.argsort(-scores, kind="stable")]
        return [example for example in ranked if example.description != description.strip()][:k]


def cached_vectors(embedder: CodeEmbedder, texts: list[str]) -> np.ndarray:
    """`embedder`'s vectors of `texts`, kept in the cache under a digest of the embedder's name and the texts:
    a fresh `generate` reads the bank's vectors instead of embedding every description again."""
    digest = hashlib.sha256(json.dumps([embedder.name, texts]).encode()).hexdigest()[:24]
    path = cache_root() / "embedders" / f"{embedder.name}-bank-{digest}.npy"
    try:
        vectors = np.load(path, allow_pickle=False)
        if vectors.ndim == 2 and len(vectors) == len(texts) and vectors.dtype == np.float32:
            return vectors
    except (OSError, ValueError):
        pass
    vectors = embedder.embed(texts)
    keep_in_cache(path, lambda file: np.save(file, vectors, allow_pickle=False))
    return vectors


def read_examples(path: Path, skip: int = 0) -> list[Example]:
    """{prompt or description, code} rows of a JSON Lines file, after the first `skip`."""
    examples = []
    for _, row in list(read_jsonl(path))[skip:]:
        text, code = row.get("description", row.get("prompt")), row.get("code")
        if isinstance(text, str) and isinstance(code, str) and text.strip() and code.strip():
            examples.append(Example(text.strip(), code))
    return examples


VERIFIED_FILE = Path(__file__).with_name("verified_examples.jsonl")


@functools.cache
def verified_bank() -> ExampleBank:
    """The verified scenes of the development sentences (built and written), read and embedded once."""
    if not VERIFIED_FILE.is_file():
        raise ExamplesUnavailable(f"no verified example scenes at {VERIFIED_FILE}: run scripts/verified_examples.py")
    return ExampleBank(read_examples(VERIFIED_FILE))


@functools.cache
def example_bank() -> ExampleBank:
    """The process's bank, read and embedded once."""
    configured = os.environ.get(EXAMPLES_ENV)
    if configured:
        return ExampleBank(read_examples(Path(configured)))
    folder = shared_data(str(DEFAULT_FILE.parent))
    if folder is None or not (folder / DEFAULT_FILE.name).is_file():
        raise ExamplesUnavailable(
            f"no example scenes: set {EXAMPLES_ENV} to a JSON Lines file of {{prompt, code}} rows, "
            f"or put {DEFAULT_FILE} under shared/data beside the checkout"
        )
    return ExampleBank(read_examples(folder / DEFAULT_FILE.name, DEFAULT_SKIP))


def nearest_or_none(bank: Callable[[], ExampleBank], description: str, k: int) -> list[Example]:
    """`bank`'s `k` examples nearest `description`; none, said once, where the manimgen part that brings their
    text encoder is not installed, so a strategy that shows examples still drafts on the lean install
    (`llamacpp` and a model)."""
    try:
        chosen = bank()
    except ModuleNotFoundError as error:
        part = extra_for(error.name or "")
        if part is None:
            raise
        _say_without_examples(error.name or "", part)
        return []
    return chosen.nearest(description, k)


@functools.cache
def _say_without_examples(module: str, part: str) -> None:
    log.warning(
        "drafting without example scenes: their text encoder needs manimgen's `%s` part (no module %r); "
        "pip install 'manimgen[%s]' to show the model scenes like yours",
        part, module, part,
    )
