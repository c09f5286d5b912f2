"""Warm workers: Manim imported once per sandboxed worker, then one sealed fork per render.

A fresh render spends most of its time importing Manim. A `WarmWorker` starts the same sandbox a
fresh render gets (same mode, limits, scrubbed environment and process cgroup), runs
render/worker.py in it as a supervisor, and hands it one render at a time. Each render gets a uid of
its own and a fresh scratch folder on the worker's quota volume, which the host makes, hands to that
uid and opens before the render (render/handover.py), in a folder the render cannot write (so it
cannot rename or replace its own); the worker seals the rest (render/worker.py). Its two log files
lie outside the quota, so a render that fills its disk still leaves its traceback. After each render
the host deletes its scratch folder and logs whatever the render built there. The wall timeout
(counted from the request, not from the worker's start-up) is watched here, and so is the disk quota
where it is not a sized tmpfs; a worker that runs out of either, dies, cannot seal or clean up after
a render is killed with its whole process tree and replaced by a new one at the next render, and the
render is reported with a named status.

Sealing needs root (sandbox.warm_sealed); elsewhere render/pool.py's `runner_for` hands out fresh
sandboxes instead.
"""

from __future__ import annotations

import atexit
import contextlib
import itertools
import json
import os
import select
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
from manimgen.render.handover import Scratch, opened, parse_json
from manimgen.render.sandbox import Completed, Limits, Sandbox, full_log, give, kill_tree, read_tail, scene_user
from manimgen.render.volume import Volume, remove_tree

WORKER_MODULE = "manimgen.render.worker"
# The worker's own CPU time (~7 ms per render) counts against the per-process CPU limit it runs under.
RENDERS_PER_WORKER = 1000
CLOSE_WAIT_S = 5.0
# Start-up (sandbox plus Manim import, ~2 s on an idle machine) is not render time; this only catches a hung worker.
START_TIMEOUT_S = 120.0
# Outside /tmp, which each render gets a fresh one of: the worker's folder must stay in view under it.
HOME_PARENT = Path("/var/tmp")


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
        """The folder the worker sees: `jobs` (the quota volume) for each render's scratch, `logs` for its output.

        Both belong to the host: a render can write only inside its own folder of `jobs`.
        """
        if self._home is None:
            parent = HOME_PARENT if HOME_PARENT.is_dir() else None
            self._home = Path(tempfile.mkdtemp(prefix=f"manimgen-warm-{os.getpid()}-", dir=parent)).resolve()
            self._home.chmod(0o711)
            (self._home / "root" / "logs").mkdir(parents=True)
            self._volume = self._sandbox.volume(self._home / "root" / "jobs", None)
        return self._home / "root"

    @contextmanager
    def scratch(self) -> Iterator[Scratch]:
        user = scene_user()
        path = self.root / "jobs" / f"job-{next(self._job_numbers)}"
        path.mkdir(mode=0o700)
        give(path, user)
        try:
            with opened(path, user) as scratch:
                yield scratch
        finally:
            self._clean(path)

    def run_child(self, child_args: list[str], scratch: Scratch) -> Completed:
        started = time.monotonic()
        (scratch.path / "tmp").mkdir(exist_ok=True)
        give(scratch.path / "tmp", scratch.user)
        logs = self.root / "logs"
        with (logs / f"{scratch.path.name}.stdout").open("w+b") as out, (logs / f"{scratch.path.name}.stderr").open("w+b") as err:
            request = {"args": child_args, "scratch": str(scratch.path), "stdout": out.name, "stderr": err.name, "user": scratch.user}
            try:
                self._send(request)
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
            killed_by = killed_by or full_log(out, err, self.limits.file_size_bytes)
            stdout_tail, stderr_tail = read_tail(out), read_tail(err)
        seconds = time.monotonic() - started
        if killed_by is not None:
            self._discard()
            return Completed(None, killed_by, stdout_tail, stderr_tail, seconds)
        if reply is None or not reply["sealed"]:
            self._discard()
            what = "exited during the render" if reply is None else "could not seal the render"
            return Completed(None, "sandbox", stdout_tail, f"{stderr_tail}\nRenderWorkerError: the warm render worker {what}", seconds)
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
        self._give_back_home()

    def _clean(self, scratch: Path) -> None:
        """Delete a render's folder and logs; a worker whose folders cannot be cleaned is replaced whole."""
        try:
            remove_tree(scratch)
            for log in (self.root / "logs").iterdir():
                log.unlink()
        except OSError:
            self._discard()
            self._give_back_home()

    def _give_back_home(self) -> None:
        if self._volume is not None:
            self._volume.close()
            self._volume = None
        if self._home is not None:
            with contextlib.suppress(OSError):
                remove_tree(self._home)
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
        argv = [sys.executable, "-m", WORKER_MODULE, "--limits", json.dumps(asdict(self.limits))]
        assert self._home is not None
        self._errors = (self._home / "worker.stderr").open("w+b")
        try:
            self._process, self._cgroup = self._sandbox.start(
                argv, root, None, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=self._errors
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
        message = parse_json(line) if newline else None
        if message == {"ready": True}:
            return message
        fields = {"returncode": int, "clean": bool, "sealed": bool}
        valid = isinstance(message, dict) and all(isinstance(message.get(name), kind) for name, kind in fields.items())
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
