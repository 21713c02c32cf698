"""`traceeval export`: instances, predictions, per-program scores and edges as JSONL, Parquet and a Hugging Face
dataset folder that the real `datasets` library loads offline; the values are the scorer's."""
from __future__ import annotations

import json
import os
import re
import subprocess
import sys

import pyarrow.parquet as pq
import pytest

from core.dataset.indexing import open_dataset
from core.report.export_rows import COLUMNS, KINDS
from core.scoring.metrics import instance_scores
from core.scoring.scores import Selection, instance_counts, instance_diff
from tests.builders import PY_GRAPH, PY_MAIN, released_dataset, write_program
from tests.cli_run import run
from tests.conftest import ROOT

WEAK = "illustrative-weak"


def jsonl(text: str) -> list[dict]:
    return [json.loads(line) for line in text.splitlines()]


def test_scores_jsonl_are_the_scorers_counts_for_every_program(capsys):
    code, out, err = run(capsys, "export", "--what", "scores")
    assert code == 0, err
    rows = jsonl(out)
    assert [list(row) for row in rows[:1]] == [[c.name for c in COLUMNS["scores"]]]
    assert f"{len(rows)} scores row(s)" in err
    ws, _ = open_dataset()
    with ws:
        programs = Selection().rows(ws)
        expected = {(model, key): counts for model in ws.model_names()
                    for key, counts in instance_counts(ws, model, programs, frozenset({"init", "nested_class",
                                                                                       "stdlib"})).items()}
    assert len(rows) == len(expected) == 29  # 15 programs x 2 models, one weak answer missing
    for row in rows:
        counts = expected[(row["model"], f"{row['language']}/{row['program']}")]
        assert (row["tp"], row["fp"], row["fn"]) == (counts.tp, counts.fp, counts.fn)
        assert row["f1"] == instance_scores(counts).f1


def test_edges_jsonl_hold_each_diff_edge_with_its_class(capsys):
    code, out, err = run(capsys, "export", "--what", "edges", "--models", WEAK, "--split", "test",
                         "--languages", "python")
    assert code == 0, err
    rows = jsonl(out)
    assert {row["model"] for row in rows} == {WEAK} and {row["split"] for row in rows} == {"test"}
    ws, _ = open_dataset()
    with ws:
        diff = instance_diff(ws, WEAK, "python/calcpad_0001")
    mine = [(r["class"], r["caller"], r["callee"]) for r in rows if r["program"] == "calcpad_0001"]
    assert mine == [(label, *edge) for label, edges in (("TP", diff.tp), ("FP", diff.fp), ("FN", diff.fn))
                    for edge in edges]
    assert {r["class"] for r in rows} == {"TP", "FP", "FN"}


def test_parquet_files_hold_the_jsonl_rows_with_the_declared_schema(capsys, tmp_path):
    for kind in KINDS:
        code, out, err = run(capsys, "export", "--what", kind, "--format", "parquet", "--out", tmp_path / f"{kind}.pq")
        assert code == 0, err
        code, out, _ = run(capsys, "export", "--what", kind)
        table = pq.read_table(tmp_path / f"{kind}.pq")
        assert table.schema.names == [c.name for c in COLUMNS[kind]]
        assert table.to_pylist() == jsonl(out), kind
    assert not list(tmp_path.glob(".*partial"))


def test_instances_keep_key_order_files_and_licence_from_provenance(tmp_path, capsys):
    root = released_dataset(tmp_path / "data", {"python": ["alpha_0001", "beta_0001"]},
                            {"test": {"python": ["alpha_0001"]}, "train": {"python": ["beta_0001"]}})
    readme = root / "benchmark" / "python" / "alpha_0001" / "README.md"
    readme.write_text(readme.read_text() + "Licence: MIT (the repository's LICENSE is copied as LICENSE)\n")
    code, out, err = run(capsys, "export", root, "--what", "instances")
    assert code == 0, err
    alpha, beta = jsonl(out)
    assert (alpha["licence"], beta["licence"]) == ("MIT (the repository's LICENSE is copied as LICENSE)", "")
    assert [g["caller"] for g in alpha["ground_truth"]] == list(PY_GRAPH)
    assert {g["caller"]: g["callees"] for g in alpha["ground_truth"]} == PY_GRAPH
    assert alpha["files"] == [{"path": "main.py", "text": PY_MAIN, "problem": ""}]
    assert (alpha["split"], beta["split"], alpha["repo"]) == ("test", "train", "alpha")


