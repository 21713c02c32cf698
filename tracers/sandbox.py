"""Run untrusted program code in a child process that cannot hang, harm or read the machine.

One runner for every tracer. The program runs on the safe copy of its folder (`run_folder`):
- inside bubblewrap (`sandbox_view`): new namespaces, no network, an unprivileged id with no
  capabilities, a seccomp filter, and a file system built from what it needs;
- in a cgroup of its own (`sandbox_cgroups`) capping its tasks and all the memory it can use
  (its tmpfs folders included), with rlimits for CPU seconds, data memory and file size;
- with an environment built from scratch (nothing of ours, API keys or tokens, reaches it),
  empty stdin, stdout/stderr drained concurrently (head and tail kept, killed past a cap);
- a wall-clock timeout, after which (or at once, on the caller's cancel event) the whole
  process tree is killed.
The trace log is no file: every traced process of the run writes its records to a pipe the
supervisor reads as they come, within a byte budget (`trace_channel`), so nothing the program
writes for us reaches the host's disk. A file the program must write for us otherwise (a static
analyzer's output: `handed`) lives in a folder it cannot see and is handed over as an inherited
descriptor, so it cannot be replaced by a FIFO or a link; its size is the file-size limit's.

What a machine cannot provide (no bubblewrap, no cgroup) is a *weakness*: runs refuse to start
unless the user allowed it in `$TRACEEVAL_SANDBOX_ALLOW` (names, or `all`), and a run that went
ahead says what it lacked. `traceeval doctor` proves each property with probe programs.
"""
from __future__ import annotations

import os
import shutil
import signal
import subprocess
import threading
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from functools import cache
from pathlib import Path

from tracers import sandbox_launch
from tracers.run_folder import RunFolder
from tracers.sandbox_cgroups import RunCgroups
from tracers.sandbox_view import Identity, build_view, drop_to, sandbox_identity
from tracers.sandbox_wait import ExitWatch
from tracers.seccomp_filter import SeccompUnavailable, filter_fd, filter_program
from tracers.trace_channel import TraceChannel
from tracers.trace_records import TraceLog

BASE_PATH = "/usr/local/bin:/usr/bin:/bin"
ALLOW_ENV = "TRACEEVAL_SANDBOX_ALLOW"
CANCEL_CHECK_S = 0.01  # how soon a set cancel event is seen
TASK_WATCH_S = 0.05  # how often the run's tasks are counted when only RLIMIT_NPROC bounds them
# The properties a machine may lack, and what each one means for a run.
WEAKNESSES = {
    "isolation": "the program sees the host's files and network (bubblewrap cannot run here)",
    "seccomp": "no system-call filter (libseccomp missing)",
    "memory": "no memory cgroup: shared memory and tmpfs writes are not counted against the memory limit",
    "processes": "no pids cgroup and running as root: fork bombs are stopped only by the time limit",
}


@dataclass(frozen=True)
class Limits:
    """What one traced run may use: time, memory, processes, output and disk; past a limit the run is stopped."""

    wall_s: float = 30.0
    cpu_s: int = 60
    memory_mb: int = 2048  # everything the run allocates (memory cgroup); RLIMIT_DATA as well
    file_mb: int = 64  # largest file the program may write (the trace log included)
    processes: int = 256  # processes and threads, the JVM's own included
    output_bytes: int = 8 * 1024 * 1024  # stdout + stderr; more kills the program
    tail_bytes: int = 4000  # kept of each stream for the run record
    tmp_mb: int = 256  # the private /tmp (tmpfs, inside the memory limit)
    shm_mb: int = 64  # the private /dev/shm
    write_mb: int = 256  # what the program may add to its own folder, all files together
    log_mb: int = 64  # trace records, all the run's processes together (read from a pipe, never on disk)
    decode_s: float = 30.0  # CPU seconds the host may spend checking and decoding them


