"""Warm workers: Manim imported once per sandboxed worker, then one fork per render.

A fresh render spends most of its time importing Manim. A `WarmWorker` starts the same sandbox a
fresh render gets (same mode, limits, scrubbed environment and process cgroup), runs
render/worker.py in it, and hands it one render at a time. Each render gets a fresh scratch folder
on the worker's quota volume and a pair of log files beside it (outside the quota, so a render that
fills its disk still leaves its traceback); both are emptied after every render. The wall timeout
(counted from the request, not from the worker's start-up) is watched here, and so is the disk quota
where it is not a sized tmpfs; a worker that runs out of either, dies, or cannot clean up after a
render is killed with its whole process tree and replaced by a new one at the next render.
"""

from __future__ import annotations

import atexit
import contextlib
import itertools
import json
import os
import select
import shutil
import subprocess
import sys
import tempfile
import time
import weakref
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import asdict, replace
from pathlib import Path
from typing import Any, BinaryIO

from manimgen.render.cgroups import RunCgroup
from manimgen.render.sandbox import Completed, Limits, Sandbox, SandboxMode, kill_tree, python_paths, read_tail
from manimgen.render.volume import Volume

WORKER_MODULE = "manimgen.render.worker"
# The worker's own CPU time (~7 ms per render) counts against the per-process CPU limit it runs under.
RENDERS_PER_WORKER = 1000
CLOSE_WAIT_S = 5.0
# Start-up (sandbox plus Manim import, ~2 s on an idle machine) is not render time; this only catches a hung worker.
START_TIMEOUT_S = 120.0
PRIVATE_TMPFS = ("/tmp", "/dev/shm")


def _empty(folder: Path) -> None:
    for entry in folder.iterdir():
        if entry.is_dir() and not entry.is_symlink():
            shutil.rmtree(entry, ignore_errors=True)
        else:
            entry.unlink(missing_ok=True)


class WorkerUnavailable(Exception):
    """The worker could not be started or could not take a request."""


_OPEN: weakref.WeakSet[WarmWorker] = weakref.WeakSet()


@atexit.register
def _close_open_workers() -> None:
    """Workers left open at exit (a pool its caller never closed) still give back their tmpfs and cgroup."""
    for worker in list(_OPEN):
        worker.close()


