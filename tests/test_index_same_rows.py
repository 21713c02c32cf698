"""Indexing's shortcuts change nothing in the workspace: the demo and a synthetic dataset (with broken and hostile
programs) indexed by today's code and by the reference paths it replaced (the full Java symbol scan for `main`
instead of the text and the cheaper parse, the full `refusal` walk of every ground truth) give the same instance rows
and the same problems."""
from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

import core.dataset.layout
import core.symbols.java_main
import core.symbols.java_main_text
from core.dataset.indexing import refresh_index
from core.dataset.layout import SKIPPED_DIRS, _source_files
from core.dataset.workspace import Workspace
from resources import DEMO_DATASET
from tests.bench.synthetic import corrupt, generate, split_ids


def _index(root: Path, workspace: Path, jobs: int | None = None) -> tuple[list[dict], list[tuple]]:
    ws = Workspace(workspace)
    try:
        refresh_index(ws, root, jobs=jobs)
        rows = [dict(row) for row in ws.db.query("select * from instances order by key")]
        return rows, [(p.path, p.message, p.severity, p.instance_id) for p in ws.problems()]
    finally:
        ws.close()


def _synthetic(root: Path) -> Path:
    ids = split_ids(None, 0.02)
    generate(root, ids, models=0)
    assert len(corrupt(root, dict(ids["train"]))) == 4
    java = root / "benchmark" / "java"
    hostile = {
        "twomains_0001": {"a/B.java": "package a;\nclass B { public static void main(String[] x) { } }\n",
                          "z/Main.java": "package z;\nclass Main { public static void main(String... x) { } }\n"},
        "ownstring_0001": {"A.java": "class A { static void main(String[] a) { } }\n",
                           "B.java": "// domain type\nclass String { }\n"},
        "anonymous_0001": {"A.java": "class A { Object o = new Object() { void main(String[] a) { } }; }\n"},
        "nomain_0001": {"A.java": "class A { /* main(String[] a) */ String s = \"main\"; }\n"},
    }
    for program_id, files in hostile.items():
        for name, text in files.items():
            (java / program_id / name).parent.mkdir(parents=True, exist_ok=True)
            (java / program_id / name).write_text(text)
        (java / program_id / "callgraph.json").write_text(json.dumps({"A:f()": []}))
    truths = {"surrogate_0001": r'{"A:f()": ["\ud800"]}', "lowsurrogate_0001": r'{"A:f()": ["\uDC00"]}',
              "number_0001": '{"A:f()": [1]}', "deep_0001": '{"A:f()": [[["x"]]]}', "list_0001": '["A:f()"]',
              "pair_0001": r'{"A:f()": ["\ud83d\ude00 ok"]}'}
    for program_id, text in truths.items():
        (java / program_id).mkdir()
        (java / program_id / "A.java").write_text("class A { void f() { } }\n")
        (java / program_id / "callgraph.json").write_text(text)
    return root


@pytest.mark.parametrize("dataset", ["demo", "synthetic"])
def test_the_index_is_the_same_as_with_the_full_scans(dataset: str, tmp_path: Path,
                                                       monkeypatch: pytest.MonkeyPatch) -> None:
    root = DEMO_DATASET if dataset == "demo" else _synthetic(tmp_path / "dataset")
    rows, problems = _index(root, tmp_path / "new.sqlite")
    monkeypatch.setattr(core.symbols.java_main, "main_methods", core.symbols.java_main.main_methods_by_full_scan)
    monkeypatch.setattr(core.symbols.java_main_text, "plain_main_file", lambda sources: None)
    monkeypatch.setattr(core.dataset.layout, "plainly_usable", lambda data, text: False)
    reference_rows, reference_problems = _index(root, tmp_path / "reference.sqlite")
    assert rows == reference_rows
    assert problems == reference_problems
    assert len(rows) >= (10 if dataset == "demo" else 200)
    if dataset == "synthetic":
        by_id = {row["id"]: row for row in rows}
        assert by_id["twomains_0001"]["entry_point"] == "z/Main.java"
        assert by_id["ownstring_0001"]["entry_point"] == ""
        assert by_id["anonymous_0001"]["entry_point"] == "A.java"
        assert by_id["pair_0001"]["ground_truth"] == json.dumps({"A:f()": ["\U0001f600 ok"]})
        assert "surrogate_0001" not in by_id and "number_0001" not in by_id and "deep_0001" not in by_id
        shown = {path.split("/")[-2]: message for path, message, _, _ in problems if path.endswith("callgraph.json")}
        assert shown["surrogate_0001"] == "not read: a string with a lone surrogate (\\ud800)"
        assert shown["lowsurrogate_0001"] == "not read: a string with a lone surrogate (\\udc00)"
        assert shown["list_0001"] == "expected an object {caller: [callees]}, got list"
        assert shown["number_0001"] == 'callees of "A:f()" must be a list of strings'


