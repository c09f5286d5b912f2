"""Run one untrusted command with hard limits: the only door through which generated code executes.

Layers, strongest available first:
- bubblewrap: a filesystem view of only what renders need (`/usr`, the Python environment, the
  TeX tree, fonts, a few `/etc` files; no `/run`, `/var`, `/home`, `/root`, `/srv`, `/mnt`,
  `/media`, so no host socket or private file), read-only but for the scratch folder and sized
  private `/tmp` and `/dev/shm`; every namespace unshared (no network); every capability dropped;
  the process tree dies with its parent;
- unshare: no network and a private PID namespace, the filesystem as it is;
- plain: resource limits only.
In every mode: scenes run, when we are root, as an unprivileged uid of their own that nothing else on
the machine uses (so what a render leaves charged to its uid, keys or inotify instances, is nobody
else's); a wall-clock timeout
that kills the whole process tree; per-process address-space, CPU, file-size, open-file and core
limits; a memory and a process-count cap on the whole tree through a cgroup where one can be made
(render/cgroups.py); a scratch folder whose size is a hard limit where a tmpfs can be mounted
(render/volume.py), else a watched one; TeX kept to its own tree and the scratch folder; and an
environment built from an allow-list so no secret of the parent reaches the child.
"""

from __future__ import annotations

import functools
import os
import secrets
import shutil
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from enum import StrEnum
from pathlib import Path
from typing import IO, BinaryIO

from manimgen.render import cgroups
from manimgen.render.cgroups import RunCgroup, remove_stale
from manimgen.render.result import DEFAULT_RENDER_TIMEOUT_S
from manimgen.render.volume import Volume, hard_quota_available, unmount_stale

GIB = 1 << 30
MIB = 1 << 20
ENV_PASSTHROUGH = ("LANG", "LC_ALL", "OPENBLAS_CORETYPE", "OPENBLAS_L2_SIZE", "TZ")
# Scene uids: drawn at random from a range systemd's table leaves unused (0x70000000-0x7FFDFFFF) and
# never reused by this process, so no user, service or other render shares one.
SCENE_UIDS = range(0x7000_0000, 0x7FFE_0000)
# What a warm worker keeps to seal each render (render/worker.py): namespaces and tmpfs mounts, the
# change to the render's uid, and killing what the render left. A render itself keeps none.
SUPERVISOR_CAPS = ("sys_admin", "setuid", "setgid", "setpcap", "kill")
# What a render reads besides the Python environment: programs and libraries, the TeX tree and its
# generated formats, fonts and their caches, and the few /etc files the loader, TeX and fontconfig open.
SYSTEM_VIEW = (
    "/usr",
    "/etc/alternatives",
    "/etc/fonts",
    "/etc/texmf",
    "/etc/ld.so.cache",
    "/etc/ld.so.conf",
    "/etc/ld.so.conf.d",
    "/etc/localtime",
    "/etc/mime.types",
    "/etc/papersize",
    "/var/lib/texmf",
    "/var/cache/fontconfig",
)
TOP_LEVEL_LINKS = ("bin", "sbin", "lib", "lib32", "lib64", "libx32")
POLL_SECONDS = 0.1
TAIL_BYTES = 64 * 1024


class SandboxMode(StrEnum):
    BWRAP = "bubblewrap"
    UNSHARE = "unshare"
    PLAIN = "plain"


@dataclass(frozen=True)
class Limits:
    """Hard limits for one run; the defaults fit a Manim render at 480p.

    `memory_bytes` caps each process's address space and, where a memory cgroup can be made, the
    resident memory of the whole process tree together (its tmpfs files included).
    """

    timeout_s: float = DEFAULT_RENDER_TIMEOUT_S
    memory_bytes: int = 2 * GIB
    cpu_seconds: int = 600
    file_size_bytes: int = 64 * MIB
    open_files: int = 512
    processes: int = 64
    disk_bytes: int = 1 * GIB
    shm_bytes: int = 64 * MIB


@dataclass
class Completed:
    """How the command ended. `killed_by` names the limit that stopped it, if any.

    A negative `returncode` is the signal that ended the command, as in `subprocess`.
    """

    returncode: int | None
    killed_by: str | None
    stdout_tail: str
    stderr_tail: str
    seconds: float


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
    if shutil.which("unshare") and _works(["unshare", "--net", "--pid", "--ipc", "--fork", "--kill-child", "--", "true"]):
        return SandboxMode.UNSHARE
    return SandboxMode.PLAIN


