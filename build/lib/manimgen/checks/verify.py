"""The checker: each requirement of a checklist against a render's timeline — held, failed (with
what was seen instead) or unverifiable (nothing recorded can show it either way).

A requirement holds when the recorded timeline shows it the way a viewer would: the object drawn
(at any moment, since objects come and go), the text on screen, the change reaching its end state
by the last snapshot. One function a requirement kind, registered with `@checks("kind")`; a check
that cannot decide says unverifiable rather than guessing, because a checker that flatters the
scene is worse than none.
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Literal

from manimgen.checks.colours import describe, is_colour
from manimgen.checks.requirements import Checklist, Requirement
from manimgen.checks.shapes import AXES_CLASSES, TYPESET_CLASSES, angles, has_form, is_curve, is_dot, is_line, matcher, normalise, numbers_in
from manimgen.checks.timeline import Entry, Played, Point, Snapshot, Timeline

Status = Literal["held", "failed", "unverifiable"]
HELD, FAILED, UNVERIFIABLE = "held", "failed", "unverifiable"
SAME_SPOT = 0.05
VALUE_TOLERANCE = 0.3
NEAR = 1.6
MOVED = 0.5
ANGLE_TOLERANCE = 8.0
FACTOR_TOLERANCE = 0.15
ON_CURVE = 0.25
UNIT_VECTORS: dict[str, tuple[int, int]] = {"right": (1, 0), "left": (-1, 0), "up": (0, 1), "down": (0, -1)}
ROTATING_ANIMATIONS = frozenset({"Rotate", "Rotating", "_MethodAnimation", "ApplyMatrix", "ApplyPointwiseFunction", "Transform", "ReplacementTransform"})
PATH_ANIMATIONS = frozenset({"MoveAlongPath", "Rotating", "Homotopy"})


@dataclass(frozen=True)
class Verdict:
    """One requirement's outcome and, in plain words, what the timeline showed."""

    requirement: Requirement
    status: Status
    seen: str


@dataclass(frozen=True)
class Report:
    """Every verdict of one checklist against one render."""

    verdicts: list[Verdict]

    def count(self, status: Status) -> int:
        return sum(verdict.status == status for verdict in self.verdicts)

    @property
    def verifiable(self) -> int:
        return len(self.verdicts) - self.count(UNVERIFIABLE)

    @property
    def held_share(self) -> float | None:
        """Requirements held among those that could be verified; None when none could."""
        return self.count(HELD) / self.verifiable if self.verifiable else None

    @property
    def all_held(self) -> bool:
        """Every requirement a check could decide holds."""
        return self.verifiable > 0 and self.count(FAILED) == 0

    @property
    def sentence_held(self) -> bool:
        """Every requirement holds and none was left undecided: the checks read the whole sentence and it is shown."""
        return self.all_held and self.count(UNVERIFIABLE) == 0

    def failures(self) -> list[Verdict]:
        return [verdict for verdict in self.verdicts if verdict.status == FAILED]


Check = Callable[[Requirement, Timeline], Verdict]
CHECKS: dict[str, Check] = {}


def checks(kind: str) -> Callable[[Check], Check]:
    """Register the check of one requirement kind."""

    def register(function: Check) -> Check:
        CHECKS[kind] = function
        return function

    return register


def check(checklist: Checklist, timeline: Timeline) -> Report:
    """Every requirement of `checklist` against `timeline`; no timeline (a failed render) fails everything verifiable."""
    verdicts = []
    for requirement in checklist.requirements:
        if not timeline.snapshots:
            verdicts.append(Verdict(requirement, FAILED, "nothing was rendered"))
            continue
        verdicts.append(CHECKS[requirement.kind](requirement, timeline))
    return Report(verdicts)


def _held(requirement: Requirement, seen: str) -> Verdict:
    return Verdict(requirement, HELD, seen)


def _failed(requirement: Requirement, seen: str) -> Verdict:
    return Verdict(requirement, FAILED, seen)


def _unverifiable(requirement: Requirement, why: str) -> Verdict:
    return Verdict(requirement, UNVERIFIABLE, why)


@checks("look")
def _look(requirement: Requirement, timeline: Timeline) -> Verdict:
    return _unverifiable(requirement, "no check reads this part of the sentence: look for it in the video")


def _distinct(entries: Iterable[Entry]) -> list[Entry]:
    """Entries at different places: copies piled on one spot look like one object."""
    kept: list[Entry] = []
    for entry in entries:
        centre = entry.centre
        if centre is None:
            continue
        if not any((other.centre is not None and math.dist(centre, other.centre) <= SAME_SPOT and _similar_size(entry, other) and _same_ends(entry, other) and _same_path(entry, other)) for other in kept):
            kept.append(entry)
    return kept


def _same_ends(a: Entry, b: Entry) -> bool:
    """Whether two segments in one box run the same way (a square's two diagonals share a box but cross)."""
    if a.start is None or a.end is None or b.start is None or b.end is None:
        return True
    return min(math.dist(a.start, b.start) + math.dist(a.end, b.end), math.dist(a.start, b.end) + math.dist(a.end, b.start)) <= 2 * SAME_SPOT


