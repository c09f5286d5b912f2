"""Run one untrusted command with hard limits: the only door through which generated code executes.

Layers, strongest available first:
- bubblewrap: read-only root, private /tmp, the user's home hidden, every namespace unshared (no
  network), every capability dropped (root inside can neither ptrace nor open the /proc entries of
  a non-dumpable process), the process tree dies with its parent;
- unshare: no network and a private PID namespace, the filesystem as it is;
- plain: resource limits only.
In every mode: a wall-clock timeout that kills the whole process tree, an address-space cap, CPU,
file-size, open-file and core limits, a process-count cap through the cgroup v1 `pids` controller
where it is writable, a watched disk quota on the scratch directory, and an environment built from an
allow-list so no secret of the parent reaches the child.
"""

from __future__ import annotations

import functools
import os
import shutil
import signal
import subprocess
import sys
import time
import uuid
from collections.abc import Callable
from dataclasses import dataclass
from enum import StrEnum
from pathlib import Path
from typing import IO, BinaryIO

GIB = 1 << 30
MIB = 1 << 20
PIDS_CGROUP_ROOT = Path("/sys/fs/cgroup/pids")
ENV_PASSTHROUGH = ("LANG", "LC_ALL", "OPENBLAS_CORETYPE", "OPENBLAS_L2_SIZE", "TZ")
HIDDEN_DIRS = ("/root", "/home")
POLL_SECONDS = 0.1
CGROUP_REMOVE_SECONDS = 5.0
TAIL_BYTES = 64 * 1024


class SandboxMode(StrEnum):
    BWRAP = "bubblewrap"
    UNSHARE = "unshare"
    PLAIN = "plain"


@dataclass(frozen=True)
class Limits:
    """Hard limits for one run; the defaults fit a Manim render at 480p."""

    timeout_s: float = 300.0
    memory_bytes: int = 2 * GIB
    cpu_seconds: int = 600
    file_size_bytes: int = 64 * MIB
    open_files: int = 512
    processes: int = 64
    disk_bytes: int = 1 * GIB


@dataclass
class Completed:
    """How the command ended. `killed_by` names the limit that stopped it, if any."""

    returncode: int | None
    killed_by: str | None
    stdout_tail: str
    stderr_tail: str
    seconds: float

    @property
    def timed_out(self) -> bool:
        return self.killed_by == "timeout"


def _works(argv: list[str]) -> bool:
    try:
        return subprocess.run(argv, capture_output=True, timeout=20, stdin=subprocess.DEVNULL).returncode == 0
    except (OSError, subprocess.TimeoutExpired):
        return False


@functools.cache
def detect_mode() -> SandboxMode:
    """The strongest isolation this machine allows, probed once per process."""
    if shutil.which("bwrap") and _works(["bwrap", "--ro-bind", "/", "/", "--unshare-all", "--", "true"]):
        return SandboxMode.BWRAP
    if shutil.which("unshare") and _works(["unshare", "--net", "--pid", "--fork", "--kill-child", "--", "true"]):
        return SandboxMode.UNSHARE
    return SandboxMode.PLAIN


@functools.cache
def pids_cgroup_available() -> bool:
    """Whether a child cgroup can be made to cap and reap the process tree."""
    probe = PIDS_CGROUP_ROOT / f"manimgen-probe-{os.getpid()}"
    try:
        probe.mkdir()
        probe.rmdir()
        return True
    except OSError:
        return False


def scrubbed_env(scratch: Path) -> dict[str, str]:
    """An environment from an allow-list: nothing of the parent's beyond locale and tuning switches."""
    bin_dir = str(Path(sys.executable).parent)
    env = {
        "PATH": f"{bin_dir}:/usr/local/bin:/usr/bin:/bin",
        "HOME": str(scratch),
        "TMPDIR": str(scratch / "tmp"),
        "XDG_CACHE_HOME": str(scratch / ".cache"),
        "MPLCONFIGDIR": str(scratch / ".cache" / "matplotlib"),
        "LANG": "C.UTF-8",
        "LC_ALL": "C.UTF-8",
        "PYTHONDONTWRITEBYTECODE": "1",
        "PYTHONUNBUFFERED": "1",
        "OMP_NUM_THREADS": "1",
        "OPENBLAS_NUM_THREADS": "1",
        "MKL_NUM_THREADS": "1",
    }
    env.update({name: os.environ[name] for name in ENV_PASSTHROUGH if name in os.environ})
    return env


