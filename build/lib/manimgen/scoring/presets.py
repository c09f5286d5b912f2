"""Named metric presets: every choice that changes a score, bundled, so a number says how it was made.

`default` is manimgen's: offline embedders, exact DTW, sound pooling and distances. `paper` reproduces
the original ManimBench/ManimTrainer code item by item, its bugs included (docs/metrics.md lists each
difference): fastdtw with radius 1, CLIP ViT-L/14 and CodeBERT (refused with the fix named when their
weights are missing, never replaced silently), every int(fps/5)-th frame, AST labels with `ctx` and
field leaves (None when the generated code does not parse), and a reference that does not render
giving the GRPO reward a visual part of 0 instead of leaving the completion unscored.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from manimgen.metrics.dtw import DtwMethod
from manimgen.metrics.embedders import DEFAULT_CODE_EMBEDDER, DEFAULT_IMAGE_EMBEDDER
from manimgen.metrics.visual import GrayMethod
from manimgen.registry import Registry

FrameSampling = Literal["clock", "every-nth"]
AstLabels = Literal["named", "fields"]
CodePooling = Literal["masked", "padded-pair"]
Extraction = Literal["lenient", "strict"]


@dataclass(frozen=True)
class MetricPreset:
    """Everything a preset fixes; a scoring entry point may still override the embedders and DTW."""

    name: str
    summary: str
    image_embedder: str
    code_embedder: str
    dtw: DtwMethod
    frame_sampling: FrameSampling
    """"clock": a frame each time the playback clock crosses 1/5 s; "every-nth": every int(fps/5)-th frame."""
    gray: GrayMethod
    """How frames become luma for SSIM: Pillow's rounding, or OpenCV's (the original decoded with OpenCV)."""
    ast_labels: AstLabels
    """"named": type plus the name or constant carried, no ctx, 1.0 on a syntax error; "fields": the
    original's labels (type names, every scalar field as "field: value", ctx nodes), None on a syntax error."""
    code_pooling: CodePooling
    """"masked": each code embedded alone over its real tokens; "padded-pair": the original's mean over the
    padded pair's every position (the pair's cosine then depends on their length difference)."""
    extraction: Extraction
    """"lenient": agent/extract.py's rule (other fences, truncated blocks); "strict": the original's (only
    closed <CODE> or ```python blocks), so a truncated answer is no code."""
    several_scenes_render: bool
    """Whether a file defining several scenes renders (its last one); the original names none, so it fails."""
    failed_reference_visual: float | None
    """The reward's visual part when the reference does not render: None leaves the completion unscored."""
    reward_render_timeout_s: float
    """Seconds a reward render may take unless a GRPO config sets `render_timeout_s` (the original's: 300)."""


_BUILT_IN = (
    MetricPreset(
        name="default",
        summary="manimgen's: offline embedders (effnet-lite0, minilm-l6), exact DTW, AST labels without ctx",
        image_embedder=DEFAULT_IMAGE_EMBEDDER,
        code_embedder=DEFAULT_CODE_EMBEDDER,
        dtw="exact",
        frame_sampling="clock",
        gray="pillow",
        ast_labels="named",
        code_pooling="masked",
        extraction="lenient",
        several_scenes_render=True,
        failed_reference_visual=None,
        reward_render_timeout_s=120.0,
    ),
    MetricPreset(
        name="paper",
        summary="the original code's: CLIP ViT-L/14, CodeBERT, fastdtw radius 1, every int(fps/5)-th frame, its AST labels",
        image_embedder="clip-vit-l-14",
        code_embedder="codebert",
        dtw="fastdtw",
        frame_sampling="every-nth",
        gray="opencv",
        ast_labels="fields",
        code_pooling="padded-pair",
        extraction="strict",
        several_scenes_render=False,
        failed_reference_visual=0.0,
        reward_render_timeout_s=300.0,
    ),
)
PRESETS: Registry[MetricPreset] = Registry("metric preset", ((preset.name, preset, preset.summary) for preset in _BUILT_IN))
DEFAULT_PRESET = "default"

