"""Scores of generated code against a reference scene: the one place that joins the renderer, the
frames and the metrics (which stay pure functions below it).

Both codes are rendered through ``manimgen.render`` (so its disk cache applies), sampled at 5 fps,
and compared with the visual metrics; the code metrics compare the two sources. A reference's
render, frames and image embeddings are kept in memory per (sha256(code), quality, embedder), so
scoring many completions of one task renders and embeds the reference once; the code embedder's
vectors are memoised the same way. A Scorer is meant for one thread at a time.

Failures are scored, not raised: no code scores ``render_status="no_code"``, and code that does not
render scores VS = 0, as in the paper. A reference that does not render is a broken task and raises
``ReferenceRenderError``: a silent 0 there would blame the model.
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from typing import Any

import av
from cachetools import LRUCache
import numpy as np

from manimgen.data import Task
from manimgen.metrics import embedders
from manimgen.metrics.code import (
    ast_distance,
    ast_distance_fields,
    codebleu,
    combine_code_bert_bleu,
    embedding_cosine,
    padded_pair_cosine,
    scene_classes,
    syntax_error,
)
from manimgen.metrics.content import Cells, compare_cells, drawn_cells
from manimgen.metrics.dtw import DTW_METHODS, DtwMethod
from manimgen.metrics.embedders import CodeEmbedder
from manimgen.metrics.registry import Metric, get_metric
from manimgen.metrics.visual import VisualScore, embed_frames, visual_score
from manimgen.render import Renderer, RendererOptions, RenderJob, RenderResult, RenderStatus, every_nth_frame, get_quality, open_renderer, sample_frames
from manimgen.render.result import DEFAULT_QUALITY, DEFAULT_RENDER_TIMEOUT_S
from manimgen.scoring.presets import DEFAULT_PRESET, PRESETS
from manimgen.scoring.schema import METRIC_FIELDS, Scores

FRAMES_PER_SECOND = 5.0
NO_CODE = "no_code"
SEVERAL_SCENES = "several_scenes"
REFERENCE_CACHE_SIZE = 16
COMPUTED = frozenset({"vs", "ssim_dtw", "sem_dtw", "content_vs", "codebleu", "code_cosine", "cbb", "ast_distance", "syntax_error"})
"""The measured fields this Scorer computes itself, with its preset's embedders, DTW, sampling and AST labels."""
CODE_VECTOR_CACHE_SIZE = 4096


class ReferenceRenderError(RuntimeError):
    """A reference scene did not render, so nothing can be scored against it."""


@dataclass(frozen=True)
class ReferenceRender:
    """What every score against one reference reuses."""

    render: RenderResult
    frames: np.ndarray
    embeddings: np.ndarray
    cells: Cells


@dataclass(frozen=True)
class CacheStats:
    hits: int
    misses: int
    size: int


class MemoCodeEmbedder:
    """A code embedder that embeds each distinct text once (the reference, scored N times)."""

    def __init__(self, inner: CodeEmbedder, max_size: int = CODE_VECTOR_CACHE_SIZE) -> None:
        self.name = inner.name
        self.inner = inner
        self._vectors: LRUCache[str, np.ndarray] = LRUCache(max_size)

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        keys = [_sha256(text) for text in texts]
        found = {key: self._vectors.get(key) for key in dict.fromkeys(keys)}
        missing = {key: text for key, text in zip(keys, texts) if found[key] is None}
        if missing:
            for key, vector in zip(missing, self.inner.embed(list(missing.values()))):
                found[key] = vector
                self._vectors[key] = vector
        return np.stack([found[key] for key in keys])


