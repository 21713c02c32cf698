"""Helpers of the sandbox attack tests: write a hostile program and trace it with the real tracers."""
from __future__ import annotations

import os
import shutil
import tempfile
from pathlib import Path

import pytest

from core.dataset.layout import load_program
from core.traces import TraceRun
from tracers import trace_instance
from tracers.base import TraceOptions
from tracers.sandbox import Limits, bwrap_problem
from tracers.sandbox_cgroups import RunCgroups

needs_sandbox = pytest.mark.skipif(bool(bwrap_problem()), reason=f"no sandbox here: {bwrap_problem()}")


def cgroups_here() -> set[str]:
    """The run cgroups this user can make here ("pids", "memory"): root can; `nobody` on cgroup v1 cannot."""
    groups = RunCgroups.create(8, 64)
    try:
        return {name for name in ("pids", "memory") if groups.has(name)}
    finally:
        groups.remove()


needs_memory_cgroup = pytest.mark.skipif("memory" not in cgroups_here(),
                                         reason="no memory cgroup for this user (doctor says so; runs need "
                                                "TRACEEVAL_SANDBOX_ALLOW=memory)")
ENTRY = {"python": "main.py", "javascript": "main.js", "java": "Main.java"}


def program(folder: Path, language: str, source: str) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    (folder / ENTRY[language]).write_text(source, encoding="utf-8")
    return folder


def trace(folder: Path, language: str, **limits) -> TraceRun:
    instance, _ = load_program(folder, language, [], require_ground_truth=False)
    return trace_instance(instance, TraceOptions(Limits(**{"wall_s": 20, **limits})))


def java_main(body: str) -> str:
    return ("import java.io.*;\nimport java.nio.file.*;\n"
            "public class Main {\n    public static void main(String[] args) throws Exception {\n"
            f"{body}\n    }}\n}}\n")


class HostCanary:
    """A secret file on the host, outside /tmp (which the sandbox replaces anyway)."""

    def __init__(self, folder: Path, name: str = "id_ed25519"):
        self.folder = folder
        self.path = folder / name
        self.text = f"canary-{os.getpid()}-{name}"

    def __enter__(self) -> HostCanary:
        self._made = next((folder for folder in (*reversed(self.folder.parents), self.folder) if not folder.exists()),
                          self.folder)  # the outermost folder made here: removed with everything in it
        self.folder.mkdir(parents=True, exist_ok=True)
        self.path.write_text(self.text)
        self.path.chmod(0o600)
        return self

    def __exit__(self, *exc) -> None:
        shutil.rmtree(self._made, ignore_errors=True)


def processes_running(marker: str) -> bool:
    """Whether a process (not pytest) whose command line holds `marker` is running."""
    for entry in os.scandir("/proc"):
        if entry.name.isdigit():
            try:
                cmdline = Path(f"/proc/{entry.name}/cmdline").read_bytes()
            except OSError:
                continue
            if marker.encode() in cmdline and b"pytest" not in cmdline:
                return True
    return False


def world_readable_folder() -> Path:
    """A fresh folder an unprivileged user can read (pytest's tmp_path is 0700 root)."""
    folder = Path(tempfile.mkdtemp(prefix="traceeval-security-"))
    folder.chmod(0o755)
    return folder


def run_cli_measured(argv: list[str], cwd: Path, stderr_file: Path, timeout_s: float = 600) -> tuple[int, float, float]:
    """`traceeval ARGV` in a child process, its stdout discarded and stderr written to `stderr_file`: (exit status,
    wall seconds, the command's peak RSS in MB: its VmHWM, read every 20 ms; the kernel's rusage would count this
    test process's memory too, inherited through vfork)."""
    import signal
    import subprocess
    import sys
    import threading
    import time

    started = time.monotonic()
    with open(stderr_file, "wb") as err:
        child = subprocess.Popen([sys.executable, "-m", "traceeval_gui.cli.main", *argv], cwd=cwd,
                                 stdout=subprocess.DEVNULL, stderr=err)
        killer = threading.Timer(timeout_s, os.kill, (child.pid, signal.SIGKILL))
        killer.start()
        peak_kib = 0
        try:
            while child.poll() is None:
                try:
                    status = Path(f"/proc/{child.pid}/status").read_text()
                    peak_kib = max(peak_kib, int(status.split("VmHWM:")[1].split()[0]))
                except (OSError, IndexError, ValueError):
                    pass
                time.sleep(0.02)
        finally:
            killer.cancel()
    return child.returncode, time.monotonic() - started, peak_kib / 1024


def log_descriptors() -> str:
    """Python source that finds the program's trace log descriptors (the pipe it inherited its writer of)."""
    return ("import os\n"
            "def log_descriptors():\n"
            "    found = []\n"
            "    for name in os.listdir('/proc/self/fd'):\n"
            "        try:\n"
            "            if 'traceeval-log' in os.readlink(f'/proc/self/fd/{name}'):\n"
            "                found.append(int(name))\n"
            "        except OSError:\n"
            "            pass\n"
            "    return found\n")