@dataclass(frozen=True)
class SandboxResult:
    exit_code: int | None  # None when ended by a signal
    signal: int | None
    timed_out: bool
    output_limited: bool
    process_limited: bool
    duration_s: float
    stdout: str  # head + tail of the stream when it was long
    stderr: str
    isolation: str  # what isolated the run, and what it lacked
    cancelled: bool = False  # the caller's cancel event stopped it (the tree was killed: see `signal`)
    memory_limited: bool = False
    refused: str = ""  # why the run did not start: a weakness the user did not allow
    trace_log: TraceLog | None = None  # what the run's trace log held (`run_sandboxed(trace_log=True)`)

    @property
    def limit_reason(self) -> str | None:
        """Which limit ended the run, in words, or None."""
        if self.process_limited:
            return "process limit"
        if self.memory_limited and self.signal == signal.SIGKILL:
            return "memory limit"
        if self.output_limited:
            return "output size limit"
        if self.trace_log is not None and self.trace_log.limited:
            return "trace log limit"
        if self.timed_out:
            return "wall-clock time limit"
        if self.signal == signal.SIGXCPU:
            return "CPU time limit"
        if self.signal == signal.SIGXFSZ:
            return "file size limit"
        return None


@cache
def bwrap_path() -> str | None:
    """Looked up once per process, like `bwrap_problem` (a run asks three times)."""
    return shutil.which("bwrap")


@cache
def bwrap_problem() -> str:
    """Why bubblewrap cannot build a sandbox here ('' when it can): tried once per process."""
    bwrap = bwrap_path()
    if bwrap is None:
        return "bwrap not found (install the Debian package bubblewrap)"
    identity = sandbox_identity()
    command = [bwrap, "--unshare-all", "--unshare-user", "--disable-userns", "--uid", str(identity.uid),
               "--ro-bind", "/usr", "/usr", "--symlink", "usr/bin", "/bin", "--symlink", "usr/lib", "/lib",
               "--symlink", "usr/lib64", "/lib64", "--", "/usr/bin/true"]
    try:
        done = subprocess.run(command, capture_output=True, text=True, timeout=30, check=False,
                              preexec_fn=lambda: drop_to(identity))
    except (OSError, subprocess.SubprocessError) as error:
        return f"{bwrap} does not run: {error}"
    if done.returncode != 0:
        return f"{bwrap} cannot build a sandbox here: {done.stderr.strip()[:200]}"
    return ""


def allowed_weaknesses() -> set[str]:
    words = {word.strip() for word in os.environ.get(ALLOW_ENV, "").replace(",", " ").split()}
    return set(WEAKNESSES) if "all" in words else words & set(WEAKNESSES)


def weaknesses(cgroups: RunCgroups) -> dict[str, str]:
    """The properties this run would lack, with what each means."""
    found = {}
    if bwrap_problem():
        found["isolation"] = f"{WEAKNESSES['isolation']}: {bwrap_problem()}"
    else:
        try:
            filter_program()
        except SeccompUnavailable as problem:
            found["seccomp"] = str(problem)
    if not cgroups.has("memory"):
        found["memory"] = WEAKNESSES["memory"]
    if not cgroups.has("pids") and os.getuid() == 0:
        found["processes"] = WEAKNESSES["processes"]
    return found


def scrubbed_environment(extra: Mapping[str, str], home: Path) -> dict[str, str]:
    """A minimal environment: PATH, locale, HOME in the program folder, plus the tracer's own."""
    env = {"PATH": BASE_PATH, "LANG": "C.UTF-8", "LC_ALL": "C.UTF-8", "HOME": str(home),
           "TMPDIR": "/tmp", "PYTHONDONTWRITEBYTECODE": "1", "PYTHONIOENCODING": "utf-8"}
    env.update(extra)
    return env


