"""`traceeval compare | graph | evidence` on the bundled demo dataset, through the CLI's main()."""
import csv
import io
import json
import xml.etree.ElementTree as ET

import pytest

from core.dataset.indexing import open_dataset
from core.report.overlay import COMPARE_CLASSES, build_overlay, rank_differences
from core.report.palette import EDGE_STYLES
from core.scoring.normalise import MODES
from core.scoring.scores import instance_counts
from resources import DEMO_DATASET
from tests.cli_run import run

A, B = "illustrative-strong", "illustrative-weak"
KNOWN = "python/calcpad_0001"


@pytest.fixture
def ws_args(tmp_path):
    return ["--workspace", tmp_path / "demo.sqlite"]


@pytest.fixture
def expected(tmp_path, ws_args):
    """The ranking and one instance's overlay, computed with core directly."""
    ws, _ = open_dataset(DEMO_DATASET, ws_args[1])
    with ws:
        rows = ws.instance_rows()
        counts = {m: instance_counts(ws, m, rows, frozenset(MODES)) for m in (A, B)}
        instance = ws.instance(KNOWN)
        predictions = {m: ws.predictions(m, [KNOWN])[KNOWN] for m in (A, B)}
    return (rank_differences(counts[A], counts[B], [r.key for r in rows]),
            build_overlay(instance, predictions, None, MODES))


def test_compare_ranks_the_programs_where_the_models_differ_most(capsys, ws_args, expected):
    ranked, _ = expected
    code, out, _ = run(capsys, "compare", A, B, *ws_args)
    assert code == 0
    lines = out.splitlines()
    assert lines[1] == "14 programs answered by both: A better on 14, B better on 0, tied on 0"
    assert lines[2] == "answered by only one of them (not compared): python/ledgerlite_0002"
    table = [line.split() for line in lines if line.startswith(" ") and line.strip()[:1].isdigit()]
    assert [row[1] for row in table] == [d.key for d in ranked]
    assert table[0][2:5] == [f"{ranked[0].f1_a * 100:.1f}%", f"{ranked[0].f1_b * 100:.1f}%",
                             f"{ranked[0].delta * 100:+.1f}"]
    code, out, _ = run(capsys, "compare", A, B, "--top", "3", "--format", "csv", *ws_args)
    rows = list(csv.DictReader(io.StringIO(out)))
    assert code == 0 and [r["instance"] for r in rows] == [d.key for d in ranked[:3]]
    assert float(rows[0]["delta"]) == pytest.approx(ranked[0].delta, abs=1e-6)
    assert int(rows[0]["fn_b"]) == ranked[0].counts_b.fn
    code, out, _ = run(capsys, "compare", A, B, "--format", "json", "--split", "test", "--languages", "java", *ws_args)
    data = json.loads(out)
    assert code == 0 and data["split"] == "test" and data["programs"] == 2
    assert [r["instance"] for r in data["rows"]] == [d.key for d in ranked if d.key in (
        "java/exprtree_0001", "java/shapekit_0001")]


def test_compare_one_instance_gives_every_edge_its_class(capsys, ws_args, expected):
    _, overlay = expected
    groups = overlay.compare(A, B)
    code, out, _ = run(capsys, "compare", A, B, "--instance", "calcpad_0001", "--format", "json", *ws_args)
    data = json.loads(out)
    assert code == 0 and data["instance"] == KNOWN
    assert data["classes"] == {c: len(groups[c]) for c in COMPARE_CLASSES}
    assert {(e["class"], e["caller"], e["callee"]) for e in data["edges"]} == {
        (c, e.caller, e.callee) for c, edges in groups.items() for e in edges}
    assert data["scores"]["a"]["tp"] == 25 and data["scores"]["b"]["fn"] == 13
    code, out, _ = run(capsys, "compare", A, B, "--instance", KNOWN, *ws_args)
    lines = out.splitlines()
    assert code == 0 and lines[3] == "both right 13   only A right 18   only B right 1   both wrong 2"
    assert lines[4].startswith("only A right  ")  # differences first
    (only_b,) = groups["only_b_right"]
    says = {"TP": "predicted", "FP": "predicted", "FN": "missed", None: "—"}
    assert (f"only B right  {only_b.caller} -> {only_b.callee}   (truth: {'yes' if only_b.truth else 'no'}, "
            f"A: {says[only_b.kind(A)]}, B: {says[only_b.kind(B)]})") in lines
    code, out, _ = run(capsys, "compare", A, B, "--instance", "ledgerlite_0002", *ws_args)
    assert code == 1 and "illustrative-weak has no result for python/ledgerlite_0002" in out


