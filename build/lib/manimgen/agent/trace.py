"""What an agent run did, round by round: the record the CLI prints, the bench stores and reports read.

A round is one model call: its prompt, its answer, the code taken from it, the render of that code
(when it was rendered) and the feedback the next round is given. Everything is plain data with a
JSON round-trip, so a stored trace can be re-read, re-scored or shown without re-running anything.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field, fields
from typing import Any

from manimgen.llm.base import Message
from manimgen.render.result import RenderResult

# Why a run ended (Trace.stop_reason).
STOP_RENDERED = "rendered"  # the final code rendered and no hook asked for another round
STOP_MAX_ROUNDS = "max_rounds"  # every allowed feedback round was used
STOP_DEADLINE = "deadline"  # config.deadline_s passed before the next round could start


BUILT = "build"
"""The kind of a round whose code the scene builder made, not the model."""
BUILT_PART = "build-part"
"""A round whose code the scene builder made for the part of the sentence it read; the model extends it."""
MADE_HERE = (BUILT, BUILT_PART)


@dataclass
class Round:
    """One model call and what came of it."""

    index: int
    kind: str  # "generate" | "doc" | "repair" | a kind a plug-in strategy adds
    messages: list[Message]
    completion: str
    code: str | None
    render: RenderResult | None = None
    feedback: str = ""  # what the next round is told: error tail, no-code notice, lint findings, ...
    prompt_tokens: int = 0
    completion_tokens: int = 0
    llm_seconds: float = 0.0
    render_seconds: float = 0.0
    cached: bool = False  # the completion was replayed; llm_seconds is what producing it cost
    autofixes: list[str] = field(default_factory=list)  # mechanical repairs made to the answer's code (`code` is the result)

    def to_dict(self) -> dict[str, Any]:
        return {
            "index": self.index,
            "kind": self.kind,
            "messages": [dict(message) for message in self.messages],
            "completion": self.completion,
            "code": self.code,
            "render": self.render.to_dict() if self.render else None,
            "feedback": self.feedback,
            "prompt_tokens": self.prompt_tokens,
            "completion_tokens": self.completion_tokens,
            "llm_seconds": self.llm_seconds,
            "render_seconds": self.render_seconds,
            "cached": self.cached,
            "autofixes": list(self.autofixes),
        }

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Round:
        """Inverse of `to_dict`; a key this version does not know (a trace written by another) is left out."""
        values = {name: data[name] for name in ROUND_FIELDS if name in data}
        values["messages"] = [Message(**item) for item in data.get("messages") or []]
        values["render"] = RenderResult.from_dict(data["render"]) if data.get("render") else None
        return cls(**values)


ROUND_FIELDS = tuple(item.name for item in fields(Round))

@dataclass
class Trace:
    """A whole run: every round, the code it ended with and that code's render."""

    strategy: str
    model: str
    description: str
    rounds: list[Round] = field(default_factory=list)
    final_code: str | None = None
    final_render: RenderResult | None = None
    seconds: float = 0.0
    stop_reason: str = ""
    checks: dict[str, Any] | None = None  # the checklist and the final render's verdicts, for a strategy that checks them

    @property
    def ok(self) -> bool:
        """The final code rendered: what RSR counts."""
        return self.final_render is not None and self.final_render.ok

    @property
    def llm_calls(self) -> int:
        """Rounds that called the model (a built scene's round did not)."""
        return sum(round_.kind not in MADE_HERE for round_ in self.rounds)

    @property
    def prompt_tokens(self) -> int:
        return sum(round_.prompt_tokens for round_ in self.rounds)

    @property
    def completion_tokens(self) -> int:
        return sum(round_.completion_tokens for round_ in self.rounds)

    def to_dict(self) -> dict[str, Any]:
        return {
            "strategy": self.strategy,
            "model": self.model,
            "description": self.description,
            "rounds": [round_.to_dict() for round_ in self.rounds],
            "final_code": self.final_code,
            "final_render": self.final_render.to_dict() if self.final_render else None,
            "seconds": self.seconds,
            "stop_reason": self.stop_reason,
            "ok": self.ok,
            "llm_calls": self.llm_calls,
            "prompt_tokens": self.prompt_tokens,
            "completion_tokens": self.completion_tokens,
            **({"checks": self.checks} if self.checks is not None else {}),
        }

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Trace:
        """Inverse of `to_dict`; the derived totals it also writes are recomputed, not read."""
        return cls(
            strategy=data["strategy"],
            model=data["model"],
            description=data["description"],
            rounds=[Round.from_dict(item) for item in data["rounds"]],
            final_code=data.get("final_code"),
            final_render=RenderResult.from_dict(data["final_render"]) if data.get("final_render") else None,
            seconds=data.get("seconds", 0.0),
            stop_reason=data.get("stop_reason", ""),
            checks=data.get("checks"),
        )

    def to_json(self, indent: int | None = 2) -> str:
        return json.dumps(self.to_dict(), indent=indent, ensure_ascii=False)

    @classmethod
    def from_json(cls, text: str) -> Trace:
        return cls.from_dict(json.loads(text))
