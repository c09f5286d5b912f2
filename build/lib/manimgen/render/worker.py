"""The warm render worker: runs inside the sandbox, imports Manim once, forks one child per render.

Each child becomes what a fresh sandboxed render is (its own session, a fresh scratch directory as
cwd, HOME, TMPDIR and media dir, the per-render rlimits, an allow-listed environment) and then runs
render/child.py's `run` unchanged. The worker never executes scene code itself, so every fork starts
from the same clean state. After each render it kills whatever the render left running (as child
subreaper it inherits every orphan, setsid daemons included) and empties the sandbox's private
tmpfs folders, so nothing of one render reaches the next. It is not dumpable, so a render, which
holds no capability (it runs as an unprivileged user, or under bubblewrap), can neither ptrace it
nor open its memory or file descriptors through /proc.

Protocol, one JSON object per line: the worker says {"ready": true} once Manim is imported, then
answers each request {"args", "scratch", "stdout", "stderr"} with {"returncode", "clean"}.
"""

from __future__ import annotations

import argparse
import contextlib
import ctypes
import json
import os
import resource
import signal
import sys
import tempfile
import time
import traceback
from pathlib import Path
from typing import IO, Any

from manimgen.manim_import import manim
from manimgen.render import child
from manimgen.render.sandbox import Limits, scrubbed_env
from manimgen.render.volume import mount_tmpfs

PR_SET_DUMPABLE = 4
PR_CAPBSET_DROP = 24
PR_SET_CHILD_SUBREAPER = 36
PR_SET_NO_NEW_PRIVS = 38
CLONE_NEWNS = 0x00020000
CLONE_NEWIPC = 0x08000000
MS_REC = 0x4000
MS_PRIVATE = 0x40000
STRAY_ROUNDS = 200
EXIT_SETUP_FAILED = 70
# Each render's private tmpfs folders: (path, which Limits field sizes it).
PRIVATE_TMPFS = (("/tmp", "disk_bytes"), ("/dev/shm", "shm_bytes"))

_libc = ctypes.CDLL(None, use_errno=True)


def _checked(result: int, what: str) -> None:
    if result != 0:
        error = ctypes.get_errno()
        raise OSError(error, f"{what}: {os.strerror(error)}")


def _prctl(option: int, value: int) -> None:
    _checked(_libc.prctl(option, value, 0, 0, 0), f"prctl({option})")


def _seal(user: tuple[int, int], limits: Limits) -> None:
    """In the forked child, while still the worker's root: namespaces and tmpfs folders of the render's
    own, the OOM killer's first pick, then the render's uid with no capability left."""
    _checked(_libc.unshare(CLONE_NEWNS | CLONE_NEWIPC), "unshare")
    _checked(_libc.mount(None, b"/", None, MS_REC | MS_PRIVATE, None), "making mounts private")
    for folder, size_field in PRIVATE_TMPFS:
        if os.path.isdir(folder):
            mount_tmpfs(Path(folder), getattr(limits, size_field), (0, 0), mode="1777")
    Path("/proc/self/oom_score_adj").write_text("1000")
    last_cap = int(Path("/proc/sys/kernel/cap_last_cap").read_text())
    for cap in range(last_cap + 1):
        _prctl(PR_CAPBSET_DROP, cap)
    uid, gid = user
    os.setgroups([])
    os.setresgid(gid, gid, gid)
    os.setresuid(uid, uid, uid)
    _prctl(PR_SET_NO_NEW_PRIVS, 1)
    _prctl(PR_SET_DUMPABLE, 1)


def _rlimits(limits: Limits) -> dict[int, int]:
    """The same caps `prlimit` puts on a fresh render."""
    return {
        resource.RLIMIT_AS: limits.memory_bytes,
        resource.RLIMIT_CPU: limits.cpu_seconds,
        resource.RLIMIT_FSIZE: limits.file_size_bytes,
        resource.RLIMIT_NOFILE: limits.open_files,
        resource.RLIMIT_CORE: 0,
    }


def _redirect(fd: int, path: str, flags: int) -> None:
    opened = os.open(path, flags, 0o644)
    os.dup2(opened, fd)
    os.close(opened)


