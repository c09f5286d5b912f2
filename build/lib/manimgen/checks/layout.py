"""Layout problems of a rendered scene, read from the geometry its render recorded.

A scene can render without an error and still be wrong to look at: a title wider than the frame,
two labels written on top of each other, a formula scaled down to a few pixels. The renderer's
geometry snapshots (render/geometry.py) give every top-level mobject's and every text's box at
the end of each play/wait; this module turns them into findings a repair prompt can state, with the
objects' names and when the problem first shows. A problem that persists over several snapshots
is reported once.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from manimgen.checks.colours import contrast

OFF_FRAME_TOLERANCE = 0.1
MIN_OVERLAP_AREA = 0.02
MIN_OVERLAP_SHARE = 0.2
MIN_TEXT_SIZE = 0.1
MIN_SHAPE_SIZE = 0.04
COINCIDENT = 0.02
MAX_REPORTED = 8
FILLED = 0.5
MIN_COVERED_SHARE = 0.5
MIN_CONTRAST = 1.6
"""Below this WCAG contrast ratio a text cannot be read on the filled shape under it (white on yellow is 1.07)."""
BACKGROUND_CLASSES = frozenset({"NumberPlane", "ComplexPlane", "PolarPlane", "FullScreenRectangle"})

Box = tuple[float, float, float, float]
LAYOUT_HEADER = "The scene rendered without errors, but its layout has problems (positions in scene units):"


@dataclass(frozen=True)
class LayoutFinding:
    """One layout problem: `code` is "off-frame", "overlap", "too-small", "covered" or "unreadable"; snapshots are 0-based."""

    code: str
    first_snapshot: int
    last_snapshot: int
    time: float
    names: tuple[str, ...]
    message: str
    plain: str = ""
    """The problem in a teacher's words, without coordinates: 'the text "done" is cut off at the bottom'."""

    def __str__(self) -> str:
        return f"[{self.code}] {self.message}"


def layout_findings(geometry: Sequence[dict[str, Any]] | None) -> list[LayoutFinding]:
    """Every distinct layout problem in the snapshots, in the order they first appear."""
    found: dict[tuple[Any, ...], _Open] = {}
    snapshots = list(geometry or [])
    for position, snapshot in enumerate(snapshots):
        frame = box_of(snapshot.get("frame"))
        if frame is None:
            continue
        for key, code, names, detail, plain in _problems(visible_entries(snapshot), frame):
            if key in found:
                found[key].last = position
            else:
                found[key] = _Open(code, position, position, names, detail, plain)
    findings = [item.close(snapshots) for item in found.values()]
    return sorted(findings, key=lambda f: (f.first_snapshot, f.code))


def format_layout(findings: Sequence[LayoutFinding]) -> str:
    """The findings as a repair round states them (in place of render errors)."""
    shown = list(findings[:MAX_REPORTED])
    lines = [LAYOUT_HEADER]
    lines += [f"- {finding}" for finding in shown]
    if len(findings) > len(shown):
        lines.append(f"- ... and {len(findings) - len(shown)} more of the same kinds.")
    lines.append(
        "Move, scale or arrange the objects (next_to, arrange, scale_to_fit_width, to_edge with a buff) so that "
        "everything stays inside the frame, texts do not cover each other and everything is large enough to see. "
        "Keep the animation otherwise as it is."
    )
    return "\n".join(lines)


@dataclass
class _Open:
    code: str
    first: int
    last: int
    names: tuple[str, ...]
    detail: str
    plain: str

    def close(self, snapshots: list[dict[str, Any]]) -> LayoutFinding:
        when = f"At {_moment(snapshots, self.first)}"
        if snapshots[self.first].get("kind") == "end":
            when = "In the final frame"
        elif self.last != self.first:
            until = "the end" if self.last == len(snapshots) - 1 else _moment(snapshots, self.last)
            when = f"From {_moment(snapshots, self.first)} until {until}"
        time = float(snapshots[self.first].get("time", 0.0))
        return LayoutFinding(self.code, self.first, self.last, time, self.names, f"{when}: {self.detail}", self.plain)


def _moment(snapshots: list[dict[str, Any]], position: int) -> str:
    number = sum(1 for s in snapshots[: position + 1] if s.get("kind") != "end")
    return f"t={float(snapshots[position].get('time', 0.0)):.1f} s (end of play/wait call {number})"


