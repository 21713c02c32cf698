"""Hostile workspace files for `audit merge`, each made from a real annotator's workspace (or from nothing), and the
part of the one-line refusal that names its problem."""
from __future__ import annotations

import os
import shutil
import sqlite3
from collections.abc import Callable
from pathlib import Path

from core.audit.sampling import create_audit
from core.audit.store import AuditStore
from core.dataset.indexing import open_dataset
from core.dataset.untrusted_workspace import MAX_FILE_BYTES, MAX_ROWS, MAX_VALUE_BYTES
from resources import DEMO_DATASET
from tests.builders import newer_workspace

AUDIT = "spot"
OPTIONS = {"size": 20, "seed": 7}
BOB_LABELS = ["correct", "wrong", "correct", "unsure", "wrong"]
MERGED_TABLES = ("audits", "audit_items", "verdicts", "adjudications", "annotator_answers", "predictions")


def annotated_workspace(path: Path, annotator: str = "bob", labels=BOB_LABELS) -> Path:
    """A closed demo workspace with audit `spot`, `annotator`'s verdicts on its first items, an adjudication and a
    baseline audit with one answer: every table a merge reads has rows."""
    ws, _ = open_dataset(DEMO_DATASET, path)
    with ws:
        create_audit(ws, AUDIT, **OPTIONS)
        store = AuditStore(ws)
        items = store.items(AUDIT)
        for item, label in zip(items, labels):
            store.give_verdict(AUDIT, item.ref, annotator, label)
        store.adjudicate(AUDIT, items[1].ref, "wrong", "carol", "never called")
        create_audit(ws, "base", kind="baseline", size=1)
        question = store.items("base")[0]
        store.store_answer("base", "dave", question.instance_key, question.caller, ["main.main"])
    return path


def edit(path: Path, *statements: str, writable_schema: bool = False) -> Path:
    """Run SQL on the file itself (as a hostile author would), then close it (its WAL folded in and removed)."""
    db = sqlite3.connect(path)
    if writable_schema:
        db.execute("PRAGMA writable_schema=ON")
    for statement in statements:
        db.execute(statement)
    db.commit()
    db.close()
    return path


def _sql(*statements: str, writable_schema: bool = False) -> Callable[[Path], Path]:
    """What makes a file hostile by running `statements` on it."""
    return lambda path: edit(path, *statements, writable_schema=writable_schema)


def _schema(table: str, old: str, new: str) -> str:
    """A statement that rewrites `table`'s definition in sqlite_master (`writable_schema`)."""
    return f"update sqlite_master set sql = replace(sql, '{old}', '{new}') where name = '{table}'"


def _patch(path: Path, offset: int, data: bytes) -> Path:
    with open(path, "r+b") as file:
        file.seek(offset)
        file.write(data)
    return path


def _page_of(path: Path, table: str) -> int:
    db = sqlite3.connect(path)
    (root,) = db.execute("select rootpage from sqlite_master where name = ?", [table]).fetchone()
    (size,) = db.execute("pragma page_size").fetchone()
    db.close()
    return (root - 1) * size


def _write(path: Path, data: bytes) -> Path:
    path.write_bytes(data)
    return path


def _truncated(path: Path, size: int) -> Path:
    os.truncate(path, size)
    return path


def _fifo(path: Path) -> Path:
    path.unlink()
    os.mkfifo(path)
    return path


def _folder(path: Path) -> Path:
    path.unlink()
    path.mkdir()
    return path


def _proc_link(path: Path) -> Path:
    """A link to a file of /proc: regular, of size 0, yet it reads as text (and some stream without end)."""
    path.unlink()
    path.symlink_to("/proc/self/status")
    return path


def _wal_fifo(path: Path) -> Path:
    os.mkfifo(f"{path}-wal")
    return path


def _wal_device(path: Path) -> Path:
    os.symlink("/dev/zero", f"{path}-wal")
    return path


def _hot_journal(path: Path) -> Path:
    Path(f"{path}-journal").write_bytes(bytes.fromhex("d9d505f920a163d7") + bytes(504))
    return path


def more_verdicts(path: Path, n: int, note_chars: int = 0) -> Path:
    """`n` more verdicts by bob, each on an edge of its own (and with a note of `note_chars` characters)."""
    return edit(path, "insert into verdicts (instance_key, caller, callee, auditor, label, note, created_at, audit, "
                      "action) select instance_key, caller, callee || '#' || n, 'bob', 'correct', "
                      f"printf('%.*c', {note_chars}, 'n'), created_at, audit, 'verdict' from (select * from verdicts "
                      f"limit 1), (with recursive r(n) as (select 1 union all select n + 1 from r where n < {n}) "
                      "select n from r)")


