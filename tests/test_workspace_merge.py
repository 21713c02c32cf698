"""Merging workspaces: two annotators audit the same sample in separate files, then one merges the other's."""
from __future__ import annotations

import hashlib
import json
import sqlite3
import tempfile
import threading

import pytest
from sqlite_utils import Database

from core.audit.agreement import agreement
from core.audit.audits import Audit, AuditItem, disagreements, sample_fingerprint
from core.audit.merge import merge_workspace
from core.audit.sampling import create_audit
from core.audit.store import AuditStore
from core.dataset.indexing import open_dataset
from core.dataset.workspace import Workspace
from core.dataset.workspace_schema import MIGRATIONS
from core.errors import Cancelled, WorkspaceError
from resources import DEMO_DATASET
from tests.builders import newer_workspace

AUDIT = "spot"
OPTIONS = {"size": 20, "seed": 7}
TABLES = ("audits", "audit_items", "verdicts", "adjudications", "annotator_answers", "predictions", "models")


def _open(path, *audits):
    ws, _ = open_dataset(DEMO_DATASET, path)
    for name, options in audits:
        create_audit(ws, name, **options)
    return ws


@pytest.fixture
def a(tmp_path):
    with _open(tmp_path / "a.sqlite", (AUDIT, OPTIONS)) as ws:
        yield ws


@pytest.fixture
def b(tmp_path):
    with _open(tmp_path / "b.sqlite", (AUDIT, OPTIONS)) as ws:
        yield ws


def refs(ws, audit=AUDIT):
    return [item.ref for item in AuditStore(ws).items(audit)]


def dump(ws):
    return {table: sorted(map(repr, ws.db.execute(f"select * from {table}").fetchall())) for table in TABLES}


def sha(path):
    return hashlib.sha256(path.read_bytes()).hexdigest()


def label_all(ws, annotator, labels, audit=AUDIT):
    store = AuditStore(ws)
    for ref, label in zip(refs(ws, audit), labels):
        store.give_verdict(audit, ref, annotator, label)


ALICE = ["correct"] * 8 + ["wrong", "unsure"]
BOB = ["correct"] * 6 + ["wrong", "not_exercised", "wrong", "unsure"]


# -- two annotators ---------------------------------------------------------------------------------
def test_two_annotators_merge_keeping_author_and_time_and_agreement_shows(a, b):
    assert AuditStore(a).get(AUDIT).fingerprint == AuditStore(b).get(AUDIT).fingerprint
    label_all(a, "alice", ALICE)
    label_all(b, "bob", BOB)
    report = merge_workspace(a, b.path)
    assert (report.audits_added, report.audits_updated, report.verdicts_added) == ((), (AUDIT,), 10)
    assert report.conflicts == () and report.skipped == () and report.changed
    assert report.summary() == "merged b.sqlite: 1 audit updated, 10 verdicts, 0 adjudications, 0 answers added"
    store = AuditStore(a)
    assert store.history(AUDIT, "bob") == AuditStore(b).history(AUDIT, "bob")  # author and time kept
    labels = store.labels(AUDIT)
    assert all(set(given) == {"alice", "bob"} for given in labels.values()) and len(labels) == 10
    assert disagreements(labels) == [refs(a)[6], refs(a)[7]]
    assert agreement(labels).cohen_kappa is not None and store.annotators(AUDIT) == ("alice", "bob")


def test_registered_annotators_are_united(a, b):
    AuditStore(a).add_annotator(AUDIT, "alice")
    AuditStore(b).add_annotator(AUDIT, "bob")
    report = merge_workspace(a, b.path)
    assert report.audits_updated == (AUDIT,) and report.verdicts_added == 0
    assert AuditStore(a).get(AUDIT).annotators == ("alice", "bob")
    assert not merge_workspace(a, b.path).changed


