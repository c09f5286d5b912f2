"""A lesson's storyboard: a title and its scenes, each with the lines a voice says over it and the one
sentence that says what the scene shows.

The model writes it under a JSON schema (constrained decoding where the provider has it, validated
here either way); each scene's sentence gets the checklist the rules read from it (checks/), so a
scene is generated and checked as `generate` checks a sentence. The file is what a teacher edits
before anything renders (`manimgen lesson --storyboard FILE`).
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Annotated

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from manimgen.checks import Checklist
from manimgen.checks.extract import extract
from manimgen.llm.base import LLM, Sampling

MIN_SCENES, MAX_SCENES, MAX_LINES = 2, 8, 4
STORYBOARD_FILE = "storyboard.json"
Line = Annotated[str, Field(min_length=1, max_length=300)]


class StoryboardError(ValueError):
    """A storyboard file or model answer that is not a storyboard; the message says where."""


class Scene(BaseModel):
    """One scene: its title, the narration lines in the order they are spoken, what it shows."""

    model_config = ConfigDict(extra="forbid")

    title: str = Field(min_length=1, max_length=80)
    narration: list[Line] = Field(min_length=1, max_length=MAX_LINES)
    shows: str = Field(min_length=1, max_length=400)
    checklist: Checklist | None = None


class Storyboard(BaseModel):
    """The whole lesson, scene by scene."""

    model_config = ConfigDict(extra="forbid")

    title: str = Field(min_length=1, max_length=120)
    topic: str
    language: str = "en"
    scenes: list[Scene] = Field(min_length=1, max_length=MAX_SCENES)

    def checked(self) -> Storyboard:
        """Every scene with a checklist: its own (a person's edit) or the one the rules read from `shows`."""
        scenes = [scene if scene.checklist is not None else scene.model_copy(update={"checklist": extract(scene.shows)}) for scene in self.scenes]
        return self.model_copy(update={"scenes": scenes})

    def to_json(self) -> str:
        return self.model_dump_json(indent=2, exclude_defaults=True)


def answer_schema(scenes: int) -> str:
    """The JSON schema of the model's answer: the storyboard without the checklists, which the rules add."""
    line = {"type": "string", "minLength": 1, "maxLength": 300}
    scene = {
        "type": "object",
        "properties": {
            "title": {"type": "string", "minLength": 1, "maxLength": 80},
            "narration": {"type": "array", "items": line, "minItems": 1, "maxItems": 3},
            "shows": {"type": "string", "minLength": 1, "maxLength": 300},
        },
        "required": ["title", "narration", "shows"],
    }
    schema = {
        "type": "object",
        "properties": {"title": {"type": "string", "minLength": 1, "maxLength": 120}, "scenes": {"type": "array", "items": scene, "minItems": scenes, "maxItems": scenes}},
        "required": ["title", "scenes"],
    }
    return json.dumps(schema, separators=(",", ":"))


SYSTEM = """You plan short narrated maths and science lessons made of animated scenes.
Answer with JSON only: {"title": ..., "scenes": [{"title": ..., "narration": [...], "shows": ...}, ...]}.
- narration: one to three short spoken sentences, said while the scene plays, in plain words.
- shows: ONE concrete sentence saying what the animation draws and how it changes. Use things that can be drawn exactly,
  with the numbers of an example, for instance:
  "A number line from 0 to 10 with a dot that moves from 2 to 7"; "Axes from -3 to 3 with the graph of y = x^2 in blue";
  "A right triangle with its legs labelled a and b and its hypotenuse labelled c"; "A circle divided into 8 equal parts
  with 3 parts shaded"; "Write the formula A = πr^2"; "Solve 2x + 3 = 7 step by step"; "A bar chart of the values 3, 5
  and 2"; "Write 1 + 2 + 3 + 4 = 10, then 4 × 5 / 2 = 10 below it".
- Each scene shows one idea; the scenes build on each other in order and together answer the request: to explain why
  something is true, show the steps of the reason on a small example, then the general rule. Stay on the topic asked."""

EXAMPLES = (
    (
        "Explain why the angles of a triangle add up to 180 degrees.\nPlan it in 3 scenes.",
        {
            "title": "The angles of a triangle",
            "scenes": [
                {
                    "title": "Three angles",
                    "narration": ["Every triangle has three angles.", "Let us call them a, b and c."],
                    "shows": "A triangle with its three angles labelled a, b and c",
                },
                {
                    "title": "A parallel line",
                    "narration": ["Draw a line through the top corner, parallel to the bottom side.", "Angles a and c appear again at the top, beside b."],
                    "shows": "A triangle with angles labelled a, b and c, then a yellow line through its top corner parallel to its base",
                },
                {
                    "title": "A straight line",
                    "narration": ["Together a, b and c make a straight line.", "A straight line is 180 degrees, so a plus b plus c is 180 degrees."],
                    "shows": "Write the formula a + b + c = 180°",
                },
            ],
        },
    ),
    (
        "Explain what a fraction of a whole is.\nPlan it in 2 scenes.",
        {
            "title": "Parts of a whole",
            "scenes": [
                {
                    "title": "Equal parts",
                    "narration": ["Cut a whole into four equal parts.", "Each part is one quarter."],
                    "shows": "A circle divided into 4 equal parts with 1 part shaded",
                },
                {
                    "title": "Three quarters",
                    "narration": ["Shade three of the four parts.", "That is three quarters, written 3 over 4."],
                    "shows": "A circle divided into 4 equal parts with 3 parts shaded, and the fraction 3/4 written below it",
                },
            ],
        },
    ),
)


def write_storyboard(llm: LLM, topic: str, scenes: int, *, language: str = "en", seed: int = 0) -> Storyboard:
    """The model's storyboard for `topic` in `scenes` scenes, with each scene's checklist added."""
    if not MIN_SCENES <= scenes <= MAX_SCENES:
        raise StoryboardError(f"a lesson has {MIN_SCENES} to {MAX_SCENES} scenes; asked for {scenes}")
    tongue = "" if language == "en" else f" Write the titles and narration in the language with code '{language}'; keep `shows` in English."
    shots = [message for ask, answer in EXAMPLES for message in ({"role": "user", "content": ask}, {"role": "assistant", "content": json.dumps(answer)})]
    messages = [{"role": "system", "content": SYSTEM + tongue}, *shots, {"role": "user", "content": f"{topic.strip()}\nPlan it in {scenes} scenes."}]
    sampling = Sampling(temperature=0.3, max_tokens=250 * scenes + 100, seed=seed, schema=answer_schema(scenes))
    answer = llm.chat(messages, n=1, sampling=sampling).completions[0]
    try:
        data = json.loads(_json_part(answer))
    except json.JSONDecodeError as error:
        raise StoryboardError(f"the model's storyboard is not JSON ({error.msg} at character {error.pos}); run again with another --seed or write one with --storyboard") from None
    if not isinstance(data, dict):
        raise StoryboardError("the model's storyboard is not a JSON object; run again with another --seed or write one with --storyboard")
    return _validated({**data, "topic": topic.strip(), "language": language}, "the model's storyboard").checked()


def _json_part(answer: str) -> str:
    """The JSON object of an answer, without a code fence a provider that does not constrain decoding may add."""
    fenced = re.search(r"```(?:json)?\s*(\{.*\})\s*```", answer, re.S)
    return fenced.group(1) if fenced else answer.strip()


def load_storyboard(path: Path) -> Storyboard:
    """A storyboard file (an edited `storyboard.json`); a wrong field is named with its place."""
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as error:
        raise StoryboardError(f"cannot read the storyboard {path} ({error}); give the {STORYBOARD_FILE} a lesson wrote") from None
    try:
        data = json.loads(text)
    except json.JSONDecodeError as error:
        raise StoryboardError(f"{path}: not JSON (line {error.lineno}: {error.msg}); give the {STORYBOARD_FILE} a lesson wrote") from None
    return _validated(data, str(path)).checked()


def _validated(data: object, source: str) -> Storyboard:
    try:
        return Storyboard.model_validate(data)
    except ValidationError as error:
        problem = error.errors()[0]
        where = ".".join(str(part) for part in problem["loc"]) or "the top level"
        raise StoryboardError(f"{source}: {where}: {problem['msg']}; a storyboard has a title and scenes, each with a title, narration lines and `shows`") from None
