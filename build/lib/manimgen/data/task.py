"""The unit of work: one description with its reference scene (or, from a task file, without one)."""

from __future__ import annotations

from dataclasses import asdict, dataclass
from typing import Literal

Complexity = Literal["Basic", "Intermediate", "Advanced"]
Split = Literal["train", "validation", "test", "builtin", "file"]


@dataclass(frozen=True)
class Task:
    """A description to animate and the human-written scene it is judged against. A task from a
    task file has no reference (`reference_code` is empty) and may list `patterns` its code must match."""

    id: str
    description: str
    reference_code: str
    complexity: Complexity
    split: Split
    patterns: tuple[str, ...] = ()

    @property
    def has_reference(self) -> bool:
        return bool(self.reference_code.strip())

    def to_dict(self) -> dict[str, object]:
        return asdict(self)
