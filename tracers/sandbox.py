"""Run untrusted program code in a child process that cannot hang or harm the machine.

One runner for every tracer. The program always runs on a temporary copy of its folder
(`program_copy`), with:
- a wall-clock timeout, then the whole process tree is killed (killed at once, too, when the
  caller sets its cancel event);
- resource limits: CPU seconds, data memory, file size, and a process/thread budget
  (a pids cgroup when one can be created, else RLIMIT_NPROC, which the kernel ignores for root);
- a scrubbed environment built from scratch: nothing of ours (API keys, tokens) reaches it;
- empty stdin; stdout/stderr read concurrently, only head and tail kept, killed past a cap;
- with bubblewrap (`bwrap`, Debian package `bubblewrap`): new network, PID, IPC and UTS
  namespaces (network cut), the host file system read-only, a private /tmp, and only the
  program copy and the tracer's output folder writable; the namespace dies with its parent.
  Without bwrap the limits above still hold, and the run says that it was not isolated.
"""
from __future__ import annotations

import os
import resource
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
import uuid
from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from functools import cache
from pathlib import Path

BASE_PATH = "/usr/local/bin:/usr/bin:/bin"


@dataclass(frozen=True)
class Limits:
    wall_s: float = 30.0
    cpu_s: int = 60
    memory_mb: int = 2048  # RLIMIT_DATA: heap and private writable mappings
    file_mb: int = 64  # largest file the program may write
    processes: int = 256  # processes and threads, the JVM's own included
    output_bytes: int = 8 * 1024 * 1024  # stdout + stderr; more kills the program
    tail_bytes: int = 4000  # kept of each stream for the run record


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
    isolation: str  # human description of what isolated the run
    cancelled: bool = False  # the caller's cancel event stopped it (the tree was killed: see `signal`)

    @property
    def limit_reason(self) -> str | None:
        """Which limit ended the run, in words, or None."""
        if self.process_limited:
            return "process limit"
        if self.output_limited:
            return "output size limit"
        if self.timed_out:
            return "wall-clock time limit"
        if self.signal == signal.SIGXCPU:
            return "CPU time limit"
        if self.signal == signal.SIGXFSZ:
            return "file size limit"
        return None


def bwrap_path() -> str | None:
    return shutil.which("bwrap")


def isolation_report() -> list[tuple[str, bool, str]]:
    """(component, works, detail) for `traceeval doctor`: bubblewrap and the process budget."""
    bwrap = bwrap_path()
    if bwrap is None:
        sandbox = ("sandbox", False, ("bwrap not found: programs run with limits only, network and files "
                                      "reachable (install the Debian package bubblewrap)"))
    else:
        with tempfile.TemporaryDirectory() as folder:
            result = run_sandboxed(["/bin/true"], Path(folder), limits=Limits(wall_s=10))
        works = result.exit_code == 0
        sandbox = ("sandbox", works, f"{bwrap}: network cut, host read-only, private /tmp" if works else
                   f"{bwrap} cannot create namespaces here: {result.stderr.strip()[:200]}")
    cgroup = _PidsCgroup.create(Limits().processes)
    if cgroup:
        cgroup.remove()
        budget = ("process limit", True, "a pids cgroup per run")
    elif os.getuid() == 0:
        budget = ("process limit", False, ("running as root without a writable pids cgroup: RLIMIT_NPROC does "
                                           "not apply to root, fork bombs are stopped only by the time limit"))
    else:
        budget = ("process limit", True, "RLIMIT_NPROC (this user's tasks + the budget)")
    return [sandbox, budget]


@contextmanager
def program_copy(source: Path) -> Iterator[Path]:
    """A private, writable copy of a program folder, removed afterwards.

    The copy lives under a fresh temporary folder (`<tmp>/program`), so a tracer can put its
    own output next to it (`<tmp>/out`) without the program's files being mixed in.
    """
    base = Path(tempfile.mkdtemp(prefix="traceeval-run-"))
    try:
        target = base / "program"
        shutil.copytree(source, target, symlinks=False, ignore_dangling_symlinks=True)
        (base / "out").mkdir()
        yield target
    finally:
        shutil.rmtree(base, ignore_errors=True)


