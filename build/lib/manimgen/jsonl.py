"""The one reader of JSON Lines files (task files, ManimBench's JSONL, harvested rows, exports, examples).

Each non-blank line must be a JSON object; the first that is not, or a file that cannot be read as
UTF-8 (gzip-compressed when it starts as gzip does), raises `JsonLinesError` naming the file and the
line. Callers add the fix that fits their file ("give the file `manimgen train harvest` wrote").
"""

from __future__ import annotations

import gzip
import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any


GZIP_MAGIC = b"\x1f\x8b"


class JsonLinesError(ValueError):
    """A JSON Lines file that cannot be read, or a line of it (`line`, else None) that is not a JSON object."""

    def __init__(self, message: str, line: int | None = None) -> None:
        super().__init__(message)
        self.line = line


def read_jsonl(path: Path) -> Iterator[tuple[int, dict[str, Any]]]:
    """(line number, object) for each non-blank line of `path`, in order."""
    for number, line in _lines(path):
        try:
            row = json.loads(line)
        except json.JSONDecodeError as error:
            raise JsonLinesError(f"{path}:{number} is not JSON ({error.msg})", number) from None
        if not isinstance(row, dict):
            raise JsonLinesError(f"{path}:{number} is not a JSON object but {type(row).__name__}", number)
        yield number, row


def _lines(path: Path) -> Iterator[tuple[int, str]]:
    try:
        with gzip.open(path, "rt", encoding="utf-8") if _gzipped(path) else path.open(encoding="utf-8") as handle:
            yield from ((number, line) for number, line in enumerate(handle, 1) if line.strip())
    except FileNotFoundError:
        raise JsonLinesError(f"{path} does not exist") from None
    except IsADirectoryError:
        raise JsonLinesError(f"{path} is a directory, not a JSON Lines file") from None
    except UnicodeDecodeError:
        raise JsonLinesError(f"{path} is not a UTF-8 text file") from None
    except (OSError, EOFError) as error:
        raise JsonLinesError(f"cannot read {path} ({error})") from None


def _gzipped(path: Path) -> bool:
    """The file starts with gzip's magic bytes (an export); a file that cannot be opened is read as text, to fail there."""
    try:
        with path.open("rb") as handle:
            return handle.read(2) == GZIP_MAGIC
    except OSError:
        return False
