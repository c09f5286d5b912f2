"""What a render produced: the shared vocabulary of the renderer, the agent, the metrics and the bench."""

from __future__ import annotations

import re
from dataclasses import asdict, dataclass
from enum import StrEnum
from fractions import Fraction
from pathlib import Path
from typing import Any

from manimgen.registry import Registry

Geometry = list[dict[str, Any]]
# What would steer a terminal or reorder what it shows: C0 controls but tab and newline, DEL, C1
# (U+009B is a one-byte CSI), and the bidirectional marks, embeddings, overrides and isolates.
UNSAFE_CHARACTERS = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]")


def printable(text: str) -> str:
    """`text` with every unsafe character written as its escape (`\\u009b`), so it shows as written."""
    return UNSAFE_CHARACTERS.sub(lambda match: f"\\u{ord(match.group()):04x}", text)


class RenderStatus(StrEnum):
    """How a render ended; everything but OK is a failure for RSR."""

    OK = "ok"
    CODE_ERROR = "code_error"
    LATEX_ERROR = "latex_error"
    TIMEOUT = "timeout"
    NO_SCENE = "no_scene"
    NO_OUTPUT = "no_output"
    SANDBOX_ERROR = "sandbox_error"


FRAME_HEIGHT = 8.0  # Manim's frame height in scene units; the frame's width follows the aspect
MIN_SIDE, MAX_SIDE = 16, 4096
MAX_ASPECT = 4  # neither side more than four times the other


@dataclass(frozen=True)
class Quality:
    """Pixel size and frame rate of a render, and the aspect its frame is laid out in."""

    name: str
    width: int
    height: int
    fps: int
    aspect: Fraction = Fraction(16, 9)

    @property
    def frame_width(self) -> float:
        """The frame's width in scene units: Manim keeps the height at 8, so a portrait frame is narrow."""
        return FRAME_HEIGHT * float(self.aspect)


QUALITIES: Registry[Quality] = Registry(
    "quality",
    (
        (preset.name, preset, f"{preset.width}×{preset.height} at {preset.fps} fps")
        for preset in (Quality("low", 854, 480, 15), Quality("preview", 320, 180, 10), Quality("medium", 1280, 720, 30), Quality("high", 1920, 1080, 60))
    ),
)
ASPECTS: dict[str, str] = {
    "16:9": "landscape, for screens and slides (Manim's own)",
    "9:16": "portrait, for phones and short-video sites",
    "1:1": "square, for posts and chat",
}
DEFAULT_QUALITY = "low"
DEFAULT_ASPECT = "16:9"
DEFAULT_RENDER_TIMEOUT_S = 300.0  # the paper's limit for one render
ASPECT_SHAPE = re.compile(r"(\d{1,5}):(\d{1,5})")
SIZE_SHAPE = re.compile(r"(\d{1,5})x(\d{1,5})")


def get_quality(spec: str) -> Quality:
    """The render settings a quality spec names: a preset (`low`), a preset at another aspect (`low@9:16`:
    the preset's short side and frame rate), or a preset's frame rate at exact pixels (`medium@1080x1920`)."""
    name, _, shape = spec.partition("@")
    preset = QUALITIES.pick(name)
    if not shape:
        return preset
    match = ASPECT_SHAPE.fullmatch(shape) or SIZE_SHAPE.fullmatch(shape)
    if match is None:
        raise ValueError(f"cannot read {shape!r} as an aspect or a size; write one like 9:16 or 1080x1920")
    first, second = int(match[1]), int(match[2])
    if not (first and second and 1 / MAX_ASPECT <= first / second <= MAX_ASPECT):
        raise ValueError(f"{shape} is too narrow or too wide; keep each side within {MAX_ASPECT} times the other")
    aspect = Fraction(first, second)
    if match.re is ASPECT_SHAPE:
        short = preset.height
        width, height = (_even(short * aspect), short) if aspect >= 1 else (short, _even(short / aspect))
        shape = f"{aspect.numerator}:{aspect.denominator}"
    else:
        if not (MIN_SIDE <= first <= MAX_SIDE and MIN_SIDE <= second <= MAX_SIDE and first % 2 == 0 == second % 2):
            raise ValueError(f"{shape} cannot be encoded; give even sides from {MIN_SIDE} to {MAX_SIDE} pixels")
        width, height = first, second
    if aspect == Fraction(16, 9) and (width, height) == (preset.width, preset.height):
        return preset
    return Quality(f"{name}@{shape}", width, height, preset.fps, aspect)


def quality_spec(quality: str = DEFAULT_QUALITY, aspect: str | None = None, resolution: str | None = None) -> str:
    """The one spec for a preset, an aspect (`9:16`) and exact pixels (`1080x1920`); raises ValueError naming the fix."""
    if aspect is not None and resolution is not None:
        raise ValueError("give an aspect or a resolution, not both: the size sets the aspect")
    if resolution is not None and not SIZE_SHAPE.fullmatch(resolution):
        raise ValueError(f"cannot read {resolution!r} as a size; write WIDTHxHEIGHT, like 1080x1920")
    if aspect is not None and not ASPECT_SHAPE.fullmatch(aspect):
        raise ValueError(f"cannot read {aspect!r} as an aspect; write WIDTH:HEIGHT, one of {', '.join(ASPECTS)}")
    shape = resolution or aspect
    return get_quality(f"{quality}@{shape}" if shape else quality).name


def at_aspect(quality: str, like: str) -> str:
    """`quality`'s preset laid out in the frame of `like`: the search renders small, in the frame asked for."""
    aspect = get_quality(like).aspect
    return get_quality(f"{quality}@{aspect.numerator}:{aspect.denominator}").name


def _even(value: Fraction) -> int:
    return 2 * round(value / 2)


@dataclass
class RenderResult:
    """One render's outcome. `output` is an MP4, or a PNG for a scene that never animates.

    `geometry` holds the scene's layout snapshots (render/geometry.py) when the render asked for them.
    """

    status: RenderStatus
    output: Path | None
    scene: str | None
    error_tail: str
    quality: str
    seconds: float
    cached: bool = False
    geometry: Geometry | None = None

    def __post_init__(self) -> None:
        """The error text comes from the scene's own output: it reaches terminals and pages only as printable text."""
        self.error_tail = printable(self.error_tail)

    @property
    def ok(self) -> bool:
        return self.status is RenderStatus.OK

    @property
    def is_image(self) -> bool:
        return self.output is not None and self.output.suffix.lower() == ".png"

    def to_dict(self) -> dict[str, Any]:
        data = asdict(self)
        data["status"] = self.status.value
        data["output"] = str(self.output) if self.output else None
        return data

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> RenderResult:
        fields = dict(data)
        fields["status"] = RenderStatus(fields["status"])
        fields["output"] = Path(fields["output"]) if fields.get("output") else None
        return cls(**fields)
