"""ManimBench loader: the paper's benchmark, read from local v2 files or the Hugging Face hub.

The data is CC BY-NC-SA, so it is never shipped with the package: point `MANIMGEN_MANIMBENCH` at a
folder holding `manimbench_v2.jsonl` or the v2 parquet files, or let the hub copy be fetched.
"""

from __future__ import annotations

import hashlib
import math
import os
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import Any

from manimgen.data.errors import DatasetError
from manimgen.data.task import Task
from manimgen.jsonl import JsonLinesError, read_jsonl
from manimgen.paths import shared_data

HUB_DATASET = "SuienR/ManimBench-v1"
ENV_DIR = "MANIMGEN_MANIMBENCH"
JSONL_NAME = "manimbench_v2.jsonl"
PARQUET_NAME = "manim_sft_dataset_v2.parquet"
COMPLEXITIES = ("Basic", "Intermediate", "Advanced")
VALIDATION_PERCENT = 10


def default_dir() -> Path | None:
    """The local copy: `$MANIMGEN_MANIMBENCH`, else a `shared/data/manimbench` beside the checkout."""
    env = os.environ.get(ENV_DIR)
    if env:
        return Path(env)
    return shared_data("manimbench")


def _read_local(directory: Path) -> list[dict[str, Any]]:
    jsonl = directory / JSONL_NAME
    if jsonl.exists():
        try:
            return [row for _, row in read_jsonl(jsonl)]
        except JsonLinesError as error:
            fix = "fix or remove that line" if error.line is not None else f"set {ENV_DIR} to the ManimBench v2 folder"
            raise DatasetError(f"{error}; {fix}") from None
    parquet = directory / PARQUET_NAME
    if parquet.exists():
        import pandas as pd

        frame = pd.read_parquet(parquet)
        return [{"row": int(index), **record} for index, record in zip(frame.index, frame.to_dict("records"))]
    raise DatasetError(f"{directory} holds neither {JSONL_NAME} nor {PARQUET_NAME}; set {ENV_DIR} to the ManimBench v2 folder")


def _read_hub() -> list[dict[str, Any]]:
    try:
        from datasets import load_dataset
    except ImportError as err:  # pragma: no cover - datasets is a dependency
        raise DatasetError("the `datasets` package is missing; run `pip install datasets`") from err
    try:
        loaded = load_dataset(HUB_DATASET)
    except Exception as err:
        raise DatasetError(
            f"ManimBench is not found locally and the hub copy {HUB_DATASET} could not be loaded ({err}); "
            f"set {ENV_DIR} to a folder with {JSONL_NAME}"
        ) from err
    rows: list[dict[str, Any]] = []
    for split in loaded.values():
        rows.extend(split)
    for index, row in enumerate(rows):
        row.setdefault("row", index)
    return rows


def _text(row: dict[str, Any], field: str, where: str) -> str:
    value = row.get(field)
    if value is None or (isinstance(value, float) and math.isnan(value)):
        raise DatasetError(f"{where}: field {field!r} is missing; every row needs it")
    if not isinstance(value, str):
        raise DatasetError(f"{where}: field {field!r} must be a string, got {type(value).__name__}")
    if not value.strip():
        raise DatasetError(f"{where}: field {field!r} is empty; every row needs it")
    return value


def task_from_row(row: dict[str, Any], position: int) -> Task:
    """Validate one ManimBench row; a bad one raises a single error naming the row and field."""
    row_id = row.get("row", position)
    where = f"ManimBench row {row_id!r}"
    if isinstance(row_id, bool) or not isinstance(row_id, int) or row_id < 0:
        raise DatasetError(f"{where}: field 'row' must be a whole number ≥ 0; fix or remove that row")
    description = _text(row, "Reviewed Description", where).strip()
    code = _text(row, "Code", where)
    complexity = _text(row, "Type", where)
    if complexity not in COMPLEXITIES:
        raise DatasetError(f"{where}: field 'Type' is {complexity!r}; expected one of {', '.join(COMPLEXITIES)}")
    split = _text(row, "Split", where)
    if split not in ("train", "test"):
        raise DatasetError(f"{where}: field 'Split' is {split!r}; expected 'train' or 'test'")
    task_id = f"mb{int(row_id):03d}"
    if split == "train" and is_validation(task_id):
        split = "validation"
    return Task(id=task_id, description=description, reference_code=code, complexity=complexity, split=split)


def is_validation(task_id: str) -> bool:
    """A stable ~10% of train held out for model selection, never touching test."""
    digest = hashlib.sha256(task_id.encode()).digest()
    return int.from_bytes(digest[:4], "big") % 100 < VALIDATION_PERCENT


def load_manimbench(directory: Path | str | None = None) -> list[Task]:
    """Every ManimBench task: train (minus validation), validation and test."""
    path = Path(directory) if directory else default_dir()
    rows = _read_local(path) if path else _read_hub()
    return [task_from_row(row, position) for position, row in enumerate(rows)]


def select(
    tasks: Iterable[Task],
    split: str | None = None,
    complexity: str | None = None,
    ids: Iterable[str] | None = None,
    limit: int | None = None,
) -> list[Task]:
    """Filter tasks by split ("train" means train without validation), complexity and ids."""
    wanted = set(ids) if ids else None
    chosen: Iterator[Task] = iter(tasks)
    if split:
        chosen = (t for t in chosen if t.split == split)
    if complexity:
        chosen = (t for t in chosen if t.complexity == complexity)
    if wanted is not None:
        chosen = (t for t in chosen if t.id in wanted)
    result = list(chosen)
    if wanted is not None:
        missing = wanted - {t.id for t in result}
        if missing:
            raise DatasetError(f"unknown task ids {', '.join(sorted(missing))}; list them with `manimgen tasks`")
    return result[:limit] if limit else result
