"""Reference-free task sets: a JSON Lines file of sentences, as a teacher would type them.

Each line is an object with the sentence under `description` (or `prompt`, as in the generative-manim
sets), an optional `id` (default: the file's stem and the line number) and optional `patterns`:
regular expressions the generated code must match (e.g. `"for .* in"` for "draw five bars").
Any other field (an example answer, say) is ignored: these tasks have no reference, so a study
measures whether the scene renders, its layout and the patterns, never similarity to an answer.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

from manimgen.data.errors import DatasetError
from manimgen.data.task import Task
from manimgen.jsonl import JsonLinesError, read_jsonl

FORMAT_HINT = 'write one JSON object per line: {"id": "...", "description": "...", "patterns": ["regex", ...]}'


def load_task_file(path: Path | str) -> list[Task]:
    """The tasks of a JSON Lines file; a bad line fails with its number and the fix."""
    path = Path(path)
    try:
        tasks = [_task(path, number, row) for number, row in read_jsonl(path)]
    except JsonLinesError as error:
        raise DatasetError(f"{error}; {FORMAT_HINT}") from None
    if not tasks:
        raise DatasetError(f"{path} holds no tasks; {FORMAT_HINT}")
    seen: set[str] = set()
    for task in tasks:
        if task.id in seen:
            raise DatasetError(f"{path}: task id {task.id!r} appears twice; give every line its own id")
        seen.add(task.id)
    return tasks


def _task(path: Path, number: int, row: dict[str, Any]) -> Task:
    where = f"{path}:{number}"
    description = row.get("description", row.get("prompt"))
    if not isinstance(description, str) or not description.strip():
        raise DatasetError(f"{where} has no description (or prompt) text; {FORMAT_HINT}")
    patterns = row.get("patterns", [])
    if not isinstance(patterns, list) or not all(isinstance(pattern, str) for pattern in patterns):
        raise DatasetError(f"{where}: patterns must be a list of regular expressions; {FORMAT_HINT}")
    for pattern in patterns:
        try:
            re.compile(pattern)
        except re.error as error:
            raise DatasetError(f"{where}: pattern {pattern!r} is not a regular expression ({error}); fix or drop it") from None
    task_id = row.get("id", f"{path.stem}-{number}")
    if not isinstance(task_id, str) or not task_id.strip():
        raise DatasetError(f"{where}: id must be a non-empty string; {FORMAT_HINT}")
    return Task(task_id.strip(), description.strip(), "", "Basic", "file", tuple(patterns))
