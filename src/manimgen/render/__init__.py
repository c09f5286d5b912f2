"""The only place generated code is executed: sandboxed, cached, parallel renders and their frames."""

from manimgen.render.cache import RenderCache, render_key
from manimgen.render.frames import every_nth_frame, sample_frames
from manimgen.render.pool import Renderer, RenderJob, RenderPool
from manimgen.render.renderer import render
from manimgen.render.result import DEFAULT_QUALITY, QUALITIES, Quality, RenderResult, RenderStatus, get_quality
from manimgen.render.sandbox import Limits, Sandbox, SandboxMode, detect_mode

__all__ = [
    "DEFAULT_QUALITY",
    "QUALITIES",
    "Limits",
    "Quality",
    "RenderCache",
    "RenderJob",
    "Renderer",
    "RenderPool",
    "RenderResult",
    "RenderStatus",
    "Sandbox",
    "SandboxMode",
    "detect_mode",
    "get_quality",
    "render",
    "render_key",
    "every_nth_frame",
    "sample_frames",
]
