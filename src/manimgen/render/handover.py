"""The host's side of a render's scratch folder: made, written and read without trusting the scene.

The scene's code could have renamed its folder, made any folder on the way a symlink, the file a
FIFO or a link to a host file, the file huge, or its JSON nested past Python's recursion limit. So
the host opens the folder itself before the render (`Scratch`) and reaches everything in it through
that descriptor, one component at a time, refusing every link; takes only a regular file within the
size limit; copies it from the descriptor it opened into a file it names itself; and parses what the
render wrote as data that may be anything.
"""

from __future__ import annotations

import errno
import json
import os
import stat
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any, BinaryIO

from manimgen.paths import staged

COPY_CHUNK = 1 << 20


class HandoverError(Exception):
    """The output is there but is not something the host will take."""


@dataclass(frozen=True)
class Scratch:
    """A render's only writable folder: `path` for the render, `fd` the host opened on it before the
    render (every host access goes through it, so renaming or replacing the folder redirects nothing),
    and the `user` the render runs as (None: ours)."""

    path: Path
    fd: int
    user: tuple[int, int] | None


@contextmanager
def opened(path: Path, user: tuple[int, int] | None) -> Iterator[Scratch]:
    """The folder at `path`, which the host just made and nothing has run in yet, as a `Scratch`."""
    fd = os.open(path, os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW)
    try:
        yield Scratch(path, fd, user)
    finally:
        os.close(fd)


def write_inside(scratch: Scratch, name: str, text: str) -> None:
    """Create `name` in the folder (before the render runs) through the host's descriptor."""
    fd = os.open(name, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW, 0o644, dir_fd=scratch.fd)
    with os.fdopen(fd, "w", encoding="utf-8") as handle:
        handle.write(text)


def open_inside(scratch: Scratch, relative: str) -> int:
    """A read descriptor for `relative` in the folder, following no link on the way; FileNotFoundError if absent."""
    parts = relative.split("/")
    directory = os.dup(scratch.fd)
    try:
        for part in parts[:-1]:
            inner = os.open(part, os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW, dir_fd=directory)
            os.close(directory)
            directory = inner
        return os.open(parts[-1], os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK, dir_fd=directory)
    except OSError as error:
        if error.errno in (errno.ELOOP, errno.ENOTDIR):
            raise HandoverError(f"RenderOutputError: {relative} is reached through a link, which the host does not follow") from None
        raise
    finally:
        os.close(directory)


def read_inside(scratch: Scratch, relative: str, max_bytes: int) -> bytes | None:
    """The bytes of a regular file of at most `max_bytes` in the folder; None when there is no such file."""
    try:
        fd = open_inside(scratch, relative)
    except (OSError, HandoverError):
        return None
    with os.fdopen(fd, "rb") as handle:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode) or info.st_size > max_bytes:
            return None
        raw = handle.read(max_bytes + 1)
    return raw if len(raw) <= max_bytes else None


def parse_json(text: str | bytes) -> Any | None:
    """JSON a render wrote, or None when it is not JSON or nests deeper than Python's parser can go."""
    try:
        return json.loads(text)
    except (ValueError, RecursionError):
        return None


def take_output(scratch: Scratch, candidates: tuple[str, ...], destination: Path, max_bytes: int) -> Path | None:
    """Copy the first of `candidates` in the folder that exists to `destination` + its suffix; None if none does."""
    for relative in candidates:
        try:
            source = open_inside(scratch, relative)
        except FileNotFoundError:
            continue
        info = os.fstat(source)
        if not stat.S_ISREG(info.st_mode):
            os.close(source)
            raise HandoverError(f"RenderOutputError: {relative} is not a regular file")
        if info.st_size > max_bytes:
            os.close(source)
            raise HandoverError(f"RenderOutputError: {relative} is larger than {max_bytes >> 20} MiB")
        kept = destination.with_suffix(Path(relative).suffix)
        with os.fdopen(source, "rb") as handle:
            _copy(handle, kept, max_bytes)
        return kept
    return None


def _copy(source: BinaryIO, kept: Path, max_bytes: int) -> None:
    """Copy at most `max_bytes` from an open file to `kept` (replacing it whole); a file that grew past that is refused."""
    copied = 0
    with staged(kept) as partial, partial.open("xb") as target:
        while chunk := source.read(COPY_CHUNK):
            copied += len(chunk)
            if copied > max_bytes:
                raise HandoverError(f"RenderOutputError: {kept.name} grew past {max_bytes >> 20} MiB while being copied")
            target.write(chunk)
