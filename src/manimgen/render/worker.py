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
import shutil
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

PR_SET_DUMPABLE = 4
PR_SET_CHILD_SUBREAPER = 36
STRAY_ROUNDS = 200
EXIT_SETUP_FAILED = 70


def _prctl(option: int, value: int) -> None:
    libc = ctypes.CDLL(None, use_errno=True)
    if libc.prctl(option, value, 0, 0, 0) != 0:
        raise OSError(ctypes.get_errno(), f"prctl({option}) failed")


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
    scratch = Path(job["scratch"])
    os.chdir(scratch)
    os.environ.clear()
    os.environ.update(scrubbed_env(scratch))
    tempfile.tempdir = None
    for kind, value in _rlimits(limits).items():
        resource.setrlimit(kind, (value, value))


def _render(job: dict[str, Any], limits: Limits, channels: list[IO[str]]) -> int:
    """Fork, run the child in the fork, and return its exit status as Popen.returncode would."""
    sys.stdout.flush()
    sys.stderr.flush()
    pid = os.fork()
    if pid == 0:
        try:
            _become_render(job, limits, channels)
            child.run(job["args"])
        except BaseException:  # noqa: BLE001 - nothing may return into the worker's loop from a fork
            traceback.print_exc()
        finally:
            os._exit(EXIT_SETUP_FAILED)
    _, status = os.waitpid(pid, 0)
    return os.waitstatus_to_exitcode(status)


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


def wipe(directory: Path, keep: set[Path]) -> None:
    """Empty `directory` except the mounts in `keep` and the folders on the way to them."""
    try:
        entries = list(os.scandir(directory))
    except OSError:
        return
    for entry in entries:
        path = Path(entry.path)
        if path in keep:
            continue
        if any(kept.is_relative_to(path) for kept in keep):
            wipe(path, keep)
        elif entry.is_dir(follow_symlinks=False):
            shutil.rmtree(path, ignore_errors=True)
        else:
            with contextlib.suppress(OSError):
                path.unlink()


def _send(channel: IO[str], message: dict[str, Any]) -> None:
    channel.write(json.dumps(message) + "\n")
    channel.flush()


def _parse_args(argv: list[str]) -> argparse.Namespace:
    parser = argparse.ArgumentParser(prog="manimgen-render-worker")
    parser.add_argument("--limits", required=True, help="the per-render Limits as JSON")
    parser.add_argument("--wipe", action="append", default=[], help="a private tmpfs to empty after each render")
    parser.add_argument("--keep", action="append", default=[], help="a mount inside a --wipe folder to leave alone")
    return parser.parse_args(argv)


def main(argv: list[str]) -> None:
    args = _parse_args(argv)
    limits = Limits(**json.loads(args.limits))
    keep = {Path(path) for path in args.keep}
    _prctl(PR_SET_DUMPABLE, 0)
    _prctl(PR_SET_CHILD_SUBREAPER, 1)
    requests = os.fdopen(os.dup(0), "r", encoding="utf-8")
    replies = os.fdopen(os.dup(1), "w", encoding="utf-8")
    _redirect(0, os.devnull, os.O_RDONLY)
    os.dup2(2, 1)
    manim()
    _send(replies, {"ready": True})
    for line in requests:
        returncode = _render(json.loads(line), limits, [requests, replies])
        clean = kill_strays()
        for directory in args.wipe:
            wipe(Path(directory), keep)
        _send(replies, {"returncode": returncode, "clean": clean})


if __name__ == "__main__":
    main(sys.argv[1:])
