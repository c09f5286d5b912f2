"""The unit of work: one description with its reference scene."""

from __future__ import annotations

from dataclasses import asdict, dataclass
from typing import Literal

Complexity = Literal["Basic", "Intermediate", "Advanced"]
Split = Literal["train", "validation", "test", "builtin"]


@dataclass(frozen=True)
class Task:
    """A description to animate and the human-written scene it is judged against."""

    id: str
    description: str
    reference_code: str
    complexity: Complexity
    split: Split

    def to_dict(self) -> dict[str, str]:
        return asdict(self)
