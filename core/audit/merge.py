"""Merge another workspace's audits into this one: two annotators work in separate workspaces, then
one merges the other's file. Verdicts, adjudications and baseline answers are only ever added rows
(the newest row of an edge and annotator is its state), so a merge is a union of rows by identity:
authors and times are kept, and merging the same file twice adds nothing.

The source file is hostile input: it is read as `core.dataset.untrusted_workspace` reads a file someone handed
in (a private copy, nothing of it run, bounded), and every row is checked as the audit store checks what it is
given (labels, names, lists) before anything is written. Every write to the target happens in one transaction, which
a set cancel event rolls back.
"""
from __future__ import annotations

import json
import os
import threading
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import NamedTuple

from core.audit.audits import Adjudication, EdgeRef, check_person_name, sample_fingerprint
from core.audit.baseline import refresh_baseline_predictions
from core.audit.store import AuditStore, audit_from_row, verdict_from_row
from core.dataset.untrusted_workspace import untrusted_workspace
from core.dataset.workspace import Workspace
from core.errors import Cancelled, WorkspaceError
from core.safe_files import parse_json, refusal
from core.verdicts import CLEARED

Progress = Callable[[int, int, str], None]

VERDICT_IDENTITY = ("audit", "instance_key", "caller", "callee", "auditor", "label", "note", "created_at", "action")


@dataclass(frozen=True)
class RowKind:
    """How one kind of added-only row is merged: what makes two rows the same row, which rows are
    states of the same thing (the newest counts), and what a conflict compares."""

    name: str  # the conflict kind
    table: str
    identity: tuple[str, ...]
    key: tuple[str, ...]  # rows with equal key: successive states of one thing
    compared: tuple[str, ...]  # a conflict: the two newest states differ in these
    author: str  # the column naming who made the row ("" when there is none)


VERDICTS = RowKind("verdict", "verdicts", VERDICT_IDENTITY, ("audit", "auditor", "instance_key", "caller", "callee"),
                   ("label", "note"), "auditor")
ADJUDICATIONS = RowKind("adjudication", "adjudications",
                        ("audit", "instance_key", "caller", "callee", "label", "adjudicator", "reason", "created_at"),
                        ("audit", "instance_key", "caller", "callee"), ("label", "reason"), "adjudicator")
ANSWERS = RowKind("answer", "annotator_answers",
                  ("audit", "annotator", "instance_key", "caller", "callees", "created_at"),
                  ("audit", "annotator", "instance_key", "caller"), ("callees",), "annotator")
ROW_KINDS = (VERDICTS, ADJUDICATIONS, ANSWERS)
MERGED_TABLES = ("audits", "audit_items", *(kind.table for kind in ROW_KINDS))
VERDICT_ACTIONS = ("verdict", "undo")


class ConflictSide(NamedTuple):
    """One workspace's newest state of the thing in conflict."""

    label: str  # a verdict's or adjudication's label ("" = withdrawn), or an answer's callees ("none" for none)
    note: str  # a verdict's note, an adjudication's reason ("" for answers)
    created_at: str
    by: str  # who: the annotator or adjudicator


@dataclass(frozen=True)
class MergeConflict:
    """The same annotator (or, for adjudications, the same edge) got different states in the two
    workspaces. Both rows are kept; the newer one (by time) now stands."""

    kind: str  # "verdict" | "adjudication" | "answer"
    audit: str
    ref: EdgeRef  # for an answer: the question (program, caller) with callee ""
    annotator: str  # "" for an adjudication (see here.by / there.by)
    here: ConflictSide  # the target's state before the merge
    there: ConflictSide  # the merged workspace's state
    stands: str  # "here" | "there"

    def describe(self) -> str:
        """One line: what differs and which one now stands."""
        what = f"{self.ref.instance_key} {self.ref.caller}" + (f" -> {self.ref.callee}" if self.ref.callee else "")
        who = f" by {self.annotator}" if self.annotator else ""
        return (f"{self.kind}{who} on {what} in audit {self.audit!r}: here {_side_text(self.here)}, "
                f"there {_side_text(self.there)}; the {'merged' if self.stands == 'there' else 'local'} one "
                "(newer) stands")