class Scorer:
    """Scores generated code against reference scenes under a metric preset (scoring/presets.py), with
    its embedders and DTW unless named here, at one render quality."""

    def __init__(
        self,
        image_embedder: str | None = None,
        code_embedder: str | None = None,
        quality: str = DEFAULT_QUALITY,
        dtw: str | None = None,
        timeout_s: float = DEFAULT_RENDER_TIMEOUT_S,
        workers: int | None = None,
        reference_cache_size: int = REFERENCE_CACHE_SIZE,
        with_ast_distance: bool = True,
        renderer: Renderer | None = None,
        preset: str = DEFAULT_PRESET,
    ) -> None:
        get_quality(quality)
        self.preset = PRESETS.pick(preset)
        dtw = dtw or self.preset.dtw
        if dtw not in DTW_METHODS:
            raise ValueError(f"unknown DTW method {dtw!r}; use one of: {', '.join(DTW_METHODS)}")
        self.quality = quality
        self.dtw: DtwMethod = dtw  # type: ignore[assignment]
        self.timeout_s = timeout_s
        self.workers = workers
        self._image = embedders.image_embedder(image_embedder or self.preset.image_embedder)
        self._code = MemoCodeEmbedder(embedders.code_embedder(code_embedder or self.preset.code_embedder))
        self._references: LRUCache[tuple[str, str, str, str], ReferenceRender] = LRUCache(reference_cache_size)
        self._reference_hits = self._reference_misses = 0
        self.with_ast_distance = with_ast_distance
        self._renderer = renderer
        self._pool: Renderer | None = None

    @property
    def image_embedder(self) -> str:
        return self._image.name

    @property
    def code_embedder(self) -> str:
        return self._code.name

    def reference_cache_stats(self) -> CacheStats:
        """Hits and misses of the in-memory reference cache: a miss is one reference render."""
        return CacheStats(self._reference_hits, self._reference_misses, len(self._references))

    def score(self, reference_code: str, code: str | None, *, render: RenderResult | None = None) -> Scores:
        """Scores of ``code`` against a reference scene; ``render`` reuses a render of ``code``."""
        return self._score(reference_code, code, render, "the reference scene")

    def score_task(self, task: Task, code: str | None, *, render: RenderResult | None = None) -> Scores:
        """Scores of ``code`` against the task's reference scene."""
        return self._score(task.reference_code, code, render, f"the reference of task {task.id}")

    def score_many(self, items: Sequence[tuple[str, str | None]]) -> list[Scores]:
        """Scores of (reference_code, code) pairs, in order. Every distinct code and each reference
        not yet in memory is rendered once, all in parallel on the scorer's renderer (its own pool is
        kept warm between calls); the code metrics are computed while the renders run."""
        positions: dict[str, list[int]] = {}
        for position, (reference, _) in enumerate(items):
            positions.setdefault(reference, []).append(position)
        pending = [reference for reference in positions if self._reference_key(reference) not in self._references]
        codes = list(dict.fromkeys(pending + [code for _, code in items if _has_code(code)]))
        with ThreadPoolExecutor(max_workers=1, thread_name_prefix="score-renders") as side:
            rendering = side.submit(self._render_with().map, [RenderJob(code, quality=self.quality) for code in codes])
            code_parts = [self.code_scores(reference, code) for reference, code in items]
            renders = dict(zip(codes, rendering.result()))
        scores: dict[int, Scores] = {}
        for reference, group in positions.items():  # grouped: each reference is prepared once, cache bound or not
            prepared = self._reference(reference, f"the reference of item {group[0]}", renders.get(reference))
            for position in group:
                code = items[position][1]
                scores[position] = self._scores(prepared, code, renders.get(code or ""), code_parts[position])
        return [scores[position] for position in range(len(items))]

    def close(self) -> None:
        """Stop the render workers the scorer started itself; a later render starts new ones."""
        if self._pool is not None:
            self._pool.close()
            self._pool = None

    def __enter__(self) -> Scorer:
        return self

    def __exit__(self, *_: object) -> None:
        self.close()

    def _render_with(self) -> Renderer:
        """The renderer given, else a warm pool of the scorer's own, kept between calls."""
        if self._renderer is not None:
            return self._renderer
        if self._pool is None:
            self._pool = open_renderer(options=RendererOptions(workers=self.workers, timeout_s=self.timeout_s))
        return self._pool

    def _score(self, reference_code: str, code: str | None, render_result: RenderResult | None, name: str) -> Scores:
        prepared = self._reference(reference_code, name)
        if render_result is None and _has_code(code):
            render_result = self._render_with().render(RenderJob(code, quality=self.quality))
        return self._scores(prepared, code, render_result, self.code_scores(reference_code, code))

    def code_scores(self, reference_code: str, code: str | None) -> dict[str, Any]:
        """The metrics that read the two sources only (no render needed)."""
        generated = code if _has_code(code) else ""
        bleu, cosine = codebleu(reference_code, generated), self._cosine(reference_code, generated)
        return {
            "codebleu": bleu,
            "code_cosine": cosine,
            "cbb": combine_code_bert_bleu(bleu, cosine),
            "ast_distance": self._ast_distance(reference_code, generated) if self.with_ast_distance else None,
            "syntax_error": syntax_error(generated),
            **{name: metric(reference_code, generated) for name, metric in _registered_only("code").items()},
        }

    def _cosine(self, reference_code: str, generated: str) -> float:
        if self.preset.code_pooling == "padded-pair":
            return padded_pair_cosine(reference_code, generated, self._code.inner)
        return embedding_cosine(reference_code, generated, self._code)

    def _ast_distance(self, reference_code: str, generated: str) -> float | None:
        return ast_distance_fields(reference_code, generated) if self.preset.ast_labels == "fields" else ast_distance(reference_code, generated)

    def _frames(self, result: RenderResult) -> np.ndarray | None:
        """The render's frames at 5 per second as the preset samples them, or None when none decode."""
        if result.output is None:
            return None
        sample = every_nth_frame if self.preset.frame_sampling == "every-nth" else sample_frames
        try:
            return sample(result.output, fps=FRAMES_PER_SECOND)
        except (ValueError, OSError, av.error.FFmpegError):
            return None

    def _scores(
        self, reference: ReferenceRender, code: str | None, result: RenderResult | None, code_scores: dict[str, Any]
    ) -> Scores:
        visual: VisualScore | None = None
        content: float | None = None
        frame_scores: dict[str, float] = {}
        status = NO_CODE
        if _has_code(code) and result is not None:
            if result.quality != self.quality:
                raise ValueError(
                    f"the given render is at quality {result.quality!r}; the scorer compares at {self.quality!r}"
                )
            status = result.status.value
            if not self.preset.several_scenes_render and len(scene_classes(code or "")) > 1:
                status = SEVERAL_SCENES
            frames = self._frames(result) if result.ok and status != SEVERAL_SCENES else None
            if frames is None and result.ok and status != SEVERAL_SCENES:
                status = RenderStatus.NO_OUTPUT.value
            if frames is not None:
                visual = visual_score(
                    reference.frames, frames, self._image, dtw=self.dtw, ref_embeddings=reference.embeddings, gray=self.preset.gray
                )
                content = compare_cells(reference.cells, drawn_cells(frames))
                frame_scores = {name: metric(reference.frames, frames) for name, metric in _registered_only("frames").items()}
        return Scores(
            **frame_scores,
            render_status=status,
            rendered=visual is not None,
            vs=visual.vs if visual else 0.0,
            ssim_dtw=visual.ssim_dtw if visual else 0.0,
            sem_dtw=visual.sem_dtw if visual else 0.0,
            content_vs=content if visual else 0.0,
            **code_scores,
            image_embedder=self.image_embedder,
            code_embedder=self.code_embedder,
            dtw=self.dtw,
            reference_status=reference.render.status.value,
            preset=self.preset.name,
        )

    def _reference_key(self, reference_code: str) -> tuple[str, str, str, str]:
        return _sha256(reference_code), self.quality, self.image_embedder, self.preset.frame_sampling

    def _reference(self, reference_code: str, name: str, rendered: RenderResult | None = None) -> ReferenceRender:
        key = self._reference_key(reference_code)
        cached = self._references.get(key)
        if cached is not None:
            self._reference_hits += 1
            return cached
        self._reference_misses += 1
        result = rendered or self._render_with().render(RenderJob(reference_code, quality=self.quality))
        frames = self._frames(result) if result.ok else None
        if frames is None:
            last_line = result.error_tail.splitlines()[-1] if result.error_tail else "no decodable video or image"
            raise ReferenceRenderError(
                f"{name} did not render ({result.status.value}: {last_line}); fix that reference scene "
                "(`manimgen render FILE` shows the full error, `manimgen doctor` checks LaTeX and the sandbox)"
            )
        prepared = ReferenceRender(result, frames, embed_frames(self._image, frames), drawn_cells(frames))
        self._references[key] = prepared
        return prepared


def _registered_only(inputs: str) -> dict[str, Metric]:
    """The measured Scores fields over `inputs` whose metric this Scorer does not compute itself (with its
    preset's choices): each is the registered function alone, over the two codes or the two renders' frames
    (a frames score stays None when the code did not render)."""
    return {name: get_metric(metric) for name, metric in METRIC_FIELDS.items() if name not in COMPUTED and get_metric(metric).inputs == inputs}


def _has_code(code: str | None) -> bool:
    return bool(code and code.strip())


def _sha256(text: str) -> str:
    return hashlib.sha256(text.encode()).hexdigest()