def _same_path(a: Entry, b: Entry) -> bool:
    """Whether two curves in one box run along the same path (sin and cos over one range share a box, not a path)."""
    if not a.samples or not b.samples:
        return True
    return all(min(math.dist(point, other) for other in b.samples) <= SAME_SPOT for point in a.samples[:: max(1, len(a.samples) // 8)])


def _similar_size(a: Entry, b: Entry) -> bool:
    return all(abs(x - y) <= 0.1 for x, y in zip(a.size, b.size))


def _what_was_drawn(timeline: Timeline) -> str:
    """A short inventory of the final frame, for a failed object: what was there instead."""
    final = timeline.final
    if final is None:
        return "nothing"
    kinds: dict[str, int] = {}
    for entry in final.visible(members=True):
        if entry.parent is None or entry.member:
            kinds[entry.kind] = kinds.get(entry.kind, 0) + 1
    return ", ".join(f"{count} {kind}" for kind, count in list(kinds.items())[:8]) or "nothing"


def _values_frame(snapshot: Snapshot) -> Entry | None:
    """The axes, plane or number line of a snapshot whose values a point can be read in."""
    scaled = [entry for entry in snapshot.visible() if entry.value_map is not None]
    return next((entry for entry in scaled if entry.kind in AXES_CLASSES), scaled[0] if scaled else None)


def _near_value(value: float, target: float, span: float = 0.0) -> bool:
    return abs(value - target) <= max(VALUE_TOLERANCE, 0.05 * span)


# --- objects, texts, formulas ---------------------------------------------------------------------


@checks("object")
def _object(requirement: Requirement, timeline: Timeline) -> Verdict:
    test = matcher(requirement.what)
    if test is None:
        return _unverifiable(requirement, f"nothing recorded can show whether something is a {requirement.what}")
    wanted = requirement.count or 1
    best: list[Entry] = []
    rows_seen = 0
    for snapshot in timeline:
        shapes = _distinct(_narrowed(requirement, snapshot, test)[-1])
        if requirement.rows is not None and len(shapes) >= wanted and _rows(shapes) != requirement.rows:
            rows_seen = _rows(shapes)
            continue
        if len(shapes) > len(best):
            best = shapes
        if len(best) >= wanted:
            return _held(requirement, f"{len(best)} at t={snapshot.time:g} s: {', '.join(entry.label() for entry in best[:4])}")
    if rows_seen:
        return _failed(requirement, f"the {requirement.what}s stand in {rows_seen} row(s), not {requirement.rows}")
    return _failed(requirement, _object_miss(requirement, timeline, test, len(best)))


def _rows(entries: list[Entry]) -> int:
    """How many rows `entries` stand in: centres whose heights differ by less than half a shape share a row."""
    heights = sorted(entry.centre[1] for entry in entries if entry.centre is not None)
    gap = 0.5 * min((entry.size[1] for entry in entries), default=0.0)
    return sum(1 for index, height in enumerate(heights) if index == 0 or height - heights[index - 1] > max(gap, SAME_SPOT))


def _narrowed(requirement: Requirement, snapshot: Snapshot, test: Callable[[Entry], bool]) -> list[list[Entry]]:
    """The shapes of a snapshot after each of the requirement's filters in turn: kind, form, colour, place, label."""
    shapes = [entry for entry in snapshot.visible() if test(entry) and not (entry.member is False and entry.kind in ("VGroup", "Group"))]
    stages = [shapes]
    if requirement.form:
        stages.append([entry for entry in stages[-1] if has_form(entry, requirement.form)])
    if requirement.colour:
        stages.append([entry for entry in stages[-1] if any(is_colour(colour, requirement.colour) for colour in entry.colours())])
    if requirement.at is not None:
        stages.append([entry for entry in stages[-1] if _points_at(entry, requirement.at, snapshot)])
    if requirement.direction is not None:
        stages.append([entry for entry in stages[-1] if _points_way(entry, requirement.direction)])
    if requirement.label is not None:
        stages.append([entry for entry in stages[-1] if _labelled(entry, requirement.label, snapshot)])
    return stages


def _object_miss(requirement: Requirement, timeline: Timeline, test: Callable[[Entry], bool], best: int) -> str:
    """Name the first filter that no moment passes: the kind, then the form, the colour, the place, the label, the count."""
    filters = (requirement.form, requirement.colour, requirement.at, requirement.direction, requirement.label)
    reached = [0] * (1 + sum(value is not None for value in filters))
    colours: set[str] = set()
    corners: list[str] = []
    for snapshot in timeline:
        stages = _narrowed(requirement, snapshot, test)
        for index, stage in enumerate(stages):
            reached[index] = max(reached[index], len(_distinct(stage)))
        if requirement.colour:
            colours.update(describe(colour) for entry in stages[0] for colour in entry.colours())
        corners += [", ".join(f"{angle:.0f}°" for angle in angles(entry)) for entry in stages[0] if entry.vertices]
    if not reached[0]:
        return f"no {requirement.what} at any moment; the last frame shows {_what_was_drawn(timeline)}"
    stage = 1
    if requirement.form:
        if not reached[stage]:
            seen = f" (its corners: {corners[-1]})" if corners else ""
            return f"the {requirement.what} is drawn, but it is not {requirement.form}{seen}"
        stage += 1
    if requirement.colour:
        if not reached[stage]:
            return f"the {requirement.what} is drawn, but in {', '.join(sorted(colours)) or 'no colour'}, not {requirement.colour}"
        stage += 1
    if requirement.at is not None:
        if not reached[stage]:
            colour = f"{requirement.colour} " if requirement.colour else ""
            return f"no {colour}{requirement.what} points to ({requirement.at[0]:g}, {requirement.at[1]:g})"
        stage += 1
    if requirement.direction is not None:
        if not reached[stage]:
            return f"no {requirement.what} points {requirement.direction}"
        stage += 1
    if requirement.label is not None and not reached[stage]:
        return f"the {requirement.what} has no label {requirement.label!r} next to it"
    return f"at most {best or reached[0]} {requirement.what}(s) at once, where {requirement.count} are asked (piled copies count once)"


def _points_at(entry: Entry, at: list[float], snapshot: Snapshot) -> bool:
    tip = entry.end if entry.end is not None else entry.centre
    if tip is None:
        return False
    frame = _values_frame(snapshot)
    values = frame.values_at(tip) if frame is not None else tip
    return values is not None and math.dist(values, at) <= VALUE_TOLERANCE


def _points_way(entry: Entry, direction: str) -> bool:
    """Whether an arrow (or line) runs mostly `direction`, start to end."""
    if entry.start is None or entry.end is None:
        return False
    dx, dy = entry.end[0] - entry.start[0], entry.end[1] - entry.start[1]
    ux, uy = UNIT_VECTORS[direction]
    return dx * ux + dy * uy >= 0.8 * math.hypot(dx, dy) > 0


def _labelled(entry: Entry, label: str, snapshot: Snapshot) -> bool:
    wanted = normalise(label).removeprefix("y=")
    return any(
        wanted in normalise(text.text or "") and _gap(entry, text) <= NEAR for text in snapshot.visible() if text.is_text
    )  # fmt: skip


def _gap(a: Entry, b: Entry) -> float:
    if a.box is None or b.box is None:
        return math.inf
    dx = max(a.box[0] - b.box[2], b.box[0] - a.box[2], 0.0)
    dy = max(a.box[1] - b.box[3], b.box[1] - a.box[3], 0.0)
    return math.hypot(dx, dy)


def _shown_texts(snapshot: Snapshot) -> list[tuple[str, Entry]]:
    """Each text on screen, and each run of texts on one baseline read left to right as one (a formula in pieces)."""
    texts = [entry for entry in snapshot.visible() if entry.is_text and entry.text]
    shown = [(entry.text or "", entry) for entry in texts]
    rows: dict[int, list[Entry]] = {}
    for entry in texts:
        if entry.centre is not None:
            rows.setdefault(round(entry.centre[1] / 0.25), []).append(entry)
    for row in rows.values():
        if len(row) > 1:
            ordered = sorted(row, key=lambda entry: entry.box[0] if entry.box else 0.0)
            shown.append((" ".join(entry.text or "" for entry in ordered), ordered[0]))
    return shown


TEX_SOURCE_CLASSES = ("MathTex", "Tex", "SingleStringMathTex")
UNDRAWN_IN_TEX = re.compile("[⁰¹²³⁴⁵⁶⁷⁸⁹⁻ⁿ]")
"""Unicode superscripts in TeX source: TeX draws nothing for them (`MathTex('A = \\pi r²')` shows A = πr)."""


def _text_shown(target: str, snapshot: Snapshot, *, typeset: bool = False) -> Entry | None:
    wanted = normalise(target)
    numbers = numbers_in(target) if _numeric(target) else None
    for shown, entry in _shown_texts(snapshot):
        if typeset and entry.kind not in TYPESET_CLASSES:
            continue
        text = UNDRAWN_IN_TEX.sub("", shown) if entry.kind in TEX_SOURCE_CLASSES else shown
        if numbers is not None:
            if all(number in numbers_in(text) for number in numbers):
                return entry
        elif wanted in normalise(text) if len(wanted) > 1 else normalise(text) == wanted:
            return entry
    return None


def _numeric(text: str) -> bool:
    return bool(numbers_in(text)) and not any(character.isalpha() for character in text)


@checks("text")
def _text(requirement: Requirement, timeline: Timeline) -> Verdict:
    target = requirement.text or ""
    first = _first_showing(timeline, target, typeset=False, colour=requirement.colour)
    if first is not None:
        return _held(requirement, f"{first[1].label()} at t={first[0].time:g} s")
    tinted = _first_showing(timeline, target, typeset=False) if requirement.colour else None
    if tinted is not None:
        return _failed(requirement, _wrong_colour(tinted[1], requirement.colour or ""))
    shown = sorted({entry.text or "" for snapshot in timeline for entry in snapshot.visible() if entry.is_text})
    return _failed(requirement, f"no text shows {target!r}; the texts were: {', '.join(repr(text) for text in shown[:8]) or 'none'}")


@checks("formula")
def _formula(requirement: Requirement, timeline: Timeline) -> Verdict:
    target = requirement.text or ""
    first = _first_showing(timeline, target, typeset=True, colour=requirement.colour)
    tinted = _first_showing(timeline, target, typeset=True) if first is None and requirement.colour else None
    if tinted is not None:
        return _failed(requirement, _wrong_colour(tinted[1], requirement.colour or ""))
    if first is None:
        plain = _first_showing(timeline, target, typeset=False)
        if plain is not None:
            return _failed(requirement, f"{target} is written as plain text ({plain[1].label()}), not as a formula: use MathTex")
        shown = sorted({entry.text or "" for snapshot in timeline for entry in snapshot.visible() if entry.is_text})
        undrawn = " (TeX draws nothing for a ² or ³ character: write ^2 or ^3)" if any(UNDRAWN_IN_TEX.search(text) for text in shown) else ""
        return _failed(requirement, f"no formula shows {target}; the texts were: {', '.join(repr(text) for text in shown[:8]) or 'none'}{undrawn}")
    if requirement.other is None:
        return _held(requirement, f"{first[1].label()} at t={first[0].time:g} s")
    later = _first_showing(Timeline([snapshot for snapshot in timeline if snapshot.index > first[0].index]), requirement.other, typeset=True)
    if later is None:
        return _failed(requirement, f"{target} is shown, but {requirement.other} never follows it")
    return _held(requirement, f"{target} at t={first[0].time:g} s, then {requirement.other} at t={later[0].time:g} s")


def _first_showing(timeline: Timeline, target: str, *, typeset: bool, colour: str | None = None) -> tuple[Snapshot, Entry] | None:
    """The first moment `target` is on screen (typeset, when asked; in `colour`, when given), and what shows it."""
    for snapshot in timeline:
        found = _text_shown(target, snapshot, typeset=typeset)
        if found is not None and (colour is None or any(is_colour(shown, colour) for shown in found.colours())):
            return snapshot, found
    return None


def _wrong_colour(entry: Entry, colour: str) -> str:
    shown = sorted({describe(value) for value in entry.colours()})
    return f"{entry.label()} is shown, but in {', '.join(shown) or 'no colour'}, not {colour}"


# --- values -----------------------------------------------------------------------------------------


@checks("range")
def _range(requirement: Requirement, timeline: Timeline) -> Verdict:
    low, high = requirement.low, requirement.high
    if low is None or high is None:
        return _unverifiable(requirement, "the range has no ends")
    span = abs(high - low)
    if requirement.what == "dot":
        return _dot_range(requirement, timeline, low, high)
    seen: list[str] = []
    for snapshot in timeline:
        for entry in snapshot.visible():
            ends = _ends(requirement, entry, snapshot)
            if ends is None:
                continue
            seen.append(f"{entry.label()} spans {ends[0]:.3g} to {ends[1]:.3g}")
            if _near_value(ends[0], low, span) and _near_value(ends[1], high, span):
                return _held(requirement, seen[-1])
    if not seen:
        return _failed(requirement, f"no {requirement.what} with readable values was drawn")
    return _failed(requirement, "; ".join(dict.fromkeys(seen[-3:])) + f", not {low:g} to {high:g}")


def _dot_range(requirement: Requirement, timeline: Timeline, low: float, high: float) -> Verdict:
    """Where a moving dot goes, in values, over the whole video: from its first place to its furthest."""
    spans = []
    for track in _tracks(timeline, is_dot).values():
        values = []
        for snapshot, entry in track:
            frame = _values_frame(snapshot)
            value = frame.values_at(entry.centre) if frame is not None and entry.centre is not None else None
            if value is not None:
                values.append(value[0])
        if values:
            spans.append(f"{track[-1][1].label()} went over x = {min(values):.3g} to {max(values):.3g}")
            if _near_value(min(values), min(low, high), abs(high - low)) and _near_value(max(values), max(low, high), abs(high - low)):
                return _held(requirement, spans[-1])
    return _failed(requirement, "; ".join(spans[:3]) or "no dot on axes or a number line")


def _ends(requirement: Requirement, entry: Entry, snapshot: Snapshot) -> tuple[float, float] | None:
    what = requirement.what or "curve"
    axis_range = entry.y_range if requirement.axis == "y" else entry.x_range
    if what in ("number line", "axes"):
        test = matcher(what)
        return (axis_range[0], axis_range[1]) if test is not None and test(entry) and axis_range else None
    if what == "curve" and is_curve(entry):
        if entry.t_range and requirement.axis != "y":
            return entry.t_range[0], entry.t_range[1]
        return None
    if what in ("area", "dot"):
        test = matcher(what)
        frame = _values_frame(snapshot)
        if test is None or not test(entry) or frame is None or entry.box is None or entry is frame:
            return None
        left, right = frame.values_at((entry.box[0], entry.box[1])), frame.values_at((entry.box[2], entry.box[3]))
        return (left[0], right[0]) if left and right else None
    return None


# --- changes ----------------------------------------------------------------------------------------


def _tracks(timeline: Timeline, test: Callable[[Entry], bool] | None) -> dict[str, list[tuple[Snapshot, Entry]]]:
    """Each object (by its recorded identity) through the snapshots where it is visible; only those `test`
    accepts at some moment (every non-text object when `test` is None)."""
    tracks: dict[str, list[tuple[Snapshot, Entry]]] = {}
    for snapshot in timeline:
        for entry in snapshot.visible():
            tracks.setdefault(str(entry.id), []).append((snapshot, entry))
    return {
        key: track for key, track in tracks.items()
        if any((test(entry) if test is not None else not entry.is_text) for _, entry in track)
    }  # fmt: skip


@checks("move")
def _move(requirement: Requirement, timeline: Timeline) -> Verdict:
    test = matcher(requirement.what) or (lambda entry: not entry.is_text and entry.kind not in AXES_CLASSES)
    if requirement.high is not None:
        return _move_in_values(requirement, timeline, test)
    direction = UNIT_VECTORS.get(requirement.direction or "")
    if direction is None:
        return _unverifiable(requirement, "no end value or direction to check")
    furthest = 0.0
    for track in _tracks(timeline, test).values():
        along = [entry.centre[0] * direction[0] + entry.centre[1] * direction[1] for _, entry in track if entry.centre is not None]
        if len(along) >= 2:
            shift = max(later - min(along[: index + 1]) for index, later in enumerate(along))  # "right, then back to the left" moves both ways
            furthest = max(furthest, shift)
            if shift >= MOVED:
                return _held(requirement, f"{track[-1][1].label()} moved {shift:.2f} units {requirement.direction}")
    return _failed(requirement, f"nothing that could be the {requirement.what} moved {requirement.direction} (at most {furthest:.2f} units)")


def _move_in_values(requirement: Requirement, timeline: Timeline, test: Callable[[Entry], bool]) -> Verdict:
    assert requirement.high is not None
    seen = []
    for track in _tracks(timeline, lambda entry: is_dot(entry) or test(entry)).values():
        values = []
        for snapshot, entry in track:
            frame = _values_frame(snapshot)
            value = frame.values_at(entry.centre) if frame is not None and entry.centre is not None and entry is not frame else None
            if value is not None:
                values.append(value[0])
        if not values:
            continue
        seen.append(f"{track[-1][1].label()} went from {values[0]:.3g} to {values[-1]:.3g}")
        starts = requirement.low is None or _near_value(values[0], requirement.low)
        if starts and _near_value(values[-1], requirement.high) and len(values) >= 2:
            missed = _missed_stops(values, [float(stop) for stop in requirement.items])
            if missed is None:
                return _held(requirement, seen[-1])
            seen[-1] += f", never stopping at {missed:g}"
    return _failed(requirement, "; ".join(seen[:3]) or f"no {requirement.what} on a number line or axes moved")


def _missed_stops(values: list[float], stops: list[float]) -> float | None:
    """The first stop (in order) the dot's values never rest at, or None when it rests at each in turn."""
    position = 0
    for stop in stops:
        while position < len(values) and not _near_value(values[position], stop):
            position += 1
        if position == len(values):
            return stop
    return None


@checks("colour")
def _colour(requirement: Requirement, timeline: Timeline) -> Verdict:
    if not requirement.colour:
        return _unverifiable(requirement, "no colour named")
    for track in _tracks(timeline, matcher(requirement.what)).values():
        shown = [any(is_colour(colour, requirement.colour) for colour in entry.colours()) for _, entry in track]
        if True in shown and False in shown[: shown.index(True)] and shown[-1]:
            return _held(requirement, f"{track[-1][1].label()} turned {requirement.colour} by t={track[-1][0].time:g} s")
    final = timeline.final
    colours = sorted({describe(colour) for entry in (final.visible() if final else []) for colour in entry.colours()})
    return _failed(requirement, f"nothing turned {requirement.colour}; the last frame's colours are {', '.join(colours) or 'none'}")


@checks("transform")
def _transform(requirement: Requirement, timeline: Timeline) -> Verdict:
    source, target = matcher(requirement.what), matcher(requirement.other)
    if target is None:
        return _unverifiable(requirement, f"nothing recorded can show a {requirement.other}")
    final = timeline.final
    assert final is not None
    ends = [entry for entry in final.visible() if target(entry)]
    if not ends:
        return _failed(requirement, f"the last frame has no {requirement.other}: {_what_was_drawn(timeline)}")
    if source is None:
        return _held(requirement, f"the last frame shows {ends[0].label()}")
    earlier = [snapshot for snapshot in timeline.snapshots[:-1] if any(source(entry) for entry in snapshot.visible())]
    still = [entry for entry in final.visible() if source(entry)]
    before = max((len([entry for entry in snapshot.visible() if source(entry)]) for snapshot in earlier), default=0)
    if still and len(still) >= before:
        return _failed(requirement, f"the {requirement.what} is still there at the end beside the {requirement.other}: it never became one")
    if not earlier:
        return _failed(requirement, f"there is a {requirement.other} at the end, but never a {requirement.what} before it")
    return _held(requirement, f"a {requirement.what} until t={earlier[-1].time:g} s, a {requirement.other} at the end ({ends[0].label()})")


@checks("rotate")
def _rotate(requirement: Requirement, timeline: Timeline) -> Verdict:
    if requirement.degrees is None:
        return _unverifiable(requirement, "no angle named")
    played = {str(animation.target) for _, animation in timeline.played() if animation.kind in ROTATING_ANIMATIONS}
    turned = []
    for key, track in _tracks(timeline, matcher(requirement.what)).items():
        first, last = track[0][1], track[-1][1]
        angle, symmetry = _turn(first, last)
        if angle is None:
            continue
        wanted = requirement.degrees % symmetry
        difference = min(abs(angle - wanted), symmetry - abs(angle - wanted))
        if difference <= ANGLE_TOLERANCE and (wanted > ANGLE_TOLERANCE or key in played):
            return _held(requirement, f"{last.label()} turned {angle:.0f}° (its outline repeats every {symmetry:.0f}°)")
        turned.append(f"{last.label()} turned {angle:.0f}°")
    return _failed(requirement, "; ".join(turned[:3]) or f"no {requirement.what} with corners or ends to measure turned")


def _turn(first: Entry, last: Entry) -> tuple[float | None, float]:
    """How far an outline or an arrow turned between two records, and the angle after which it looks the same."""
    if first.start is not None and first.end is not None and last.start is not None and last.end is not None:
        before = math.degrees(math.atan2(first.end[1] - first.start[1], first.end[0] - first.start[0]))
        after = math.degrees(math.atan2(last.end[1] - last.start[1], last.end[0] - last.start[0]))
        return (after - before) % 360, 360.0
    if not first.vertices or not last.vertices or len(first.vertices) != len(last.vertices):
        return None, 360.0
    symmetry = 360.0 / len(first.vertices)
    return (_orientation(last.vertices) - _orientation(first.vertices)) % symmetry, symmetry


def _orientation(vertices: list[tuple[float, float]]) -> float:
    """The angle of the vertex furthest from the centroid, taken modulo the outline's symmetry by the caller."""
    cx = sum(x for x, _ in vertices) / len(vertices)
    cy = sum(y for _, y in vertices) / len(vertices)
    far = max(vertices, key=lambda point: math.dist(point, (cx, cy)))
    return math.degrees(math.atan2(far[1] - cy, far[0] - cx)) % 360


@checks("scale")
def _scale(requirement: Requirement, timeline: Timeline) -> Verdict:
    if requirement.factor is None:
        return _unverifiable(requirement, "no factor named")
    factor = requirement.factor
    measures = []
    for track in _tracks(timeline, matcher(requirement.what)).values():
        sizes = [_extent(entry, requirement.axis) for _, entry in track]
        if sizes[0] > 1e-6:
            ratio = sizes[-1] / sizes[0]
            measures.append(ratio)
            if abs(ratio - factor) <= FACTOR_TOLERANCE * factor:
                return _held(requirement, f"{track[-1][1].label()} grew {ratio:.2f} times")
    if requirement.what == "arrow":
        for snapshot in timeline:
            lengths = sorted(_extent(entry, None) for entry in snapshot.visible() if entry.kind in ("Arrow", "Vector"))
            if len(lengths) >= 2 and lengths[0] > 1e-6 and abs(lengths[-1] / lengths[0] - factor) <= FACTOR_TOLERANCE * factor:
                return _held(requirement, f"two arrows whose lengths differ {lengths[-1] / lengths[0]:.2f} times")
    shown = ", ".join(f"{ratio:.2f}" for ratio in measures[:3])
    return _failed(requirement, f"nothing grew {factor:g} times" + (f" (ratios seen: {shown})" if shown else ""))


def _extent(entry: Entry, axis: str | None) -> float:
    if entry.start is not None and entry.end is not None and axis is None:
        return math.dist(entry.start, entry.end)
    width, height = entry.size
    return {"x": width, "y": height}.get(axis or "", max(width, height))


# --- order in time and space ------------------------------------------------------------------------


@checks("sequence")
def _sequence(requirement: Requirement, timeline: Timeline) -> Verdict:
    if requirement.items:
        firsts = []
        for item in requirement.items:
            first = next((snapshot.index for snapshot in timeline if _text_shown(item, snapshot) is not None), None)
            if first is None:
                return _failed(requirement, f"{item!r} never appears")
            firsts.append(first)
        distinct = len(set(firsts))
        if firsts == sorted(firsts) and distinct >= max(2, len(firsts) - 1):
            return _held(requirement, f"they first appear in snapshots {firsts}")
        return _failed(requirement, f"they first appear in snapshots {firsts}: {'all at once' if distinct == 1 else 'not one after another in order'}")
    counts = [len([entry for entry in snapshot.visible() if entry.is_text or not entry.member]) for snapshot in timeline]
    steps = sum(later > earlier for earlier, later in zip(counts, counts[1:]))
    if steps >= 2:
        return _held(requirement, f"what is on screen grows in {steps} steps")
    return _failed(requirement, "everything appears in at most two steps, not one after another")


@checks("order")
def _order(requirement: Requirement, timeline: Timeline) -> Verdict:
    final = timeline.final
    assert final is not None
    places = []
    remaining = [(text, entry) for text, entry in _shown_texts(final) if entry.centre is not None and len(text) <= 6]
    for item in requirement.items:
        match = next((pair for pair in remaining if numbers_in(pair[0]) == numbers_in(item) or pair[0] == item), None)
        if match is None:
            return _failed(requirement, f"{item!r} is not on screen at the end")
        remaining.remove(match)
        places.append(match[1].centre[0] if match[1].centre else 0.0)
    if places == sorted(places):
        return _held(requirement, "at the end they read " + ", ".join(requirement.items) + " from left to right")
    read = [item for _, item in sorted(zip(places, requirement.items))]
    return _failed(requirement, "at the end they read " + ", ".join(read) + " from left to right")


EMPHASIS = frozenset({"Indicate", "Circumscribe", "Flash", "FocusOn", "Wiggle", "ApplyWave", "ShowPassingFlash"})


@checks("highlight")
def _highlight(requirement: Requirement, timeline: Timeline) -> Verdict:
    firsts = []
    for item in requirement.items:
        first = _first_highlight(item, requirement.colour, timeline)
        if first is None:
            colour = f" in {requirement.colour}" if requirement.colour else ""
            return _failed(requirement, f"{item!r} is never picked out{colour} (no colour change, frame or flash on it)")
        firsts.append(first)
    if firsts != sorted(firsts):
        return _failed(requirement, f"they are picked out in snapshots {firsts}, not in the order asked")
    return _held(requirement, f"picked out in snapshots {firsts}")


def _first_highlight(item: str, colour: str | None, timeline: Timeline) -> int | None:
    """The first snapshot where `item`'s text, or a shape around it, has a colour it did not have when the text
    appeared (`colour` when given), a new shape frames it, or an emphasis animation plays on it."""
    before: dict[str, list[str]] | None = None
    for snapshot in timeline:
        text = _exact_text(item, snapshot)
        if text is None or text.centre is None:
            continue
        around = {str(entry.id): entry for entry in snapshot.visible() if entry is text or _holds(entry, text.centre)}
        if before is None:
            before = {key: entry.colours() for key, entry in around.items()}
            continue
        for key, entry in around.items():
            seen = {describe(old) for old in before.get(key, [])}
            new = [shown for shown in entry.colours() if describe(shown) not in seen]
            if new and (colour is None or any(is_colour(shown, colour) for shown in new)):
                return snapshot.index
        names = [entry.name for entry in around.values() if entry.name]
        if colour is None and any(played.kind in EMPHASIS and _plays_on(played, around, names) for played in snapshot.animations):
            return snapshot.index
    return None


def _plays_on(played: Played, around: dict[str, Entry], names: list[str]) -> bool:
    """Whether an animation played on one of `around`, or on a group holding one ("cells[2]" holds "cells[2][0]")."""
    return str(played.target) in around or bool(played.name) and any(name == played.name or name.startswith(f"{played.name}[") for name in names)


def _exact_text(item: str, snapshot: Snapshot) -> Entry | None:
    """The text entry that reads `item` exactly (a cell's "6", not the "16" beside it)."""
    wanted = normalise(item)
    return next((entry for entry in snapshot.visible() if entry.is_text and normalise(entry.text or "") == wanted), None)


def _holds(entry: Entry, point: Point) -> bool:
    """A closed shape (a cell, a frame) around `point`, no bigger than a cell or a frame would be."""
    if entry.is_text or entry.box is None or not entry.closed:
        return False
    x0, y0, x1, y1 = entry.box
    return x0 <= point[0] <= x1 and y0 <= point[1] <= y1 and (x1 - x0) * (y1 - y0) <= 9.0


@checks("disappear")
def _disappear(requirement: Requirement, timeline: Timeline) -> Verdict:
    test = matcher(requirement.what) if requirement.what else _anything
    final = timeline.final
    assert final is not None
    if test is None:
        if requirement.what and _text_shown(requirement.what, timeline.snapshots[0]) is None and not any(_text_shown(requirement.what, s) for s in timeline):
            return _unverifiable(requirement, f"nothing recorded can show a {requirement.what}")
        shown_before = any(_text_shown(requirement.what or "", snapshot) for snapshot in timeline.snapshots[:-1])
        if shown_before and _text_shown(requirement.what or "", final) is None:
            return _held(requirement, f"{requirement.what!r} is shown, then gone at the end")
        return _failed(requirement, f"{requirement.what!r} is still on screen at the end" if shown_before else f"{requirement.what!r} never appears")
    counts = [len([entry for entry in snapshot.visible() if test(entry)]) for snapshot in timeline]
    what = requirement.what or "object"
    if max(counts) > counts[-1]:
        return _held(requirement, f"{max(counts)} {what}(s) at most, {counts[-1]} at the end")
    return _failed(requirement, f"no {what} ever leaves the screen")


def _anything(entry: Entry) -> bool:
    """The test of a removal with no subject ("then fade out"): any object leaving will do."""
    return True


@checks("relation")
def _relation(requirement: Requirement, timeline: Timeline) -> Verdict:
    first, second = matcher(requirement.what), matcher(requirement.other)
    if first is None or second is None or requirement.relation is None:
        return _unverifiable(requirement, "one of the two objects cannot be recognised")
    for snapshot in timeline:
        for a in snapshot.visible():
            for b in snapshot.visible():
                if a is not b and first(a) and second(b) and _related(a, b, requirement.relation):
                    return _held(requirement, f"{a.label()} is {requirement.relation} {b.label()} at t={snapshot.time:g} s")
    return _failed(requirement, f"no {requirement.what} is ever {requirement.relation} a {requirement.other}")


def _related(a: Entry, b: Entry, relation: str) -> bool:
    if a.box is None or b.box is None or a.centre is None or b.centre is None:
        return False
    if relation == "inside":
        return a.box[0] >= b.box[0] - 0.05 and a.box[1] >= b.box[1] - 0.05 and a.box[2] <= b.box[2] + 0.05 and a.box[3] <= b.box[3] + 0.05
    if relation == "next to":
        return _gap(a, b) <= NEAR
    dx, dy = a.centre[0] - b.centre[0], a.centre[1] - b.centre[1]
    return {"above": dy > 0.2, "below": dy < -0.2, "left of": dx < -0.2, "right of": dx > 0.2}[relation]


@checks("reflect")
def _reflect(requirement: Requirement, timeline: Timeline) -> Verdict:
    test = matcher(requirement.what) or (lambda entry: not entry.is_text and entry.kind not in AXES_CLASSES and entry.box is not None)
    flip = (-1, 1) if requirement.other == "y-axis" else (1, -1)
    away = 0 if requirement.other == "y-axis" else 1
    seen: list[Point] = []
    for snapshot in timeline:
        frame = _values_frame(snapshot)
        places = [place for entry in snapshot.visible() if test(entry) and entry.centre is not None and (place := _in_values(entry.centre, frame)) is not None]
        for place in places:
            mirrored = (place[0] * flip[0], place[1] * flip[1])
            if any(abs(earlier[away]) > 0.3 and math.dist(earlier, mirrored) <= 2 * VALUE_TOLERANCE for earlier in seen):
                return _held(requirement, f"a {requirement.what or 'shape'} at ({place[0]:.2f}, {place[1]:.2f}) mirrors one shown before, across the {requirement.other}")
        seen += places
    return _failed(requirement, f"no {requirement.what or 'shape'} ever stands mirrored across the {requirement.other} from where one stood")


def _in_values(point: Point, frame: Entry | None) -> Point | None:
    """A scene point as the values of the snapshot's axes or plane, or as it is when there are none."""
    return frame.values_at(point) if frame is not None else point


@checks("update")
def _update(requirement: Requirement, timeline: Timeline) -> Verdict:
    values: dict[str, list[float]] = {}
    for snapshot in timeline:
        for entry in snapshot.visible():
            if entry.value is not None:
                values.setdefault(str(entry.id), []).append(entry.value)
    changing = [series for series in values.values() if len(set(series)) >= 2]
    if not changing:
        return _failed(requirement, "no number on screen changes its value")
    series = max(changing, key=lambda found: len(set(found)))
    if requirement.high is not None and not _near_value(series[-1], requirement.high):
        return _failed(requirement, f"the number ends at {series[-1]:g}, not {requirement.high:g}")
    return _held(requirement, f"a number goes from {series[0]:g} to {series[-1]:g}")


@checks("trace")
def _trace(requirement: Requirement, timeline: Timeline) -> Verdict:
    if requirement.other == "circle":
        return _orbit(requirement, timeline)
    pathed = {str(animation.target) for _, animation in timeline.played() if animation.kind in PATH_ANIMATIONS}
    for key, track in _tracks(timeline, is_dot).items():
        on_curve = [snapshot for snapshot, entry in track if _on_a_curve(entry, snapshot)]
        centres = [entry.centre for snapshot, entry in track if entry.centre is not None and snapshot in on_curve]
        moved = len(centres) >= 2 and math.dist(centres[0], centres[-1]) >= MOVED
        if moved and (len(on_curve) >= 3 or key in pathed):
            return _held(requirement, f"{track[-1][1].label()} stays on the curve while it moves ({len(on_curve)} snapshots)")
    return _failed(requirement, "no dot moves while staying on a drawn curve")


@checks("mark")
def _mark(requirement: Requirement, timeline: Timeline) -> Verdict:
    wanted = requirement.count or 1
    most = 0
    for snapshot in timeline:
        frame = _values_frame(snapshot)
        marked = []
        for entry in _distinct(entry for entry in snapshot.visible(members=True) if is_dot(entry)):
            curves = _curves_through(entry, snapshot)
            values = frame.values_at(entry.centre) if frame is not None and entry.centre is not None else None
            on_axis = values is not None and _near_value(values[1], 0.0)
            if (requirement.other == "x-axis" and curves >= 1 and on_axis) or (requirement.other != "x-axis" and curves >= 2):
                marked.append(entry)
        most = max(most, len(marked))
        if len(marked) >= wanted:
            return _held(requirement, f"{', '.join(entry.label() for entry in marked[:4])} at t={snapshot.time:g} s")
    where = "on a curve and on the x-axis" if requirement.other == "x-axis" else "where two drawn curves meet"
    return _failed(requirement, f"{most} dot(s) {where}, where {wanted} are asked")


@checks("tangent")
def _tangent(requirement: Requirement, timeline: Timeline) -> Verdict:
    if requirement.low is None:
        return _unverifiable(requirement, "no point of contact named")
    seen = "no curve drawn on axes"
    for snapshot in timeline:
        frame = _values_frame(snapshot)
        if frame is None:
            continue
        for curve in (entry for entry in snapshot.visible() if is_curve(entry) and entry.samples and not is_line(entry)):
            touch = _curve_at(curve, frame, requirement.low)
            if touch is None:
                continue
            point, direction = touch
            seen = f"no straight line through the curve's point at x = {requirement.low:g} along it"
            for line in (entry for entry in snapshot.visible() if is_line(entry) and entry.start is not None and entry.end is not None):
                if _touches(line, point, direction):
                    return _held(requirement, f"{line.label()} touches {curve.label()} at x = {requirement.low:g}")
    return _failed(requirement, seen)


def _curve_at(curve: Entry, frame: Entry, x: float) -> tuple[Point, tuple[float, float]] | None:
    """The curve's frame point at value `x` and its direction there (from its neighbouring samples)."""
    samples = curve.samples or []
    values = [frame.values_at(point) for point in samples]
    nearest = min((index for index, value in enumerate(values) if value is not None), key=lambda index: abs(values[index][0] - x), default=None)  # type: ignore[index]
    if nearest is None or abs(values[nearest][0] - x) > VALUE_TOLERANCE or len(samples) < 3:  # type: ignore[index]
        return None
    before, after = samples[max(nearest - 1, 0)], samples[min(nearest + 1, len(samples) - 1)]
    return samples[nearest], (after[0] - before[0], after[1] - before[1])


def _touches(line: Entry, point: Point, direction: tuple[float, float]) -> bool:
    """Whether the segment passes through `point` running along `direction`."""
    assert line.start is not None and line.end is not None
    (x0, y0), (x1, y1) = line.start, line.end
    length = math.hypot(x1 - x0, y1 - y0)
    if length == 0 or math.hypot(*direction) == 0:
        return False
    along = max(0.0, min(1.0, ((point[0] - x0) * (x1 - x0) + (point[1] - y0) * (y1 - y0)) / length**2))
    if math.dist(point, (x0 + along * (x1 - x0), y0 + along * (y1 - y0))) > ON_CURVE:
        return False
    angle = abs(math.degrees(math.atan2(y1 - y0, x1 - x0) - math.atan2(direction[1], direction[0]))) % 180
    return min(angle, 180 - angle) <= ANGLE_TOLERANCE


def _curves_through(entry: Entry, snapshot: Snapshot) -> int:
    """How many drawn curves pass through the entry's centre."""
    centre = entry.centre
    if centre is None:
        return 0
    return sum(
        1 for curve in snapshot.visible() if is_curve(curve) and curve.samples and min(math.dist(centre, point) for point in curve.samples) <= ON_CURVE
    )  # fmt: skip


def _on_a_curve(entry: Entry, snapshot: Snapshot) -> bool:
    return _curves_through(entry, snapshot) > 0


def _orbit(requirement: Requirement, timeline: Timeline) -> Verdict:
    for track in _tracks(timeline, None).values():
        centres = [entry.centre for _, entry in track if entry.centre is not None]
        if len(centres) < 3:
            continue
        cx, cy = sum(x for x, _ in centres) / len(centres), sum(y for _, y in centres) / len(centres)
        angles = [math.atan2(y - cy, x - cx) for x, y in centres]
        swept = sum(abs(math.remainder(b - a, math.tau)) for a, b in zip(angles, angles[1:]))
        if math.degrees(swept) >= 180:
            return _held(requirement, f"{track[-1][1].label()} goes {math.degrees(swept):.0f}° around a centre")
    return _failed(requirement, "nothing goes around a centre (snapshots are taken at the end of each play call)")
