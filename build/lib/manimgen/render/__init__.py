"""The only place generated code is executed: sandboxed, cached, parallel renders and their frames."""

from manimgen.render.cache import RenderCache, render_key
from manimgen.render.frames import every_nth_frame, sample_frames
from manimgen.render.pool import RENDERERS, Renderer, RendererOptions, RenderJob, RenderPool, open_renderer
from manimgen.render.renderer import render
from manimgen.render.result import DEFAULT_QUALITY, QUALITIES, Quality, RenderResult, RenderStatus, get_quality
from manimgen.render.sandbox import Limits, Sandbox, SandboxMode, detect_mode

__all__ = [
    "DEFAULT_QUALITY",
    "QUALITIES",
    "RENDERERS",
    "Limits",
    "Quality",
    "RenderCache",
    "RenderJob",
    "Renderer",
    "RendererOptions",
    "RenderPool",
    "RenderResult",
    "RenderStatus",
    "Sandbox",
    "SandboxMode",
    "detect_mode",
    "get_quality",
    "open_renderer",
    "render",
    "render_key",
    "every_nth_frame",
    "sample_frames",
]
