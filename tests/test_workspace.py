import json
import os
import sqlite3
import time

import pytest
from sqlite_utils import Database

from core.dataset.indexing import open_dataset, refresh_index
from core.dataset.workspace import Workspace
from core.dataset.workspace_schema import MIGRATIONS, latest_version
from core.errors import WorkspaceError
from tests.builders import PY_GRAPH, PY_MAIN, newer_workspace, released_dataset, write_program


def test_new_workspace_is_wal_and_at_the_latest_schema(tmp_path):
    with Workspace(tmp_path / "w.sqlite") as ws:
        assert ws.db.execute("pragma journal_mode").fetchone()[0] == "wal"
        assert ws.schema_version == latest_version() == 14


def test_an_older_workspace_is_upgraded_keeping_its_data(tmp_path):
    path = tmp_path / "old.sqlite"
    db = Database(path)
    MIGRATIONS.apply(db, stop_before="m002_score_cache")
    db["settings"].insert({"key": "dataset_root", "value": "/data/x"})
    db.close()
    with Workspace(path) as ws:
        assert ws.schema_version == latest_version()
        assert ws.setting("dataset_root") == "/data/x"
        assert {"scores", "runs"} <= set(ws.db.table_names())


def test_a_newer_or_foreign_database_is_refused(tmp_path):
    newer = newer_workspace(tmp_path / "newer.sqlite")
    with pytest.raises(WorkspaceError, match=r"made by a newer TraceEval Studio"):
        Workspace(newer)
    foreign = tmp_path / "foreign.sqlite"
    sqlite3.connect(foreign).execute("create table people (name text)").connection.commit()
    with pytest.raises(WorkspaceError, match=r"not a TraceEval workspace"):
        Workspace(foreign)
    junk = tmp_path / "junk.sqlite"
    junk.write_bytes(b"this is not sqlite" * 100)
    with pytest.raises(WorkspaceError, match=r"junk.sqlite"):
        Workspace(junk)


def test_reopening_reads_only_what_changed(tmp_path):
    root = released_dataset(tmp_path / "ds", {"python": ["a_0001", "a_0002", "b_0001"]})
    ws, first = open_dataset(root, tmp_path / "w.sqlite")
    assert (first.instances, first.loaded, first.reused) == (3, 3, 0)
    ws.close()
    ws, again = open_dataset(root, tmp_path / "w.sqlite")
    assert (again.instances, again.loaded, again.reused) == (3, 0, 3)
    # change one ground truth, remove one program, break one, add one
    truth = root / "benchmark/python/a_0001/callgraph.json"
    changed = dict(PY_GRAPH, **{"main.helper": ["main.Shape.area"]})
    truth.write_text(json.dumps(changed))
    later = time.time() + 5
    os.utime(truth, (later, later))
    for path in (root / "benchmark/python/a_0002").iterdir():
        path.unlink()
    (root / "benchmark/python/a_0002").rmdir()
    write_program(root / "benchmark/python/c_0001", {"main.py": PY_MAIN}, "{broken")
    write_program(root / "benchmark/python/d_0001", {"main.py": PY_MAIN}, PY_GRAPH)
    report = refresh_index(ws, root)
    assert (report.instances, report.loaded, report.removed) == (3, 2, 1)
    assert [p.path for p in report.problems] == ["benchmark/python/c_0001/callgraph.json"]
    assert ws.ground_truths(["python/a_0001"])["python/a_0001"].to_dict() == changed
    assert sorted(r.id for r in ws.instance_rows()) == ["a_0001", "b_0001", "d_0001"]
    ws.close()


def test_a_workspace_belongs_to_one_dataset(tmp_path):
    one = released_dataset(tmp_path / "one", {"python": ["a_0001"]})
    two = released_dataset(tmp_path / "two", {"python": ["a_0001"]})
    open_dataset(one, tmp_path / "w.sqlite")[0].close()
    with pytest.raises(WorkspaceError, match=r"belongs to the dataset"):
        open_dataset(two, tmp_path / "w.sqlite")


def test_the_dataset_folder_is_never_written(tmp_path):
    root = released_dataset(tmp_path / "ds", {"python": ["a_0001"]})
    before = sorted((p, p.stat().st_mtime_ns) for p in root.rglob("*"))
    ws, _ = open_dataset(root)  # default workspace location
    assert root not in ws.path.parents
    ws.close()
    assert sorted((p, p.stat().st_mtime_ns) for p in root.rglob("*")) == before


def test_splits_are_updated_when_the_split_files_change(tmp_path):
    root = released_dataset(tmp_path / "ds", {"python": ["a_0001", "b_0001"]},
                            splits={"test": {"python": ["a_0001"]}, "train": {"python": ["b_0001"]}})
    ws, _ = open_dataset(root, tmp_path / "w.sqlite")
    assert {r.id: r.split for r in ws.instance_rows()} == {"a_0001": "test", "b_0001": "train"}
    (root / "traceeval_split/test_ids.json").write_text(json.dumps({"python": ["a_0001", "b_0001"]}))
    (root / "traceeval_split/train_ids.json").write_text(json.dumps({"python": []}))
    (root / "traceeval_split/python_repo_assignment.json").write_text(json.dumps({"a": "test", "b": "test"}))
    refresh_index(ws, root)
    assert {r.id: r.split for r in ws.instance_rows()} == {"a_0001": "test", "b_0001": "test"}
    ws.close()


def test_verdicts_are_kept_and_the_newest_per_edge_wins(tmp_path):
    from core.verdicts import Verdict

    with Workspace(tmp_path / "w.sqlite") as ws:
        first = ws.store_verdict(Verdict("python/a_0001", "main.f", "main.g", "ann", "correct"))
        ws.store_verdict(Verdict("python/a_0001", "main.f", "main.g", "bob", "wrong", note="never runs"))
        ws.store_verdict(Verdict("python/a_0001", "main.f", "main.h", "ann", "unsure"))
        ws.store_verdict(Verdict("python/b_0001", "main.f", "main.g", "ann", "correct"))
        latest = ws.latest_verdicts("python/a_0001")
        assert first.created_at
        assert {edge: (v.auditor, v.label, v.note) for edge, v in latest.items()} == {
            ("main.f", "main.g"): ("bob", "wrong", "never runs"), ("main.f", "main.h"): ("ann", "unsure", "")}
        assert ws.db["verdicts"].count == 4
    with pytest.raises(ValueError, match=r"unknown verdict"):
        Verdict("python/a_0001", "main.f", "main.g", "ann", "maybe")