def run_sandboxed(argv: Sequence[str], folder: RunFolder, *, env: Mapping[str, str] = {},
                  read_only: Sequence[Path] = (), handed: Mapping[str, Path] = {},
                  limits: Limits = Limits(), cancel: threading.Event | None = None,
                  allowed: set[str] | None = None, trace_log: bool = False) -> SandboxResult:
    """Run `argv` in the program folder of `folder` under `limits`.

    `read_only` are the toolchain folders and files the program needs to see; `env` is added
    to the scrubbed environment; `handed` maps an environment variable to a file (in
    `folder.private`) the program may append to: it is created here, and the variable names
    the program's inherited descriptor of it (`/proc/self/fd/N`). Setting `cancel` kills the
    whole process tree within a few hundredths of a second. Returns when the tree is gone.
    `allowed` overrides the user's allowed weaknesses (the doctor probes whatever holds).
    `trace_log` gives the run a trace log (`trace_channel`: `$TRACEEVAL_LOG`, `$TRACEEVAL_KEY`), read while
    it runs into the result's `trace_log`; the run is stopped when it writes too much there.
    """
    spare = sandbox_launch.take_spare(limits.processes, limits.memory_mb)  # a launcher in its cgroups already
    cgroups = spare.cgroups if spare is not None else RunCgroups.create(limits.processes, limits.memory_mb)
    lacking = weaknesses(cgroups)
    refused = sorted(set(lacking) - (allowed_weaknesses() if allowed is None else allowed))
    if refused:
        if spare is not None:
            spare.give_up()
        cgroups.remove()
        reasons = "; ".join(lacking[name] for name in refused)
        return _refused(f"the sandbox cannot hold here: {reasons} (to run anyway, set "
                        f"{ALLOW_ENV}={','.join(refused)})")
    identity = sandbox_identity()
    descriptors, full_env = [], scrubbed_environment(env, folder.program)
    channel: TraceChannel | None = None
    lifeline, alive = os.pipe()  # the app holds `alive` until the run is over (sandbox_view.build_view)
    descriptors.append(lifeline)
    try:
        for name, path in handed.items():
            fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_APPEND, 0o600)
            descriptors.append(fd)
            _give(path, identity)
            full_env[name] = f"/proc/self/fd/{fd}"
        _give_folders(folder, identity)
        if trace_log:
            channel = TraceChannel(folder.base, identity, limits.log_mb * 2**20, limits.decode_s)
        command, staged, isolation = _command(argv, folder, read_only, identity, limits, descriptors, channel,
                                              lifeline)
        if channel is not None:
            full_env.update(channel.environment(isolated=command[0] == bwrap_path()))
        if lacking:
            isolation += f"; lacking, as allowed by {ALLOW_ENV}: " + "; ".join(lacking.values())
        return _supervise(command, folder, full_env, descriptors, staged, identity, cgroups, limits,
                          cancel, isolation, channel, spare)
    finally:
        if spare is not None:
            spare.give_up()  # (nothing once it ran)
        if channel is not None:
            channel.close()  # (nothing once the run's end read it)
        for fd in (*descriptors, alive):
            os.close(fd)
        sandbox_launch.release(cgroups)


def _refused(message: str) -> SandboxResult:
    return SandboxResult(exit_code=None, signal=None, timed_out=False, output_limited=False,
                         process_limited=False, duration_s=0.0, stdout="", stderr="", isolation="",
                         refused=message)


def _command(argv: Sequence[str], folder: RunFolder, read_only: Sequence[Path], identity: Identity,
             limits: Limits, descriptors: list[int], channel: TraceChannel | None,
             lifeline: int) -> tuple[list[str], list[tuple[str, str]], str]:
    """The full command line, the folders to stage, and the run's isolation in words."""
    bwrap = bwrap_path()
    if bwrap is None or bwrap_problem():  # (a missing bwrap is a problem too)
        return list(argv), [], "not isolated"
    try:
        seccomp = filter_fd()
        descriptors.append(seccomp)
    except SeccompUnavailable:
        seccomp = None
    program_bytes = _size_of(folder.program) + limits.write_mb * 1024 * 1024
    view = build_view(folder.program, read_only, identity=identity, stage_folder=folder.base / "stage",
                      tmp_bytes=limits.tmp_mb * 1024 * 1024, shm_bytes=limits.shm_mb * 1024 * 1024,
                      program_bytes=program_bytes, seccomp_fd=seccomp, copier=sandbox_launch.launcher_path(),
                      shown=[channel.shown()] if channel is not None else [], lifeline=lifeline)
    who = "as nobody" if identity.switches else "as this user"
    isolation = (f"bwrap: no network, own file system view, user namespace {who}, no capabilities"
                 f"{', seccomp' if seccomp is not None else ''}; /tmp {limits.tmp_mb} MiB, "
                 f"program folder +{limits.write_mb} MiB")
    return [bwrap, *view.options, "--", *view.launcher, *argv], view.staged, isolation


