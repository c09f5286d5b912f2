"""Manim itself: imported once and quietly, its version, and the version this project is pinned to.

pydub, which Manim imports for audio, warns at import time that ffmpeg is missing. Manim encodes
through PyAV, so the warning is noise, and inside a render it would take a line of the error tail a
model reads; every import of Manim goes through `manim()` to hush it.
"""

from __future__ import annotations

import functools
import warnings
from importlib.metadata import PackageNotFoundError, version
from types import ModuleType

PINNED_MANIM = "0.19.0"


@functools.cache
def manim() -> ModuleType:
    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", message="Couldn't find ffmpeg or avconv", category=RuntimeWarning)
        import manim as module
    return module


@functools.cache
def manim_version() -> str:
    """The installed manim's version (what render keys and lint messages name), or "missing"."""
    try:
        return version("manim")
    except PackageNotFoundError:
        return "missing"