def scrubbed_environment(extra: Mapping[str, str], home: Path) -> dict[str, str]:
    """A minimal environment: PATH, locale, HOME in the program copy, plus the tracer's own."""
    env = {"PATH": BASE_PATH, "LANG": "C.UTF-8", "LC_ALL": "C.UTF-8", "HOME": str(home),
           "TMPDIR": "/tmp", "PYTHONDONTWRITEBYTECODE": "1", "PYTHONIOENCODING": "utf-8"}
    env.update(extra)
    return env


def run_sandboxed(argv: Sequence[str], cwd: Path, *, env: Mapping[str, str] = {},
                  writable: Sequence[Path] = (), limits: Limits = Limits(),
                  cancel: threading.Event | None = None) -> SandboxResult:
    """Run `argv` in `cwd` (the program copy, always writable) under `limits`.

    `env` is added to the scrubbed environment; `writable` are more folders the child may
    write (the tracer's output folder). Setting `cancel` kills the whole process tree within
    a few hundredths of a second (the result says `cancelled`). Returns when the whole process
    tree is gone.
    """
    full_env = scrubbed_environment(env, cwd)
    bwrap = bwrap_path()
    cgroup = _PidsCgroup.create(limits.processes)
    if bwrap:
        command = [bwrap, *_bwrap_options(argv, cwd, writable), "--", *argv]
        isolation = "bwrap: network cut, host read-only, private /tmp"
    else:
        command = list(argv)
        isolation = "not isolated (bwrap not found): limits only, network and files reachable"
    started = time.monotonic()
    process = subprocess.Popen(
        command, cwd=cwd, env=full_env, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
        stderr=subprocess.PIPE, start_new_session=True,
        preexec_fn=_limit_child(limits, cgroup))  # noqa: PLW1509 (rlimits + cgroup must be set before exec)
    budget = _OutputBudget(limits.output_bytes)
    out = _StreamTail(process.stdout, limits.tail_bytes, budget)
    err = _StreamTail(process.stderr, limits.tail_bytes, budget)
    timed_out = cancelled = False
    try:
        deadline = started + limits.wall_s
        while process.poll() is None:
            if budget.exceeded.is_set():
                break
            if cancel is not None and cancel.is_set():
                cancelled = True
                break
            if time.monotonic() >= deadline:
                timed_out = True
                break
            budget.exceeded.wait(0.01)
    finally:
        _kill_tree(process, cgroup)
        out.join()
        err.join()
        process_limited = bool(cgroup and cgroup.hit_limit())
        if cgroup:
            cgroup.remove()
    code, signal_number = process.returncode, None
    if code < 0:
        code, signal_number = None, -code
    elif bwrap and code > 128:  # bwrap reports a child killed by signal N as exit 128 + N
        code, signal_number = None, code - 128
    return SandboxResult(
        exit_code=code, signal=signal_number,
        timed_out=timed_out, output_limited=budget.exceeded.is_set(), process_limited=process_limited,
        duration_s=time.monotonic() - started, stdout=out.text(), stderr=err.text(), isolation=isolation,
        cancelled=cancelled)


def _bwrap_options(argv: Sequence[str], cwd: Path, writable: Sequence[Path]) -> list[str]:
    options = ["--ro-bind", "/", "/", "--dev", "/dev", "--proc", "/proc", "--tmpfs", "/tmp",
               "--unshare-all", "--die-with-parent", "--new-session"]
    for path in _hidden_by_private_tmp(argv):
        options += ["--ro-bind", str(path), str(path)]
    for folder in (cwd, *writable):
        options += ["--bind", str(folder), str(folder)]
    return options + ["--chdir", str(cwd)]


def _hidden_by_private_tmp(argv: Sequence[str]) -> list[Path]:
    """Host paths the child needs that the private /tmp would hide, to show again read-only:
    our own code and interpreter (a checkout or virtualenv under /tmp, as in CI) and the absolute
    paths named in `argv` (also inside options such as `-javaagent:/tmp/x/agent.jar`)."""
    candidates = [Path(__file__).resolve().parents[1], Path(sys.prefix), Path(sys.base_prefix),
                  Path(os.path.realpath(sys.executable)).parent]
    for arg in argv:
        for part in arg.replace("=", ":").split(":"):
            if part.startswith("/") and os.path.exists(part):
                candidates.append(Path(part))
    tmp = Path("/tmp")
    hidden = sorted({c for c in candidates if c != tmp and c.is_relative_to(tmp)})
    return [path for path in hidden if not any(path != other and path.is_relative_to(other) for other in hidden)]