def test_merging_twice_changes_nothing_and_lists_no_conflict(a, b, tmp_path):
    label_all(a, "alice", ALICE)
    label_all(b, "alice", ["wrong", "correct", "correct"])  # alice also worked there: one conflict
    label_all(b, "bob", BOB)
    AuditStore(b).undo(AUDIT, "bob")
    AuditStore(b).adjudicate(AUDIT, refs(b)[6], "wrong", "carol", "read the code")
    create_audit(b, "base", kind="baseline", size=1)
    store = AuditStore(b)
    question = store.items("base")[0]
    store.store_answer("base", "dave", question.instance_key, question.caller, ["main.main"])
    first = merge_workspace(a, b.path)
    assert first.changed and first.audits_added == ("base",) and first.answers_added == 1
    assert [(c.annotator, c.here.label, c.there.label) for c in first.conflicts] == [("alice", "correct", "wrong")]
    before = dump(a)
    second = merge_workspace(a, b.path)
    assert not second.changed and second.conflicts == () and second.skipped == ()
    assert second.summary() == "nothing new in b.sqlite"
    assert dump(a) == before


def test_merging_either_way_gives_the_same_current_labels(a, b):
    label_all(a, "alice", ALICE)
    label_all(b, "bob", BOB)
    AuditStore(a).adjudicate(AUDIT, refs(a)[6], "wrong", "carol")
    AuditStore(b).give_verdict(AUDIT, refs(b)[0], "alice", "unsure", note="looked again")  # newer: wins both ways
    merge_workspace(a, b.path)
    merge_workspace(b, a.path)
    sa, sb = AuditStore(a), AuditStore(b)
    assert sa.labels(AUDIT) == sb.labels(AUDIT) and sa.labels(AUDIT)[refs(a)[0]]["alice"] == "unsure"
    assert sa.adjudications(AUDIT) == sb.adjudications(AUDIT)
    assert sa.current_verdicts(AUDIT) == sb.current_verdicts(AUDIT)


# -- conflicts ---------------------------------------------------------------------------------------
def test_a_same_annotator_conflict_is_listed_and_the_newer_stands(a, b):
    ref = refs(a)[0]
    AuditStore(a).give_verdict(AUDIT, ref, "alice", "correct")
    later = AuditStore(b).give_verdict(AUDIT, ref, "alice", "wrong", note="dead code")
    AuditStore(b).give_verdict(AUDIT, refs(b)[1], "bob", "wrong")  # another annotator: not a conflict
    report = merge_workspace(a, b.path)
    (conflict,) = report.conflicts
    assert (conflict.kind, conflict.audit, conflict.ref, conflict.annotator) == ("verdict", AUDIT, ref, "alice")
    assert (conflict.here.label, conflict.there.label, conflict.there.note) == ("correct", "wrong", "dead code")
    assert conflict.there.created_at == later.created_at and conflict.stands == "there"
    assert "here correct" in conflict.describe() and report.summary().endswith("; 1 conflict")
    assert AuditStore(a).labels(AUDIT)[ref]["alice"] == "wrong"
    assert merge_workspace(b, a.path).conflicts == ()  # b now has nothing a newer than its own


def test_merged_the_other_way_the_newer_local_verdict_stands(a, b):
    ref = refs(a)[0]
    AuditStore(a).give_verdict(AUDIT, ref, "alice", "correct")
    AuditStore(b).give_verdict(AUDIT, ref, "alice", "wrong")
    report = merge_workspace(b, a.path)
    assert [(c.here.label, c.there.label, c.stands) for c in report.conflicts] == [("wrong", "correct", "here")]
    assert AuditStore(b).labels(AUDIT)[ref]["alice"] == "wrong"


def test_a_workspace_that_only_went_further_is_no_conflict(a, tmp_path):
    ref = refs(a)[0]
    AuditStore(a).give_verdict(AUDIT, ref, "alice", "correct")
    copy = tmp_path / "copy.sqlite"
    with sqlite3.connect(copy) as target:
        a.db.conn.backup(target)
    with Workspace(copy) as later:
        AuditStore(later).give_verdict(AUDIT, ref, "alice", "wrong")
    report = merge_workspace(a, copy)
    assert report.verdicts_added == 1 and report.conflicts == ()
    assert AuditStore(a).labels(AUDIT)[ref]["alice"] == "wrong"