@dataclass(frozen=True)
class MergeReport:
    source: Path
    audits_added: tuple[str, ...] = ()
    audits_updated: tuple[str, ...] = ()
    verdicts_added: int = 0
    adjudications_added: int = 0
    answers_added: int = 0
    conflicts: tuple[MergeConflict, ...] = ()
    skipped: tuple[tuple[str, str], ...] = ()  # (audit, reason): not merged
    models_refreshed: tuple[str, ...] = ()  # human:<annotator> baselines re-derived

    @property
    def changed(self) -> bool:
        return bool(self.audits_added or self.audits_updated or self.verdicts_added or self.adjudications_added
                    or self.answers_added)

    def summary(self) -> str:
        name = self.source.name
        tail = f"; {_count(len(self.conflicts), 'conflict')}" if self.conflicts else ""
        tail += f"; {len(self.skipped)} skipped" if self.skipped else ""
        if not self.changed:
            return f"nothing new in {name}{tail}"
        audits = [_count(n, "audit", after) for n, after in
                  ((len(self.audits_added), "added"), (len(self.audits_updated), "updated")) if n]
        rows = (f"{_count(self.verdicts_added, 'verdict')}, {_count(self.adjudications_added, 'adjudication')}, "
                f"{_count(self.answers_added, 'answer')} added")
        return f"merged {name}: {', '.join([*audits, rows])}{tail}"


def merge_workspace(target: Workspace, source_path: str | Path, *, cancel: threading.Event | None = None,
                    progress: Progress | None = None) -> MergeReport:
    """Add to `target` what the workspace file at `source_path` has and it lacks (see the module doc).
    WorkspaceError (one line, naming the file) when the file cannot be merged at all; Cancelled, with the target
    unchanged, when `cancel` is set before the merge ends."""
    source = Path(source_path).expanduser()
    _check_source(target, source)
    with untrusted_workspace(source, MERGED_TABLES, cancel=cancel, progress=progress) as other:
        snapshot = _Snapshot.read(other)
    problem = snapshot.problem()
    if problem:
        raise WorkspaceError(f"{source}: {problem}; not merged")
    if progress is not None:
        progress(0, 0, f"merging {source.name}")
    with target.transaction():
        return _Merge(target, source, snapshot, cancel).run()


# -- the source file --------------------------------------------------------------------------------
def _check_source(target: Workspace, source: Path) -> None:
    same = source.resolve() == target.path.resolve()
    if not same and source.exists() and target.path.exists():
        same = os.path.samefile(source, target.path)
    if same:
        raise WorkspaceError(f"{source}: this is the open workspace itself; pick another workspace to merge")


@dataclass(frozen=True)
class _Snapshot:
    """Everything merged, read from the (copied) source workspace."""

    audits: dict[str, dict]
    items: dict[str, list[dict]]
    rows: dict[str, list[dict]]  # table -> rows in id order

    @classmethod
    def read(cls, ws: Workspace) -> _Snapshot:
        audits = {r["name"]: r for r in ws.db.query("select * from audits order by created_at, name")}
        items: dict[str, list[dict]] = {name: [] for name in audits}
        for r in ws.db.query("select * from audit_items order by audit, position"):
            items.setdefault(r["audit"], []).append(r)
        rows = {kind.table: list(ws.db.query(f"select * from {kind.table} order by id")) for kind in ROW_KINDS}
        return cls(audits, items, rows)

    def problem(self) -> str:
        """The first row the audit store would not have stored or could not read back, named ("" when none)."""
        rows = {"audit": self.audits.values(), "audit item": (i for items in self.items.values() for i in items),
                **{kind.name: self.rows[kind.table] for kind in ROW_KINDS}}
        for what, check in _CHECKS.items():
            judged: set[tuple] = set()  # rows alike in what the store checks are judged once
            for row in rows[what]:
                try:
                    missing = [column for column in check.texts if type(row[column]) is not str]
                    if missing:
                        raise TypeError(f"no {missing[0]}")
                    alike = tuple(row[c] for c in check.judged) if check.judged else tuple(row.values())
                    if alike not in judged:
                        check.judge(row)
                        judged.add(alike)
                except (ValueError, TypeError) as error:
                    where = f"audit {row.get('name')!r}" if what == "audit" else f"{what} {_row_name(row)}"
                    return f"{where}: {error}"
        return ""


