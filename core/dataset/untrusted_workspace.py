"""A workspace file someone else made (another annotator's, for `audit merge`), read without trusting it.

Nothing of the file runs, and nothing is written beside it:
1. The file and its `-wal` are copied into a private temporary folder: regular files only, at most MAX_FILE_BYTES
   together, copied again when the file changed meanwhile (another process checkpointing it). Nothing is written
   in the source's folder (a read-only folder is fine), and no SQLite connection opens the source itself.
2. The copy is opened read-only with `trusted_schema=OFF`, a bound on each value (MAX_VALUE_BYTES) and an
   authorizer that allows reading the schema and, once checked, the tables asked for: nothing else, and nothing
   on behalf of a trigger or a view.
3. Before a row is read: no trigger, view or virtual table anywhere; each table read holds nothing in its
   definition but quoted column names, types, NOT NULL, literal defaults and keys (no CHECK, generated column,
   collation or expression index that a check or a read would evaluate), has the columns a workspace of its schema
   version has, passes `PRAGMA integrity_check` (its pages sound, its indexes holding exactly its rows: safe to run
   once the definition is plain) and has at most MAX_ROWS rows; the file's pages fit MAX_FILE_BYTES.
4. Rows are read from the tables themselves (`NOT INDEXED`: an index cannot show other rows than its table), each
   value of its column's type, at most MAX_READ_BYTES in all, into a new workspace built by this version's own
   schema steps up to the file's version, then upgraded like any workspace.
Every refusal is a one-line WorkspaceError naming the file; a set cancel event stops any step at once (`Cancelled`).
"""
from __future__ import annotations

import contextlib
import os
import re
import sqlite3
import stat
import tempfile
import threading
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path

from core.dataset.workspace import Workspace
from core.dataset.workspace_db import WorkspaceDatabase, connect_private_copy
from core.errors import Cancelled, WorkspaceError

KiB, MiB = 1 << 10, 1 << 20
MAX_FILE_BYTES = 2048 * MiB  # the file and its -wal together: what is copied
MAX_ROWS = 200_000  # rows of each table read
MAX_VALUE_BYTES = 1 * MiB  # one value: a note, an answer's callees
MAX_READ_BYTES = 256 * MiB  # every value read, together

Progress = Callable[[int, int, str], None]
COPY_ATTEMPTS = 3
STEPS_PER_LOOK = 1000  # SQLite steps between two looks at the cancel event
INTERRUPT_POLL_S = 0.02  # how often a long SQLite step looks at the cancel event (through `interrupt()`)
_CHUNK = MiB
_HOT_JOURNAL = bytes.fromhex("d9d505f920a163d7")  # a rollback journal's header: a transaction left unfinished
_KINDS = ((stat.S_ISDIR, "a folder"), (stat.S_ISFIFO, "a FIFO"), (stat.S_ISCHR, "a device"),
          (stat.S_ISBLK, "a device"), (stat.S_ISSOCK, "a socket"))
_MAGIC = ((b"\x37\x7f\x06\x82", "an SQLite write-ahead log (-wal); pick the workspace file beside it"),
          (b"\x37\x7f\x06\x83", "an SQLite write-ahead log (-wal); pick the workspace file beside it"),
          (b"PK\x03\x04", "a ZIP archive"), (b"\x1f\x8b", "a gzip file"), (b"%PDF", "a PDF document"),
          (b"\x89PNG", "a PNG image"), (b"\xff\xd8\xff", "a JPEG image"), (b"\x7fELF", "an executable (ELF)"))
SQLITE_MAGIC = b"SQLite format 3\x00"

SCHEMA_TABLES = ("sqlite_master", "sqlite_schema")
SCHEMA_COLUMNS = frozenset({"type", "name", "tbl_name", "sql"})
MIGRATIONS_TABLE = "_sqlite_migrations"
MIGRATION_COLUMNS = ("migration_set", "name")
PRAGMAS = frozenset({"integrity_check", "table_xinfo", "page_count", "page_size"})
FUNCTIONS = frozenset({"count", "sum", "coalesce", "length", "typeof"})
# SQLite before 3.33 checks the whole file, the CHECKs of tables not read too: there, the check is left out
CHECKS_ONE_TABLE = sqlite3.sqlite_version_info >= (3, 33)
_TOKEN = re.compile(r"""\s+ | --[^\n]* | /\*.*?\*/
    | (?P<literal>'(?:[^']|'')*' | [0-9]+(?:\.[0-9]+)?)
    | (?P<name>"(?:[^"]|"")*" | \[[^\]]*\] | `(?:[^`]|``)*`)
    | (?P<word>[A-Za-z_][A-Za-z0-9_]*)
    | (?P<mark>[(),])""", re.VERBOSE | re.DOTALL)