def test_adjudication_and_answer_conflicts_are_listed(a, b):
    for ws in (a, b):
        create_audit(ws, "base", kind="baseline", size=1)
    ref, question = refs(a)[0], AuditStore(a).items("base")[0]
    AuditStore(a).adjudicate(AUDIT, ref, "correct", "carol")
    AuditStore(a).store_answer("base", "dave", question.instance_key, question.caller, ["main.f"])
    AuditStore(b).adjudicate(AUDIT, ref, "wrong", "erin", "never called")
    AuditStore(b).store_answer("base", "dave", question.instance_key, question.caller, [])
    report = merge_workspace(a, b.path)
    adjudication, answer = report.conflicts
    assert (adjudication.kind, adjudication.here.by, adjudication.there.by) == ("adjudication", "carol", "erin")
    assert (adjudication.there.label, adjudication.there.note, adjudication.stands) == ("wrong", "never called",
                                                                                         "there")
    assert (answer.kind, answer.annotator, answer.ref.caller) == ("answer", "dave", question.caller)
    assert (answer.here.label, answer.there.label, answer.stands) == ("main.f", "none", "there")
    assert AuditStore(a).adjudications(AUDIT)[ref].label == "wrong"
    assert merge_workspace(a, b.path).conflicts == ()


# -- undo ----------------------------------------------------------------------------------------------
def test_undo_after_a_merge_follows_the_copied_undo_rows(a, b):
    r0, r1, r2 = refs(a)[:3]
    AuditStore(a).give_verdict(AUDIT, r0, "alice", "correct")
    there = AuditStore(b)
    there.give_verdict(AUDIT, r1, "alice", "correct")
    there.give_verdict(AUDIT, r2, "alice", "wrong")
    there.undo(AUDIT, "alice")  # takes back r2
    merge_workspace(a, b.path)
    rows = {r["id"]: r for r in a.db.query("select * from verdicts order by id")}
    (undo,) = [r for r in rows.values() if r["action"] == "undo"]
    assert (rows[undo["undoes"]]["caller"], rows[undo["undoes"]]["callee"]) == (r2.caller, r2.callee)
    store = AuditStore(a)
    assert store.labels(AUDIT) == {r0: {"alice": "correct"}, r1: {"alice": "correct"}}
    assert store.undo(AUDIT, "alice").edge == (r1.caller, r1.callee)  # not r2 again
    assert store.undo(AUDIT, "alice").edge == (r0.caller, r0.callee)
    assert store.undo(AUDIT, "alice") is None and store.labels(AUDIT) == {}


# -- audits that differ --------------------------------------------------------------------------------
def test_an_audit_with_a_different_sample_is_skipped_and_listed(a, tmp_path):
    with _open(tmp_path / "b.sqlite", (AUDIT, {**OPTIONS, "seed": 8})) as b:
        label_all(b, "bob", BOB)
        AuditStore(b).adjudicate(AUDIT, refs(b)[0], "wrong", "carol")
    before = dump(a)
    report = merge_workspace(a, tmp_path / "b.sqlite")
    ((audit, reason),) = report.skipped
    assert audit == AUDIT and "has a different sample there" in reason and "create it again" in reason
    assert not report.changed and dump(a) == before
    assert report.summary() == "nothing new in b.sqlite; 1 skipped"


def test_an_audit_only_in_the_source_is_copied_with_its_items(a, b):
    create_audit(b, "extra", size=5, seed=3, annotators=["bob"])
    label_all(b, "bob", ["wrong"] * 5, audit="extra")
    report = merge_workspace(a, b.path)
    assert report.audits_added == ("extra",) and report.audits_updated == () and report.verdicts_added == 5
    assert AuditStore(a).get("extra") == AuditStore(b).get("extra")
    assert AuditStore(a).items("extra") == AuditStore(b).items("extra")
    assert AuditStore(a).labels("extra") == AuditStore(b).labels("extra")
    assert report.summary() == "merged b.sqlite: 1 audit added, 5 verdicts, 0 adjudications, 0 answers added"