def paths_to_reexpose() -> list[str]:
    """The interpreter, its site-packages and this package, where they sit under directories the sandbox hides."""
    import site

    import manimgen

    hidden = (*HIDDEN_DIRS, "/tmp")
    package_root = str(Path(manimgen.__file__).resolve().parent.parent)
    candidates = {sys.prefix, sys.base_prefix, package_root, *site.getsitepackages()}
    keep = sorted({os.path.realpath(p) for p in candidates if p and os.path.isdir(p)})
    keep = [p for p in keep if any(p == d or p.startswith(d + "/") for d in hidden)]
    outermost: list[str] = []
    for path in keep:
        if not any(path.startswith(parent + "/") for parent in outermost):
            outermost.append(path)
    return outermost


def _bwrap_prefix(scratch: Path, limits: Limits) -> list[str]:
    argv = ["bwrap", "--ro-bind", "/", "/", "--dev", "/dev", "--proc", "/proc"]
    argv += ["--size", str(limits.disk_bytes), "--tmpfs", "/tmp"]
    argv += [arg for d in HIDDEN_DIRS if os.path.isdir(d) for arg in ("--tmpfs", d)]
    argv += [arg for path in paths_to_reexpose() for arg in ("--ro-bind", path, path)]
    argv += ["--bind", str(scratch), str(scratch), "--chdir", str(scratch)]
    argv += ["--unshare-all", "--cap-drop", "ALL", "--die-with-parent", "--new-session", "--"]
    return argv


def _limit_prefix(limits: Limits) -> list[str]:
    return [
        "prlimit",
        f"--as={limits.memory_bytes}",
        f"--cpu={limits.cpu_seconds}",
        f"--fsize={limits.file_size_bytes}",
        f"--nofile={limits.open_files}",
        "--core=0",
        "--",
    ]


def read_tail(handle: BinaryIO, max_bytes: int = TAIL_BYTES) -> str:
    """The end of an open log: read through a handle, so a renamed or replaced path cannot redirect it."""
    handle.seek(0, os.SEEK_END)
    size = handle.tell()
    handle.seek(max(0, size - max_bytes))
    return handle.read().decode("utf-8", errors="replace")


def _tail(path: Path) -> str:
    with path.open("rb") as handle:
        return read_tail(handle)


def directory_size(root: Path, budget_entries: int = 100_000) -> int:
    total, seen, stack = 0, 0, [root]
    while stack:
        try:
            entries = list(os.scandir(stack.pop()))
        except OSError:
            continue
        for entry in entries:
            seen += 1
            if seen > budget_entries:
                return sys.maxsize
            try:
                if entry.is_dir(follow_symlinks=False):
                    stack.append(Path(entry.path))
                else:
                    total += entry.stat(follow_symlinks=False).st_blocks * 512
            except OSError:
                continue
    return total


class ProcessCgroup:
    """A pids cgroup for one run: caps the process count and finds every member to kill."""

    def __init__(self, max_processes: int) -> None:
        self.path = PIDS_CGROUP_ROOT / f"manimgen-{os.getpid()}-{uuid.uuid4().hex[:12]}"
        self.path.mkdir()
        (self.path / "pids.max").write_text(str(max_processes))

    def kill_all(self) -> None:
        for _ in range(50):
            members = (self.path / "cgroup.procs").read_text().split()
            if not members:
                return
            for pid in members:
                try:
                    os.kill(int(pid), signal.SIGKILL)
                except ProcessLookupError:
                    pass
            time.sleep(0.02)

    def remove(self) -> None:
        """Kill the members and remove the group, retrying while a fork still in flight lands in it."""
        deadline = time.monotonic() + CGROUP_REMOVE_SECONDS
        while True:
            self.kill_all()
            try:
                self.path.rmdir()
                return
            except OSError:
                if time.monotonic() > deadline:
                    return
                time.sleep(0.02)