@functools.cache
def changes_user() -> bool:
    """Whether scenes run as a uid of their own: only root can hand them one (through setpriv)."""
    return os.geteuid() == 0 and shutil.which("setpriv") is not None


_drawn_uids: set[int] = set()
_drawing = threading.Lock()


def scene_user() -> tuple[int, int] | None:
    """A fresh (uid, gid) for one render, never handed out before by this process; None when scenes keep our own user."""
    if not changes_user():
        return None
    with _drawing:
        while (uid := SCENE_UIDS.start + secrets.randbelow(len(SCENE_UIDS))) in _drawn_uids:
            pass
        _drawn_uids.add(uid)
    return uid, uid


def scrubbed_env(scratch: Path) -> dict[str, str]:
    """An environment from an allow-list: nothing of the parent's beyond locale and tuning switches.

    The kpathsea variables keep TeX to its own tree and the scratch folder: no absolute or `..`
    path outside `TEXMFOUTPUT` is read or written, and no shell command runs.
    """
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
        "TEXMFOUTPUT": str(scratch),
        "openin_any": "p",
        "openout_any": "p",
        "shell_escape": "f",
    }
    env.update({name: os.environ[name] for name in ENV_PASSTHROUGH if name in os.environ})
    return env


def python_paths() -> list[str]:
    """The interpreter, its environment and this package: what a render needs beyond the system view."""
    import site

    import manimgen

    package_root = str(Path(manimgen.__file__).resolve().parent.parent)
    interpreter_dir = os.path.dirname(os.path.realpath(sys.executable))
    candidates = {sys.prefix, sys.base_prefix, package_root, interpreter_dir, *site.getsitepackages()}
    found = sorted({os.path.realpath(p) for p in candidates if p and os.path.isdir(p)})
    outermost: list[str] = []
    for path in found:
        if not any(path == parent or path.startswith(parent + "/") for parent in [*outermost, "/usr"]):
            outermost.append(path)
    return outermost


def _parents(path: str, made: set[str]) -> list[str]:
    """bubblewrap arguments that make the folders above `path` traversable (it would make them 0700)."""
    argv: list[str] = []
    for parent in reversed(Path(path).parents[:-1]):
        if str(parent) not in made:
            made.add(str(parent))
            argv += ["--perms", "0755", "--dir", str(parent)]
    return argv


@functools.cache
def _root_view() -> tuple[str, ...]:
    """bubblewrap arguments that build the filesystem a render sees, on an empty root."""
    argv: list[str] = []
    made = {"/tmp"}
    for name in TOP_LEVEL_LINKS:
        path = f"/{name}"
        if os.path.islink(path):
            argv += ["--symlink", os.readlink(path), path]
        elif os.path.isdir(path):
            argv += ["--ro-bind", path, path]
    for path in SYSTEM_VIEW:
        if os.path.exists(path):
            argv += [*_parents(path, made), "--ro-bind", path, path]
    for path in python_paths():
        argv += [*_parents(path, made), "--ro-bind", path, path]
    return tuple(argv)


def _bwrap_prefix(scratch: Path, limits: Limits, user: tuple[int, int] | None) -> list[str]:
    argv = ["bwrap", "--perms", "1777", "--size", str(limits.disk_bytes), "--tmpfs", "/tmp", *_root_view()]
    argv += ["--dev", "/dev", "--perms", "1777", "--size", str(limits.shm_bytes), "--tmpfs", "/dev/shm", "--proc", "/proc"]
    argv += [*_parents(str(scratch), {"/tmp"}), "--bind", str(scratch), str(scratch), "--chdir", str(scratch), "--remount-ro", "/"]
    argv += ["--die-with-parent", "--new-session", "--cap-drop", "ALL"]
    if not changes_user():
        return [*argv, "--unshare-all", "--"]
    # No user namespace for root: in one, the scene's user would map back to host root.
    argv += ["--unshare-ipc", "--unshare-pid", "--unshare-net", "--unshare-uts", "--unshare-cgroup-try"]
    caps = ("setuid", "setgid", "setpcap") if user is not None else SUPERVISOR_CAPS
    return [*argv, *(arg for cap in caps for arg in ("--cap-add", f"CAP_{cap.upper()}")), "--"]