def _sparse_past_the_bound(path: Path) -> Path:
    os.truncate(path, MAX_FILE_BYTES + 1)  # sparse: nothing is written
    return path


def _foreign(path: Path) -> Path:
    path.unlink()
    return edit(path, "create table people (name text)", "create table pets (name text)")


def _wal_file(path: Path) -> Path:
    return _write(path, bytes.fromhex("377f0682002de218") + bytes(24))


def _deep_schema(path: Path) -> Path:
    deep = "(" * 5000 + "1" + ")" * 5000
    return edit(path, "insert into sqlite_master (type, name, tbl_name, rootpage, sql) values "
                      f"('table', 'deep', 'deep', 0, 'CREATE TABLE deep (x DEFAULT {deep})')", writable_schema=True)


def _deep_callees(path: Path) -> Path:
    return edit(path, f"update annotator_answers set callees = '{'[' * 100_000}{']' * 100_000}'")


def _rewrites_on_upgrade(path: Path) -> Path:
    """A workspace one schema step old, whose trigger turns every verdict into "wrong" when a step is recorded: a
    merge that upgraded the file's own copy gave the target other verdicts than the file shows."""
    return edit(path, "delete from _sqlite_migrations where name = 'm014_interned_edges'", "drop table names",
                "alter table predictions drop column edges", "alter table instances drop column truth_edges",
                "create trigger rewrite after insert on _sqlite_migrations begin update verdicts set label = 'wrong'; "
                "end")


def _index_on_another_column(path: Path) -> Path:
    """An index whose definition was rewritten to another column: read through it, the file shows other rows."""
    return edit(path, 'create index "by_label" on "verdicts" ("label")',
                "update sqlite_master set sql = replace(sql, '(\"label\")', '(\"auditor\")') where name = 'by_label'",
                writable_schema=True)


