"""Training rows from Tasks, in TRL's conversational prompt/completion format.

The prompt is exactly what the agent sends at inference (`generation_messages`), and the SFT
target exactly what the agent expects back (`format_target`), so training and use cannot drift.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

from manimgen.data import DatasetError, Task, load_tasks

TRAIN_SPLITS = ("train", "validation")
SFT_COLUMNS = ("prompt", "completion", "task_id")


def load_split(data: str, split: str, limit: int | None = None) -> list[Task]:
    """A ManimBench split (`data` is "manimbench" or a folder holding the ManimBench v2 files)."""
    if split not in TRAIN_SPLITS:
        raise DatasetError(f"training reads only the {' and '.join(TRAIN_SPLITS)} splits, not {split!r}")
    if data == "manimbench":
        directory = None
    elif Path(data).is_dir():
        directory = data
    else:
        raise DatasetError(f"unknown data {data!r}: use manimbench or a folder holding the ManimBench v2 files")
    tasks = load_tasks(split, limit=limit, directory=directory)
    if not tasks:
        raise DatasetError(f"the {split} split of {data} is empty; check the data folder")
    return tasks


def training_rows(data: str, limit: int | None = None) -> list[dict[str, Any]]:
    """SFT rows: a harvested `kept.jsonl` as it is, else the train split's references."""
    if data.endswith(".jsonl"):
        from manimgen.train.harvest import read_rows

        rows = read_rows(Path(data), SFT_COLUMNS)
        return rows[:limit] if limit is not None else rows
    return sft_rows(load_split(data, "train", limit))


def sft_rows(tasks: Sequence[Task]) -> list[dict[str, Any]]:
    from manimgen.agent.prompts import format_target, generation_messages

    return [
        {
            "prompt": [dict(message) for message in generation_messages(task.description)],
            "completion": [{"role": "assistant", "content": format_target(task.reference_code)}],
            "task_id": task.id,
        }
        for task in tasks
    ]


def grpo_rows(tasks: Sequence[Task]) -> list[dict[str, Any]]:
    """Prompts with the columns the rewards read (`reference_code` the paper's, `description` the sentence
    reward) and the task id for logs."""
    from manimgen.agent.prompts import generation_messages

    return [
        {
            "prompt": [dict(message) for message in generation_messages(task.description)],
            "reference_code": task.reference_code,
            "description": task.description,
            "task_id": task.id,
        }
        for task in tasks
    ]


def grpo_tasks(data: str, limit: int | None = None) -> list[Task]:
    """GRPO's prompts: the train split, or the sentences of a task file (for the sentence reward)."""
    if data.endswith(".jsonl"):
        from manimgen.data.task_file import load_task_file

        tasks = load_task_file(data)
        return tasks[:limit] if limit is not None else tasks
    return load_split(data, "train", limit)


def prompt_length(tokenizer: Any, messages: list[dict[str, str]]) -> int:
    """Tokens of a chat prompt as the trainer will feed it (template + generation prompt)."""
    ids = tokenizer.apply_chat_template(messages, tokenize=True, add_generation_prompt=True, return_dict=True)
    return len(ids["input_ids"])


def as_dataset(rows: list[dict[str, Any]]) -> Any:
    from datasets import Dataset

    return Dataset.from_list(rows)