class WarmWorker:
    """One sandboxed worker serving one render at a time: a `ChildRunner` for `render_on`."""

    def __init__(self, limits: Limits) -> None:
        self.limits = limits
        self._sandbox = Sandbox(replace(limits, processes=limits.processes + 1))
        self._home: Path | None = None
        self._volume: Volume | None = None
        self._process: subprocess.Popen[bytes] | None = None
        self._cgroup: RunCgroup | None = None
        self._errors: BinaryIO | None = None
        self._pending = b""
        self._renders = 0
        self._job_numbers = itertools.count()
        _OPEN.add(self)

    @property
    def root(self) -> Path:
        """The folder the worker sees: `jobs` (the quota volume) for each render's scratch, `logs` for its output."""
        if self._home is None:
            self._home = Path(tempfile.mkdtemp(prefix=f"manimgen-warm-{os.getpid()}-")).resolve()
            (self._home / "root" / "logs").mkdir(parents=True)
            self._volume = self._sandbox.volume(self._home / "root" / "jobs")
        return self._home / "root"

    @contextmanager
    def scratch(self) -> Iterator[Path]:
        scratch = self.root / "jobs" / f"job-{next(self._job_numbers)}"
        scratch.mkdir()
        self._sandbox.give(scratch)
        try:
            yield scratch
        finally:
            _empty(self.root / "jobs")
            _empty(self.root / "logs")

    def run_child(self, child_args: list[str], scratch: Path) -> Completed:
        started = time.monotonic()
        (scratch / "tmp").mkdir(exist_ok=True)
        self._sandbox.give(scratch / "tmp")
        logs = self.root / "logs"
        with (logs / f"{scratch.name}.stdout").open("w+b") as out, (logs / f"{scratch.name}.stderr").open("w+b") as err:
            for log in (out, err):
                self._sandbox.give(Path(log.name))
            try:
                self._send({"args": child_args, "scratch": str(scratch), "stdout": out.name, "stderr": err.name})
            except WorkerUnavailable as error:
                return Completed(None, "sandbox", "", str(error), time.monotonic() - started)
            assert self._cgroup is not None
            oom_kills = self._cgroup.oom_kills()
            try:
                killed_by = self._sandbox.watch(self._line_ready, self.root / "jobs", time.monotonic())
            except BaseException:  # the caller was interrupted: its render's late reply must not answer the next job
                self._discard()
                raise
            reply = None if killed_by else self._take_line()
            if killed_by is None and self._cgroup.oom_kills() > oom_kills:
                killed_by = "memory"
            stdout_tail, stderr_tail = read_tail(out), read_tail(err)
        seconds = time.monotonic() - started
        if killed_by is not None:
            self._discard()
            return Completed(None, killed_by, stdout_tail, stderr_tail, seconds)
        if reply is None:
            self._discard()
            lost = f"{stderr_tail}\nRenderWorkerError: the warm render worker exited during the render"
            return Completed(None, "sandbox", stdout_tail, lost, seconds)
        self._renders += 1
        if not reply["clean"] or self._renders >= RENDERS_PER_WORKER:
            self._discard()
        return Completed(reply["returncode"], None, stdout_tail, stderr_tail, seconds)

    def close(self) -> None:
        """Let the worker exit on its own (its request pipe closes), then make sure nothing of it is left."""
        if self._process is not None and self._process.stdin is not None:
            self._process.stdin.close()
            with contextlib.suppress(subprocess.TimeoutExpired):
                self._process.wait(timeout=CLOSE_WAIT_S)
        self._discard()
        if self._volume is not None:
            self._volume.close()
            self._volume = None
        if self._home is not None:
            shutil.rmtree(self._home, ignore_errors=True)
            self._home = None

    def _send(self, request: dict[str, Any]) -> None:
        if self._process is None or self._process.poll() is not None:
            self._discard()
            self._start()
        assert self._process is not None and self._process.stdin is not None
        try:
            self._process.stdin.write(json.dumps(request).encode() + b"\n")
            self._process.stdin.flush()
        except OSError as error:
            self._discard()
            raise WorkerUnavailable(f"RenderWorkerError: the warm render worker stopped taking requests ({error})") from None

    def _start(self) -> None:
        """Start a worker and wait until Manim is imported; the render's own timeout starts after that."""
        root = self.root
        (root / "tmp").mkdir(exist_ok=True)
        self._sandbox.give(root / "tmp")
        argv = [sys.executable, "-m", WORKER_MODULE, "--limits", json.dumps(asdict(self.limits))]
        if self._sandbox.mode is SandboxMode.BWRAP:
            argv += [arg for folder in PRIVATE_TMPFS if os.path.isdir(folder) for arg in ("--wipe", folder)]
            argv += [arg for path in (str(root), *python_paths()) for arg in ("--keep", path)]
        assert self._home is not None
        self._errors = (self._home / "worker.stderr").open("w+b")
        try:
            self._process, self._cgroup = self._sandbox.start(
                argv, root, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=self._errors
            )
        except OSError as error:
            self._discard()
            raise WorkerUnavailable(f"RenderWorkerError: the warm render worker could not start: {error}") from None
        killed_by = self._sandbox.watch(self._line_ready, root / "jobs", time.monotonic(), timeout_s=START_TIMEOUT_S)
        ready = None if killed_by else self._take_line()
        if ready != {"ready": True}:
            output = read_tail(self._errors).strip()
            self._discard()
            raise WorkerUnavailable(f"{output}\nRenderWorkerError: the warm render worker could not start ({killed_by or 'it exited'})")

    def _line_ready(self, seconds: float) -> bool:
        """Wait up to `seconds` for the worker's next line; True once it is there or the worker is gone."""
        assert self._process is not None and self._process.stdout is not None
        if b"\n" in self._pending:
            return True
        readable, _, _ = select.select([self._process.stdout], [], [], seconds)
        if not readable:
            return False
        chunk = os.read(self._process.stdout.fileno(), 1 << 16)
        self._pending += chunk
        return not chunk or b"\n" in self._pending

    def _take_line(self) -> dict[str, Any] | None:
        """The worker's next message; None when it is gone or said something that is not one of its messages."""
        line, newline, self._pending = self._pending.partition(b"\n")
        try:
            message = json.loads(line) if newline else None
        except ValueError:
            return None
        if message == {"ready": True}:
            return message
        valid = isinstance(message, dict) and isinstance(message.get("returncode"), int) and isinstance(message.get("clean"), bool)
        return message if valid else None

    def _discard(self) -> None:
        """Kill the worker with every process it or a render started; the next render starts a new one."""
        if self._process is not None:
            if self._process.poll() is None:
                kill_tree(self._process, self._cgroup)
            self._process.wait()
            for pipe in (self._process.stdin, self._process.stdout):
                if pipe is not None:
                    pipe.close()
        if self._cgroup is not None:
            self._cgroup.remove()
        if self._errors is not None:
            self._errors.close()
        self._process, self._cgroup, self._errors, self._pending, self._renders = None, None, None, b"", 0
