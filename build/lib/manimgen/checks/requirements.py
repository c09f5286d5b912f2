"""The checklist: what a viewer would check a video against, from the sentence that asked for it.

One schema for everything that reads or writes a checklist: the sentence's extraction (deterministic
and by a model under this JSON schema), the checker, the prompt that plans a scene, the page and the
trace that show it, and a teacher who edits it (`manimgen check --checklist FILE`). Each item is one
thing a viewer can see or not: an object (its kind, count, colour, label), a text or formula on
screen, the values an axis spans, a relation between two objects, or a change with its end state
(moves, turns a colour, becomes another shape, rotates, scales, appears one after another,
disappears, a number that updates, a point that travels along a curve).
"""

from __future__ import annotations

import json
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError

Kind = Literal[
    "object", "text", "formula", "range", "relation", "move", "colour", "transform", "rotate", "scale", "sequence", "order",
    "disappear", "update", "trace", "mark", "tangent", "highlight", "reflect", "look",
]  # fmt: skip
Relation = Literal["above", "below", "left of", "right of", "inside", "next to"]
Form = Literal["right", "equilateral", "isosceles", "regular"]
KINDS: tuple[str, ...] = Kind.__args__  # type: ignore[attr-defined]
MAX_COUNT, MAX_ROWS, MAX_ITEMS = 100, 20, 40
"""More than a viewer would count one by one: "400 small points" asks for points, not for a number of them."""


class Requirement(BaseModel):
    """One item of a checklist. `phrase` is how it reads to a person; the other fields are what a check reads.

    - object: `what` (a shape word: circle, square, dot, arrow, number line, axes, curve, area, ...), `count` (in `rows`
      rows when a grid or rows are asked), `colour`, `label`, the polygon's `form` (a right, equilateral or isosceles
      triangle, a regular polygon), for an arrow or a dot the values `at` (x, y) it points to or sits at, for an arrow the
      `direction` it points, for a curve its formula `text`
    - text / formula: `text` shown on screen (a formula as typeset maths, not plain text); `other` a formula it
      becomes (a formula transformed into another)
    - range: the `axis` ("x", "y") of `what` spans `low` to `high`
    - relation: `what` is `relation` `other`
    - move: `what` moves to `high` (from `low`) on the number line or axes, or in `direction` ("left", "right", "up", "down")
    - colour: `what` turns `colour`;  transform: `what` becomes `other` (a shape word);  rotate: by `degrees`;
      scale: by `factor` (along `axis` when given);  disappear: `what` leaves the screen
    - sequence: the `items` (texts, numbers or objects) appear one after another, in order
    - order: at the end the `items` read from left to right in that order (a sorted array, a swap)
    - update: a number shown next to `what` changes as it moves, ending at `high` when given
    - trace: `what` travels along `other` (a curve or a circle, of radius `high` when given)
    - mark: `count` dots (at least one) mark where a drawn curve crosses `other`: "x-axis", or "curve" (where two curves cross)
    - tangent: a straight line touching the drawn curve `text` at x = `low`, along it there
    - highlight: the `items` (texts on screen) are picked out one after another, in order: a box or the text turns
      `colour` (any new colour when none is given), a frame appears around it, or it is flashed
    - reflect: `what` (or a copy of it) ends up mirrored across `other` ("x-axis" or "y-axis")
    - look: a clause of the sentence (`text`) no other item reads; no check decides it, a person looks for it
    """

    model_config = ConfigDict(extra="forbid")

    kind: Kind
    phrase: str = Field(max_length=200)
    what: str | None = Field(None, max_length=40)
    count: int | None = Field(None, ge=1, le=MAX_COUNT)
    rows: int | None = Field(None, ge=1, le=MAX_ROWS)
    colour: str | None = Field(None, max_length=20)
    label: str | None = Field(None, max_length=60)
    text: str | None = Field(None, max_length=120)
    axis: Literal["x", "y"] | None = None
    low: float | None = None
    high: float | None = None
    direction: Literal["left", "right", "up", "down"] | None = None
    form: Form | None = None
    relation: Relation | None = None
    other: str | None = Field(None, max_length=40)
    degrees: float | None = None
    factor: float | None = None
    at: list[float] | None = Field(None, min_length=2, max_length=2)
    items: list[str] = Field(default_factory=list, max_length=20)


class Checklist(BaseModel):
    """The sentence and its requirements, in the order a viewer meets them."""

    model_config = ConfigDict(extra="forbid")

    sentence: str
    requirements: list[Requirement] = Field(default_factory=list, max_length=MAX_ITEMS)

    def render_text(self, looks: bool = True) -> str:
        """One line a requirement, numbered: what the terminal shows, and (without the `look` items no check
        reads, `looks=False`) the plan in a prompt."""
        items = [item for item in self.requirements if looks or item.kind != "look"]
        return "\n".join(f"{number}. {item.phrase}" + (" (not checked: look for it)" if item.kind == "look" else "") for number, item in enumerate(items, 1))


class ChecklistError(ValueError):
    """A checklist file or model answer that is not a checklist; the message says where."""


def requirements_schema() -> str:
    """The JSON schema a model's answer must follow (a list of requirements), as text for a grammar."""
    schema = {
        "type": "object",
        "properties": {"requirements": {"type": "array", "items": Requirement.model_json_schema(), "maxItems": 12}},
        "required": ["requirements"],
    }
    return json.dumps(schema, separators=(",", ":"))


def load_checklist(text: str, source: str) -> Checklist:
    """A checklist from JSON text (an edited file); a wrong field is named with its place."""
    try:
        return Checklist.model_validate_json(text)
    except ValidationError as error:
        problem = error.errors()[0]
        where = ".".join(str(part) for part in problem["loc"])
        raise ChecklistError(f"{source}: {where}: {problem['msg']}; write the JSON that `manimgen check --json` prints") from None