def test_an_unreadable_source_file_is_named_in_its_row_and_the_rest_exported(tmp_path, capsys):
    root = tmp_path / "data"
    write_program(root / "benchmark" / "python" / "bad_0001", {"main.py": PY_MAIN, "util.py": "X = 1\n"}, PY_GRAPH)
    write_program(root / "benchmark" / "python" / "good_0001", {"main.py": PY_MAIN}, PY_GRAPH)
    assert run(capsys, "info", root)[0] == 0  # indexed while readable; then the file goes bad in place
    (root / "benchmark" / "python" / "bad_0001" / "util.py").write_bytes(b"\xff\xfe bad")
    code, out, err = run(capsys, "export", root, "--what", "instances")
    assert code == 0, err
    bad, good = jsonl(out)
    util = next(f for f in bad["files"] if f["path"] == "util.py")
    assert util["text"] is None and "UTF-8" in util["problem"]
    assert good["files"][0]["text"] == PY_MAIN


@pytest.mark.parametrize("argv, message", [
    (("--what", "scores,edges"), "writes one kind"),
    (("--what", "verdicts"), "unknown kind 'verdicts'"),
    (("--what", "scores", "--format", "parquet"), "needs --out"),
    (("--what", "scores", "--models", "nobody"), "no model named 'nobody'"),
])
def test_bad_options_are_one_line(capsys, argv, message):
    code, out, err = run(capsys, "export", *argv)
    assert code == 2 and out == ""
    assert err.count("\n") == 1 and message in err


def test_an_unwritable_out_is_one_line(capsys, tmp_path):
    code, _, err = run(capsys, "export", "--what", "scores", "--format", "jsonl", "--out", tmp_path / "no" / "x")
    assert code == 2 and err.startswith("traceeval: error: ") and "cannot write" in err


# -- the Hugging Face folder ---------------------------------------------------------------------------------
def load_with_datasets(folder, config, tmp_path, split=None) -> dict:
    """`datasets.load_dataset(folder, config)` in a fresh process, offline, with its own HF_HOME: rows and
    features per split."""
    script = ("import datasets, json, sys\n"
              "d = datasets.load_dataset(sys.argv[1], sys.argv[2])\n"
              "print(json.dumps({s: {'rows': d[s].to_list(), 'features': {k: str(v) for k, v in "
              "d[s].features.items()}} for s in d}))\n")
    env = {**os.environ, "HF_DATASETS_OFFLINE": "1", "HF_HUB_OFFLINE": "1", "HF_HOME": str(tmp_path / "hf-home")}
    done = subprocess.run([sys.executable, "-c", script, str(folder), config], capture_output=True, text=True,
                          env=env, timeout=300, check=False)
    assert done.returncode == 0, done.stderr[-3000:]
    assert "malformed" not in done.stderr and "Ignoring" not in done.stderr, done.stderr  # the card reads clean
    return json.loads(done.stdout.splitlines()[-1])


def test_hf_folder_loads_with_datasets_with_the_exported_rows_and_features(capsys, tmp_path):
    folder = tmp_path / "traceeval-demo"
    code, _, err = run(capsys, "export", "--format", "hf", "--out", folder)
    assert code == 0, err
    assert sorted(p.relative_to(folder).as_posix() for p in folder.rglob("*.parquet")) == sorted(
        f"data/{kind}/{split}.parquet" for kind in KINDS for split in ("test", "train"))
    for kind in KINDS:
        loaded = load_with_datasets(folder, kind, tmp_path)
        code, out, _ = run(capsys, "export", "--what", kind)
        exported = jsonl(out)
        assert set(loaded) == {"test", "train"}
        for split, part in loaded.items():
            assert part["rows"] == [row for row in exported if row["split"] == split], (kind, split)
            assert list(part["features"]) == [c.name for c in COLUMNS[kind]]
    features = load_with_datasets(folder, "instances", tmp_path)["test"]["features"]
    assert "List({'caller': Value('string'), 'callees': List(Value('string'))})" in features["ground_truth"]


