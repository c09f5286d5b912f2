"""Tasks: ManimBench and the built-in set, behind one loader."""

from __future__ import annotations

from manimgen.data.builtin import BUILTIN_TASKS
from manimgen.data.errors import DatasetError
from manimgen.data.manimbench import load_manimbench, select
from manimgen.data.task import Task
from manimgen.data.task_file import load_task_file


def load_tasks(
    split: str = "test",
    complexity: str | None = None,
    ids: list[str] | None = None,
    limit: int | None = None,
    directory: str | None = None,
) -> list[Task]:
    """Tasks of one split; "builtin" is our own set, the others come from ManimBench."""
    if split == "file":
        raise DatasetError("the file split is a task file's: pass --tasks-file FILE.jsonl (or tasks_file: in a config)")
    source = BUILTIN_TASKS if split == "builtin" else load_manimbench(directory)
    return select(source, split=split, complexity=complexity, ids=ids, limit=limit)


def find_task(task_id: str) -> Task:
    """One task by id, from the built-in set or ManimBench."""
    for task in BUILTIN_TASKS:
        if task.id == task_id:
            return task
    for task in load_manimbench():
        if task.id == task_id:
            return task
    raise DatasetError(f"unknown task id {task_id!r}; list them with `manimgen tasks`")


__all__ = ["BUILTIN_TASKS", "DatasetError", "Task", "find_task", "load_task_file", "load_tasks", "select"]