# name -> (what makes the file from an annotated workspace at the given path, what the refusal says)
HOSTILE: dict[str, tuple[Callable[[Path], Path], str]] = {
    "text": (lambda p: _write(p, b"caller,callee\nmain,helper\n"), "not a TraceEval workspace (a text file)"),
    "json": (lambda p: _write(p, b'{"main": ["main.helper"]}'), "not a TraceEval workspace (JSON text)"),
    "zip": (lambda p: _write(p, b"PK\x03\x04" + bytes(200)), "not a TraceEval workspace (a ZIP archive)"),
    "random bytes": (lambda p: _write(p, bytes(range(256)) * 8), "not a TraceEval workspace (binary data"),
    "empty": (lambda p: _write(p, b""), "not a TraceEval workspace (an empty file)"),
    "a -wal picked": (_wal_file, "an SQLite write-ahead log (-wal); pick the workspace file beside it"),
    "another program's database": (
        _foreign, "not a TraceEval workspace (an SQLite database with tables people, pets)"),
    "cut in half": (
        lambda p: _truncated(p, p.stat().st_size // 2), "an SQLite database cut short: its header counts"),
    "cut inside the header": (lambda p: _truncated(p, 60), "an SQLite database cut short at 60 bytes"),
    "impossible page size": (lambda p: _patch(p, 16, (1000).to_bytes(2, "big")), "an impossible page size, 1000"),
    "wrong page size": (lambda p: _patch(p, 16, (8192).to_bytes(2, "big")), "a damaged workspace"),
    "damaged header": (lambda p: _patch(p, 21, b"\x00\x00\x00"), "a damaged header"),
    "newer file format": (lambda p: _patch(p, 18, b"\x03\x03"), "a file format newer than this SQLite reads"),
    "a trigger that rewrites verdicts on upgrade": (_rewrites_on_upgrade, "holds a trigger (rewrite)"),
    "a view shadowing a table": (
        _sql("alter table verdicts rename to kept",
             "create view verdicts as select id, instance_key, caller, callee, auditor, 'correct' as label, note, "
             "created_at, audit, action, undoes from kept"),
        "holds a view (verdicts)"),
    "a billion-row view": (
        _sql("alter table audits rename to kept",
             "create view audits as with recursive r(n) as (select 1 union all select n + 1 from r where n < "
             "1000000000) select kept.* from kept, r"),
        "holds a view (audits)"),
    "a virtual table": (_sql("create virtual table search using fts5(note)"), "holds a virtual table (search)"),
    "a generated column": (
        _sql(_schema("verdicts", '"note" TEXT',
                     '"note" TEXT, "shown" TEXT GENERATED ALWAYS AS (\'\'wrong\'\') VIRTUAL'), writable_schema=True),
        "'GENERATED' in its definition"),
    "a costly CHECK": (
        _sql(_schema("verdicts", '"note" TEXT',
                     '"note" TEXT CHECK (length(printf(\'\'%.*c\'\', 100000000, \'\'x\'\')) > 0)'),
             writable_schema=True),
        "'CHECK' in its definition"),
    "an expression index": (
        _sql('create index "shouting" on "verdicts" (upper("label"))'),
        "index shouting of table verdicts is not as a workspace makes it ('upper'"),
    "a partial index": (
        _sql('create index "some" on "verdicts" ("label") where "label" = 1'), "'where' in its definition"),
    "a missing column": (
        _sql("alter table verdicts drop column note"), "table verdicts is not as a workspace makes it (columns"),
    "an extra column": (
        _sql('alter table adjudications add column "secret" TEXT'),
        "table adjudications is not as a workspace makes it (columns"),
    "a huge value": (
        _sql(f"update verdicts set note = hex(zeroblob({MAX_VALUE_BYTES})) where id = 1"),
        "a value over 1 MiB in table verdicts"),
    "too many verdicts": (
        lambda p: more_verdicts(p, MAX_ROWS),
        f"{MAX_ROWS + 5:,} rows in table verdicts, over the bound of {MAX_ROWS:,}"),
    "too big a file": (_sparse_past_the_bound, "over 2,048 MiB with its -wal"),
    "an index that disagrees with its table": (
        _index_on_another_column, "a damaged workspace (table verdicts: row 1 missing from index"),
    "a damaged table page": (
        lambda p: _patch(p, _page_of(p, "verdicts"), b"\x0d\xff\xff\xff\xff" * 20), "a damaged workspace"),
    "a schema nested without end": (_deep_schema, "a damaged workspace (malformed database schema"),
    "a newer schema version": (
        lambda p: newer_workspace(p), "made by a newer TraceEval Studio (schema step 'm999_future')"),
    "schema steps out of order": (
        _sql("delete from _sqlite_migrations where name = 'm003_trace_runs'"),
        "its schema steps are not in order: 'm004_verdicts' where 'm003_trace_runs' belongs"),
    "a blob for a label": (
        _sql("update verdicts set label = cast('correct' as blob) where id = 1"),
        "a blob in verdicts.label, where a workspace keeps text"),
    "text for a position": (
        _sql("update audit_items set position = 'first' where position = 0"),
        "text in audit_items.position, where a workspace keeps integer"),
    "an unknown label": (_sql("update verdicts set label = 'pwned' where id = 1"), "unknown verdict 'pwned'"),
    "an unknown action": (_sql("update verdicts set action = 'delete' where id = 1"), "unknown action 'delete'"),
    "an annotator name of two lines": (
        _sql("update verdicts set auditor = 'bob' || char(10) || 'rm -rf' where id = 1"),
        "one line of at most 64 characters"),
    "a missing edge": (_sql("update adjudications set caller = null"), "no caller"),
    "callees not a list": (
        _sql("update annotator_answers set callees = '{\"a\": 1}'"), "callees is not a list of names"),
    "callees nested without end": (_deep_callees, "callees is not a list of names"),
    "an unknown stratum": (_sql("update audits set strata = '[\"colour\"]'"), "unknown stratum 'colour'"),
    "annotators not a list": (_sql("update audits set annotators = '7'"), "annotators is not a list"),
    "text that is not UTF-8": (
        _sql("update verdicts set note = cast(x'ff00ff' as text) where id = 1"),
        "a damaged workspace (Could not decode to UTF-8"),
    "a FIFO": (_fifo, "a FIFO, not a workspace file"),
    "a folder": (_folder, "a folder, not a workspace file"),
    "a link to a file of /proc": (_proc_link, "changed while it was copied, 3 times"),
    "a -wal that is a FIFO": (_wal_fifo, "a FIFO, beside b.sqlite"),
    "a -wal linked to a device": (_wal_device, "a device, beside b.sqlite"),
    "an unfinished transaction": (
        _hot_journal, "a transaction was left unfinished in it (b.sqlite-journal is there)"),
}


def rows(path: Path) -> dict[str, list]:
    """What a merge could change in a workspace: its audits' tables and the predictions (human baselines)."""
    db = sqlite3.connect(path)
    try:
        return {table: sorted(map(repr, db.execute(f"select * from {table}"))) for table in MERGED_TABLES}
    finally:
        db.close()


def hostile_copy(pristine: Path, folder: Path, name: str) -> Path:
    """A copy of `pristine` in `folder`, as `b.sqlite`, made into the hostile file `name`."""
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / "b.sqlite"
    shutil.copyfile(pristine, path)
    return HOSTILE[name][0](path)
