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
