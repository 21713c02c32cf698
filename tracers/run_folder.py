"""The temporary folder of one run, and the safe copy of the program that goes into it.

    traceeval-run-<pid>-<random>/   (mode 0700; owned by the sandbox's user when we are root)
        program/   the copy of the program folder: what the sandbox shows, read-only, and copies
                   into the program's own size-limited folder before the program starts
        out/       the tracer's inputs for the run (Java's classes and plan), read-only inside
        private/   never shown to the program: a file it writes for us (a static analyzer's output),
                   opened here by the parent and handed to it as an inherited descriptor it cannot replace
        log/       the run's trace log pipe and key socket (`trace_channel`), shown read-only: no file

Copying never follows a link out of the program folder, never opens a FIFO, device or socket,
leaves out files past a size bound and stops at a file-count bound; each refusal is a one-line
note kept with the run.
Folders of processes that are gone (an app killed mid-run) are removed at the next start.
"""
from __future__ import annotations

import os
import shutil
import stat
import tempfile
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path

from core.errors import TracerError
from tracers import sandbox_cgroups
from tracers.sandbox_cgroups import process_alive
from tracers.sandbox_view import reachable_by_others, sandbox_identity

PREFIX = "traceeval-run-"
COPY_BYTES = 64 * 1024 * 1024  # a TraceEval program is a few KiB; its whole folder rarely a MiB
COPY_FILES = 20_000


@dataclass
class RunFolder:
    base: Path
    notes: list[str] = field(default_factory=list)  # what the copy refused, one line each

    @property
    def program(self) -> Path:
        return self.base / "program"

    @property
    def out(self) -> Path:
        return self.base / "out"

    @property
    def private(self) -> Path:
        return self.base / "private"


@contextmanager
def run_folder(source: Path, *, max_bytes: int = COPY_BYTES, max_files: int = COPY_FILES) -> Iterator[RunFolder]:
    """A fresh run folder holding a safe copy of `source`, removed afterwards."""
    _remove_leftovers_once()
    base = Path(tempfile.mkdtemp(prefix=f"{PREFIX}{os.getpid()}-{uuid.uuid4().hex[:6]}-", dir=runs_parent()))
    folder = RunFolder(base)
    try:
        folder.program.mkdir()
        folder.out.mkdir()
        folder.private.mkdir(mode=0o700)
        _Copy(source, folder.program, max_bytes, max_files, folder.notes).run()
        yield folder
    finally:
        shutil.rmtree(base, ignore_errors=True)


class _Copy:
    def __init__(self, source: Path, target: Path, max_bytes: int, max_files: int, notes: list[str]):
        self.root = Path(os.path.realpath(source))
        self.target = target
        self.bytes_left = max_bytes
        self.files_left = max_files
        self.max_bytes = max_bytes
        self.max_files = max_files
        self.notes = notes
        self.stopped = False

    def run(self) -> None:
        self._folder(self.root, self.target)

    def _note(self, relative: str, problem: str) -> None:
        self.notes.append(f"{relative}: {problem}")

    def _folder(self, folder: Path, target: Path) -> None:
        try:
            entries = sorted(os.scandir(folder), key=lambda entry: entry.name)
        except OSError as error:
            self._note(self._relative(folder) or ".", f"not copied: {error.strerror}")
            return
        for entry in entries:
            if self.stopped:
                return
            relative = self._relative(Path(entry.path))
            try:
                mode = entry.stat(follow_symlinks=False).st_mode
            except OSError as error:
                self._note(relative, f"not copied: {error.strerror}")
                continue
            if stat.S_ISLNK(mode):
                self._link(Path(entry.path), target / entry.name, relative)
            elif stat.S_ISDIR(mode):
                (target / entry.name).mkdir()
                self._folder(Path(entry.path), target / entry.name)
            elif stat.S_ISREG(mode):
                self._file(Path(entry.path), target / entry.name, relative)
            else:
                self._note(relative, f"not copied: a {_kind(mode)}, not a regular file")

    def _link(self, link: Path, target: Path, relative: str) -> None:
        """Links that stay inside the program folder are kept as links; others are not followed."""
        resolved = Path(os.path.realpath(link))
        if resolved != self.root and not resolved.is_relative_to(self.root):
            self._note(relative, f"not copied: a link to {os.readlink(link)}, outside the program folder")
            return
        if not resolved.exists():
            self._note(relative, "not copied: a broken link")
            return
        os.symlink(os.path.relpath(self.target / resolved.relative_to(self.root), target.parent), target)

    def _file(self, path: Path, target: Path, relative: str) -> None:
        if self.files_left <= 0:
            self._stop(f"more than {self.max_files:,} files")
            return
        try:
            source = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK)
        except OSError as error:
            self._note(relative, f"not copied: {error.strerror}")
            return
        try:
            info = os.fstat(source)
            if not stat.S_ISREG(info.st_mode):  # replaced between the listing and the open
                self._note(relative, f"not copied: a {_kind(info.st_mode)}, not a regular file")
                return
            if info.st_size > self.bytes_left:
                self._note(relative, f"not copied: {info.st_size:,} bytes would take the copy over "
                                     f"{self.max_bytes // 2**20} MiB")
                return
            with open(target, "wb") as out:
                left = info.st_size  # never more than the size seen: a file that grows is cut
                while left > 0 and (chunk := os.read(source, min(1 << 20, left))):
                    out.write(chunk)
                    left -= len(chunk)
            os.chmod(target, stat.S_IMODE(info.st_mode) & 0o755 | 0o600)
            self.bytes_left -= info.st_size
            self.files_left -= 1
        finally:
            os.close(source)

    def _stop(self, reason: str) -> None:
        self.stopped = True
        self.notes.append(f"the program folder has {reason}: the copy stopped there, the rest is not there")

    def _relative(self, path: Path) -> str:
        return str(path.relative_to(self.root)) if path != self.root else ""


def _kind(mode: int) -> str:
    if stat.S_ISFIFO(mode):
        return "FIFO"
    if stat.S_ISSOCK(mode):
        return "socket"
    if stat.S_ISCHR(mode) or stat.S_ISBLK(mode):
        return "device"
    return "special file"


@cache
def _remove_leftovers_once() -> None:
    remove_leftovers()


def runs_parent() -> Path:
    """Where run folders go: the temporary folder, unless the sandbox's user (`nobody`, when we are root) cannot
    pass through it, as with a private `$TMPDIR` (pam_tmpdir's /tmp/user/0, `mktemp -d`): then /tmp."""
    chosen = Path(tempfile.gettempdir())
    if not sandbox_identity().switches or reachable_by_others(chosen):
        return chosen
    if reachable_by_others(Path("/tmp")):
        return Path("/tmp")
    raise TracerError(f"the temporary folder {chosen} (and /tmp) cannot be reached by the sandbox's user "
                      f"{sandbox_identity().uid}: set TMPDIR to a folder others may pass through")


def remove_leftovers() -> list[Path]:
    """Remove the run folders and cgroups of processes that are gone; returns them."""
    removed = []
    parents = dict.fromkeys((Path(tempfile.gettempdir()), Path("/tmp")))
    for entry in (entry for parent in parents for entry in parent.glob(f"{PREFIX}*")):
        owner = entry.name[len(PREFIX):].partition("-")[0]
        if owner.isdigit() and not process_alive(int(owner)) and entry.is_dir() and not entry.is_symlink():
            shutil.rmtree(entry, ignore_errors=True)
            removed.append(entry)
    return removed + sandbox_cgroups.remove_leftovers()
