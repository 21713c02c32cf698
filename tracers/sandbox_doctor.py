"""`traceeval doctor`'s sandbox rows: each property proved by a probe program run in the sandbox.

The probes (`sandbox_probe.py`) try what an attacker would: remount, write the host, nest a
namespace, trace, read the home folder and our credentials, reach host sockets and the network,
fill /tmp, fork past the budget. A second program maps shared memory past the memory limit and
must be killed for it. The host side here sets up what they aim at (sockets, a port).
"""
from __future__ import annotations

import json
import os
import socket
import tempfile
import threading
import uuid
from pathlib import Path

from core.user_folders import config_dir
from tracers import sandbox_launch
from tracers.python_interpreter import InterpreterProblem, find_interpreter
from tracers.run_folder import run_folder
from tracers.sandbox import ALLOW_ENV, WEAKNESSES, Limits, SandboxResult, allowed_weaknesses, run_sandboxed, weaknesses
from tracers.sandbox_cgroups import RunCgroups
from tracers.sandbox_view import install_root

PROBE = Path(__file__).with_name("sandbox_probe.py")
PROBE_LIMITS = Limits(wall_s=60, memory_mb=256, tmp_mb=32, shm_mb=16, write_mb=16, processes=32)
PROBE_COUNT = 8  # rows the probe program prints when it runs to the end
Row = tuple[str, bool, str]


def sandbox_report() -> list[Row]:
    """(property, held, detail) rows; a property the machine lacks says whether runs may go ahead."""
    rows = _machine_rows()
    try:
        python = find_interpreter().path
    except InterpreterProblem as problem:
        return [*rows, ("sandbox probes", False, f"not run: {problem}")]
    shown = [*install_root(python), PROBE]
    with _HostTargets() as targets:
        spec = {"hidden": targets.hidden, "shown": [str(path) for path in shown],
                "abstract_socket": targets.abstract_name, "unix_socket": targets.socket_path,
                "tcp_port": targets.port, "tmp_mb": PROBE_LIMITS.tmp_mb, "processes": PROBE_LIMITS.processes}
        with _HostIds(targets.abstract_name) as ids:
            result = _run([python, "-I", str(PROBE), json.dumps(spec)], shown)
    rows += _probe_rows(result)
    rows.append(ids.row())
    rows.append(_shared_memory_row(python))
    return rows


def _machine_rows() -> list[Row]:
    cgroups = RunCgroups.create(PROBE_LIMITS.processes, PROBE_LIMITS.memory_mb)
    try:
        lacking = weaknesses(cgroups)
    finally:
        cgroups.remove()
    allowed = allowed_weaknesses()
    if not lacking:
        return [("sandbox", True, "bubblewrap, seccomp, memory and pids cgroups all available")]
    return [(f"sandbox: {name}", False, f"{detail} (" + (f"runs go ahead: allowed by {ALLOW_ENV}" if name in allowed
             else f"runs refuse unless {ALLOW_ENV}={name}") + ")") for name, detail in lacking.items()]


def _run(argv: list[str], read_only: list[Path], limits: Limits = PROBE_LIMITS) -> SandboxResult:
    with tempfile.TemporaryDirectory(prefix="traceeval-probe-") as empty, run_folder(Path(empty)) as folder:
        return run_sandboxed(argv, folder, read_only=read_only, limits=limits, allowed=set(WEAKNESSES))


def _probe_rows(result: SandboxResult) -> list[Row]:
    if result.refused:
        return [("sandbox probes", False, f"not run: {result.refused}")]
    rows = []
    for line in result.stdout.splitlines():
        try:
            name, held, detail = json.loads(line)
            rows.append((f"sandbox: {name}", bool(held), str(detail)))
        except (ValueError, TypeError):
            continue
    if len(rows) < PROBE_COUNT:
        rows.append(("sandbox probes", False, f"the probe program stopped early: {result.stderr.strip()[-300:]}"))
    return rows


