"""A render's writable folder with a hard size: a sized tmpfs mounted over it where this process may mount.

A watched folder can be overrun between two looks (a fast writer reached twice its quota); a tmpfs
of the quota's size answers "No space left on device" at the byte. Mounting needs CAP_SYS_ADMIN, so
where this process lacks it (an ordinary user) the folder stays a plain one and the sandbox falls
back to watching its size. The tmpfs is owned by the user the sandbox runs scenes as and is
unmounted (lazily, so a process still inside cannot keep it) when the render is over.
"""

from __future__ import annotations

import contextlib
import ctypes
import functools
import os
import re
import subprocess
import tempfile
from pathlib import Path

from manimgen.render.cgroups import process_alive

MS_NOSUID = 0x2
MS_NODEV = 0x4
MNT_DETACH = 0x2
MAX_INODES = 65536
# A render's volume sits in a folder named after the process that made it: manimgen-render-PID-… or manimgen-warm-PID-….
OWNED_FOLDER = re.compile(r"^(?P<folder>.*/manimgen-(?:render|warm)-(?P<pid>\d+)-[^/]+)/(?:scratch|root/jobs)$")


def _libc() -> ctypes.CDLL:
    return ctypes.CDLL(None, use_errno=True)


def mount_tmpfs(path: Path, size_bytes: int, owner: tuple[int, int], mode: str = "0755") -> None:
    """A tmpfs of `size_bytes` (and at most MAX_INODES files) on `path`, owned by `owner`."""
    uid, gid = owner
    options = f"size={size_bytes},nr_inodes={MAX_INODES},mode={mode},uid={uid},gid={gid}".encode()
    if _libc().mount(b"tmpfs", os.fsencode(path), b"tmpfs", MS_NOSUID | MS_NODEV, options) != 0:
        error = ctypes.get_errno()
        raise OSError(error, f"cannot mount a tmpfs on {path}: {os.strerror(error)}")


def _unmount(path: Path) -> None:
    _libc().umount2(os.fsencode(path), MNT_DETACH)


@functools.cache
def hard_quota_available() -> bool:
    """Whether this process can mount a sized tmpfs (probed once, on a throwaway folder)."""
    probe = Path(tempfile.mkdtemp(prefix="manimgen-probe-"))
    try:
        mount_tmpfs(probe, 1 << 20, (os.getuid(), os.getgid()))
    except OSError:
        return False
    else:
        _unmount(probe)
        return True
    finally:
        probe.rmdir()


def unmount_stale() -> None:
    """Unmount and remove the volumes of manimgen processes that died without closing them (killed with SIGKILL)."""
    for line in Path("/proc/self/mounts").read_text().splitlines():
        fields = line.split()
        match = OWNED_FOLDER.match(fields[1]) if len(fields) > 2 and fields[2] == "tmpfs" else None
        if match is None:
            continue
        if not process_alive(int(match["pid"])):
            _unmount(Path(fields[1]))
            with contextlib.suppress(OSError):
                remove_tree(Path(match["folder"]))


def remove_tree(path: Path) -> None:
    """Delete a folder a scene may have written into, however deep, wide or oddly linked its tree.

    Python 3.11's `shutil.rmtree` recurses and raises RecursionError past ~1000 levels, which a scene
    can build in a second; GNU rm walks any depth without recursing and follows no link. OSError
    when something is left.
    """
    done = subprocess.run(["rm", "-rf", "--", str(path)], capture_output=True, stdin=subprocess.DEVNULL)
    if done.returncode != 0 or os.path.lexists(path):
        raise OSError(f"could not remove {path}: {done.stderr.decode(errors='replace').strip()[:200]}")


class Volume:
    """`path` as a render's writable folder: a tmpfs of `size_bytes` when `hard_quota_available()`."""

    def __init__(self, path: Path, size_bytes: int, owner: tuple[int, int] | None) -> None:
        self.path = path
        self.hard = hard_quota_available()
        path.mkdir(parents=True, exist_ok=True)
        if self.hard:
            mount_tmpfs(path, size_bytes, owner or (os.getuid(), os.getgid()))
        elif owner is not None:
            os.chown(path, *owner)

    def close(self) -> None:
        if self.hard:
            _unmount(self.path)
            self.hard = False