@pytest.mark.parametrize("fmt", ["svg", "dot", "graphml", "json"])
def test_graph_exports_each_format(capsys, ws_args, fmt):
    code, out, _ = run(capsys, "graph", "calcpad_0001", "--model", A, "--model-b", B, "--mode", "compare",
                       "--format", fmt, *ws_args)
    assert code == 0
    if fmt == "svg":
        root = ET.fromstring(out.encode())
        assert root.tag == "{http://www.w3.org/2000/svg}svg"
        assert root.find("{http://www.w3.org/2000/svg}title").text == f"{KNOWN}: {A} (A) against {B} (B)"
    elif fmt == "dot":
        assert "digraph traceeval {" in out and out.rstrip().endswith("}")
        assert f'[color="{EDGE_STYLES["only_a_right"].colour}"' in out  # an only-A-right edge
    elif fmt == "graphml":
        root = ET.fromstring(out.encode())
        assert root.tag.endswith("graphml")
    else:
        data = json.loads(out)
        assert data["mode"] == "compare" and data["model_b"] == B
        assert {e["class"] for e in data["edges"]} == set(COMPARE_CLASSES)


def test_graph_to_a_file_takes_the_format_from_the_suffix_and_warns_on_fallback(capsys, ws_args, tmp_path):
    target = tmp_path / "g.dot"
    code, out, _ = run(capsys, "graph", KNOWN, "-o", target, *ws_args)
    assert code == 0 and out == f"wrote {target}\n"
    assert target.read_text().startswith(f"// {KNOWN}: TP / FP / FN of {A}")  # model A = the first model
    code, out, err = run(capsys, "graph", "ledgerlite_0002", "--model", B, "--format", "json", *ws_args)
    assert code == 0 and json.loads(out)["mode"] == "truth"
    assert err == "traceeval: warning: illustrative-weak has no result for python/ledgerlite_0002; showing the " \
                  "ground truth\n"


def test_evidence_writes_one_html_file(capsys, ws_args, tmp_path):
    target = tmp_path / "calcpad.html"
    code, out, _ = run(capsys, "evidence", "calcpad_0001", "--model", A, "--model-b", B, "-o", target, *ws_args)
    assert code == 0 and out == f"wrote {target}\n"
    text = target.read_text(encoding="utf-8")
    assert text.startswith("<!DOCTYPE html>") and "<svg" in text and 'data-file="main.py"' in text
    assert f"{A} (A) against {B} (B): who is right about each edge" in text
    code, out, _ = run(capsys, "evidence", KNOWN, "--model", B, *ws_args)
    assert code == 0 and out.startswith("<!DOCTYPE html>") and "TP / FP / FN" in out


@pytest.mark.parametrize("argv, message", [
    (("graph", "nothing_0001"), "no program 'nothing_0001' in the dataset"),
    (("graph", "python/nothing_0001", "--format", "svg"), "no program python/nothing_0001 in the dataset"),
    (("evidence", "nothing_0001", "--model", A), "no program 'nothing_0001' in the dataset"),
    (("compare", A, B, "--instance", "nothing_0001"), "no program 'nothing_0001' in the dataset"),
    (("compare", A, "nobody"), "no model named 'nobody'"),
    (("compare", A, A), "compare needs two different models"),
    (("evidence", KNOWN, "--model", "nobody"), "no model named 'nobody'"),
    (("graph", KNOWN, "--model", A, "--model-b", A), "model B must differ from model A"),
])
def test_bad_input_is_one_line_and_exit_2(capsys, ws_args, argv, message):
    code, out, err = run(capsys, *argv, *ws_args)
    assert code == 2 and out == ""
    assert err.count("\n") == 1 and err.startswith("traceeval: error: ") and message in err, err


def test_a_model_whose_name_holds_a_comma_can_be_chosen_everywhere(capsys, ws_args, tmp_path):
    """A name such as "lab,v2" (issue #36) is one model for every option naming one model, and one name in a comma
    list of models (the longest known name wins)."""
    comma = "lab,v2"
    files = sorted((DEMO_DATASET / "results").glob(f"{A}_*.json"))
    assert run(capsys, "import-results", DEMO_DATASET, *files, "--model", comma, *ws_args)[0] == 0
    code, out, err = run(capsys, "evidence", KNOWN, "--model", comma, "--model-b", B, *ws_args)
    assert code == 0 and f"{comma} (A) against {B} (B)" in out, err
    for argv in (("diff", KNOWN, "--model", comma), ("answer", KNOWN, "--model", comma),
                 ("graph", KNOWN, "--model", comma, "--format", "json"), ("compare", comma, B)):
        code, _, err = run(capsys, *argv, *ws_args)
        assert code == 0, (argv, err)
    code, out, err = run(capsys, "score", "--models", f"{B},{comma}", "--format", "json", *ws_args)
    assert code == 0, err
    assert [row["model"] for row in json.loads(out)["rows"]] == [B, comma]
    code, _, err = run(capsys, "score", "--models", f"{B},lab", *ws_args)
    assert code == 2 and "no model named 'lab'" in err