def _shared_memory_row(python: str) -> Row:
    """Shared anonymous memory (not counted by RLIMIT_DATA) past the limit must get the run killed."""
    size = PROBE_LIMITS.memory_mb * 2
    code = ("import mmap\n"
            f"m = mmap.mmap(-1, {size} << 20, flags=mmap.MAP_SHARED)\n"
            f"for i in range(0, {size} << 20, 4096): m[i] = 1\n"
            "print('mapped')\n")
    result = _run([python, "-I", "-c", code], install_root(python), PROBE_LIMITS)
    if result.refused:
        return ("sandbox: memory limit", False, f"not run: {result.refused}")
    held = result.limit_reason == "memory limit"
    detail = (f"{size} MiB of shared memory over a {PROBE_LIMITS.memory_mb} MiB limit: "
              + ("killed by the memory cgroup" if held else
                 f"not stopped ({'completed' if 'mapped' in result.stdout else result.limit_reason or 'ended'})"))
    return ("sandbox: memory limit", held, detail)


class _HostIds:
    """Watches, from the host, which user ids the probe's processes run as."""

    def __init__(self, marker: str):
        self._marker = marker.encode()
        self._done = threading.Event()
        self.ids: set[int] = set()
        self._thread = threading.Thread(target=self._watch, daemon=True)

    def __enter__(self) -> _HostIds:
        self._thread.start()
        return self

    def __exit__(self, *exc) -> None:
        self._done.set()
        self._thread.join()

    def _watch(self) -> None:
        # The launcher carries the probe's command line while it sets the run up as us, before it drops to the
        # sandbox's id and execs bubblewrap (sandbox_launch): it is not one of the probe's processes.
        launcher = (sandbox_launch.launcher_path() or "").encode()
        while not self._done.wait(0.02):
            for entry in os.scandir("/proc"):
                try:
                    command = Path(entry.path, "cmdline").read_bytes()
                    if entry.name.isdigit() and self._marker in command and command.split(b"\0")[0] != launcher:
                        real = Path(entry.path, "status").read_text().split("Uid:")[1].split()[0]
                        self.ids.add(int(real))
                except (OSError, IndexError, ValueError):
                    continue

    def row(self) -> Row:
        if not self.ids:
            return ("sandbox: unprivileged id", False, "the probe's processes were not seen from the host")
        names = ", ".join(map(str, sorted(self.ids)))
        return ("sandbox: unprivileged id", 0 not in self.ids, f"the probe ran as host uid {names}")


class _HostTargets:
    """What the probes try to reach: the home folder and credentials, /root, /run, this folder,
    an abstract and a file unix socket, and a TCP port on 127.0.0.1, all on the host."""

    def __enter__(self) -> _HostTargets:
        self._folder = tempfile.TemporaryDirectory(prefix="traceeval-doctor-")
        self.socket_path = os.path.join(self._folder.name, "host.sock")
        self.abstract_name = f"traceeval-doctor-{uuid.uuid4().hex[:8]}"
        self._listeners = []
        for family, address in ((socket.AF_UNIX, self.socket_path), (socket.AF_UNIX, "\0" + self.abstract_name),
                                (socket.AF_INET, ("127.0.0.1", 0))):
            listener = socket.socket(family, socket.SOCK_STREAM)
            listener.bind(address)
            listener.listen(1)
            self._listeners.append(listener)
        self.port = self._listeners[-1].getsockname()[1]
        home = os.path.expanduser("~")
        own = {"/", "/tmp", "/dev", "/dev/shm", "/proc"}  # the sandbox has its own of these (a doctor run from /tmp)
        self.hidden = sorted({home, str(config_dir()), "/root", "/home", "/run", "/var", "/sys", os.getcwd()} - own)
        return self

    def __exit__(self, *exc) -> None:
        for listener in self._listeners:
            listener.close()
        self._folder.cleanup()