def _walked_source_files(folder: Path, suffixes: tuple[str, ...]) -> list[str]:
    """The reference: what `_source_files` found with `os.walk` before it listed folders itself."""
    found = []
    for dirpath, dirnames, filenames in os.walk(folder):
        dirnames[:] = sorted(d for d in dirnames if d not in SKIPPED_DIRS and not d.startswith("."))
        relative_dir = os.path.relpath(dirpath, folder)
        for name in sorted(filenames):
            if name.endswith(suffixes) and not name.startswith("."):
                found.append(name if relative_dir == "." else f"{relative_dir}/{name}".replace(os.sep, "/"))
    return found


def test_the_source_files_found_are_the_ones_os_walk_finds(tmp_path: Path) -> None:
    program = tmp_path / "program"
    for relative in ("Main.java", "b.java", "a/Z.java", "a/b/c/Deep.java", "a/B.java", "z.java/Inner.java",
                     ".hidden/H.java", "target/T.java", "node_modules/N.java", ".Dot.java", "notes.txt",
                     "a/b/readme.md", "aa/A.java", "A.java"):
        (program / relative).parent.mkdir(parents=True, exist_ok=True)
        (program / relative).write_text("class X { }\n")
    outside = tmp_path / "outside"
    (outside / "sub").mkdir(parents=True)
    (outside / "sub" / "Out.java").write_text("class Out { }\n")
    os.symlink(outside / "sub", program / "linked")  # a link to a folder: listed, never walked
    os.symlink(outside / "sub" / "Out.java", program / "Linked.java")  # a link to a file: found (read with bounds)
    os.symlink(tmp_path / "nowhere.java", program / "Broken.java")
    found = _source_files(program, "java")
    assert found == _walked_source_files(program, (".java",))
    assert "Linked.java" in found and "Broken.java" in found and "z.java/Inner.java" in found
    assert not any(path.startswith(("linked/", ".hidden/", "target/", "node_modules/")) for path in found)


def test_storing_the_index_in_batches_changes_nothing(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Rows are stored STORE_BATCH at a time (flat memory): with batches of 7, the same rows and problems as in one
    go, and an index stopped after some batches is completed by the next refresh."""
    import core.dataset.indexing as indexing

    root = _synthetic(tmp_path / "data")
    whole = _index(root, tmp_path / "whole.sqlite")
    monkeypatch.setattr(indexing, "STORE_BATCH", 7)
    assert _index(root, tmp_path / "batched.sqlite") == whole

    calls = []
    original = Workspace.update_index

    def stop_at_third_batch(ws: Workspace, *args, **kwargs):
        calls.append(1)
        if len(calls) == 3:
            raise KeyboardInterrupt
        return original(ws, *args, **kwargs)

    monkeypatch.setattr(Workspace, "update_index", stop_at_third_batch)
    with pytest.raises(KeyboardInterrupt):
        _index(root, tmp_path / "stopped.sqlite")
    monkeypatch.undo()
    stopped = Workspace(tmp_path / "stopped.sqlite")
    assert stopped.instance_count() == 14  # two batches kept
    stopped.close()
    assert _index(root, tmp_path / "stopped.sqlite") == whole


def test_reading_the_programs_in_worker_processes_changes_nothing(tmp_path: Path,
                                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    """Changed programs (broken and hostile ones among them) read by two worker processes, 7 to a task: the same
    rows and problems, in the same order, as read here."""
    import core.dataset.indexing as indexing

    root = _synthetic(tmp_path / "data")
    here = _index(root, tmp_path / "here.sqlite", jobs=1)
    monkeypatch.setattr(indexing, "LOAD_CHUNK", 7)
    assert _index(root, tmp_path / "workers.sqlite", jobs=2) == here
    rows, problems = here
    assert len(rows) >= 200 and len(problems) >= 10