def _supervise(command: list[str], folder: RunFolder, env: dict[str, str], descriptors: list[int],
               staged: list[tuple[str, str]], identity: Identity, cgroups: RunCgroups, limits: Limits,
               cancel: threading.Event | None, isolation: str, channel: TraceChannel | None = None,
               spare: sandbox_launch.Spare | None = None) -> SandboxResult:
    if cgroups.has("memory"):
        isolation += f"; memory cgroup {limits.memory_mb} MiB"
    if cgroups.has("pids"):
        isolation += f"; pids cgroup {limits.processes}"
    setup, task_budget = _child_setup(limits, cgroups, staged, identity)
    started = time.monotonic()
    process = sandbox_launch.start(command, setup, cwd=folder.program, env=env,
                                   pass_fds=[*descriptors, *([channel.key_fd] if channel else [])], spare=spare)
    try:
        exits = ExitWatch(process.pid)
    except OSError:
        _kill_tree(process, cgroups)
        raise
    budget = _OutputBudget(limits.output_bytes, exits.wake)
    out = _StreamTail(process.stdout, limits.tail_bytes, budget)
    err = _StreamTail(process.stderr, limits.tail_bytes, budget)
    if channel is not None:
        channel.started(exits.wake)
    timed_out = cancelled = tasks_limited = False
    try:
        sandbox_launch.prepare_next(limits.processes, limits.memory_mb)  # (within a batch) while this run goes on
        deadline = started + limits.wall_s
        next_count = started + TASK_WATCH_S if task_budget else None
        while not exits.wait(_next_wake(deadline, next_count, cancel)):
            if budget.exceeded.is_set() or (channel is not None and channel.limited):
                break
            if next_count is not None and time.monotonic() >= next_count:
                next_count = time.monotonic() + TASK_WATCH_S
                tasks_limited = tasks_limited or _user_task_count() >= task_budget
            if cancel is not None and cancel.is_set():
                cancelled = True
                break
            if time.monotonic() >= deadline:
                timed_out = True
                break
    finally:
        exits.close()
        _kill_tree(process, cgroups)
        out.join()
        err.join()
        log = channel.finish() if channel is not None else None
    returncode: int = process.returncode  # set: _kill_tree waited for the process
    code: int | None = returncode
    signal_number: int | None = None
    if returncode < 0:
        code, signal_number = None, -returncode
    elif command[0] == bwrap_path() and returncode > 128:  # bwrap reports a child killed by signal N as 128 + N
        code, signal_number = None, returncode - 128
    return SandboxResult(
        exit_code=code, signal=signal_number, timed_out=timed_out, output_limited=budget.exceeded.is_set(),
        process_limited=cgroups.hit("pids") or tasks_limited, memory_limited=cgroups.hit("memory"),
        duration_s=time.monotonic() - started, stdout=out.text(), stderr=err.text(), isolation=isolation,
        cancelled=cancelled, trace_log=log)


def _child_setup(limits: Limits, cgroups: RunCgroups, staged: list[tuple[str, str]],
                 identity: Identity) -> tuple[sandbox_launch.ChildSetup, int]:
    """Join the cgroups, set rlimits, stage the folders `nobody` cannot reach, then drop to the sandbox's identity;
    and the task count of this user at which RLIMIT_NPROC stops the run's forks (0 when a pids cgroup does)."""
    memory, size = limits.memory_mb * 1024 * 1024, limits.file_mb * 1024 * 1024
    rlimits = [("cpu", limits.cpu_s, limits.cpu_s + 1), ("data", memory, memory), ("fsize", size, size),
               ("core", 0, 0)]
    task_budget = 0
    if not cgroups.has("pids") and os.getuid() != 0:
        task_budget = _user_task_count() + limits.processes
        rlimits.append(("nproc", task_budget, task_budget))
    return sandbox_launch.ChildSetup(cgroups.procs_files, rlimits, staged, identity), task_budget