def test_an_audit_of_programs_this_workspace_lacks_is_skipped(a, b):
    items = [AuditItem("other", 0, "python/elsewhere_0001", "elsewhere_0001", "python", "elsewhere", "main.f",
                       "main.g", "truth")]
    AuditStore(b).create(Audit("other", size=1, fingerprint=sample_fingerprint(items)), items)
    AuditStore(b).give_verdict("other", items[0].ref, "bob", "correct")
    report = merge_workspace(a, b.path)
    assert [audit for audit, _ in report.skipped] == ["other"] and "does not have" in report.skipped[0][1]
    assert AuditStore(a).find("other") is None and report.verdicts_added == 0


# -- baseline answers --------------------------------------------------------------------------------
def test_merged_baseline_answers_make_the_human_model(a, b):
    for ws in (a, b):
        create_audit(ws, "base", kind="baseline", size=2, seed=1)
    store = AuditStore(b)
    for item in store.items("base"):
        truth = b.instance(item.instance_key).ground_truth.to_dict()
        store.store_answer("base", "dave", item.instance_key, item.caller, truth[item.caller])
    report = merge_workspace(a, b.path)
    assert report.answers_added == len(store.items("base")) and report.models_refreshed == ("human:dave",)
    predictions = a.predictions("human:dave")
    assert predictions and all(p.parse_problems == () for p in predictions.values())
    assert {k: p.graph for k, p in predictions.items()} == {
        key: b.instance(key).ground_truth for key in {i.instance_key for i in store.items("base")}}


def test_a_failure_mid_merge_leaves_the_target_unchanged(a, b, monkeypatch):
    create_audit(b, "base", kind="baseline", size=1)
    question = AuditStore(b).items("base")[0]
    AuditStore(b).store_answer("base", "dave", question.instance_key, question.caller, [])
    label_all(b, "bob", BOB)
    before = dump(a)

    def crash(*args, **kwargs):
        raise RuntimeError("power cut")

    monkeypatch.setattr("core.audit.merge.refresh_baseline_predictions", crash)
    with pytest.raises(RuntimeError):
        merge_workspace(a, b.path)
    assert dump(a) == before


# -- the source file ------------------------------------------------------------------------------------
def test_the_source_is_unchanged_even_with_a_wal_not_yet_checkpointed(a, b):
    b.db.execute("PRAGMA wal_autocheckpoint=0")
    label_all(b, "bob", BOB)  # committed, but only in b.sqlite-wal while b stays open
    wal = b.path.with_name(b.path.name + "-wal")
    assert wal.stat().st_size > 0
    hashes = (sha(b.path), sha(wal))
    report = merge_workspace(a, b.path)
    assert report.verdicts_added == 10 and (sha(b.path), sha(wal)) == hashes
    AuditStore(b).give_verdict(AUDIT, refs(b)[0], "bob", "wrong")  # the source still works
    assert merge_workspace(a, b.path).verdicts_added == 1


def test_a_closed_source_is_unchanged(a, tmp_path):
    path = tmp_path / "b.sqlite"
    with _open(path, (AUDIT, OPTIONS)) as b:
        label_all(b, "bob", BOB)
    digest = sha(path)
    assert merge_workspace(a, path).verdicts_added == 10
    assert sha(path) == digest


