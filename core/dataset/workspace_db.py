"""The one way this project opens a SQLite file: the files several processes share (a workspace, the answer cache),
and the private copy of a workspace file being merged (`connect_private_copy`).

The window and any number of `traceeval` processes use one workspace at once, so every connection:
- waits for a lock another process holds (a busy timeout, `$TRACEEVAL_LOCK_WAIT_S`, 60 s by default);
- begins every write transaction IMMEDIATE: in WAL mode a transaction that first reads and then writes
  gets SQLITE_BUSY at once, without waiting, when another process wrote in between;
- retries, until the same deadline, a statement that starts a transaction and still finds the database
  busy (nothing of it has happened yet, so running it again is safe);
- turns a lock that does not clear in time into `WorkspaceBusyError`: one line naming the file.

SQLite also drops all of a process's POSIX locks on the file when the process closes any descriptor of it,
after which another process may checkpoint and delete the WAL under this one's live connection. So
nothing may open these files except through a connection made here (`core.safe_files.in_use_by_sqlite` tells
them apart; see traceeval_gui/widgets/file_dialogs.py).
"""
from __future__ import annotations

import contextlib
import importlib
import os
import sqlite3
import sys
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import TypeVar

from core.errors import WorkspaceError


def _load_sqlite_utils_without_pandas() -> None:
    """sqlite_utils imports pandas when it is installed (the frames extra) only to map `pandas.Timestamp` values,
    which a workspace never stores: about 0.5 s of every start, before the first workspace opens. pandas is hidden
    while sqlite_utils loads (`import pandas` fails meanwhile, in any thread), unless something imported it already."""
    if "sqlite_utils.db" in sys.modules or "pandas" in sys.modules:
        return
    sys.modules["pandas"] = None  # type: ignore[assignment]  # makes `import pandas` raise ImportError
    try:
        importlib.import_module("sqlite_utils")
    finally:
        if "pandas" in sys.modules and sys.modules["pandas"] is None:
            del sys.modules["pandas"]


_load_sqlite_utils_without_pandas()
from sqlite_utils import Database  # noqa: E402  # after the loader above

LOCK_WAIT_ENV = "TRACEEVAL_LOCK_WAIT_S"
DEFAULT_LOCK_WAIT_S = 60.0
RETRY_PAUSE_S = 0.05
BUSY_CODES = (sqlite3.SQLITE_BUSY, sqlite3.SQLITE_LOCKED)

T = TypeVar("T")


class WorkspaceBusyError(WorkspaceError, sqlite3.OperationalError):
    """Another process kept the file locked for longer than a connection waits. Both a `WorkspaceError` (the
    CLI prints it as one line) and a `sqlite3.OperationalError` (code that expects SQLite's errors catches it)."""


def lock_wait_s() -> float:
    """How long a connection waits for another process's lock."""
    try:
        return max(0.0, float(os.environ[LOCK_WAIT_ENV]))
    except (KeyError, ValueError):
        return DEFAULT_LOCK_WAIT_S


def is_busy(error: BaseException) -> bool:
    return isinstance(error, sqlite3.OperationalError) and (
        getattr(error, "sqlite_errorcode", 0) & 0xFF in BUSY_CODES or "locked" in str(error))


class WorkspaceConnection(sqlite3.Connection):
    """A connection that retries statements starting a transaction while the file is busy, and says in one
    line which file stayed locked."""

    path = ""
    lock_wait = DEFAULT_LOCK_WAIT_S

    def execute(self, sql, parameters=(), /):
        return self._patiently(lambda: super(WorkspaceConnection, self).execute(sql, parameters))

    def executemany(self, sql, parameters, /):
        return self._patiently(lambda: super(WorkspaceConnection, self).executemany(sql, parameters))

    def executescript(self, script, /):
        return self._patiently(lambda: super(WorkspaceConnection, self).executescript(script))

    def commit(self):
        return self._patiently(super().commit)

    def _patiently(self, call: Callable[[], T]) -> T:
        retry = not self.in_transaction  # a statement inside a transaction cannot be run again on its own
        deadline = time.monotonic() + self.lock_wait
        while True:
            try:
                return call()
            except WorkspaceBusyError:
                raise
            except sqlite3.OperationalError as error:
                if not is_busy(error):
                    raise
                if not retry or self.in_transaction or time.monotonic() >= deadline:
                    raise WorkspaceBusyError(
                        f"{self.path}: busy: another process kept the workspace locked for over "
                        f"{self.lock_wait:g} s ({error}); try again when it has finished") from None
            time.sleep(RETRY_PAUSE_S)


def connect(path: str | Path, *, read_only: bool = False) -> WorkspaceConnection:
    """A connection to a shared SQLite file; write transactions Python opens itself begin IMMEDIATE."""
    path = Path(path)
    wait = lock_wait_s()
    target, uri = (f"{path.resolve().as_uri()}?mode=ro", True) if read_only else (str(path), False)
    conn = sqlite3.connect(target, timeout=wait, isolation_level="IMMEDIATE", factory=WorkspaceConnection, uri=uri)
    conn.path, conn.lock_wait = str(path), wait
    return conn


def connect_private_copy(path: str | Path) -> sqlite3.Connection:
    """A read-only connection to a private copy of a database file someone handed in, trusting nothing of its
    schema (`trusted_schema=OFF`: no function its schema names may have side effects); the caller guards the rest
    (core/dataset/untrusted_workspace.py). Nobody else has the copy, so there is no lock to wait for."""
    conn = sqlite3.connect(f"{Path(path).resolve().as_uri()}?mode=ro", uri=True, timeout=0, isolation_level=None)
    conn.execute("PRAGMA trusted_schema=OFF")
    return conn


class WorkspaceDatabase(Database):
    """sqlite-utils over `connect()`: its transactions (`atomic()`, which every table write uses) begin
    IMMEDIATE, waiting for and retrying a busy file like every statement does."""

    def __init__(self, path: str | Path, *, read_only: bool = False):
        super().__init__(connect(path, read_only=read_only))

    @contextlib.contextmanager
    def atomic(self) -> Iterator[WorkspaceDatabase]:
        if self.conn.in_transaction:  # nested: a savepoint inside the open transaction
            with super().atomic():
                yield self
            return
        self.conn.execute("BEGIN IMMEDIATE")
        try:
            yield self
        except BaseException:
            self.rollback()
            raise
        try:
            self.conn.execute("COMMIT")
        except BaseException:
            self.rollback()
            raise