def box_of(value: Any) -> Box | None:
    if not isinstance(value, (list, tuple)) or len(value) != 4:
        return None
    try:
        x0, y0, x1, y1 = (float(v) for v in value)
    except (TypeError, ValueError):
        return None
    return (x0, y0, x1, y1) if x1 >= x0 and y1 >= y0 else None


def _label(entry: dict[str, Any]) -> str:
    cls = str(entry.get("class", "mobject"))
    text = entry.get("text")
    what = f'{cls} "{text}"' if text else cls
    name = entry.get("name")
    return f"`{name}` ({what})" if name else f"an unnamed {what}"


def _plain_label(entry: dict[str, Any]) -> str:
    """An object as a teacher would name it: the text or formula it shows, else its kind in words."""
    cls = str(entry.get("class", "mobject"))
    text = entry.get("text")
    if text:
        kind = "formula" if cls in ("MathTex", "SingleStringMathTex", "DecimalNumber", "Integer") else "text"
        shown = str(text) if len(str(text)) <= 40 else str(text)[:39] + "…"
        return f'the {kind} "{shown}"'
    words = re.sub(r"(?<!^)(?=[A-Z])", " ", cls).lower()
    return f"the {words}"


def _short_name(entry: dict[str, Any]) -> str:
    return str(entry.get("name") or entry.get("class", "mobject"))


def _span(low: float, high: float) -> str:
    return f"{low:.2f} to {high:.2f}"


def visible_entries(snapshot: dict[str, Any]) -> list[dict[str, Any]]:
    """Visible entries with a box, each object once; texts inside a background grid are the grid's business,
    and the shapes recorded inside a group are the group's."""
    listed = snapshot.get("mobjects")
    entries = [e for e in listed if isinstance(e, dict) and not e.get("member")] if isinstance(listed, list) else []
    backgrounds = {_identity(e) for e in entries if e.get("class") in BACKGROUND_CLASSES}
    seen: set[str] = set()
    kept = []
    for entry in entries:
        if _identity(entry) in seen or not entry.get("visible") or box_of(entry.get("box")) is None:
            continue
        seen.add(_identity(entry))
        if entry.get("parent") is None or str(entry.get("parent")) not in backgrounds:
            kept.append(entry)
    return kept


def _identity(entry: dict[str, Any]) -> str:
    return str(entry.get("id"))


def _problems(entries: list[dict[str, Any]], frame: Box) -> list[tuple[tuple[Any, ...], str, tuple[str, ...], str, str]]:
    """Each problem of one snapshot: its key, code, the names involved, the detail for a model, the words for a person."""
    problems = []
    for entry in entries:
        box = box_of(entry["box"])
        assert box is not None
        off = _off_frame(entry, box, frame)
        if off:
            problems.append((("off-frame", _identity(entry)), "off-frame", (_short_name(entry),), *off))
        small = _too_small(entry, box)
        if small:
            problems.append((("too-small", _identity(entry)), "too-small", (_short_name(entry),), small, f"{_plain_label(entry)} is too small to see"))
    texts = [e for e in entries if e.get("is_text")]
    for text in texts:
        for shape in entries:
            hidden = _hidden(text, shape, entries)
            if hidden:
                key = (hidden[0], _identity(text), _identity(shape))
                problems.append((key, hidden[0], (_short_name(text), _short_name(shape)), hidden[1], hidden[2]))
    for index, first in enumerate(texts):
        for second in texts[index + 1 :]:
            overlap = _overlap(first, second)
            if overlap:
                key = ("overlap", *sorted((_identity(first), _identity(second))))
                plain = f"{_plain_label(first)} and {_plain_label(second)} are drawn over each other"
                problems.append((key, "overlap", (_short_name(first), _short_name(second)), overlap, plain))
    return problems


