"""What a render produced: the shared vocabulary of the renderer, the agent, the metrics and the bench."""

from __future__ import annotations

import re
from dataclasses import asdict, dataclass
from enum import StrEnum
from pathlib import Path
from typing import Any

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


@dataclass(frozen=True)
class Quality:
    """Pixel size and frame rate of a render."""

    name: str
    width: int
    height: int
    fps: int


QUALITIES: dict[str, Quality] = {
    "low": Quality("low", 854, 480, 15),
    "preview": Quality("preview", 320, 180, 10),
    "medium": Quality("medium", 1280, 720, 30),
    "high": Quality("high", 1920, 1080, 60),
}
DEFAULT_QUALITY = "low"
DEFAULT_RENDER_TIMEOUT_S = 300.0  # the paper's limit for one render


def get_quality(name: str) -> Quality:
    try:
        return QUALITIES[name]
    except KeyError:
        raise ValueError(f"unknown quality {name!r}; choose one of {', '.join(QUALITIES)}") from None


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
