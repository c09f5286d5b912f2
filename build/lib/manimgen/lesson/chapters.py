"""Chapter marks inside the lesson's MP4: a Nero `chpl` box in the movie's user data, which FFmpeg-based
players (mpv, VLC) and tag readers list as chapters.

PyAV 13, the version Manim 0.19 allows, cannot write chapters, so the box is appended here. PyAV writes the
movie box (`moov`) last, its user data (`udta`) last inside it; the chapter box goes at the end of the
file, inside both, and their sizes grow by its size. No offset into the media data changes, so nothing
else needs rewriting. A file laid out otherwise is left as it is (its chapters are still in chapters.vtt).
"""

from __future__ import annotations

import struct
from pathlib import Path
from typing import BinaryIO

TICKS_PER_SECOND = 10_000_000
MAX_TITLE_BYTES = 255


def add_chapters(path: Path, chapters: list[tuple[float, str]]) -> bool:
    """Add (start seconds, title) chapter marks to the MP4 at `path`; False when its layout does not allow it."""
    if not chapters or len(chapters) > 255:
        return False
    data = path.read_bytes()
    movie = _last_box(data, 0, len(data))
    if movie is None or movie[0] != b"moov" or movie[2] != len(data) or len(data) - movie[1] + 1024 * len(chapters) >= 2**32:
        return False
    user = _last_box(data, movie[1] + 8, movie[2])
    chpl = _chapter_box(chapters)
    with path.open("r+b") as handle:
        if user is not None and user[0] == b"udta" and user[2] == len(data):
            _grow(handle, user[1], len(chpl))
            body = chpl
        else:
            body = struct.pack(">I4s", 8 + len(chpl), b"udta") + chpl
        _grow(handle, movie[1], len(body))
        handle.seek(0, 2)
        handle.write(body)
    return True


def _chapter_box(chapters: list[tuple[float, str]]) -> bytes:
    entries = b"".join(
        struct.pack(">QB", round(max(0.0, start) * TICKS_PER_SECOND), len(title)) + title
        for start, title in ((start, _title(text)) for start, text in chapters)
    )
    payload = bytes([1, 0, 0, 0]) + b"\x00\x00\x00\x00" + bytes([len(chapters)]) + entries  # version 1, flags, reserved, count
    return struct.pack(">I4s", 8 + len(payload), b"chpl") + payload


def _title(text: str) -> bytes:
    """A title in at most 255 UTF-8 bytes, cut between characters."""
    return " ".join(text.split()).encode("utf-8")[:MAX_TITLE_BYTES].decode("utf-8", "ignore").encode("utf-8")


def _last_box(data: bytes, start: int, end: int) -> tuple[bytes, int, int] | None:
    """The last box between `start` and `end` as (type, offset, end offset); None when the boxes do not add up."""
    last = None
    offset = start
    while offset + 8 <= end:
        size, kind = struct.unpack(">I4s", data[offset : offset + 8])
        if size == 1 or size < 8 or offset + size > end:  # a 64-bit size, a box to the end of the file, or a broken one
            return None
        last = (kind, offset, offset + size)
        offset += size
    return last if offset == end else None


def _grow(handle: BinaryIO, offset: int, added: int) -> None:
    """Add `added` bytes to the 32-bit size of the box at `offset`."""
    handle.seek(offset)
    size = struct.unpack(">I", handle.read(4))[0]
    handle.seek(offset)
    handle.write(struct.pack(">I", size + added))