SCHEMA_WORDS = frozenset({"CREATE", "TABLE", "INDEX", "UNIQUE", "IF", "NOT", "EXISTS", "ON", "PRIMARY", "KEY", "NULL",
                          "DEFAULT", "ASC", "DESC", "AUTOINCREMENT", "TEXT", "INTEGER", "INT", "REAL", "FLOAT",
                          "BLOB", "NUMERIC"})
# a column's declared type -> what SQLite's typeof() may say of its values (besides null), and those in words
COLUMN_TYPES = {"TEXT": ("text",), "INTEGER": ("integer",), "INT": ("integer",), "REAL": ("real", "integer"),
                "FLOAT": ("real", "integer"), "BLOB": ("blob",)}
_VALUE_KINDS = {"text": "text", "blob": "a blob", "integer": "an integer", "real": "a real number"}


@contextlib.contextmanager
def untrusted_workspace(path: str | Path, tables: Sequence[str], *, cancel: threading.Event | None = None,
                        progress: Progress | None = None) -> Iterator[Workspace]:
    """A private workspace holding the rows of `tables` from the workspace file at `path`, read as the module doc
    says; removed when the block ends. WorkspaceError (one line, naming the file) for a file that cannot be read so,
    Cancelled when `cancel` is set meanwhile."""
    source = Path(path).expanduser()
    stop = _Stop(cancel)
    report = progress or _no_progress
    with tempfile.TemporaryDirectory(prefix="traceeval-merge-") as folder:
        copy = _copy_files(source, Path(folder), stop, report)
        _identify(copy, source)
        clean = Path(folder) / "clean.sqlite"
        report(0, 0, f"checking {source.name}")
        with contextlib.closing(_GuardedCopy(copy, source, stop)) as guarded:
            guarded.read_into(clean, tables, report)
        try:
            ws = Workspace(clean)  # upgraded to this version's schema by its own steps
        except WorkspaceError as error:
            raise WorkspaceError(str(error).replace(str(clean), str(source))) from None
        try:
            yield ws
        finally:
            ws.close()


def _no_progress(done: int, total: int, message: str) -> None:
    pass


class _Stop:
    """The cancel event, as SQLite's progress handler and as a check between steps."""

    def __init__(self, cancel: threading.Event | None):
        self.event = cancel

    def __call__(self) -> bool:
        return self.event is not None and self.event.is_set()

    def check(self) -> None:
        if self():
            raise Cancelled("cancelled: nothing was merged")

    @contextlib.contextmanager
    def interrupting(self, conn: sqlite3.Connection) -> Iterator[None]:
        """Interrupt `conn` as soon as the event is set: SQLite looks at its progress handler only between steps, and
        one step (`integrity_check` of a table) can take long."""
        if self.event is None:
            yield
            return
        done, event = threading.Event(), self.event

        def watch() -> None:
            while not done.is_set():
                if event.wait(INTERRUPT_POLL_S):
                    conn.interrupt()
                    return

        watcher = threading.Thread(target=watch, name="merge-cancel", daemon=True)
        watcher.start()
        try:
            yield
        finally:
            done.set()
            watcher.join()


# -- 1. the copy ------------------------------------------------------------------------------------
def _copy_files(source: Path, folder: Path, stop: _Stop, progress: Progress) -> Path:
    """The source and its -wal copied into `folder`, as they were at one moment (see the module doc)."""
    if _starts_with(_beside(source, "-journal"), _HOT_JOURNAL):
        raise WorkspaceError(f"{source}: a transaction was left unfinished in it ({source.name}-journal is there); "
                             "not read")
    copy = folder / "source.sqlite"
    for _attempt in range(COPY_ATTEMPTS):
        before = _version(source)
        wal, copied_wal = _beside(source, "-wal"), _beside(copy, "-wal")
        copied_wal.unlink(missing_ok=True)
        try:
            size = _copy_file(source, copy, MAX_FILE_BYTES, source, stop, progress)
            if os.path.lexists(wal):
                _copy_file(wal, copied_wal, MAX_FILE_BYTES - size, source, stop, progress)
        except _Changed:  # written to, or the -wal checkpointed and removed, meanwhile: copy it again
            continue
        if _version(source) == before:
            return copy
    raise WorkspaceError(f"{source}: changed while it was copied, {COPY_ATTEMPTS} times; merge it when nobody is "
                         "writing to it")