def _become_render(job: dict[str, Any], limits: Limits, channels: list[IO[str]]) -> None:
    """In the forked child: shed everything of the worker before any scene code runs."""
    os.setsid()
    for channel in channels:
        os.close(channel.fileno())
    _redirect(0, os.devnull, os.O_RDONLY)
    _redirect(1, job["stdout"], os.O_WRONLY | os.O_APPEND)
    _redirect(2, job["stderr"], os.O_WRONLY | os.O_APPEND)
    uid, gid = job["user"]
    _seal((int(uid), int(gid)), limits)
    scratch = Path(job["scratch"])
    os.chdir(scratch)
    os.environ.clear()
    os.environ.update(scrubbed_env(scratch))
    tempfile.tempdir = None
    for kind, value in _rlimits(limits).items():
        resource.setrlimit(kind, (value, value))


def _render(job: dict[str, Any], limits: Limits, channels: list[IO[str]]) -> tuple[int, bool]:
    """Fork, run the child in the fork; its exit status as Popen.returncode would give it, and whether
    it was sealed before the render's code ran (said on a pipe the render's code never holds)."""
    sys.stdout.flush()
    sys.stderr.flush()
    sealed_read, sealed_write = os.pipe()
    pid = os.fork()
    if pid == 0:
        try:
            os.close(sealed_read)
            _become_render(job, limits, channels)
            os.write(sealed_write, b"1")
            os.close(sealed_write)
            child.run(job["args"])
        except BaseException:  # noqa: BLE001 - nothing may return into the worker's loop from a fork
            traceback.print_exc()
        finally:
            os._exit(EXIT_SETUP_FAILED)
    os.close(sealed_write)
    _, status = os.waitpid(pid, 0)
    with os.fdopen(sealed_read, "rb") as said:
        sealed = said.read(1) == b"1"
    return os.waitstatus_to_exitcode(status), sealed


def _descendants() -> set[int]:
    parents: dict[int, int] = {}
    for entry in os.scandir("/proc"):
        if entry.name.isdigit():
            with contextlib.suppress(OSError, IndexError, ValueError):
                stat = Path(entry.path, "stat").read_text()
                parents[int(entry.name)] = int(stat.rsplit(")", 1)[1].split()[1])
    found: set[int] = set()
    frontier = {os.getpid()}
    while frontier:
        frontier = {pid for pid, parent in parents.items() if parent in frontier} - found
        found |= frontier
    return found


def _reap_zombies() -> None:
    while True:
        try:
            pid, _ = os.waitpid(-1, os.WNOHANG)
        except ChildProcessError:
            return
        if pid == 0:
            return


def kill_strays() -> bool:
    """SIGKILL and reap everything the render left behind; False if it would not go away."""
    for _ in range(STRAY_ROUNDS):
        strays = _descendants()
        if not strays:
            return True
        for pid in strays:
            with contextlib.suppress(ProcessLookupError):
                os.kill(pid, signal.SIGKILL)
        _reap_zombies()
        time.sleep(0.01)
    return False


def _send(channel: IO[str], message: dict[str, Any]) -> None:
    channel.write(json.dumps(message) + "\n")
    channel.flush()


def _parse_args(argv: list[str]) -> argparse.Namespace:
    parser = argparse.ArgumentParser(prog="manimgen-render-worker")
    parser.add_argument("--limits", required=True, help="the per-render Limits as JSON")
    return parser.parse_args(argv)


def main(argv: list[str]) -> None:
    args = _parse_args(argv)
    limits = Limits(**json.loads(args.limits))
    _prctl(PR_SET_DUMPABLE, 0)
    _prctl(PR_SET_CHILD_SUBREAPER, 1)
    requests = os.fdopen(os.dup(0), "r", encoding="utf-8")
    replies = os.fdopen(os.dup(1), "w", encoding="utf-8")
    _redirect(0, os.devnull, os.O_RDONLY)
    os.dup2(2, 1)
    manim()
    _send(replies, {"ready": True})
    for line in requests:
        returncode, sealed = _render(json.loads(line), limits, [requests, replies])
        clean = kill_strays()
        _send(replies, {"returncode": returncode, "clean": clean, "sealed": sealed})


if __name__ == "__main__":
    main(sys.argv[1:])
