"""Take a render's output out of its scratch folder, trusting nothing the scene could have put there.

The scene's code could have made any folder on the way a symlink, the file a FIFO or a link to a
host file, or the file huge. So the host walks the path itself, one component at a time, refusing
every link; takes only a regular file within the size limit; and copies it from the descriptor it
opened into a file it names itself.
"""

from __future__ import annotations

import errno
import os
import stat
import uuid
from pathlib import Path
from typing import BinaryIO

COPY_CHUNK = 1 << 20


class HandoverError(Exception):
    """The output is there but is not something the host will take."""


def open_inside(root: Path, relative: str) -> int:
    """A read descriptor for `root/relative`, following no link on the way; FileNotFoundError if absent."""
    parts = relative.split("/")
    directory = os.open(root, os.O_RDONLY | os.O_DIRECTORY)
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


def take_output(root: Path, candidates: tuple[str, ...], destination: Path, max_bytes: int) -> Path | None:
    """Copy the first of `candidates` under `root` that exists to `destination` + its suffix; None if none does."""
    for relative in candidates:
        try:
            source = open_inside(root, relative)
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
    partial = kept.with_name(f".{kept.name}.{uuid.uuid4().hex}.partial")
    copied = 0
    try:
        with partial.open("xb") as target:
            while chunk := source.read(COPY_CHUNK):
                copied += len(chunk)
                if copied > max_bytes:
                    raise HandoverError(f"RenderOutputError: {kept.name} grew past {max_bytes >> 20} MiB while being copied")
                target.write(chunk)
        os.replace(partial, kept)
    finally:
        partial.unlink(missing_ok=True)