class _Changed(Exception):
    """The file being copied changed meanwhile."""


def _copy_file(path: Path, to: Path, budget: int, source: Path, stop: _Stop, progress: Progress) -> int:
    """Copy the regular file `path` (at most `budget` bytes) to `to`; returns its size. _Changed when it does not
    hold the bytes its size says (it grew or shrank meanwhile, or is a file of /proc that streams)."""
    try:
        size = _check_regular(path, os.stat(path), source)
        if size > budget:
            raise _too_big(source)
        descriptor = os.open(path, os.O_RDONLY | os.O_NONBLOCK | getattr(os, "O_CLOEXEC", 0))
        with os.fdopen(descriptor, "rb", buffering=0) as reader, open(to, "wb") as writer:
            _check_regular(path, os.fstat(descriptor), source)  # swapped for something else since the stat
            done = 0
            while done < size and (chunk := reader.read(min(_CHUNK, size - done))):
                done += len(chunk)
                writer.write(chunk)
                progress(done // KiB, size // KiB, f"copying {path.name}")  # in KiB: a window's progress is an int
                stop.check()
            if done < size or reader.read(1):
                raise _Changed()
            return done
    except FileNotFoundError:
        if path == source:
            raise WorkspaceError(f"{source}: no such workspace file") from None
        raise _Changed() from None  # the -wal, removed by a checkpoint
    except OSError as error:
        raise WorkspaceError(f"{path}: cannot copy it to read it: {error.strerror or error}") from None


def _check_regular(path: Path, info: os.stat_result, source: Path) -> int:
    for test, kind in _KINDS:
        if test(info.st_mode):
            what = "not a workspace file" if path == source else f"beside {source.name}"
            raise WorkspaceError(f"{path}: {kind}, {what}; not read")
    return info.st_size


def _too_big(source: Path) -> WorkspaceError:
    return WorkspaceError(f"{source}: over {MAX_FILE_BYTES // MiB:,} MiB with its -wal, the bound of a workspace to "
                          "merge; not read")


def _version(source: Path) -> tuple[int, int, int]:
    """What changes when the file is written to or replaced."""
    try:
        info = os.stat(source)
    except FileNotFoundError:
        raise WorkspaceError(f"{source}: no such workspace file") from None
    except OSError as error:
        raise WorkspaceError(f"{source}: cannot read: {error.strerror or error}") from None
    return info.st_ino, info.st_size, info.st_mtime_ns


def _beside(path: Path, suffix: str) -> Path:
    return path.with_name(path.name + suffix)


def _starts_with(path: Path, magic: bytes) -> bool:
    """Whether `path` is a regular file starting with `magic` (opened only when it is a regular file)."""
    try:
        if not stat.S_ISREG(os.stat(path).st_mode):
            return False
        descriptor = os.open(path, os.O_RDONLY | os.O_NONBLOCK | getattr(os, "O_CLOEXEC", 0))
        with os.fdopen(descriptor, "rb", buffering=0) as reader:
            return reader.read(len(magic)) == magic
    except OSError:
        return False


def _identify(copy: Path, source: Path) -> None:
    """WorkspaceError saying what the file is, unless its first page is an SQLite database header that makes sense."""
    with open(copy, "rb") as reader:
        head = reader.read(100)
    size = copy.stat().st_size
    if not head.startswith(SQLITE_MAGIC):
        raise WorkspaceError(f"{source}: not a TraceEval workspace ({_what_it_is(head)})")
    page = int.from_bytes(head[16:18], "big")
    page = 65536 if page == 1 else page
    counted = int.from_bytes(head[28:32], "big") * page if head[24:28] == head[92:96] else 0
    problem = ""
    if len(head) < 100:
        problem = f"cut short at {size} bytes"
    elif page < 512 or page & (page - 1):
        problem = f"with an impossible page size, {page}"
    elif head[18] > 2 or head[19] > 2:
        problem = "in a file format newer than this SQLite reads"
    elif head[21:24] != b"\x40\x20\x20":
        problem = "with a damaged header"
    elif size < counted:
        problem = f"cut short: its header counts {counted:,} bytes, the file has {size:,}"
    if problem:
        raise WorkspaceError(f"{source}: a damaged workspace (an SQLite database {problem}); not read")


def _what_it_is(head: bytes) -> str:
    """What a file that is no SQLite database is, from its first bytes."""
    if not head:
        return "an empty file"
    for magic, what in _MAGIC:
        if head.startswith(magic):
            return what
    text = head.decode("utf-8", "replace")
    if "\x00" in text or text[:-1].count("\ufffd"):  # the last character may be cut in two
        return "binary data, no SQLite database"
    return "JSON text" if text.lstrip()[:1] in ("{", "[") else "a text file"


# -- 2-4. the guarded connection ------------------------------------------------------------------------
class _GuardedCopy:
    """The private copy behind its guards (the module doc, 2-4)."""

    def __init__(self, path: Path, source: Path, stop: _Stop):
        self.source, self.stop = source, stop
        self.readable = dict.fromkeys(SCHEMA_TABLES, SCHEMA_COLUMNS)  # table -> columns the authorizer allows
        self.values_read = 0
        try:
            self.conn = connect_private_copy(path)
        except sqlite3.Error as error:
            raise self._refusal(error) from None
        self.conn.setlimit(sqlite3.SQLITE_LIMIT_LENGTH, MAX_VALUE_BYTES)
        self.conn.set_authorizer(self._authorize)
        self.conn.set_progress_handler(stop, STEPS_PER_LOOK)

    def close(self) -> None:
        self.conn.close()

    def read_into(self, clean: Path, tables: Sequence[str], progress: Progress) -> None:
        """Check the copy (3) and write the rows of `tables` into a new database at `clean` (4)."""
        with self.stop.interrupting(self.conn):
            self._check_size()
            objects = self._query("select type, name, tbl_name, sql from sqlite_master")
            self._check_objects(objects, {t.lower() for t in (*tables, MIGRATIONS_TABLE)})
            steps = self._schema_steps(objects)
            reference = _reference(clean, steps)
            try:
                with reference.atomic():
                    for number, table in enumerate(tables):
                        if reference[table].exists():
                            progress(number, len(tables), f"reading {table} of {self.source.name}")
                            self._copy_table(table, reference)
            finally:
                reference.close()

    # checks ----------------------------------------------------------------------------------------
    def _check_objects(self, objects: list[tuple], read: set[str]) -> None:
        """No trigger, view or virtual table; the tables to read (and their indexes) plainly defined."""
        for kind, name, table, sql in objects:
            if kind not in ("table", "index"):
                raise WorkspaceError(f"{self.source}: holds a {kind} ({name}), which a workspace never has and a merge "
                                     "never runs; not read")
            if kind == "table" and (sql or "").lstrip()[:14].upper() == "CREATE VIRTUAL":
                raise WorkspaceError(f"{self.source}: holds a virtual table ({name}), which a workspace never has; "
                                     "not read")
            extra = _beyond_plain(sql or "") if (table or "").lower() in read else ""
            if extra:
                what = f"table {name}" if kind == "table" else f"index {name} of table {table}"
                raise WorkspaceError(f"{self.source}: {what} is not as a workspace makes it ({extra} in its "
                                     "definition); not read")

    def _schema_steps(self, objects: list[tuple]) -> int:
        """How many of this version's schema steps the file has; WorkspaceError when it is no workspace or a newer
        one."""
        from core.dataset.workspace_schema import MIGRATIONS

        tables = sorted(name for kind, name, _t, _s in objects if kind == "table")
        if MIGRATIONS_TABLE not in (t.lower() for t in tables):
            what = f"tables {', '.join(tables[:5])}{', ...' if len(tables) > 5 else ''}" if tables else "no tables"
            raise WorkspaceError(f"{self.source}: not a TraceEval workspace (an SQLite database with {what})")
        columns = self._check_table(MIGRATIONS_TABLE, MIGRATION_COLUMNS, exact=False)
        names = [name for step_set, name in self._rows(MIGRATIONS_TABLE, columns) if step_set == MIGRATIONS.name]
        known = [m.name for m in MIGRATIONS._migrations]
        unknown = [name for name in names if name not in known]
        if unknown:
            raise WorkspaceError(f"{self.source}: made by a newer TraceEval Studio (schema step {unknown[0]!r}); "
                                 "upgrade the tool to merge it")
        if not names:
            raise WorkspaceError(f"{self.source}: not a TraceEval workspace (an SQLite database of other schema steps)")
        if names != known[:len(names)]:
            step = next(n for n, (name, wanted) in enumerate(zip(names, known)) if name != wanted)
            raise WorkspaceError(f"{self.source}: a damaged workspace (its schema steps are not in order: "
                                 f"{names[step]!r} where {known[step]!r} belongs); not read")
        return len(names)

    def _check_table(self, table: str, expected: Sequence[str], *, exact: bool = True) -> list[str]:
        """The table's columns, named as in the file, in the order of `expected`, after checking that it has those
        (and, when `exact`, only those), none generated or hidden, and that it is sound; then the authorizer lets it
        be read."""
        info = self._query(f"pragma table_xinfo({_quoted(table)})")
        if not info:
            raise WorkspaceError(f"{self.source}: a damaged workspace (no table {table}); not read")
        declared = {row[1].lower(): row[1] for row in info}
        hidden = [row[1] for row in info if row[6]]
        wanted = [c.lower() for c in expected]
        if hidden or (exact and set(declared) != set(wanted)) or not set(wanted) <= set(declared):
            got = ", ".join(row[1] for row in info)
            raise WorkspaceError(f"{self.source}: table {table} is not as a workspace makes it (columns {got}); "
                                 "not read")
        found = self._query(f"pragma integrity_check({_quoted(table)})") if CHECKS_ONE_TABLE else [("ok",)]
        if found != [("ok",)]:
            problem = _one_line(str(found[0][0]).replace("*** in database main ***", ""))
            raise WorkspaceError(f"{self.source}: a damaged workspace (table {table}: {problem}); not read")
        self.readable[table.lower()] = frozenset(wanted)
        rows = self._query(f"select count(*) from {_quoted(table)} not indexed")[0][0]
        if rows > MAX_ROWS:
            raise WorkspaceError(f"{self.source}: {rows:,} rows in table {table}, over the bound of {MAX_ROWS:,}; "
                                 "not read")
        return [declared[c] for c in wanted]

    def _check_size(self) -> None:
        pages, page_size = self._query("pragma page_count")[0][0], self._query("pragma page_size")[0][0]
        if pages * page_size > MAX_FILE_BYTES:
            raise _too_big(self.source)

    # rows ---------------------------------------------------------------------------------------------
    def _copy_table(self, table: str, reference: WorkspaceDatabase) -> None:
        info = reference.execute(f"pragma table_info({_quoted(table)})").fetchall()
        names, types = [row[1] for row in info], [row[2].upper() for row in info]
        columns = self._check_table(table, names)
        self._check_values(table, names, columns, types)
        insert = (f"insert into {_quoted(table)} ({', '.join(map(_quoted, names))}) "
                  f"values ({', '.join('?' * len(names))})")
        try:
            reference.conn.executemany(insert, self._rows(table, columns))
        except sqlite3.IntegrityError as error:
            raise WorkspaceError(f"{self.source}: table {table} holds rows a workspace cannot ({error}); "
                                 "not read") from None

    def _check_values(self, table: str, names: Sequence[str], columns: Sequence[str], types: Sequence[str]) -> None:
        """Every value of its column's type, and all of them within MAX_READ_BYTES: counted by SQLite before a row
        is read."""
        where = {column: f"typeof({_quoted(column)}) not in ({', '.join(map(repr, ('null', *COLUMN_TYPES[kind])))})"
                 for column, kind in zip(columns, types) if kind in COLUMN_TYPES}
        sizes = " + ".join(f"coalesce(length(cast({_quoted(c)} as blob)), 0)" for c in columns)
        wrong = ", ".join(f"coalesce(sum({test}), 0)" for test in where.values())
        counted = self._query(f"select coalesce(sum({sizes}), 0), {wrong} from {_quoted(table)} not indexed",
                              table)[0]
        self.values_read += counted[0]
        if self.values_read > MAX_READ_BYTES:
            raise WorkspaceError(f"{self.source}: over {MAX_READ_BYTES // MiB} MiB of audits, verdicts and answers, "
                                 "the bound of a merge; not read")
        for (column, test), found in zip(where.items(), counted[1:]):
            if found:
                (kind,), = self._query(f"select typeof({_quoted(column)}) from {_quoted(table)} not indexed "
                                       f"where {test} limit 1")
                name, keeps = names[columns.index(column)], types[columns.index(column)].lower()
                raise WorkspaceError(f"{self.source}: {_VALUE_KINDS[kind]} in {table}.{name}, where a workspace keeps "
                                     f"{keeps}; not read")

    def _rows(self, table: str, columns: Sequence[str]) -> Iterator[tuple]:
        """The table's rows, from the table (not an index)."""
        sql = f"select {', '.join(map(_quoted, columns))} from {_quoted(table)} not indexed"
        self.stop.check()
        try:
            yield from self.conn.execute(sql)
        except sqlite3.Error as error:
            raise self._refusal(error, f" in table {table}") from None

    def _query(self, sql: str, table: str = "") -> list[tuple]:
        self.stop.check()
        try:
            return self.conn.execute(sql).fetchall()
        except sqlite3.Error as error:
            raise self._refusal(error, f" in table {table}" if table else "") from None

    def _authorize(self, action: int, first: str | None, second: str | None, _database: str | None,
                   inner: str | None) -> int:
        """Reading the schema and the tables checked so far (only their columns), the few pragmas and functions the
        checks use; nothing else, and nothing on behalf of a trigger or view."""
        allowed = inner is None and (
            action == sqlite3.SQLITE_SELECT
            or (action == sqlite3.SQLITE_READ and second is not None
                and (second == "" or second.lower() in self.readable.get((first or "").lower(), ())))
            or (action == sqlite3.SQLITE_PRAGMA and (first or "").lower() in PRAGMAS)
            or (action == sqlite3.SQLITE_FUNCTION and (second or "").lower() in FUNCTIONS))
        return sqlite3.SQLITE_OK if allowed else sqlite3.SQLITE_DENY

    def _refusal(self, error: sqlite3.Error, where: str = "") -> BaseException:
        """The one-line error for a failed read (Cancelled when the cancel event stopped it)."""
        name = getattr(error, "sqlite_errorname", "")
        if name == "SQLITE_INTERRUPT":
            if self.stop():
                return Cancelled("cancelled: nothing was merged")
            return KeyboardInterrupt()  # a signal (Ctrl-C) arrived inside the progress handler
        if name == "SQLITE_TOOBIG":
            return WorkspaceError(f"{self.source}: a value over {MAX_VALUE_BYTES // MiB} MiB{where}, the bound of a "
                                  "value to merge; not read")
        if name == "SQLITE_AUTH":
            return WorkspaceError(f"{self.source}: reaches past the tables a merge reads{where} "
                                  f"({_one_line(str(error))}); not read")
        return WorkspaceError(f"{self.source}: a damaged workspace ({_one_line(str(error))}{where}); not read")


def _reference(clean: Path, steps: int) -> WorkspaceDatabase:
    """A new database at `clean` with this version's first `steps` schema steps: the tables a workspace of the
    file's version has, made by our own steps."""
    from core.dataset.workspace_schema import MIGRATIONS

    db = WorkspaceDatabase(clean)
    db.execute("PRAGMA journal_mode=MEMORY")  # a private file, thrown away after the merge: no waiting for the disk
    db.execute("PRAGMA synchronous=OFF")
    known = [m.name for m in MIGRATIONS._migrations]
    MIGRATIONS.apply(db, stop_before=known[steps] if steps < len(known) else None)
    return db


def _beyond_plain(sql: str) -> str:
    """What in a CREATE TABLE or CREATE INDEX statement goes beyond a workspace's ("" when nothing does): quoted
    names, the types, NOT NULL, literal defaults, keys and the column lists, and nothing else."""
    tokens, at = [], 0
    while at < len(sql):
        match = _TOKEN.match(sql, at)
        if match is None:
            return repr(sql[at:at + 12])
        at = match.end()
        if match.lastgroup is None:  # space or a comment
            continue
        text = match.group()
        if match.lastgroup == "word" and text.upper() not in SCHEMA_WORDS:
            return repr(text)
        tokens.append((match.lastgroup, text.upper()))
    depth = 0
    for number, (_kind, text) in enumerate(tokens):
        if text == "(":
            before = tokens[number - 2:number]
            names_list = depth == 0 and len(before) == 2 and before[1][0] == "name" and \
                before[0][1] in ("TABLE", "EXISTS", "ON")
            key_list = depth == 1 and bool(before) and before[-1][1] in ("KEY", "UNIQUE")
            if not (names_list or key_list):
                return "an expression"
            depth += 1
        elif text == ")":
            depth -= 1
    return ""


def _one_line(text: str) -> str:
    return " ".join(text.split())


def _quoted(name: str) -> str:
    return '"' + name.replace('"', '""') + '"'


__all__ = ["MAX_FILE_BYTES", "MAX_READ_BYTES", "MAX_ROWS", "MAX_VALUE_BYTES", "untrusted_workspace"]