def _next_wake(deadline: float, next_count: float | None, cancel: threading.Event | None) -> float:
    """How long the supervisor may sleep: until the deadline or the next task count, and no longer than
    CANCEL_CHECK_S while a cancel event may be set (the process ending, the output budget or the trace log's
    limit wake it at once)."""
    timeout = min(deadline, next_count if next_count is not None else deadline) - time.monotonic()
    if cancel is not None:
        timeout = min(timeout, CANCEL_CHECK_S)
    return max(0.0, timeout)


def _give(path: Path, identity: Identity) -> None:
    if identity.switches:
        os.chown(path, identity.uid, identity.gid, follow_symlinks=False)


def _give_folders(folder: RunFolder, identity: Identity) -> None:
    """As root, the run folder (not its private part) belongs to the sandbox's user."""
    if not identity.switches:
        return
    _give(folder.base, identity)
    for top in (folder.program, folder.out):
        _give(top, identity)
        for parent, folders, files in os.walk(top):
            for name in folders + files:
                _give(Path(parent) / name, identity)


def _size_of(folder: Path) -> int:
    return sum(os.lstat(os.path.join(parent, name)).st_size
               for parent, _, files in os.walk(folder) for name in files)


def _user_task_count() -> int:
    """Processes and threads this user already runs: RLIMIT_NPROC counts them all."""
    uid = os.getuid()
    count = 0
    for entry in os.scandir("/proc"):
        if entry.name.isdigit():
            try:
                if entry.stat().st_uid == uid:
                    count += len(os.listdir(f"/proc/{entry.name}/task"))
            except OSError:
                continue
    return count


def _kill_tree(process: subprocess.Popen, cgroups: RunCgroups) -> None:
    """SIGKILL the process group and every task of the run's cgroups (those that left the group)."""
    for _ in range(50):
        try:
            os.killpg(process.pid, signal.SIGKILL)
        except (ProcessLookupError, PermissionError):
            pass
        cgroups.kill_all()
        try:
            process.wait(timeout=0.1)
            break
        except subprocess.TimeoutExpired:
            continue
    cgroups.kill_all()


class _OutputBudget:
    """The byte cap shared by stdout and stderr; `exceeded` is set once it is passed."""

    def __init__(self, cap: int, on_exceeded: Callable[[], None]):
        self.cap = cap
        self.total = 0
        self.exceeded = threading.Event()
        self._on_exceeded = on_exceeded
        self._lock = threading.Lock()

    def spend(self, size: int) -> None:
        with self._lock:
            self.total += size
            if self.total > self.cap and not self.exceeded.is_set():
                self.exceeded.set()
                self._on_exceeded()


class _StreamTail:
    """Drains one pipe in a thread, keeping its head and tail, charging the output budget."""

    def __init__(self, stream, keep: int, budget: _OutputBudget):
        self._stream = stream
        self._half = keep // 2
        self._budget = budget
        self._head = bytearray()
        self._tail = bytearray()
        self._total = 0
        self._thread = threading.Thread(target=self._drain, daemon=True)
        self._thread.start()

    def _drain(self) -> None:
        while chunk := self._stream.read1(65536):
            self._total += len(chunk)
            self._budget.spend(len(chunk))
            if len(self._head) < self._half:
                take = self._half - len(self._head)
                self._head += chunk[:take]
                chunk = chunk[take:]
            self._tail += chunk
            del self._tail[:-self._half]
        self._stream.close()

    def join(self) -> None:
        self._thread.join(timeout=5)

    def text(self) -> str:
        head = self._head.decode("utf-8", "replace")
        tail = self._tail.decode("utf-8", "replace")
        skipped = self._total - len(self._head) - len(self._tail)
        if skipped > 0:
            return f"{head}\n[... {skipped} bytes not kept ...]\n{tail}"
        return head + tail