# -- the merge ------------------------------------------------------------------------------------------
class _Merge:
    def __init__(self, target: Workspace, source: Path, snapshot: _Snapshot, cancel: threading.Event | None):
        self.ws, self.db, self.source, self.snap, self.cancel = target, target.db, source, snapshot, cancel
        self.skipped: list[tuple[str, str]] = []
        self.added: list[str] = []
        self.touched: set[str] = set()  # existing audits that got anything new

    def run(self) -> MergeReport:
        merged = self._merge_audits()
        added: dict[str, list[dict]] = {}
        conflicts: list[MergeConflict] = []
        for kind in ROW_KINDS:
            self._check_cancelled()
            rows = self._mergeable(kind, merged)
            before = self._target_rows(kind)
            added[kind.table] = self._copy(kind, rows, before)
            conflicts += self._conflicts(kind, rows, before)
        self._check_cancelled()
        refreshed = self._refresh_baselines(added[ANSWERS.table])
        self._check_cancelled()
        for rows in added.values():
            self.touched.update(r["audit"] for r in rows if r["audit"] and r["audit"] not in self.added)
        return MergeReport(self.source, tuple(self.added), tuple(sorted(self.touched)),
                           len(added[VERDICTS.table]), len(added[ADJUDICATIONS.table]), len(added[ANSWERS.table]),
                           tuple(conflicts), tuple(self.skipped), refreshed)

    # audits --------------------------------------------------------------------------------------
    def _merge_audits(self) -> set[str]:
        """Add or update the source's audits; returns the names whose rows are merged."""
        merged = set()
        instances = {k for (k,) in self.db.execute("select key from instances")}
        for name, row in self.snap.audits.items():
            items = self.snap.items.get(name, [])
            mine = AuditStore(self.ws).find(name)
            if mine is None:
                missing = sorted({i["instance_key"] for i in items} - instances)
                if missing:
                    self._skip(name, f"audit {name!r} samples {_count(len(missing), 'program')} this workspace "
                                     f"does not have ({missing[0]}...): not merged (another dataset?)")
                    continue
                self.db.table("audits").insert(row)
                self.db.table("audit_items").insert_all(items, batch_size=500)
                self.added.append(name)
            elif self._same_sample(name, row, items, mine.fingerprint):
                self._union_annotators(name, mine.annotators, json.loads(row["annotators"] or "[]"))
            else:
                here, there = mine.fingerprint[:8] or "?", (row["fingerprint"] or "?")[:8]
                self._skip(name, f"audit {name!r} has a different sample there (fingerprint {here}… vs {there}…): "
                                 "not merged; create it again with the same options, or rename one")
                continue
            merged.add(name)
        return merged

    def _same_sample(self, name: str, row: dict, items: list[dict], fingerprint: str) -> bool:
        if fingerprint and row["fingerprint"]:
            return fingerprint == row["fingerprint"]
        # an audit stored without a fingerprint: compare the items themselves
        mine = self.db.query("select * from audit_items where audit = ? order by position", [name])
        return _items_fingerprint(mine) == _items_fingerprint(items)

    def _union_annotators(self, name: str, mine: Iterable[str], theirs: Iterable[str]) -> None:
        mine = tuple(mine)
        union = tuple(dict.fromkeys([*mine, *theirs]))
        if union != mine:
            self.db.table("audits").update(name, {"annotators": json.dumps(union)})
            self.touched.add(name)

    def _skip(self, audit: str, reason: str) -> None:
        self.skipped.append((audit, reason))

    def _check_cancelled(self) -> None:
        """Cancelled (the transaction then rolls back) once the cancel event is set."""
        if self.cancel is not None and self.cancel.is_set():
            raise Cancelled("cancelled: nothing was merged")

    # rows ---------------------------------------------------------------------------------------------
    def _mergeable(self, kind: RowKind, merged: set[str]) -> list[dict]:
        """The source rows of merged audits, plus ad-hoc verdicts (no audit) on programs this workspace has."""
        rows, foreign = [], 0
        orphans: dict[str, int] = {}
        for row in self.snap.rows[kind.table]:
            audit = row["audit"]
            if audit in merged:
                rows.append(row)
            elif not audit and kind is VERDICTS:
                if self.ws.has_instance(row["instance_key"]):
                    rows.append(row)
                else:
                    foreign += 1
            elif audit not in self.snap.audits:
                orphans[audit] = orphans.get(audit, 0) + 1
        if foreign:
            self._skip("", f"{_count(foreign, 'ad-hoc verdict')} on programs this workspace does not have")
        for audit, n in orphans.items():
            self._skip(audit, f"{_count(n, kind.name)} of audit {audit!r}, which does not exist there")
        return rows

    def _target_rows(self, kind: RowKind) -> list[dict]:
        return list(self.db.query(f"select * from {kind.table} order by id"))

    def _copy(self, kind: RowKind, rows: list[dict], before: list[dict]) -> list[dict]:
        """Insert the rows the target lacks, in source order; returns them. A copied undo row's
        `undoes` is remapped to the target id of the row it takes back."""
        target_ids = {_identity(kind, r): r["id"] for r in reversed(before)}  # the first row of an identity
        source_identity = {r["id"]: _identity(kind, r) for r in rows}
        columns = [c for c in self.db[kind.table].columns_dict if c != "id"]
        insert = f"insert into {kind.table} ({', '.join(columns)}) values ({', '.join('?' * len(columns))})"
        added, pending_undo = [], []
        for number, row in enumerate(rows):
            if number % 500 == 0:
                self._check_cancelled()
            identity = _identity(kind, row)
            if identity in target_ids:
                continue
            values = {c: row.get(c) for c in columns}
            if kind is VERDICTS and row.get("undoes") is not None:
                pending_undo.append((identity, row["undoes"]))
                values["undoes"] = None
            target_ids[identity] = self.db.execute(insert, [values[c] for c in columns]).lastrowid
            added.append(row)
        for identity, undoes in pending_undo:  # after the copy: the undone row may come later in id order
            undone_identity = source_identity.get(undoes)  # None: the undone row is not among those merged
            undone = target_ids.get(undone_identity) if undone_identity is not None else None
            self.db.execute("update verdicts set undoes = ? where id = ?", [undone, target_ids[identity]])
        return added

    # conflicts ------------------------------------------------------------------------------------------
    def _conflicts(self, kind: RowKind, rows: list[dict], before: list[dict]) -> list[MergeConflict]:
        """Things whose newest state differs here and there, where neither side already had the other's
        newest state (a side that merely went further than the other is no conflict)."""
        theirs, mine = _newest(kind, rows), _newest(kind, before)
        known_here = {_identity(kind, r) for r in before}
        known_there = {_identity(kind, r) for r in rows}
        conflicts = []
        for key, there in theirs.items():
            here = mine.get(key)
            if here is None or _identity(kind, there) in known_here or _identity(kind, here) in known_there:
                continue
            if all(_same_value(c, here[c], there[c]) for c in kind.compared):
                continue
            conflicts.append(self._conflict(kind, key, here, there))
        return conflicts

    def _conflict(self, kind: RowKind, key: tuple, here: dict, there: dict) -> MergeConflict:
        values = dict(zip(kind.key, key))
        ref = EdgeRef(values["instance_key"], values["caller"], values.get("callee", ""))
        where = " and ".join(f"{c} is ?" for c in kind.key)
        latest = list(self.db.query(f"select * from {kind.table} where {where} order by created_at desc, id desc "
                                    "limit 1", list(key)))
        now = latest[0]
        stands = "there" if _identity(kind, now) == _identity(kind, there) else "here"
        annotator = "" if kind is ADJUDICATIONS else values[kind.author]
        return MergeConflict(kind.name, values["audit"] or "", ref, annotator, _side(kind, here), _side(kind, there),
                             stands)

    # baselines -----------------------------------------------------------------------------------------
    def _refresh_baselines(self, answers: list[dict]) -> tuple[str, ...]:
        models = []
        for audit, annotator in dict.fromkeys((r["audit"], r["annotator"]) for r in answers):
            if refresh_baseline_predictions(self.ws, audit, annotator):
                models.append(f"human:{annotator}")
        return tuple(dict.fromkeys(models))