def _hidden(text: dict[str, Any], shape: dict[str, Any], entries: list[dict[str, Any]]) -> tuple[str, str, str] | None:
    """A text under a filled shape drawn after it ("covered"), or on one of nearly its own brightness ("unreadable")."""
    solid = shape.get("closed") is True and float(shape.get("fill_opacity") or 0.0) >= FILLED
    if not solid or shape.get("is_text") or shape.get("class") in BACKGROUND_CLASSES or str(text.get("parent")) == str(shape.get("id")):
        return None
    a, b = box_of(text["box"]), box_of(shape["box"])
    assert a is not None and b is not None
    width = min(a[2], b[2]) - max(a[0], b[0])
    height = min(a[3], b[3]) - max(a[1], b[1])
    area = (a[2] - a[0]) * (a[3] - a[1])
    if width <= 0 or height <= 0 or area <= 0 or width * height / area < MIN_COVERED_SHARE:
        return None
    text_order = (float(text.get("z_index") or 0.0), entries.index(text))
    shape_order = (float(shape.get("z_index") or 0.0), entries.index(shape))
    if shape_order > text_order:
        return "covered", f"{_label(text)} is hidden under the filled {_label(shape)}, which is drawn on top of it.", f"{_plain_label(text)} is hidden under {_plain_label(shape)}"
    ratio = contrast(text.get("fill") or text.get("stroke"), shape.get("fill"))
    if ratio is not None and ratio < MIN_CONTRAST:
        return (
            "unreadable",
            f"{_label(text)} is drawn on the filled {_label(shape)} in nearly the same brightness (contrast {ratio:.1f}:1), so it cannot be read.",
            f"{_plain_label(text)} cannot be read on {_plain_label(shape)}: their colours are too alike",
        )
    return None


def _off_frame(entry: dict[str, Any], box: Box, frame: Box) -> tuple[str, str] | None:
    if entry.get("class") in BACKGROUND_CLASSES:
        return None
    x0, y0, x1, y1 = box
    fx0, fy0, fx1, fy1 = frame
    frame_text = f"the frame spans x {_span(fx0, fx1)} and y {_span(fy0, fy1)}"
    if x1 < fx0 or x0 > fx1 or y1 < fy0 or y0 > fy1:
        center = ((x0 + x1) / 2, (y0 + y1) / 2)
        return f"{_label(entry)} is entirely outside the frame, centred at ({center[0]:.2f}, {center[1]:.2f}); {frame_text}.", f"{_plain_label(entry)} is outside the picture"
    beyond = {"left": fx0 - x0, "right": x1 - fx1, "bottom": fy0 - y0, "top": y1 - fy1}
    sides = [f"{amount:.2f} beyond the {side} edge" for side, amount in beyond.items() if amount > OFF_FRAME_TOLERANCE]
    if not sides:
        return None
    edges = [side for side, amount in beyond.items() if amount > OFF_FRAME_TOLERANCE]
    detail = f"{_label(entry)} is cut off by the frame: it spans x {_span(x0, x1)} and y {_span(y0, y1)}, {', '.join(sides)}; {frame_text}."
    return detail, f"{_plain_label(entry)} is cut off at the {' and '.join(edges)}"


def _too_small(entry: dict[str, Any], box: Box) -> str | None:
    if not entry.get("vector"):
        return None
    width, height = box[2] - box[0], box[3] - box[1]
    limit = MIN_TEXT_SIZE if entry.get("is_text") else MIN_SHAPE_SIZE
    if max(width, height) >= limit:
        return None
    return f"{_label(entry)} is only {width:.3f} x {height:.3f} units, too small to see."


def _overlap(first: dict[str, Any], second: dict[str, Any]) -> str | None:
    """A meaningful overlap of two texts; boxes that coincide exactly (a Transform's result lying on its
    target, a copy on its original) look like one text and are left alone."""
    a, b = box_of(first["box"]), box_of(second["box"])
    assert a is not None and b is not None
    width = min(a[2], b[2]) - max(a[0], b[0])
    height = min(a[3], b[3]) - max(a[1], b[1])
    if width <= 0 or height <= 0:
        return None
    if all(abs(p - q) <= COINCIDENT for p, q in zip(a, b)):
        return None
    area = width * height
    smaller = min((a[2] - a[0]) * (a[3] - a[1]), (b[2] - b[0]) * (b[3] - b[1]))
    if area < MIN_OVERLAP_AREA or smaller <= 0 or area / smaller < MIN_OVERLAP_SHARE:
        return None
    return f"{_label(first)} and {_label(second)} overlap: {100 * area / smaller:.0f}% of the smaller one is covered."