def _user_prefix(user: tuple[int, int] | None) -> list[str]:
    """Drop to the render's own uid with no capability left, before anything of the render runs; a
    supervisor (user None, as root) keeps only SUPERVISOR_CAPS."""
    if not changes_user():
        return []
    if user is None:
        return ["setpriv", f"--bounding-set=-all,{','.join('+' + cap for cap in SUPERVISOR_CAPS)}", "--"]
    uid, gid = user
    return ["setpriv", f"--reuid={uid}", f"--regid={gid}", "--clear-groups", "--inh-caps=-all", "--bounding-set=-all", "--no-new-privs", "--"]


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


def full_log(out: BinaryIO, err: BinaryIO, limit: int) -> str | None:
    """"stdout log" or "stderr log" when the render filled that log to the file-size limit (what it
    printed after that was lost), else None."""
    for name, handle in (("stdout", out), ("stderr", err)):
        if os.fstat(handle.fileno()).st_size >= limit:
            return f"{name} log"
    return None


def give(path: Path, user: tuple[int, int] | None) -> None:
    """Hand a folder or file the host made to the render's user (None: it stays ours)."""
    if user is not None:
        os.chown(path, *user)


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


def signal_of(returncode: int | None, mode: SandboxMode) -> int | None:
    """The signal that ended a run: subprocess says -N; bubblewrap, as PID 1, exits with 128 + N instead."""
    if returncode is None:
        return None
    if returncode < 0:
        return -returncode
    if mode is SandboxMode.BWRAP and 128 < returncode < 128 + signal.NSIG:
        return returncode - 128
    return None


@functools.cache
def sweep_stale() -> None:
    """Once per process: give back the tmpfs volumes and cgroups of manimgen processes that were killed."""
    unmount_stale()
    remove_stale()


class Sandbox:
    """Runs commands in a private scratch directory under `limits`, in the strongest available mode."""

    def __init__(self, limits: Limits | None = None, mode: SandboxMode | None = None) -> None:
        self.limits = limits or Limits()
        self.mode = mode or detect_mode()
        sweep_stale()

    def volume(self, path: Path, owner: tuple[int, int] | None) -> Volume:
        """`path` made into a writable folder for `owner` (None: ourselves), sized to the disk quota where possible."""
        return Volume(path, self.limits.disk_bytes, owner)

    def start(
        self,
        argv: list[str],
        scratch: Path,
        user: tuple[int, int] | None,
        *,
        stdin: int | IO[bytes],
        stdout: int | IO[bytes],
        stderr: int | IO[bytes],
    ) -> tuple[subprocess.Popen[bytes], RunCgroup]:
        """Start `argv` inside the walls without waiting, as `user` (from `scene_user()`), or with user
        None as a supervisor that keeps only SUPERVISOR_CAPS: one-shot renders and warm workers get the
        same walls otherwise.

        The caller watches the process and, when done, calls `kill_tree` as needed and `remove` on the cgroup.
        """
        cgroup = RunCgroup(self.limits.processes, self.limits.memory_bytes)
        command = self._wrap(argv, scratch, user)
        if cgroup.procs_files:
            join = " && ".join(f'echo $$ > "${index + 1}"' for index in range(len(cgroup.procs_files)))
            command = ["sh", "-c", f'{join} && shift {len(cgroup.procs_files)} && exec "$@"', "sandbox", *map(str, cgroup.procs_files), *command]
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
            cgroup.remove()
            raise
        return process, cgroup

    def run(self, argv: list[str], scratch: Path, user: tuple[int, int] | None) -> Completed:
        """Run `argv` as `user` with `scratch` as its only writable place; never raises for what the child does."""
        scratch = scratch.resolve()
        (scratch / "tmp").mkdir(parents=True, exist_ok=True)
        give(scratch / "tmp", user)
        logs = scratch.parent / f".{scratch.name}.logs"
        logs.mkdir(exist_ok=True)
        cgroup: RunCgroup | None = None
        started = time.monotonic()
        killed_by: str | None = None
        try:
            with (logs / "stdout").open("w+b") as out, (logs / "stderr").open("w+b") as err:
                try:
                    process, cgroup = self.start(argv, scratch, user, stdin=subprocess.DEVNULL, stdout=out, stderr=err)
                except OSError as error:
                    return Completed(None, "sandbox", "", f"sandbox could not start: {error}", time.monotonic() - started)
                killed_by = self.watch(lambda seconds: _exited(process, seconds), scratch, started)
                if killed_by:
                    kill_tree(process, cgroup)
                returncode = process.wait()
                if killed_by is None and cgroup.oom_kills():
                    killed_by = "memory"
                killed_by = killed_by or full_log(out, err, self.limits.file_size_bytes)
                stdout_tail, stderr_tail = read_tail(out), read_tail(err)
        finally:
            if cgroup is not None:
                cgroup.remove()
            shutil.rmtree(logs, ignore_errors=True)
        signal_number = signal_of(returncode, self.mode)
        returncode = -signal_number if signal_number else returncode
        return Completed(returncode, killed_by, stdout_tail, stderr_tail, time.monotonic() - started)

    def _wrap(self, argv: list[str], scratch: Path, user: tuple[int, int] | None) -> list[str]:
        inner = _user_prefix(user) + _limit_prefix(self.limits) + argv
        if self.mode is SandboxMode.BWRAP:
            return _bwrap_prefix(scratch, self.limits, user) + inner
        if self.mode is SandboxMode.UNSHARE:
            return ["unshare", "--net", "--pid", "--ipc", "--fork", "--kill-child", "--mount-proc", "--", *inner]
        return inner

    def watch(
        self, finished: Callable[[float], bool], scratch: Path, started: float, timeout_s: float | None = None
    ) -> str | None:
        """Wait until `finished(seconds)` (which may block that long) says so; else name the limit that ran out.

        `timeout_s` replaces the limits' wall timeout, for waits that are not a render. The scratch
        folder's size is watched only where it is not a sized tmpfs already.
        """
        timeout_s = self.limits.timeout_s if timeout_s is None else timeout_s
        watch_disk = not hard_quota_available()
        last_disk_check = 0.0
        while not finished(POLL_SECONDS):
            now = time.monotonic()
            if now - started > timeout_s:
                return "timeout"
            if watch_disk and now - last_disk_check > 0.5:
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


