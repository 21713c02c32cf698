"""How a sandboxed run's first process starts: in its cgroups, under its rlimits, staged, as its user.

Every step happens in the child before the sandbox command (bubblewrap) runs, so no process of the run
exists outside its cgroups even for an instant (a fork bomb meets the pids limit from the first fork).
The steps are done by the small C launcher `traceeval-launch` built beside this package
(`sandbox_launcher.c`, linked by `setup.py`), which subprocess starts with vfork; without it (no C
compiler at install) the same steps run in a Python `preexec_fn`, which makes subprocess fork the
whole parent.

Joining a cgroup is slow in the kernel, not in us: writing `cgroup.procs` waits for an RCU grace
period (12-15 ms a run, measured with strace -T on the write). Within a batch of runs
(`prestarting()`, which `retrace` uses) each worker thread therefore keeps one launcher started
ahead of its next run (`Spare`, made by `prepare_next` while the current run goes on): in fresh
cgroups of its own already, waiting on a socket for the run's command, environment and descriptors.
It serves exactly one run, and the batch's end stops and removes whatever spare is left, so nothing
is shared between programs. A cgroup's folder is removed (`release`) once its run is over; within a
batch that waits until the thread's next run has started, because the kernel holds its cgroup lock
while another thread's launcher waits to join (removing would wait with it).
"""
from __future__ import annotations

import os
import resource
import socket
import subprocess
import threading
from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path

from tracers.sandbox_cgroups import RunCgroups
from tracers.sandbox_view import Identity, die_with_parent, drop_to, enter_staged

LAUNCHER_NAME = "traceeval-launch"  # setup.py links it under this name
_ERROR_BYTES = 4096  # the launcher writes one short line when a step fails
_MESSAGE_BYTES = 256 * 1024  # what a spare reads of its run (sandbox_launcher.c MESSAGE_BYTES)
_MESSAGE_FDS = 16  # descriptors a spare takes (MAX_FDS)


@cache
def launcher_path() -> str | None:
    """The built launcher, or None (the `preexec_fn` fallback starts runs then)."""
    path = Path(__file__).with_name(LAUNCHER_NAME)
    return str(path) if path.is_file() and os.access(path, os.X_OK) else None


@dataclass(frozen=True)
class ChildSetup:
    """What the run's first process does, in this order, before it execs the sandbox command."""

    procs_files: Sequence[str]  # cgroup.procs files to write our pid to
    rlimits: Sequence[tuple[str, int, int]]  # (cpu | data | fsize | core | nproc, soft, hard)
    staged: Sequence[tuple[str, str]]  # (host folder, staging folder): bound as root (sandbox_view.enter_staged)
    identity: Identity  # who to become (sandbox_view.drop_to), then die with the starting thread
    parent: int = field(default_factory=os.getpid)  # the process starting the run: gone already, nothing runs

    def launcher_options(self, *, join: bool = True) -> list[str]:
        options = []
        for path in self.procs_files if join else ():
            options += ["-j", path]
        for name, soft, hard in self.rlimits:
            options += ["-r", name, str(soft), str(hard)]
        for source, stage in self.staged:
            options += ["-s", source, stage]
        if self.identity.switches:
            options += ["-u", str(self.identity.uid), str(self.identity.gid)]
        return [*options, "-d", str(self.parent)]

    def apply_here(self) -> None:
        """The launcher's steps in Python, between fork and exec (the fallback)."""
        for path in self.procs_files:
            with open(path, "w") as handle:
                handle.write(str(os.getpid()))
        for name, soft, hard in self.rlimits:
            resource.setrlimit(getattr(resource, f"RLIMIT_{name.upper()}"), (soft, hard))
        enter_staged(self.staged)
        drop_to(self.identity)
        die_with_parent(self.parent)


def start(command: Sequence[str], setup: ChildSetup, *, cwd: Path | str, env: Mapping[str, str],
          pass_fds: Sequence[int], spare: Spare | None = None) -> subprocess.Popen:
    """Start `command` with `setup` done first, in a new session, stdin empty, stdout and stderr piped.
    `spare` (from `take_spare`, made for `setup.procs_files`' cgroups) starts it without waiting to join
    them. Raises subprocess.SubprocessError (with the launcher's reason) when a step failed, in which
    case nothing of `command` ran."""
    if spare is not None:
        try:
            return spare.run(command, setup, cwd=cwd, env=env, pass_fds=pass_fds)
        except _SpareLost:
            pass  # (it ended before its run: killed from outside) started as if there had been none
    launcher = launcher_path()
    if launcher is None:
        return _popen(command, cwd=cwd, env=env, pass_fds=pass_fds, preexec_fn=setup.apply_here)
    errors, report = os.pipe()
    try:
        process = _popen([launcher, "-e", str(report), *setup.launcher_options(), "--", *command], cwd=cwd, env=env,
                         pass_fds=(*pass_fds, report))
    finally:
        os.close(report)
    _started_or_raise(process, errors)
    return process


def _popen(args: Sequence[str], *, cwd: Path | str, env: Mapping[str, str], pass_fds: Sequence[int],
           preexec_fn: Callable[[], None] | None = None) -> subprocess.Popen:
    return subprocess.Popen(args, cwd=cwd, env=env, pass_fds=pass_fds, preexec_fn=preexec_fn,  # noqa: PLW1509
                            stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            start_new_session=True)


class _SpareLost(OSError):
    """The spare launcher was gone when its run was handed to it; nothing of the run ran."""