# -- what the store would have stored ---------------------------------------------------------------------
class _RowCheck(NamedTuple):
    texts: tuple[str, ...]  # columns that must hold text
    judged: tuple[str, ...]  # the columns `judge` reads (all when empty)
    judge: Callable[[dict], object]  # ValueError or TypeError for a row the store would not have stored


def _audit_problem(row: dict) -> None:
    for column in ("strata", "languages", "modes", "annotators"):
        _string_list(row[column] or "[]", column)
    for annotator in audit_from_row(row).annotators:
        check_person_name(annotator)


def _position(row: dict) -> None:
    if not isinstance(row["position"], int):
        raise TypeError("no position")


def _verdict_problem(row: dict) -> None:
    verdict_from_row(row)
    check_person_name(row["auditor"], "auditor")
    if row["action"] not in VERDICT_ACTIONS:
        raise ValueError(f"unknown action {row['action']!r} (a workspace has {', '.join(VERDICT_ACTIONS)})")


def _adjudication_problem(row: dict) -> None:
    Adjudication(row["audit"], EdgeRef("", "", ""), row["label"], row["adjudicator"])
    check_person_name(row["adjudicator"], "adjudicator")


def _answer_problem(row: dict) -> None:
    check_person_name(row["annotator"])
    _string_list(row["callees"], "callees")


