"""What one mobject looks like, as data a check can read without pixels: colours, outline, ends, scales.

Runs inside the sandboxed render child (render/geometry.py calls it for every recorded entry). The
class of a mobject says what it was built as, not what it shows: after `Transform(circle, square)`
the `circle` object is drawn as a square. So the outline is measured from the points themselves:
how many corners the first path has (0 for a circle or an ellipse, 3 for a triangle, 4 for a square
or a rectangle), whether it is closed, and where the corners are. Number lines and axes give the
values they span and two points that map values to the frame, curves their parameter range and a
few points, lines and arrows their ends.
"""

from __future__ import annotations

from typing import Any

import numpy as np

CORNER_DEGREES = 25.0
"""A turn between one curve's end tangent and the next one's start tangent beyond this is a corner."""
MAX_CORNERS = 12
MAX_VERTICES = 8
CURVE_SAMPLES = 24


def _rounded(values: Any, digits: int = 3) -> list[float]:
    return [round(float(value), digits) for value in values]


def _hex(color: Any) -> str | None:
    try:
        return str(color.to_hex()).upper()
    except (AttributeError, ValueError, TypeError):
        return None


def colours(members: list[Any]) -> dict[str, Any]:
    """The stroke and fill colour of the first drawn member with each (None where nothing is drawn that way)."""
    from manim import VMobject

    stroke = fill = None
    fill_opacity = 0.0
    for member in members:
        if not isinstance(member, VMobject):
            continue
        try:
            if stroke is None and member.get_stroke_opacity() > 0 and member.get_stroke_width() > 0:
                stroke = _hex(member.get_stroke_color())
            if fill is None and member.get_fill_opacity() > 0:
                fill, fill_opacity = _hex(member.get_fill_color()), round(float(member.get_fill_opacity()), 3)
        except RecursionError:  # Manim's BackgroundRectangle.get_fill_color calls itself: its colour is the background's
            continue
    return {"stroke": stroke, "fill": fill, "fill_opacity": fill_opacity}


def outline(mobject: Any) -> dict[str, Any]:
    """Corner count, closedness and corner points of a path's first subpath; empty for anything else."""
    from manim import VMobject

    points = getattr(mobject, "points", None)
    if not isinstance(mobject, VMobject) or points is None or len(points) < 4:
        return {}
    subpaths = mobject.get_subpaths()
    if not subpaths:
        return {}
    path = np.asarray(subpaths[0])[:, :2]
    curves = path[: len(path) // 4 * 4].reshape(-1, 4, 2)
    if len(curves) == 0:
        return {}
    closed = bool(np.allclose(curves[0, 0], curves[-1, 3], atol=1e-3))
    corners = _corners(curves, closed)
    found: dict[str, Any] = {"corners": min(len(corners), MAX_CORNERS), "closed": closed}
    if 2 < len(corners) <= MAX_VERTICES:
        found["vertices"] = [_rounded(point) for point in corners]
    return found


def _corners(curves: np.ndarray, closed: bool) -> list[np.ndarray]:
    """The anchors where the path turns sharply: the direction into the anchor and out of it differ."""
    found = []
    count = len(curves)
    for index in range(count if closed else count - 1):
        incoming = _direction(curves[index][::-1])
        outgoing = _direction(curves[(index + 1) % count])
        if incoming is None or outgoing is None:
            continue
        cosine = float(np.clip(np.dot(-incoming, outgoing), -1.0, 1.0))
        if np.degrees(np.arccos(cosine)) > CORNER_DEGREES:
            found.append(curves[(index + 1) % count][0])
    return found


def _direction(curve: np.ndarray) -> np.ndarray | None:
    """The unit tangent leaving a Bézier curve's first anchor (its first handle that is not on the anchor)."""
    for point in curve[1:]:
        step = point - curve[0]
        length = float(np.hypot(*step))
        if length > 1e-6:
            return step / length
    return None


def scales(mobject: Any) -> dict[str, Any]:
    """What a number line, axes, curve, line or number shows in values rather than frame positions."""
    from manim import Axes, DecimalNumber, Line, NumberLine, ParametricFunction

    if isinstance(mobject, Axes):
        x_range, y_range = mobject.x_range, mobject.y_range
        return {
            "x_range": _rounded(x_range),
            "y_range": _rounded(y_range),
            "value_map": [_rounded(mobject.c2p(x_range[0], y_range[0])[:2]), _rounded(mobject.c2p(x_range[1], y_range[1])[:2])],
        }
    if isinstance(mobject, NumberLine):
        x_range = mobject.x_range
        return {"x_range": _rounded(x_range), "value_map": [_rounded(mobject.n2p(x_range[0])[:2]), _rounded(mobject.n2p(x_range[1])[:2])]}
    if isinstance(mobject, ParametricFunction):
        points = np.asarray(mobject.points)[:, :2]
        anchors = np.concatenate([points[::4], points[-1:]]) if len(points) else points
        step = max(1, len(anchors) // CURVE_SAMPLES)
        chosen = [*anchors[:-1:step], *anchors[-1:]]
        return {"t_range": _rounded((mobject.t_min, mobject.t_max)), "samples": [_rounded(point) for point in chosen]}
    if isinstance(mobject, Line) and len(mobject.points) >= 2:
        return {"start": _rounded(mobject.get_start()[:2]), "end": _rounded(mobject.get_end()[:2])}
    if isinstance(mobject, DecimalNumber):
        return {"value": round(float(mobject.get_value()), 6)}
    return {}


def animation_record(animation: Any, names: dict[int, str]) -> list[dict[str, Any]]:
    """One played animation (a group's members each) as what it animated and, for a transform, into what."""
    members = getattr(animation, "animations", None)
    if members:
        return [record for member in members for record in animation_record(member, names)]
    mobject = getattr(animation, "mobject", None)
    target = getattr(animation, "target_mobject", None)
    record: dict[str, Any] = {
        "class": type(animation).__name__,
        "target": id(mobject) if mobject is not None else None,
        "name": names.get(id(mobject)) if mobject is not None else None,
        "run_time": round(float(getattr(animation, "run_time", 0.0)), 3),
    }
    if target is not None and target is not mobject:
        record.update({"into": type(target).__name__, "into_id": id(target), "into_name": names.get(id(target))})
    return [record]
