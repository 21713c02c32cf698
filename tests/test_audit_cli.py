"""`traceeval audit ...` end to end, as two annotators would use it: the same sample in two workspaces,
100 verdicts each, a merge, kappa and the disagreements, adjudication, and the report with corrected F1."""
import csv
import io
import json
import re

import pytest

from core.audit.store import AuditStore
from core.dataset.workspace import Workspace
from tests.cli_run import run

NEW = ("audit", "new", "demo100", "--size", "100", "--seed", "7", "--population", "all",
       "--model", "illustrative-weak")


def items_of(capsys, workspace):
    code, out, _ = run(capsys, "audit", "items", "demo100", "--workspace", workspace)
    assert code == 0
    rows = [line.split() for line in out.splitlines()]
    return {int(row[0]): row[3] for row in rows}  # item number -> edge class


def label_for(annotator, number, edge_class):
    """ann: FPs are real calls that never ran, the rest correct; bob disagrees on every 10th item."""
    label = "not_exercised" if edge_class == "FP" else "correct"
    return "wrong" if annotator == "bob" and number % 10 == 0 else label


@pytest.fixture
def audited(tmp_path, capsys):
    """Two workspaces, each with the same audit, each annotator judging all 100 items in their own."""
    paths = {who: tmp_path / f"{who}.sqlite" for who in ("ann", "bob")}
    fingerprints = set()
    for who, path in paths.items():
        code, out, _ = run(capsys, *NEW, "--workspace", path)
        assert code == 0, out
        fingerprints.add(re.search(r"fingerprint (\w+)", out).group(1))
        for number, edge_class in items_of(capsys, path).items():
            assert run(capsys, "audit", "verdict", "demo100", number, label_for(who, number, edge_class),
                       "--annotator", who, "--workspace", path)[0] == 0
    assert len(fingerprints) == 1  # the same options give the same sample in another workspace
    return paths, items_of(capsys, paths["ann"])


def test_two_annotators_merge_and_see_kappa_disagreements_and_corrected_f1(audited, capsys, tmp_path):
    paths, classes = audited
    assert len(classes) == 100 and "FP" in classes.values()
    code, out, _ = run(capsys, "audit", "merge", paths["bob"], "--workspace", paths["ann"])
    assert code == 0 and "100 verdicts" in out and "conflict" not in out
    code, out, _ = run(capsys, "audit", "merge", paths["bob"], "--workspace", paths["ann"])
    assert code == 0 and out.startswith("nothing new")

    code, out, _ = run(capsys, "audit", "agreement", "demo100", "--format", "json", "--workspace", paths["ann"])
    data = json.loads(out)
    pairs = [(label_for("ann", n, c), label_for("bob", n, c)) for n, c in classes.items()]
    observed = sum(a == b for a, b in pairs) / 100
    labels = {label for pair in pairs for label in pair}
    chance = sum(sum(a == x for a, _ in pairs) * sum(b == x for _, b in pairs) for x in labels) / 100 ** 2
    overall = data["agreement"]["overall"]
    assert overall["items"] == 100 and overall["percent"] == pytest.approx(0.9)
    assert overall["cohen_kappa"] == pytest.approx((observed - chance) / (1 - chance))
    assert sorted(d["item"] for d in data["disagreements"]) == list(range(10, 101, 10))

    code, out, _ = run(capsys, "audit", "agreement", "demo100", "--workspace", paths["ann"])
    assert "Cohen κ" in out and "| 10 |" in out

    fp_items = [n for n, c in classes.items() if c == "FP"]
    disputed_fp = [n for n in fp_items if n % 10 == 0]
    assert run(capsys, "audit", "adjudicate", "demo100", disputed_fp[0] if disputed_fp else 10, "not_exercised",
               "--by", "carol", "--reason", "reached with other input", "--workspace", paths["ann"])[0] == 0
    report_path = tmp_path / "report.json"
    assert run(capsys, "audit", "export", "demo100", "-o", report_path, "--workspace", paths["ann"])[0] == 0
    report = json.loads(report_path.read_text())
    weak = next(c for c in report["corrected_f1"]["changes"] if c["model"] == "illustrative-weak")
    agreed_real = len(fp_items) - len(disputed_fp) + (1 if disputed_fp else 0)
    assert weak["fp_to_tp"] == agreed_real and weak["truth_removed"] == 0
    paper = {r["model"]: r for r in report["corrected_f1"]["paper"]["rows"]}["illustrative-weak"]
    corrected = {r["model"]: r for r in report["corrected_f1"]["corrected"]["rows"]}["illustrative-weak"]
    assert corrected["average"]["f1"] > paper["average"]["f1"]

    code, out, _ = run(capsys, "audit", "export", "demo100", "--workspace", paths["ann"])
    assert "## Corrected F1" in out or "orrected" in out
    assert "illustrative-weak" in out and report["corrected_f1"]["rule"] in out
    rows = list(csv.reader(io.StringIO(run(capsys, "audit", "export", "demo100", "--format", "csv",
                                           "--workspace", paths["ann"])[1])))
    assert len(rows) == 101 and rows[0][:2] == ["item", "program"] and "ann_label" in rows[0] and "bob_label" in rows[0]