def kill_tree(process: subprocess.Popen[bytes], cgroup: RunCgroup | None) -> None:
    """SIGKILL the session `process` leads and every member of its cgroup (which catches setsid escapees)."""
    try:
        os.killpg(process.pid, signal.SIGKILL)
    except ProcessLookupError:
        pass
    if cgroup is not None:
        cgroup.kill_all()


def protections() -> list[tuple[str, bool, str, str]]:
    """Each wall of the sandbox, for `doctor`: (name, whether it is up here, what it is, how to raise it)."""
    mode = detect_mode()
    controllers = cgroups.active()
    as_root = "run manimgen as root"
    return [
        (
            "isolation",
            mode is SandboxMode.BWRAP,
            {
                SandboxMode.BWRAP: "bubblewrap: only the system, Python and TeX folders, no network, no capability",
                SandboxMode.UNSHARE: "unshare: no network, but the whole filesystem is visible",
                SandboxMode.PLAIN: "none: no network or filesystem isolation",
            }[mode],
            "apt-get install -y bubblewrap",
        ),
        (
            "scene user",
            changes_user() or os.geteuid() != 0,
            "a uid of its own per render, never reused, no capability" if changes_user() else f"uid {os.geteuid()}, the invoking user",
            "apt-get install -y util-linux (for setpriv)",
        ),
        (
            "warm renders",
            warm_sealed(mode),
            "each on a fresh /tmp, /dev/shm, IPC namespace, keyring and uid"
            if warm_sealed(mode)
            else "off: every render starts a fresh sandbox (about 1 s slower)",
            as_root,
        ),
        (
            "memory cap",
            "memory" in controllers,
            "whole process tree (cgroup)" if "memory" in controllers else "per process only (no writable memory cgroup)",
            f"{as_root}, or start it in a delegated cgroup (systemd-run --user -p Delegate=yes)",
        ),
        (
            "process cap",
            "pids" in controllers,
            "whole process tree (cgroup)" if "pids" in controllers else "none (no writable pids cgroup)",
            f"{as_root}, or start it in a delegated cgroup (systemd-run --user -p Delegate=yes)",
        ),
        (
            "disk quota",
            hard_quota_available(),
            "hard: a sized tmpfs per render" if hard_quota_available() else "watched every 0.5 s (cannot mount a tmpfs)",
            as_root,
        ),
    ]


def warm_sealed(mode: SandboxMode | None = None) -> bool:
    """Whether a warm worker can seal each render as a fresh sandbox is sealed: it needs root (to give
    each render its own namespaces, tmpfs mounts and uid) and a namespaced sandbox to hold it."""
    return changes_user() and (mode or detect_mode()) is not SandboxMode.PLAIN
