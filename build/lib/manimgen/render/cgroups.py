"""One cgroup per sandboxed run: a process-count and a memory cap that hold for the whole process tree.

rlimits are per process, so six forked children could each take the address-space cap; a cgroup's
caps count every process together. cgroup v1 keeps each controller in a hierarchy of its own
(`/sys/fs/cgroup/pids`, `/sys/fs/cgroup/memory`), v2 has one tree for all. A run's group is made
inside this process's own group, so the limits the host already puts on us keep holding. A
controller whose groups this process cannot make is left out; `active()` says which are in force.
"""

from __future__ import annotations

import functools
import os
import signal
import time
import uuid
from dataclasses import dataclass
from pathlib import Path

CGROUP_MOUNT = Path("/sys/fs/cgroup")
CONTROLLERS = ("pids", "memory")
REMOVE_SECONDS = 5.0
KILL_ROUNDS = 50


@dataclass(frozen=True)
class Hierarchy:
    """Where run groups for some controllers are made: `parent` is this process's own group in that tree."""

    parent: Path
    controllers: tuple[str, ...]
    version: int


def _own_paths() -> dict[str, str]:
    """This process's group per v1 controller name, and under "" its v2 group."""
    paths: dict[str, str] = {}
    for line in Path("/proc/self/cgroup").read_text().splitlines():
        _, names, path = line.split(":", 2)
        for name in names.split(",") if names else [""]:
            paths[name] = path.lstrip("/")
    return paths


def _limit_file(controller: str, version: int) -> str:
    if controller == "pids":
        return "pids.max"
    return "memory.limit_in_bytes" if version == 1 else "memory.max"


def _makes_groups(parent: Path, controllers: tuple[str, ...], version: int) -> bool:
    """Whether a group made under `parent` gets the controllers' limit files (probed with a throwaway group)."""
    probe = parent / f"manimgen-probe-{os.getpid()}-{uuid.uuid4().hex[:8]}"
    try:
        probe.mkdir()
    except OSError:
        return False
    try:
        return all((probe / _limit_file(name, version)).is_file() for name in controllers)
    finally:
        probe.rmdir()


@functools.cache
def hierarchies() -> tuple[Hierarchy, ...]:
    """The trees in which this process can make capped groups, probed once per process."""
    try:
        own = _own_paths()
    except (OSError, ValueError):
        return ()
    if (CGROUP_MOUNT / "cgroup.controllers").is_file():
        parent = CGROUP_MOUNT / own.get("", "")
        enabled = tuple(name for name in CONTROLLERS if _makes_groups(parent, (name,), 2))
        return (Hierarchy(parent, enabled, 2),) if enabled else ()
    found = []
    for name in CONTROLLERS:
        parent = CGROUP_MOUNT / name / own.get(name, "")
        if name in own and _makes_groups(parent, (name,), 1):
            found.append(Hierarchy(parent, (name,), 1))
    return tuple(found)


def active() -> set[str]:
    """The controllers whose caps a run gets here."""
    return {name for hierarchy in hierarchies() for name in hierarchy.controllers}


def _read_count(path: Path, key: str) -> int:
    try:
        for line in path.read_text().splitlines():
            name, _, value = line.partition(" ")
            if name == key:
                return int(value)
    except (OSError, ValueError):
        pass
    return 0


def process_alive(pid: int) -> bool:
    """Whether a process with this pid exists (one we may not signal counts as alive)."""
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        pass
    return True


def remove_stale() -> None:
    """Remove the groups of manimgen processes that died without removing them (killed with SIGKILL)."""
    for hierarchy in hierarchies():
        for group in hierarchy.parent.glob("manimgen-*-*"):
            owner = group.name.split("-")[1]
            if owner.isdigit() and not process_alive(int(owner)):
                _remove([group])


def _kill_members(group: Path) -> None:
    """SIGKILL every member, retrying while forks still in flight land in the group."""
    for _ in range(KILL_ROUNDS):
        try:
            members = (group / "cgroup.procs").read_text().split()
        except OSError:
            return
        if not members:
            return
        for pid in members:
            try:
                os.kill(int(pid), signal.SIGKILL)
            except ProcessLookupError:
                pass
        time.sleep(0.02)


def _remove(groups: list[Path]) -> None:
    """Kill the members and remove the groups; a group still busy after a few seconds is left to the kernel."""
    deadline = time.monotonic() + REMOVE_SECONDS
    for group in groups:
        while True:
            _kill_members(group)
            try:
                group.rmdir()
                break
            except FileNotFoundError:
                break
            except OSError:
                if time.monotonic() > deadline:
                    break
                time.sleep(0.02)


class RunCgroup:
    """The groups of one run: made with their caps, joined by the run's first process, killed and removed at the end."""

    def __init__(self, max_processes: int, memory_bytes: int) -> None:
        self._groups: list[tuple[Path, Hierarchy]] = []
        name = f"manimgen-{os.getpid()}-{uuid.uuid4().hex[:12]}"
        try:
            for hierarchy in hierarchies():
                group = hierarchy.parent / name
                group.mkdir()
                self._groups.append((group, hierarchy))
                if "pids" in hierarchy.controllers:
                    (group / "pids.max").write_text(str(max_processes))
                if "memory" in hierarchy.controllers:
                    self._cap_memory(group, hierarchy.version, memory_bytes)
        except OSError:
            self.remove()
            raise

    @staticmethod
    def _cap_memory(group: Path, version: int, memory_bytes: int) -> None:
        """Cap memory, swap included, so a run cannot grow past the cap by swapping."""
        if version == 1:
            (group / "memory.limit_in_bytes").write_text(str(memory_bytes))
            if (group / "memory.memsw.limit_in_bytes").is_file():
                (group / "memory.memsw.limit_in_bytes").write_text(str(memory_bytes))
            return
        (group / "memory.max").write_text(str(memory_bytes))
        if (group / "memory.swap.max").is_file():
            (group / "memory.swap.max").write_text("0")

    @property
    def procs_files(self) -> list[Path]:
        """The files the run's first process writes its pid to, before it runs anything else."""
        return [group / "cgroup.procs" for group, _ in self._groups]

    def oom_kills(self) -> int:
        """How many processes of the run the kernel has killed for going over the memory cap."""
        for group, hierarchy in self._groups:
            if "memory" in hierarchy.controllers:
                return _read_count(group / ("memory.oom_control" if hierarchy.version == 1 else "memory.events"), "oom_kill")
        return 0

    def kill_all(self) -> None:
        """SIGKILL every member of the run (all its groups hold the same processes)."""
        if self._groups:
            _kill_members(self._groups[0][0])

    def remove(self) -> None:
        """Kill the members and remove the groups."""
        _remove([group for group, _ in reversed(self._groups)])
        self._groups = []