def test_undo_and_bad_input_give_one_line_errors(tmp_path, capsys):
    ws = tmp_path / "w.sqlite"
    assert run(capsys, *NEW, "--workspace", ws)[0] == 0
    assert run(capsys, "audit", "verdict", "demo100", 3, "wrong", "--annotator", "ann", "--workspace", ws)[0] == 0
    code, out, _ = run(capsys, "audit", "undo", "demo100", "--annotator", "ann", "--workspace", ws)
    assert code == 0 and "back to no verdict" in out
    with Workspace(ws) as opened:
        assert AuditStore(opened).labels("demo100") == {}
    assert run(capsys, "audit", "undo", "demo100", "--annotator", "ann", "--workspace", ws)[0] == 1
    for argv, message in (((*NEW, "--workspace", ws), "already exists"),
                          (("audit", "verdict", "demo100", 101, "correct", "--annotator", "ann", "--workspace", ws),
                           "items 1–100, not 101"),
                          (("audit", "status", "nope", "--workspace", ws), "no audit named 'nope'"),
                          (("audit", "new", "x", "--size", "5", "--population", "fp", "--workspace", ws), "model"),
                          (("audit", "merge", tmp_path / "missing.sqlite", "--workspace", ws), "missing.sqlite")):
        code, _, err = run(capsys, *argv)
        assert code == 2 and err.count("\n") == 1 and message in err, err


def test_a_human_baseline_from_the_command_line_is_scored_like_a_model(tmp_path, capsys):
    ws = tmp_path / "w.sqlite"
    assert run(capsys, "audit", "new", "humans", "--kind", "baseline", "--size", "1", "--seed", "2",
               "--workspace", ws)[0] == 0
    _code, out, _ = run(capsys, "audit", "items", "humans", "--workspace", ws)
    numbers = [int(line.split()[0]) for line in out.splitlines()]
    with Workspace(ws) as opened:
        items = AuditStore(opened).items("humans")
        truth = opened.ground_truth_mappings([items[0].instance_key])[items[0].instance_key]
    for number, item in zip(numbers, items):
        assert run(capsys, "audit", "answer", "humans", number, *truth[item.caller], "--annotator", "dana",
                   "--workspace", ws)[0] == 0
    _code, out, _ = run(capsys, "score", "--split", "all", "--format", "json", "--workspace", ws)
    rows = {r["model"]: r for r in json.loads(out)["rows"]}
    language = items[0].language
    assert rows["human:dana"]["languages"][language]["f1"] == 1.0
    _code, out, _ = run(capsys, "audit", "status", "humans", "--workspace", ws)
    assert "human:dana" in out
