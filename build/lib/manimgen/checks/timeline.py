"""A render's recorded timeline (render/geometry.py) as typed data a check can read.

The recording comes from the sandbox, so it is validated here: an entry or animation whose fields do
not have the recorded types is dropped on its own, and a snapshot without a frame is dropped whole.
Everything a check asks of an object is answered here once: where its centre is, what shape its
outline has, which colours it shows, and which value of a number line or axes a point stands for.
"""

from __future__ import annotations

import math
from collections.abc import Iterator, Sequence
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, ValidationError

Point = tuple[float, float]
Box = tuple[float, float, float, float]


class Entry(BaseModel):
    """One recorded object in one snapshot."""

    model_config = ConfigDict(extra="ignore", populate_by_name=True)

    id: int | str
    name: str | None = None
    kind: str = Field(alias="class")
    text: str | None = None
    is_text: bool = False
    parent: int | str | None = None
    member: bool = False
    visible: bool = True
    box: Box | None = None
    z_index: float = 0.0
    stroke: str | None = None
    fill: str | None = None
    fill_opacity: float = 0.0
    corners: int | None = None
    closed: bool | None = None
    vertices: list[Point] | None = None
    x_range: list[float] | None = None
    y_range: list[float] | None = None
    value_map: list[Point] | None = None
    t_range: list[float] | None = None
    samples: list[Point] | None = None
    start: Point | None = None
    end: Point | None = None
    value: float | None = None

    @property
    def centre(self) -> Point | None:
        if self.box is None:
            return None
        x0, y0, x1, y1 = self.box
        return ((x0 + x1) / 2, (y0 + y1) / 2)

    @property
    def size(self) -> tuple[float, float]:
        if self.box is None:
            return (0.0, 0.0)
        return (self.box[2] - self.box[0], self.box[3] - self.box[1])

    def colours(self) -> list[str]:
        """The colours the viewer sees: the stroke, and the fill where it is not faint."""
        shown = [self.stroke] if self.stroke else []
        return shown + ([self.fill] if self.fill and self.fill_opacity >= 0.3 else [])

    def values_at(self, point: Point) -> Point | None:
        """The (x, y) values a frame point stands for on this number line or axes; None for anything else."""
        if self.value_map is None or self.x_range is None or len(self.value_map) != 2 or len(self.x_range) < 2:
            return None
        (px0, py0), (px1, py1) = self.value_map
        x_low, x_high = self.x_range[0], self.x_range[1]
        if self.y_range is None or len(self.y_range) < 2:
            length = math.hypot(px1 - px0, py1 - py0)
            if length == 0:
                return None
            along = ((point[0] - px0) * (px1 - px0) + (point[1] - py0) * (py1 - py0)) / length**2
            return (x_low + along * (x_high - x_low), 0.0)
        y_low, y_high = self.y_range[0], self.y_range[1]
        if px1 == px0 or py1 == py0:
            return None
        return (x_low + (point[0] - px0) / (px1 - px0) * (x_high - x_low), y_low + (point[1] - py0) / (py1 - py0) * (y_high - y_low))

    def label(self) -> str:
        what = f'{self.kind} "{self.text}"' if self.text else self.kind
        return f"`{self.name}` ({what})" if self.name else what


class Played(BaseModel):
    """One animation of a play call: what it animated and, for a transform, into what."""

    model_config = ConfigDict(extra="ignore", populate_by_name=True)

    kind: str = Field(alias="class")
    target: int | str | None = None
    name: str | None = None
    run_time: float = 0.0
    into: str | None = None
    into_id: int | str | None = None
    into_name: str | None = None


class Snapshot(BaseModel):
    """The scene at the end of one play/wait call (or, for a still scene, at its end)."""

    index: int
    kind: str
    time: float
    frame: Box
    animations: list[Played] = Field(default_factory=list)
    entries: list[Entry] = Field(default_factory=list)

    def visible(self, *, members: bool = True) -> list[Entry]:
        """The entries drawn with a box, each once; a group's recorded shapes unless `members` is False."""
        seen: set[str] = set()
        kept = []
        for entry in self.entries:
            key = str(entry.id)
            if entry.visible and entry.box is not None and key not in seen and (members or not entry.member):
                seen.add(key)
                kept.append(entry)
        return kept

    def by_id(self, identity: int | str) -> Entry | None:
        return next((entry for entry in self.entries if str(entry.id) == str(identity)), None)


class Timeline:
    """The snapshots of one render, in order; empty when the render recorded none."""

    def __init__(self, snapshots: Sequence[Snapshot]) -> None:
        self.snapshots = list(snapshots)

    @classmethod
    def from_geometry(cls, geometry: Sequence[Any] | None) -> Timeline:
        return cls([snapshot for raw in geometry or [] if (snapshot := _snapshot(raw)) is not None])

    def __iter__(self) -> Iterator[Snapshot]:
        return iter(self.snapshots)

    def __len__(self) -> int:
        return len(self.snapshots)

    @property
    def final(self) -> Snapshot | None:
        return self.snapshots[-1] if self.snapshots else None

    def played(self) -> list[tuple[Snapshot, Played]]:
        return [(snapshot, animation) for snapshot in self.snapshots for animation in snapshot.animations]


def _snapshot(raw: Any) -> Snapshot | None:
    if not isinstance(raw, dict):
        return None
    entries = [entry for item in raw.get("mobjects") or [] if (entry := _valid(Entry, item)) is not None]
    animations = [played for item in raw.get("animations") or [] if (played := _valid(Played, item)) is not None]
    try:
        return Snapshot(
            index=raw.get("index", 0), kind=raw.get("kind", "play"), time=raw.get("time", 0.0), frame=raw.get("frame"),
            animations=animations, entries=entries,
        )  # fmt: skip
    except ValidationError:
        return None


def _valid(model: type[BaseModel], item: Any) -> Any:
    if not isinstance(item, dict):
        return None
    try:
        return model.model_validate(item)
    except ValidationError:
        return None