def _limit_child(limits: Limits, cgroup: _PidsCgroup | None):
    """Runs in the child between fork and exec: join the cgroup first, then set rlimits."""
    procs = str(cgroup.path / "cgroup.procs") if cgroup else None
    task_budget = None if cgroup else _user_task_count() + limits.processes

    def apply() -> None:
        if procs:
            with open(procs, "w") as handle:
                handle.write(str(os.getpid()))
        resource.setrlimit(resource.RLIMIT_CPU, (limits.cpu_s, limits.cpu_s + 1))
        memory = limits.memory_mb * 1024 * 1024
        resource.setrlimit(resource.RLIMIT_DATA, (memory, memory))
        size = limits.file_mb * 1024 * 1024
        resource.setrlimit(resource.RLIMIT_FSIZE, (size, size))
        resource.setrlimit(resource.RLIMIT_CORE, (0, 0))
        if task_budget is not None:
            resource.setrlimit(resource.RLIMIT_NPROC, (task_budget, task_budget))
    return apply


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


def _kill_tree(process: subprocess.Popen, cgroup: _PidsCgroup | None) -> None:
    """SIGKILL the process group (and, with a cgroup, every task that left it)."""
    for _ in range(50):
        try:
            os.killpg(process.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
        if cgroup:
            cgroup.kill_all()
        try:
            process.wait(timeout=0.1)
            break
        except subprocess.TimeoutExpired:
            continue
    if cgroup:
        cgroup.kill_all()


class _OutputBudget:
    """The byte cap shared by stdout and stderr; `exceeded` is set once it is passed."""

    def __init__(self, cap: int):
        self.cap = cap
        self.total = 0
        self.exceeded = threading.Event()
        self._lock = threading.Lock()

    def spend(self, size: int) -> None:
        with self._lock:
            self.total += size
            if self.total > self.cap:
                self.exceeded.set()


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


class _PidsCgroup:
    """A pids cgroup (v2 delegated subtree or v1 pids hierarchy) capping one run's tasks."""

    def __init__(self, path: Path):
        self.path = path

    @classmethod
    def create(cls, limit: int) -> _PidsCgroup | None:
        for parent in _pids_cgroup_parents():
            path = parent / f"traceeval-{uuid.uuid4().hex[:12]}"
            try:
                path.mkdir()
            except OSError:
                continue
            try:
                (path / "pids.max").write_text(str(limit))
                return cls(path)
            except OSError:
                path.rmdir()
        return None

    def pids(self) -> list[int]:
        try:
            return [int(p) for p in (self.path / "cgroup.procs").read_text().split()]
        except OSError:
            return []

    def kill_all(self) -> None:
        for pid in self.pids():
            try:
                os.kill(pid, signal.SIGKILL)
            except ProcessLookupError:
                pass

    def hit_limit(self) -> bool:
        try:
            events = (self.path / "pids.events").read_text()
        except OSError:
            return False
        return any(line.split()[-1] != "0" for line in events.splitlines() if line.startswith("max"))

    def remove(self) -> None:
        for _ in range(50):
            try:
                self.path.rmdir()
                return
            except OSError:
                self.kill_all()
                time.sleep(0.02)


@cache
def _pids_cgroup_parents() -> list[Path]:
    """Where this process may create a pids cgroup: its own cgroup v2 folder (when delegated
    to us) or its place in a cgroup v1 pids hierarchy. Creating one is tried, never assumed."""
    candidates = []
    try:
        for line in Path("/proc/self/cgroup").read_text().splitlines():
            hierarchy, controllers, path = line.split(":", 2)
            if hierarchy == "0" and Path("/sys/fs/cgroup/cgroup.controllers").exists():
                candidates.append(Path("/sys/fs/cgroup") / path.lstrip("/"))
            elif "pids" in controllers.split(","):
                candidates.append(Path("/sys/fs/cgroup/pids") / path.lstrip("/"))
    except OSError:
        return []
    return [c for c in candidates if c.is_dir() and os.access(c, os.W_OK)]