def test_hf_card_says_what_the_data_is_and_each_programs_licence(capsys, tmp_path):
    root = released_dataset(tmp_path / "data", {"python": ["alpha_0001", "alpha_0002", "beta_0001"]},
                            {"test": {"python": ["alpha_0001", "alpha_0002"]}, "train": {"python": ["beta_0001"]}})
    for pid in ("alpha_0001", "alpha_0002"):
        readme = root / "benchmark" / "python" / pid / "README.md"
        readme.write_text(readme.read_text() + "Licence: Apache-2.0\n")
    folder = tmp_path / "out"
    code, _, err = run(capsys, "export", root, "--format", "hf", "--out", folder, "--what", "instances")
    assert code == 0, err
    card = (folder / "README.md").read_text()
    front, human = card.split("\n---\n", 1)
    assert 'license: "other"' in front  # beta's licence is unknown, so no single licence is claimed
    assert "config_name: instances" in front and 'path: "data/instances/train.parquet"' in front
    assert "arXiv:2605.11006" in human and "CC-BY 4.0" in human
    assert re.search(r"\| python \| alpha \| \S+ \| Apache-2.0 \| 2 \|", human)
    assert re.search(r"\| python \| beta \| \S+ \| unknown \(no licence recorded\) \| 1 \|", human)
    assert "| Python | test | 2 | 1 |" in human
    loaded = load_with_datasets(folder, "instances", tmp_path)
    assert [row["licence"] for row in loaded["test"]["rows"]] == ["Apache-2.0", "Apache-2.0"]

    for readme in (root / "benchmark" / "python").glob("beta_0001/README.md"):
        readme.write_text(readme.read_text() + "License: Apache-2.0\n")
    code, _, err = run(capsys, "export", root, "--format", "hf", "--out", folder, "--what", "instances")
    assert code == 0, err  # an earlier export is written over
    assert 'license: "apache-2.0"' in (folder / "README.md").read_text()


def test_hf_folder_without_pyarrow_has_jsonl_files_that_datasets_loads(tmp_path):
    from core.report.hf_dataset import write_hf_folder

    ws, _ = open_dataset()
    with ws:
        report = write_hf_folder(ws, tmp_path / "hf", ("scores",), data_format="jsonl")
    assert sorted(p.name for p in (tmp_path / "hf" / "data" / "scores").iterdir()) == ["test.jsonl", "train.jsonl"]
    loaded = load_with_datasets(report.folder, "scores", tmp_path)
    assert len(loaded["test"]["rows"]) == report.rows["scores"]["test"] == 13
    assert loaded["test"]["features"]["tp"] == "Value('int64')"


def test_hf_export_refuses_a_folder_it_did_not_write(capsys, tmp_path):
    (tmp_path / "mine.txt").write_text("keep me")
    code, _, err = run(capsys, "export", "--format", "hf", "--out", tmp_path)
    assert code == 2 and "not an earlier export" in err
    assert (tmp_path / "mine.txt").read_text() == "keep me"


def test_parquet_without_pyarrow_names_the_extra(tmp_path):
    script = ("import sys; sys.modules['pyarrow'] = None; sys.modules['pyarrow.parquet'] = None\n"
              "from traceeval_gui.cli.main import main\n"
              "sys.exit(main(['export', '--what', 'scores', '--format', 'parquet', '--out', sys.argv[1]]))\n")
    env = {**os.environ, "TRACEEVAL_WORKSPACE_DIR": str(tmp_path / "ws")}
    done = subprocess.run([sys.executable, "-c", script, str(tmp_path / "s.parquet")], capture_output=True,
                          text=True, env=env, cwd=ROOT, timeout=120, check=False)
    assert done.returncode == 2
    assert done.stderr == ("traceeval: error: pyarrow is needed for Parquet exports: "
                           "pip install 'traceeval-studio[parquet]'\n")


def test_docs_list_every_column_of_every_kind():
    text = (ROOT / "docs" / "exports.md").read_text(encoding="utf-8")
    for kind, columns in COLUMNS.items():
        section = text.split(f"### `{kind}`", 1)[1].split("###", 1)[0]
        rows = [line for line in section.splitlines() if line.startswith("| `")]
        assert rows == [f"| `{c.name}` | {c.type} | {c.doc.replace('|', '/')} |" for c in columns], kind
