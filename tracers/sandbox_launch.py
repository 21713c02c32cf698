"""How a sandboxed run's first process starts: in its cgroups, under its rlimits, staged, as its user.

Every step happens in the child before the sandbox command (bubblewrap) runs, so no process of the run
exists outside its cgroups even for an instant (a fork bomb meets the pids limit from the first fork).
The steps are done by the small C launcher `traceeval-launch` built beside this package
(`sandbox_launcher.c`, linked by `setup.py`), which subprocess starts with vfork: a Python `preexec_fn`
would force it to fork the whole parent and run Python in the child, about 12 ms a run. Without the
launcher (no C compiler at install) the same steps run in a `preexec_fn`, the launcher's behaviour
exactly, slower.
"""
from __future__ import annotations

import os
import resource
import subprocess
from collections.abc import Sequence
from dataclasses import dataclass
from functools import cache
from pathlib import Path

from tracers.sandbox_view import Identity, die_with_parent, drop_to, enter_staged

LAUNCHER_NAME = "traceeval-launch"  # setup.py links it under this name
_ERROR_BYTES = 4096  # the launcher writes one short line when a step fails


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

    def launcher_options(self) -> list[str]:
        options = []
        for path in self.procs_files:
            options += ["-j", path]
        for name, soft, hard in self.rlimits:
            options += ["-r", name, str(soft), str(hard)]
        for source, stage in self.staged:
            options += ["-s", source, stage]
        if self.identity.switches:
            options += ["-u", str(self.identity.uid), str(self.identity.gid)]
        return [*options, "-d"]

    def apply_here(self) -> None:
        """The launcher's steps in Python, between fork and exec (the fallback)."""
        for path in self.procs_files:
            with open(path, "w") as handle:
                handle.write(str(os.getpid()))
        for name, soft, hard in self.rlimits:
            resource.setrlimit(getattr(resource, f"RLIMIT_{name.upper()}"), (soft, hard))
        enter_staged(self.staged)
        drop_to(self.identity)
        die_with_parent()


def start(command: Sequence[str], setup: ChildSetup, *, pass_fds: Sequence[int], **popen) -> subprocess.Popen:
    """Popen(command) with `setup` done first in the child; raises subprocess.SubprocessError (with the
    launcher's reason) when a step failed, in which case nothing of `command` ran."""
    launcher = launcher_path()
    if launcher is None:
        return subprocess.Popen(command, pass_fds=pass_fds, preexec_fn=setup.apply_here, **popen)  # noqa: PLW1509
    errors, report = os.pipe()
    try:
        process = subprocess.Popen([launcher, "-e", str(report), *setup.launcher_options(), "--", *command],
                                   pass_fds=(*pass_fds, report), **popen)
    finally:
        os.close(report)
    try:
        message = _read_until_exec(errors)
    finally:
        os.close(errors)
    if message:
        process.wait()
        raise subprocess.SubprocessError(f"the sandbox launcher could not start the run: {message}")
    return process


def _read_until_exec(fd: int) -> str:
    """What the launcher reported; '' at end-of-file, when its exec closed the descriptor."""
    chunks: list[bytes] = []
    size = 0
    while size < _ERROR_BYTES and (chunk := os.read(fd, _ERROR_BYTES - size)):
        chunks.append(chunk)
        size += len(chunk)
    return b"".join(chunks).decode("utf-8", "replace").strip()