EDGE_TEXTS = ("audit", "instance_key", "caller", "callee")
_CHECKS = {
    "audit": _RowCheck(("name",), (), _audit_problem),
    "audit item": _RowCheck(EDGE_TEXTS, ("position",), _position),
    VERDICTS.name: _RowCheck(("instance_key", "caller", "callee", "created_at"), ("label", "auditor", "action"),
                             _verdict_problem),
    ADJUDICATIONS.name: _RowCheck((*EDGE_TEXTS, "created_at"), ("label", "adjudicator"), _adjudication_problem),
    ANSWERS.name: _RowCheck(("audit", "instance_key", "caller", "created_at"), ("annotator", "callees"),
                            _answer_problem),
}


def _string_list(text: object, column: str) -> None:
    """ValueError unless `text` is a JSON list of strings (read with bounds: it may nest without end)."""
    try:
        value = parse_json(text) if isinstance(text, str) else None
    except ValueError:
        value = None
    if type(value) is not list or refusal(value) or not all(isinstance(item, str) for item in value):
        raise ValueError(f"{column} is not a list of names")


def _row_name(row: dict) -> str:
    """A row named for a one-line error: its id, audit and edge."""
    edge = " -> ".join(str(row.get(c) or "?") for c in ("caller", "callee") if c in row)
    return f"#{row.get('id', row.get('position'))} ({row.get('audit') or 'ad hoc'}: {row.get('instance_key')} {edge})"


def _identity(kind: RowKind, row: dict) -> tuple:
    return tuple(row.get(c) for c in kind.identity)


def _newest(kind: RowKind, rows: list[dict]) -> dict[tuple, dict]:
    """key -> the newest row (by time, then id), as the store reads state."""
    newest: dict[tuple, dict] = {}
    for row in sorted(rows, key=lambda r: (r["created_at"] or "", r["id"])):
        newest[tuple(row[c] for c in kind.key)] = row
    return newest


def _same_value(column: str, a, b) -> bool:
    if column == "callees":
        return json.loads(a or "[]") == json.loads(b or "[]")
    return (a or "") == (b or "")


def _side(kind: RowKind, row: dict) -> ConflictSide:
    if kind is ANSWERS:
        label, note = ", ".join(json.loads(row["callees"] or "[]")) or "none", ""
    else:
        label, note = row["label"] or CLEARED, row[kind.compared[1]] or ""
    return ConflictSide(label, note, row["created_at"] or "", row[kind.author] or "")


def _side_text(side: ConflictSide) -> str:
    label = side.label if side.label != CLEARED else "(withdrawn)"
    note = f" ({side.note})" if side.note else ""
    return f"{label}{note} at {side.created_at}"


def _items_fingerprint(items: Iterable[dict]) -> str:
    return sample_fingerprint(_Item(r["position"], r["instance_key"], r["caller"], r["callee"]) for r in items)


class _Item(NamedTuple):
    """What `sample_fingerprint` reads of an item."""

    position: int
    instance_key: str
    caller: str
    callee: str


def _count(n: int, noun: str, after: str = "") -> str:
    """"1 audit added", "2 audits added"."""
    return f"{n} {noun}{'' if n == 1 else 's'}{' ' + after if after else ''}"


__all__ = ["ConflictSide", "MergeConflict", "MergeReport", "merge_workspace"]