class Spare:
    """A launcher started ahead of its run: in `cgroups` (fresh, its own) already, waiting for its command."""

    def __init__(self, cgroups: RunCgroups, launcher: str):
        self.cgroups = cgroups
        self._errors, report = os.pipe()
        self._socket, child_end = socket.socketpair(socket.AF_UNIX, socket.SOCK_SEQPACKET)
        try:
            options = [item for path in cgroups.procs_files for item in ("-j", path)]
            self._process: subprocess.Popen | None = _popen(
                [launcher, "-e", str(report), *options, "-w", str(child_end.fileno())], cwd="/", env={},
                pass_fds=(report, child_end.fileno()))
        except BaseException:
            self._socket.close()
            os.close(self._errors)
            raise
        finally:
            os.close(report)
            child_end.close()

    def run(self, command: Sequence[str], setup: ChildSetup, *, cwd: Path | str, env: Mapping[str, str],
            pass_fds: Sequence[int]) -> subprocess.Popen:
        process, self._process = self._process, None
        if process is None:
            raise subprocess.SubprocessError("a spare launcher serves one run")
        words = [*setup.launcher_options(join=False), "-C", str(cwd)]
        words += [item for name, value in env.items() for item in ("-V", f"{name}={value}")]
        words += [item for fd in pass_fds for item in ("-F", str(fd))]
        message = os.fsencode("\0".join([*words, "--", *command]))
        try:
            if len(message) > _MESSAGE_BYTES or len(pass_fds) > _MESSAGE_FDS:
                raise _SpareLost(f"the run's command is too long for a spare launcher ({len(message)} bytes, "
                                 f"{len(pass_fds)} descriptors)")
            socket.send_fds(self._socket, [message], list(pass_fds))
        except OSError as error:
            self._socket.close()  # (ends a launcher still waiting)
            _stop(process)
            os.close(self._errors)
            raise _SpareLost(str(error)) from error
        self._socket.close()
        _started_or_raise(process, self._errors)
        return process

    def give_up(self) -> None:
        """Stop the launcher if it has not run (closing its socket ends it); `cgroups` stay the caller's."""
        process, self._process = self._process, None
        if process is not None:
            self._socket.close()
            _stop(process)
            os.close(self._errors)


def _stop(process: subprocess.Popen) -> None:
    try:
        process.wait(timeout=2)
    except subprocess.TimeoutExpired:
        process.kill()
        process.wait()
    for stream in (process.stdout, process.stderr):
        if stream is not None:
            stream.close()


_spares: dict[int, Spare] = {}  # worker thread -> its next run's launcher
_released: dict[int, list[RunCgroups]] = {}  # worker thread -> cgroups of its finished runs, to remove
_spares_lock = threading.Lock()
_batches = 0  # prestarting() contexts open


@contextmanager
def prestarting() -> Iterator[None]:
    """A batch of runs: each thread that runs one keeps a launcher started for its next; all stopped at the end."""
    global _batches
    with _spares_lock:
        _batches += 1
    try:
        yield
    finally:
        with _spares_lock:
            _batches -= 1
            left = list(_spares.values()) if _batches == 0 else []
            finished = [group for groups in _released.values() for group in groups] if _batches == 0 else []
            if _batches == 0:
                _spares.clear()
                _released.clear()
        for spare in left:
            spare.give_up()
            spare.cgroups.remove()
        for cgroups in finished:
            cgroups.remove()


def release(cgroups: RunCgroups) -> None:
    """Remove the cgroups of a run that is over (its processes are gone): at once, or within `prestarting()`
    at this thread's next `prepare_next` or the batch's end."""
    with _spares_lock:
        if _batches:
            _released.setdefault(threading.get_ident(), []).append(cgroups)
            return
    cgroups.remove()


def take_spare(processes: int, memory_mb: int) -> Spare | None:
    """This thread's launcher for a run with these cgroup limits, if `prepare_next` started one; None outside
    `prestarting()`, for the first run of a thread, or without the launcher."""
    with _spares_lock:
        taken = _spares.pop(threading.get_ident(), None) if _batches else None
    if taken is not None and taken.cgroups.limits != (processes, memory_mb):
        taken.give_up()
        taken.cgroups.remove()
        return None
    return taken


def prepare_next(processes: int, memory_mb: int) -> None:
    """Within `prestarting()`, start this thread's launcher for its next run (called once a run has started,
    so this costs the run nothing); elsewhere nothing."""
    launcher = launcher_path()
    thread = threading.get_ident()
    with _spares_lock:
        finished = _released.pop(thread, [])
    for group in finished:
        group.remove()
    with _spares_lock:
        if launcher is None or not _batches or thread in _spares:
            return
    cgroups = RunCgroups.create(processes, memory_mb)
    try:
        spare = Spare(cgroups, launcher)
    except OSError:
        cgroups.remove()
        return
    with _spares_lock:
        kept = bool(_batches) and thread not in _spares
        if kept:
            _spares[thread] = spare
    if not kept:  # the batch ended meanwhile
        spare.give_up()
        cgroups.remove()


def _started_or_raise(process: subprocess.Popen, errors: int) -> None:
    try:
        message = _read_until_exec(errors)
    finally:
        os.close(errors)
    if message:
        process.wait()
        raise subprocess.SubprocessError(f"the sandbox launcher could not start the run: {message}")


def _read_until_exec(fd: int) -> str:
    """What the launcher reported; '' at end-of-file, when its exec closed the descriptor."""
    chunks: list[bytes] = []
    size = 0
    while size < _ERROR_BYTES and (chunk := os.read(fd, _ERROR_BYTES - size)):
        chunks.append(chunk)
        size += len(chunk)
    return b"".join(chunks).decode("utf-8", "replace").strip()
