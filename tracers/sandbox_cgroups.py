"""A cgroup per sandboxed run: a task budget (pids) and a memory ceiling (memory).

The memory ceiling is the one that counts everything a run can allocate: heap, shared `mmap`,
and the pages of its private `/tmp`, `/dev/shm` and program folder (all tmpfs, charged to the
writer's cgroup). Works with cgroup v2 (a delegated subtree) and v1 (the pids and memory
hierarchies); creating one is tried, never assumed. Folders are named after the process that
made them, so the leftovers of a killed app are found and removed at the next start.
"""
from __future__ import annotations

import os
import signal
import time
import uuid
from dataclasses import dataclass
from functools import cache
from pathlib import Path

PREFIX = "traceeval-"
ROOT = Path("/sys/fs/cgroup")


@dataclass(frozen=True)
class _Group:
    path: Path
    controller: str  # "pids" or "memory"


class RunCgroups:
    """The run's pids and memory cgroups (either may be missing on this machine)."""

    def __init__(self, groups: list[_Group], limits: tuple[int, int]):
        self._groups = groups
        self.limits = limits  # (processes, memory_mb) they were made with

    @classmethod
    def create(cls, processes: int, memory_mb: int) -> RunCgroups:
        name = f"{PREFIX}{os.getpid()}-{uuid.uuid4().hex[:10]}"
        wanted = {"pids": {"pids.max": str(processes)},
                  "memory": _memory_settings(memory_mb * 1024 * 1024)}
        groups = []
        for controller, settings in wanted.items():
            group = _make(controller, name, settings)
            if group is not None:
                groups.append(group)
        return cls(groups, (processes, memory_mb))

    def has(self, controller: str) -> bool:
        return any(group.controller == controller for group in self._groups)

    @property
    def procs_files(self) -> list[str]:
        """Where the child writes its pid (between fork and exec) to join every group."""
        return [str(group.path / "cgroup.procs") for group in self._groups]

    def hit(self, controller: str) -> bool:
        """Whether the run ran into this group's limit."""
        return any(group.controller == controller and _limit_reached(group) for group in self._groups)

    def kill_all(self) -> None:
        for group in self._groups:
            _kill_members(group.path)

    def remove(self) -> None:
        for group in self._groups:
            _remove(group.path)


def _memory_settings(limit: int) -> dict[str, str]:
    # v2 names first; `_make` writes only the files the controller has (v1: limit_in_bytes, memsw when
    # swap is accounted). Swap is not a way around the ceiling.
    return {"memory.max": str(limit), "memory.swap.max": "0",
            "memory.limit_in_bytes": str(limit), "memory.memsw.limit_in_bytes": str(limit)}


def _make(controller: str, name: str, settings: dict[str, str]) -> _Group | None:
    for parent in _parents(controller):
        path = parent / name
        try:
            path.mkdir()
        except OSError:
            continue
        written = False
        try:
            for file, value in settings.items():
                if (path / file).exists():
                    (path / file).write_text(value)
                    written = True
        except OSError:
            written = False
        if written:
            return _Group(path, controller)
        _remove(path)
    return None


def _limit_reached(group: _Group) -> bool:
    if group.controller == "pids":
        events = _read(group.path / "pids.events")
        return any(line.split()[-1] != "0" for line in events.splitlines() if line.startswith("max"))
    events = _read(group.path / "memory.events")  # v2
    if events:
        return any(line.split()[-1] != "0" for line in events.splitlines()
                   if line.split()[0] in ("max", "oom", "oom_kill"))
    counters = [_read(group.path / name).strip() for name in ("memory.failcnt", "memory.memsw.failcnt")]
    oom = _read(group.path / "memory.oom_control").split()  # v1: "... oom_kill N"
    if "oom_kill" in oom:
        counters.append(oom[oom.index("oom_kill") + 1])
    return any(value not in ("", "0") for value in counters)  # v1


def _read(path: Path) -> str:
    try:
        return path.read_text()
    except OSError:
        return ""


def _kill_members(path: Path) -> None:
    for pid in _read(path / "cgroup.procs").split():
        try:
            os.kill(int(pid), signal.SIGKILL)
        except (ProcessLookupError, ValueError, PermissionError):
            pass


def _remove(path: Path) -> None:
    """rmdir the group, killing what is left in it; the last task of a run is often still exiting (for well
    under a millisecond), so the first retries come soon, then every 20 ms, for about 2 s in all."""
    pause, waited = 0.0005, 0.0
    while waited < 2.0:
        try:
            path.rmdir()
            return
        except FileNotFoundError:
            return
        except OSError:
            _kill_members(path)
            time.sleep(pause)
            waited += pause
            pause = min(pause * 2, 0.02)


@cache
def _parents(controller: str) -> tuple[Path, ...]:
    """Where this process may create a cgroup with `controller`: its own v2 folder (when the
    controller is delegated to it) or its place in the v1 hierarchy of that controller."""
    found = []
    try:
        lines = Path("/proc/self/cgroup").read_text().splitlines()
    except OSError:
        return ()
    for line in lines:
        hierarchy, controllers, path = line.split(":", 2)
        if hierarchy == "0" and (ROOT / "cgroup.controllers").exists():
            folder = ROOT / path.lstrip("/")
            if controller in _read(folder / "cgroup.subtree_control").split() or folder == ROOT:
                found.append(folder)
        elif controller in controllers.split(","):
            found.append(ROOT / controller / path.lstrip("/"))
    return tuple(folder for folder in found if folder.is_dir() and os.access(folder, os.W_OK))


def remove_leftovers() -> list[Path]:
    """Remove the run cgroups of processes that are gone (an app killed mid-run); returns them."""
    removed = []
    for controller in ("pids", "memory"):
        for parent in _parents(controller):
            for entry in parent.glob(f"{PREFIX}*"):
                owner = entry.name[len(PREFIX):].partition("-")[0]
                if owner.isdigit() and not process_alive(int(owner)):
                    _remove(entry)
                    removed.append(entry)
    return removed


def process_alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True