class Sandbox:
    """Runs commands in a private scratch directory under `limits`, in the strongest available mode."""

    def __init__(self, limits: Limits | None = None, mode: SandboxMode | None = None) -> None:
        self.limits = limits or Limits()
        self.mode = mode or detect_mode()
        self.use_cgroup = pids_cgroup_available()

    def start(
        self, argv: list[str], scratch: Path, *, stdin: int | IO[bytes], stdout: int | IO[bytes], stderr: int | IO[bytes]
    ) -> tuple[subprocess.Popen[bytes], ProcessCgroup | None]:
        """Start `argv` inside the walls without waiting: one-shot renders and warm workers get the same ones.

        The caller watches the process and, when done, calls `kill_tree` as needed and `remove` on the cgroup.
        """
        cgroup = ProcessCgroup(self.limits.processes) if self.use_cgroup else None
        command = self._wrap(argv, scratch)
        if cgroup is not None:
            command = ["sh", "-c", f'echo $$ > "{cgroup.path}/cgroup.procs" && exec "$@"', "sandbox", *command]
        try:
            process = subprocess.Popen(
                command,
                cwd=scratch,
                env=scrubbed_env(scratch),
                stdin=stdin,
                stdout=stdout,
                stderr=stderr,
                start_new_session=True,
            )
        except OSError:
            if cgroup is not None:
                cgroup.remove()
            raise
        return process, cgroup

    def run(self, argv: list[str], scratch: Path) -> Completed:
        """Run `argv` with `scratch` as its only writable place; never raises for what the child does."""
        scratch = scratch.resolve()
        (scratch / "tmp").mkdir(parents=True, exist_ok=True)
        logs = scratch.parent / f".{scratch.name}.logs"
        logs.mkdir(exist_ok=True)
        cgroup: ProcessCgroup | None = None
        started = time.monotonic()
        stdout_path, stderr_path = logs / "stdout", logs / "stderr"
        killed_by: str | None = None
        try:
            with stdout_path.open("wb") as out, stderr_path.open("wb") as err:
                process, cgroup = self.start(argv, scratch, stdin=subprocess.DEVNULL, stdout=out, stderr=err)
                killed_by = self.watch(lambda seconds: _exited(process, seconds), scratch, started)
                if killed_by:
                    kill_tree(process, cgroup)
                returncode = process.wait()
        except OSError as error:
            return Completed(None, "sandbox", "", f"sandbox could not start: {error}", time.monotonic() - started)
        finally:
            if cgroup is not None:
                cgroup.remove()
        seconds = time.monotonic() - started
        result = Completed(returncode, killed_by, _tail(stdout_path), _tail(stderr_path), seconds)
        shutil.rmtree(logs, ignore_errors=True)
        return result

    def _wrap(self, argv: list[str], scratch: Path) -> list[str]:
        limited = _limit_prefix(self.limits) + argv
        if self.mode is SandboxMode.BWRAP:
            return _bwrap_prefix(scratch, self.limits) + limited
        if self.mode is SandboxMode.UNSHARE:
            return ["unshare", "--net", "--pid", "--fork", "--kill-child", "--mount-proc", "--", *limited]
        return limited

    def watch(
        self, finished: Callable[[float], bool], scratch: Path, started: float, timeout_s: float | None = None
    ) -> str | None:
        """Wait until `finished(seconds)` (which may block that long) says so; else name the limit that ran out.

        `timeout_s` replaces the limits' wall timeout, for waits that are not a render.
        """
        timeout_s = self.limits.timeout_s if timeout_s is None else timeout_s
        last_disk_check = 0.0
        while not finished(POLL_SECONDS):
            now = time.monotonic()
            if now - started > timeout_s:
                return "timeout"
            if now - last_disk_check > 0.5:
                last_disk_check = now
                if directory_size(scratch) > self.limits.disk_bytes:
                    return "disk quota"
        return None


def _exited(process: subprocess.Popen[bytes], seconds: float) -> bool:
    try:
        process.wait(timeout=seconds)
    except subprocess.TimeoutExpired:
        return False
    return True


def kill_tree(process: subprocess.Popen[bytes], cgroup: ProcessCgroup | None) -> None:
    """SIGKILL the session `process` leads and every member of its cgroup (which catches setsid escapees)."""
    try:
        os.killpg(process.pid, signal.SIGKILL)
    except ProcessLookupError:
        pass
    if cgroup is not None:
        cgroup.kill_all()


def describe() -> str:
    """One line for `doctor`: which isolation is active and what it lacks."""
    mode = detect_mode()
    gaps = {
        SandboxMode.BWRAP: "",
        SandboxMode.UNSHARE: " (no read-only filesystem: install bubblewrap)",
        SandboxMode.PLAIN: " (no network or filesystem isolation: install bubblewrap)",
    }[mode]
    cgroup = "process cap via pids cgroup" if pids_cgroup_available() else "no process-count cap (no writable pids cgroup)"
    return f"{mode.value}{gaps}; {cgroup}"