def test_an_older_source_is_upgraded_on_its_copy_and_its_ad_hoc_verdicts_merge(a, tmp_path):
    path = tmp_path / "old.sqlite"
    db = Database(path)
    MIGRATIONS.apply(db, stop_before="m006_audits")
    ref = refs(a)[0]
    db["verdicts"].insert({"instance_key": ref.instance_key, "caller": ref.caller, "callee": ref.callee,
                           "auditor": "olga", "label": "correct", "note": "", "created_at": "2024-01-01T00:00:00",
                           "audit": None})
    db["verdicts"].insert({"instance_key": "python/elsewhere_0001", "caller": "f", "callee": "g", "auditor": "olga",
                           "label": "wrong", "note": "", "created_at": "2024-01-01T00:00:01", "audit": None})
    other = refs(a)[1]  # "incorrect" is what schema step m006 renamed to "wrong"
    db["verdicts"].insert({"instance_key": other.instance_key, "caller": other.caller, "callee": other.callee,
                           "auditor": "olga", "label": "incorrect", "note": "", "created_at": "2024-01-01T00:00:02",
                           "audit": None})
    db.close()
    digest = sha(path)
    report = merge_workspace(a, path)
    assert report.verdicts_added == 2 and [audit for audit, _ in report.skipped] == [""]
    assert a.latest_verdicts(ref.instance_key, "olga")[(ref.caller, ref.callee)].label == "correct"
    assert a.latest_verdicts(other.instance_key, "olga")[(other.caller, other.callee)].label == "wrong"
    assert sha(path) == digest and Database(path)["verdicts"].columns_dict.get("action") is None


def test_files_that_cannot_be_merged_are_refused_in_one_line(a, tmp_path):
    with pytest.raises(WorkspaceError, match=r"nope.sqlite: no such workspace file"):
        merge_workspace(a, tmp_path / "nope.sqlite")
    assert not (tmp_path / "nope.sqlite").exists()
    junk = tmp_path / "junk.sqlite"
    junk.write_bytes(b"this is not sqlite" * 100)
    with pytest.raises(WorkspaceError, match=r"junk.sqlite: not a TraceEval workspace"):
        merge_workspace(a, junk)
    with pytest.raises(WorkspaceError, match=r"open workspace itself"):
        merge_workspace(a, a.path)
    newer = newer_workspace(tmp_path / "newer.sqlite")
    with pytest.raises(WorkspaceError, match=r"newer.sqlite: made by a newer TraceEval Studio") as error:
        merge_workspace(a, newer)
    assert "traceeval-merge-" not in str(error.value) and "\n" not in str(error.value)
    foreign = tmp_path / "foreign.sqlite"
    sqlite3.connect(foreign).execute("create table people (name text)").connection.commit()
    with pytest.raises(WorkspaceError, match=r"foreign.sqlite: not a TraceEval workspace"):
        merge_workspace(a, foreign)
    empty = tmp_path / "empty.sqlite"
    empty.write_bytes(b"")
    with pytest.raises(WorkspaceError, match=r"empty.sqlite: not a TraceEval workspace"):
        merge_workspace(a, empty)


def test_answers_keep_their_json_callees(a, b):
    for ws in (a, b):
        create_audit(ws, "base", kind="baseline", size=1)
    question = AuditStore(b).items("base")[0]
    AuditStore(b).store_answer("base", "dave", question.instance_key, question.caller, ["x", "y"])
    merge_workspace(a, b.path)
    (row,) = a.db.query("select callees from annotator_answers")
    assert json.loads(row["callees"]) == ["x", "y"]


# -- cancelling -----------------------------------------------------------------------------------------
@pytest.mark.parametrize("step", ["copying", "checking", "reading", "merging"])
def test_a_cancel_at_any_step_stops_the_merge_and_leaves_nothing(a, b, tmp_path, monkeypatch, step):
    label_all(b, "bob", BOB)
    b.close()
    private = tmp_path / "private"
    private.mkdir()
    monkeypatch.setattr(tempfile, "tempdir", str(private))  # where the merge copies the file
    before, cancel, seen = dump(a), threading.Event(), []

    def progress(done, total, message):
        seen.append(message.split()[0])
        if message.startswith(step):
            cancel.set()

    with pytest.raises(Cancelled, match="cancelled: nothing was merged"):
        merge_workspace(a, tmp_path / "b.sqlite", cancel=cancel, progress=progress)
    assert seen[-1] == step and dump(a) == before and list(private.iterdir()) == []
    report = merge_workspace(a, tmp_path / "b.sqlite", progress=progress)  # nothing half-done stands in the way
    assert report.verdicts_added == 10 and seen[-1] == "merging"
