"""`traceeval compare A B --stats` on the demo: every format carries the numbers core computes."""
import csv
import io
import json

import pytest

from core.dataset.indexing import open_dataset
from core.scoring.paired import MACRO, paired_stats
from core.scoring.scores import Selection
from resources import DEMO_DATASET
from tests.cli_run import run

A, B = "illustrative-weak", "illustrative-strong"


@pytest.fixture
def ws_args(tmp_path):
    return ["--workspace", tmp_path / "demo.sqlite"]


def _expected(ws_args, **kwargs):
    ws, _ = open_dataset(DEMO_DATASET, ws_args[1])
    with ws:
        return paired_stats(ws, A, B, Selection(split=None), **kwargs)


def test_json_holds_the_core_statistics(capsys, ws_args):
    code, out, _ = run(capsys, "compare", A, B, "--stats", "--format", "json", "--resamples", 2000, "--seed", 3,
                       *ws_args)
    assert code == 0
    doc = json.loads(out)
    assert (doc["schema"], doc["version"]) == ("traceeval.paired-stats", 1)
    assert doc["difference"] == "f1_a - f1_b"
    assert (doc["resamples"], doc["seed"], doc["confidence"]) == (2000, 3, 0.95)
    expected = _expected(ws_args, resamples=2000, seed=3)
    assert [r["language"] for r in doc["rows"]] == ["python", "javascript", "java", MACRO]
    for row in doc["rows"]:
        want = expected.row(row["language"])
        assert row["delta_f1"] == want.difference.observed
        assert row["ci"] == [want.difference.low, want.difference.high]
        assert (row["wins_a"], row["losses_a"], row["ties"], row["sign_p"]) == (
            want.sign.wins, want.sign.losses, want.sign.ties, want.sign.p)
    assert doc["only_b"] == ["python/ledgerlite_0002"]
    assert doc["rows"][-1]["delta_f1"] < 0  # A is the weak model


@pytest.mark.parametrize("a, b", [(A, B), (B, A)])
def test_the_statistics_have_the_rankings_sign(capsys, ws_args, a, b):
    # plain `compare A B` counts A better / B better per program with delta = F1(A) - F1(B); --stats's macro
    # sign test is over the same paired programs, so A's wins / losses / ties are those counts, and ΔF1 agrees
    _, out, _ = run(capsys, "compare", a, b, "--format", "json", *ws_args)
    ranking = json.loads(out)
    _, out, _ = run(capsys, "compare", a, b, "--stats", "--format", "json", "--resamples", 200, *ws_args)
    macro = json.loads(out)["rows"][-1]
    assert (macro["wins_a"], macro["losses_a"], macro["ties"]) == (
        ranking["a_better"], ranking["b_better"], ranking["tied"])
    assert (macro["delta_f1"] > 0) == (ranking["a_better"] > ranking["b_better"])
    _, text, _ = run(capsys, "compare", a, b, "--stats", "--resamples", 200, *ws_args)
    assert "ΔF1 (A−B)" in text and "A wins/losses/ties" in text


def test_text_md_csv_and_jsonl_show_the_same_rows(capsys, ws_args):
    expected = _expected(ws_args, resamples=500)
    macro = expected.row(MACRO)
    _, text, _ = run(capsys, "compare", A, B, "--stats", "--resamples", 500, *ws_args)
    assert f"{macro.difference.observed * 100:+.1f}" in text and "answered by B only" in text
    assert "ledgerlite_0002" in text
    _, md, _ = run(capsys, "compare", A, B, "--stats", "--resamples", 500, "--format", "md", *ws_args)
    assert "| Average (macro) | 14 |" in md
    _, table, _ = run(capsys, "compare", A, B, "--stats", "--resamples", 500, "--format", "csv", *ws_args)
    rows = list(csv.DictReader(io.StringIO(table)))
    assert [r["language"] for r in rows] == ["python", "javascript", "java", MACRO]
    assert (rows[-1]["wins_a"], rows[-1]["losses_a"], rows[-1]["ties"]) == ("0", "14", "0")  # A, the weak model
    assert float(rows[-1]["delta_f1"]) == pytest.approx(macro.difference.observed, abs=1e-6)
    _, lines, _ = run(capsys, "compare", A, B, "--stats", "--resamples", 500, "--format", "jsonl", *ws_args)
    assert [json.loads(line)["language"] for line in lines.splitlines()] == [r["language"] for r in rows]


def test_selection_and_bad_options(capsys, ws_args):
    code, out, _ = run(capsys, "compare", A, B, "--stats", "--languages", "java", "--format", "json", *ws_args)
    assert code == 0 and [r["language"] for r in json.loads(out)["rows"]] == ["java", MACRO]
    code, _, err = run(capsys, "compare", A, B, "--stats", "--confidence", 1.5, *ws_args)
    assert code == 2 and "--confidence" in err
    code, _, err = run(capsys, "compare", A, B, "--format", "md", *ws_args)
    assert code == 2 and "--stats" in err
    code, _, err = run(capsys, "compare", A, B, "--stats", "--instance", "python/calcpad_0001", *ws_args)
    assert code == 2 and "--instance" in err
