"""Record a scene's timeline while it renders: what is on screen, where and how it looks, and what was
played, at the end of every play/wait.

Runs inside the sandboxed render child, only when the render asks for it. The recorder wraps the
scene's `play`, `wait` and `add` on the instance; after each outermost `play`/`wait` it stores one
snapshot: the animations that call played (class, what they animated, into what, run time), the
camera's frame and, for every top-level mobject, every shape inside a plain group and every text or
formula inside one, its class, its variable name in the scene code (`title`, `self.axes`,
`labels[2]`, `group[0][1]`) where one can be found, its bounding box in frame coordinates, whether it
is visible, its drawing order (z index) and what it looks like (render/appearance.py: colours,
outline, the values a number line or axes span). A scene that never animates gets one snapshot of
its final state. The snapshots go to a JSON file in the render's scratch folder, which the parent
reads back into `RenderResult.geometry`.

Boxes are measured where the camera draws them: a 3D camera's projection and mobjects fixed in the
frame are honoured, and a moving camera's frame is the frame. Names come from the scene code's own
frames (their locals and the scene's attributes), so a mobject built but never named has none.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from types import FrameType
from typing import Any

import numpy as np

from manimgen.paths import staged
from manimgen.render.appearance import animation_record, colours, outline, scales
from manimgen.render.handover import Scratch, parse_json, read_inside
from manimgen.render.protocol import GEOMETRY_FILE

MAX_SNAPSHOTS = 200
MAX_ENTRIES = 300
MAX_TEXT_CHARS = 120
MAX_FILE_BYTES = 16 << 20
MAX_CODE_FRAMES = 64
MAX_MEMBERS = 64
MAX_ANIMATIONS = 50
GEOMETRY_VERSION = 4
"""Part of the render cache key: bumped when the recording changes (4: scenes holding a BackgroundRectangle are
recorded, and an animation played on a group inside a named group is named by its path)."""
GROUP_CLASSES = frozenset({"VGroup", "Group", "VDict"})
"""Containers whose members are what the viewer sees (a grid of squares); other compound mobjects
(axes, matrices, charts) are recorded whole."""


def _text_classes() -> tuple[type, ...]:
    from manim import DecimalNumber, MarkupText, Paragraph, SingleStringMathTex, Text

    return (Text, MarkupText, Paragraph, SingleStringMathTex, DecimalNumber)


def _text_of(mobject: Any) -> str | None:
    for attribute in ("original_text", "tex_string", "text", "number"):
        value = getattr(mobject, attribute, None)
        if isinstance(value, (str, int, float)) and not isinstance(value, bool):
            text = str(value)
            return text if len(text) <= MAX_TEXT_CHARS else text[: MAX_TEXT_CHARS - 3] + "..."
    return None


def _drawn_members(mobject: Any) -> list[Any]:
    return [member for member in mobject.get_family() if len(getattr(member, "points", ())) > 0]


def _is_visible(member: Any) -> bool:
    """Whether the camera draws anything for this family member (a bare Mobject, e.g. a ValueTracker, it never does)."""
    from manim import PMobject, VMobject
    from manim.mobject.types.image_mobject import AbstractImageMobject

    if isinstance(member, (PMobject, AbstractImageMobject)):
        return True
    if not isinstance(member, VMobject):
        return False
    stroke = member.get_stroke_opacity() > 0 and member.get_stroke_width() > 0
    return bool(stroke or member.get_fill_opacity() > 0)


class GeometryRecorder:
    """Wraps one scene instance; `finish()` writes the snapshots to `path`."""

    def __init__(self, scene: Any, path: Path, module_name: str) -> None:
        self.scene = scene
        self.path = path
        self.module_name = module_name
        self.snapshots: list[dict[str, Any]] = []
        self.calls = 0
        self.failed = False
        self._group_paths: dict[int, str] = {}
        """id -> path of the groups inside named groups ("cells[2]"), so an animation played on one is named."""
        self._depth = 0
        self._code_frames: dict[int, FrameType] = {}
        self._names: dict[int, str] = {}
        self._own_attributes = set(vars(scene))
        self._text_classes = _text_classes()
        for method in ("play", "wait"):
            setattr(scene, method, self._wrap_timed(method, getattr(scene, method)))
        scene.add = self._wrap_add(scene.add)

    # wrapping --------------------------------------------------------------------------------

    def _wrap_timed(self, kind: str, original: Any) -> Any:
        def timed(*args: Any, **kwargs: Any) -> Any:
            self._remember_code_frames()
            self._depth += 1
            try:
                returned = original(*args, **kwargs)
            finally:
                self._depth -= 1
            if self._depth == 0:
                self.calls += 1
                self._record(kind, list(getattr(self.scene, "animations", None) or []) if kind == "play" else [])
            return returned

        return timed

    def _wrap_add(self, original: Any) -> Any:
        def add(*args: Any, **kwargs: Any) -> Any:
            if self._depth == 0:
                self._remember_code_frames()
            return original(*args, **kwargs)

        return add

    def _remember_code_frames(self) -> None:
        """Keep the scene code's frames: their locals name the mobjects, even after they return.

        The first one (`construct`) is always kept; of the functions it calls only the latest few.
        """
        chain: list[FrameType] = []
        frame: FrameType | None = sys._getframe(2)
        while frame is not None:
            if frame.f_globals.get("__name__") == self.module_name:
                chain.append(frame)
            frame = frame.f_back
        for code_frame in reversed(chain):
            self._code_frames.setdefault(id(code_frame), code_frame)
        while len(self._code_frames) > MAX_CODE_FRAMES:
            del self._code_frames[list(self._code_frames)[1]]

    # names -----------------------------------------------------------------------------------

    def _refresh_names(self) -> None:
        """id(mobject) -> the name the code uses for it.

        Plain variables beat list elements; the scene's own attributes (what Manim set up before the
        code ran) are not names of the code.
        """
        from manim import Mobject

        variables: list[tuple[str, Any]] = [
            (f"self.{name}", value)
            for name, value in vars(self.scene).items()
            if name not in self._own_attributes and not name.startswith("_")
        ]
        for frame in reversed(list(self._code_frames.values())):
            variables += [(name, value) for name, value in frame.f_locals.items() if not name.startswith("_") and value is not self.scene]
        found: dict[int, str] = {}
        for name, value in variables:
            if isinstance(value, Mobject):
                found.setdefault(id(value), name)
        for name, value in variables:
            if isinstance(value, (list, tuple)) and len(value) <= MAX_ENTRIES:
                for index, item in enumerate(value):
                    if isinstance(item, Mobject):
                        found.setdefault(id(item), f"{name}[{index}]")
        self._names.update(found)

    # measuring -------------------------------------------------------------------------------

    def _frame_box(self) -> list[float]:
        camera = self.scene.renderer.camera
        center = np.asarray(camera.frame_center, dtype=float)
        half_width, half_height = camera.frame_width / 2, camera.frame_height / 2
        return [center[0] - half_width, center[1] - half_height, center[0] + half_width, center[1] + half_height]

    def _box(self, members: list[Any]) -> list[float] | None:
        camera = self.scene.renderer.camera
        points = [camera.transform_points_pre_display(member, member.points) for member in members]
        if not points:
            return None
        stacked = np.concatenate(points)[:, :2]
        low, high = stacked.min(axis=0), stacked.max(axis=0)
        return [round(float(v), 4) for v in (*low, *high)]

    def _entry(self, mobject: Any, name: str | None, parent: int | None, member: bool = False) -> dict[str, Any] | None:
        from manim import VMobject

        members = _drawn_members(mobject)
        if not members:
            return None
        visible = [member for member in members if _is_visible(member)]
        entry = {
            "id": id(mobject),
            "name": name,
            "class": type(mobject).__name__,
            "text": _text_of(mobject) if isinstance(mobject, self._text_classes) else None,
            "is_text": isinstance(mobject, self._text_classes),
            "parent": parent,
            "member": member,
            "vector": isinstance(mobject, VMobject),
            "visible": bool(visible),
            "box": self._box(visible or members),
            "z_index": round(float(getattr(mobject, "z_index", 0.0)), 3),
            **colours(visible or members),
        }
        if not entry["is_text"]:
            entry.update(outline(mobject))
        entry.update(scales(mobject))
        return entry

    def _shapes_inside(self, mobject: Any, name: str | None) -> list[tuple[Any, str | None]]:
        """The shapes a plain group holds (its own groups opened in turn), named by the group's path when
        the code named none; texts come through `_texts_inside`."""
        found: list[tuple[Any, str | None]] = []
        stack = [(child, f"{name}[{index}]" if name else None) for index, child in enumerate(mobject.submobjects)]
        while stack and len(found) < MAX_MEMBERS:
            child, path = stack.pop(0)
            if type(child).__name__ in GROUP_CLASSES:
                if path:
                    self._group_paths[id(child)] = path
                stack += [(grand, f"{path}[{index}]" if path else None) for index, grand in enumerate(child.submobjects)]
            elif not isinstance(child, self._text_classes):
                found.append((child, self._names.get(id(child), path)))
        return found

    def _texts_inside(self, mobject: Any, name: str | None) -> list[tuple[Any, str | None]]:
        """Texts and formulas nested in a group, named by the group's path when the code named none."""
        found: list[tuple[Any, str | None]] = []
        stack = [(child, f"{name}[{index}]" if name else None) for index, child in enumerate(mobject.submobjects)]
        while stack and len(found) < MAX_ENTRIES:
            child, path = stack.pop(0)
            if isinstance(child, self._text_classes):
                found.append((child, self._names.get(id(child), path)))
            else:
                stack += [(grand, f"{path}[{index}]" if path else None) for index, grand in enumerate(child.submobjects)]
        return found

    def _record(self, kind: str, animations: list[Any]) -> None:
        """Take a snapshot; a failure to measure stops the recording but never the render."""
        if self.failed:
            return
        try:
            self._snapshot(kind, animations)
        except Exception:  # noqa: BLE001 - scene code may leave any state behind; geometry is optional
            self.failed = True

    def _snapshot(self, kind: str, animations: list[Any]) -> None:
        self._refresh_names()
        self._group_paths = {}
        entries: list[dict[str, Any]] = []
        seen: set[int] = set()
        for mobject in self.scene.mobjects:
            if len(entries) >= MAX_ENTRIES:
                break
            name = self._names.get(id(mobject))
            entry = self._entry(mobject, name, None) if id(mobject) not in seen else None
            if entry is None:
                continue
            seen.add(id(mobject))
            entries.append(entry)
            if entry["class"] in GROUP_CLASSES:
                for shape, shape_name in self._shapes_inside(mobject, name):
                    inner = self._entry(shape, shape_name, id(mobject), member=True) if id(shape) not in seen else None
                    if inner is not None:
                        seen.add(id(shape))
                        entries.append(inner)
            if not entry["is_text"]:
                for text, text_name in self._texts_inside(mobject, name):
                    inner = self._entry(text, text_name, id(mobject)) if id(text) not in seen else None
                    if inner is not None:
                        seen.add(id(text))
                        entries.append(inner)
        self.snapshots.append(
            {
                "index": len(self.snapshots),
                "kind": kind,
                "time": round(float(self.scene.renderer.time), 4),
                "frame": [round(float(v), 4) for v in self._frame_box()],
                "animations": [record for animation in animations for record in animation_record(animation, {**self._group_paths, **self._names})][:MAX_ANIMATIONS],
                "mobjects": entries[:MAX_ENTRIES],
            }
        )

    # output ----------------------------------------------------------------------------------

    def finish(self) -> None:
        """After a successful render: a static scene gets its one snapshot, then the JSON is written."""
        if self.calls == 0:
            self._record("end", [])
        if self.failed:
            return
        snapshots = self.snapshots
        if len(snapshots) > MAX_SNAPSHOTS:
            step = len(snapshots) / (MAX_SNAPSHOTS - 1)
            snapshots = [snapshots[int(i * step)] for i in range(MAX_SNAPSHOTS - 1)] + [snapshots[-1]]
        payload = {"version": GEOMETRY_VERSION, "snapshots": snapshots}
        with staged(self.path) as partial:
            partial.write_text(json.dumps(payload), encoding="utf-8")


def read_geometry(scratch: Scratch, name: str = GEOMETRY_FILE) -> list[dict[str, Any]] | None:
    """The snapshots a recorder wrote to `name` in a render's folder, or None when there is no
    readable, well-formed file.

    The scene's code could have replaced the file, so the host reads it through render/handover.py
    (a plain file reached without links, at most MAX_FILE_BYTES) and keeps only snapshots of the
    recorded shape.
    """
    raw = read_inside(scratch, name, MAX_FILE_BYTES)
    payload = None if raw is None else parse_json(raw)
    snapshots = payload.get("snapshots") if isinstance(payload, dict) else None
    if not isinstance(snapshots, list) or not all(_well_formed(snapshot) for snapshot in snapshots):
        return None
    return snapshots


def _well_formed(snapshot: Any) -> bool:
    if not isinstance(snapshot, dict) or not isinstance(snapshot.get("mobjects"), list):
        return False
    numbers = (int, float)
    frame = snapshot.get("frame")
    return (
        isinstance(snapshot.get("time"), numbers)
        and isinstance(frame, list)
        and len(frame) == 4
        and all(isinstance(v, numbers) for v in frame)
        and all(isinstance(entry, dict) for entry in snapshot["mobjects"])
    )
