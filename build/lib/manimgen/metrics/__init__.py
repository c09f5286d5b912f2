"""Metrics: pure functions over frames and code, and a registry of them by name.

Importing this package registers the built-in metrics (``list_metrics()``); embedders load their
weights only when first used. Rendering and joining them into scores is `manimgen.scoring`, above this.
"""

from manimgen.metrics.code import (
    ast_distance,
    code_bert_bleu,
    codebleu,
    codebleu_parts,
    embedding_cosine,
    syntax_error,
)
from manimgen.metrics.content import content_similarity
from manimgen.metrics.correlation import Correlation, pearson, spearman
from manimgen.metrics.dtw import dtw_distance
from manimgen.metrics.embedders import (
    DEFAULT_CODE_EMBEDDER,
    DEFAULT_IMAGE_EMBEDDER,
    CodeEmbedder,
    EmbedderUnavailable,
    ImageEmbedder,
    code_embedder,
    image_embedder,
)
from manimgen.metrics.registry import Metric, get_metric, list_metrics, register_metric
from manimgen.metrics.visual import (
    VisualScore,
    sem_dtw,
    ssim_dtw,
    ssim_matrix,
    to_gray,
    visual_score,
    visual_similarity,
)

__all__ = [
    "content_similarity",
    "DEFAULT_CODE_EMBEDDER",
    "DEFAULT_IMAGE_EMBEDDER",
    "CodeEmbedder",
    "Correlation",
    "EmbedderUnavailable",
    "ImageEmbedder",
    "Metric",
    "VisualScore",
    "ast_distance",
    "code_bert_bleu",
    "code_embedder",
    "codebleu",
    "codebleu_parts",
    "dtw_distance",
    "embedding_cosine",
    "get_metric",
    "image_embedder",
    "list_metrics",
    "pearson",
    "register_metric",
    "sem_dtw",
    "spearman",
    "ssim_dtw",
    "ssim_matrix",
    "syntax_error",
    "to_gray",
    "visual_score",
    "visual_similarity",
]
