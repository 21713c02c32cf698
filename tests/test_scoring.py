"""The paper table on a small dataset, computed by hand from the edges below."""
import json

import pytest

from core.dataset.indexing import open_dataset
from core.results.importing import import_results
from core.scoring.scores import Selection, instance_diff, score_table
from core.scoring.tables import render_table, table_to_dict
from tests.builders import released_dataset

PREDICTIONS = [
    # python/p_0001: TP main->run, run->Shape(init), run->helper; print dropped; FN run->area
    {"instance_id": "p_0001", "language": "python", "model": "model-a",
     "prediction": {"main": ["main.run"], "main.run": ["main.Shape", "main.helper", "print"]}},
    # python/p_0002: TP run->area; FP run->helper (unqualified); FN main->run, run->Shape, run->helper
    {"instance_id": "p_0002", "model": "model-a", "prediction": {"main.run": ["helper", "main.Shape.area"]}},
    # javascript: both edges right; console.log and a String method dropped
    {"instance_id": "j_0001", "model": "model-a",
     "prediction": {"main": ["main.greet", "console.log"], "main.greet": ["main.format", "main.String.toUpperCase"]}},
    # java: constructor matches after init rewrite; add(long) is FP, add(int) FN; println dropped
    {"instance_id": "k_0001", "model": "model-a",
     "prediction": {"demo.Main:main(java.lang.String[])": ["demo.Main:<init>(int,int)", "demo.Main:add(long)",
                                                          "java.io.PrintStream:println(java.lang.String)"]}},
]


@pytest.fixture
def scored(tmp_path):
    root = released_dataset(tmp_path / "ds", {"python": ["p_0001", "p_0002", "p_0003"], "javascript": ["j_0001"],
                                              "java": ["k_0001"]})
    results = tmp_path / "model-a.jsonl"
    results.write_text("\n".join(json.dumps(p) for p in PREDICTIONS) + "\n")
    ws, _ = open_dataset(root, tmp_path / "ws.sqlite")
    report = import_results(ws, [results])
    assert report.stored == {"model-a": 4}
    yield ws
    ws.close()


def _row(table):
    (row,) = table.rows
    return row


def test_paper_table_with_all_normalisation(scored):
    row = _row(score_table(scored))
    python, javascript, java = (row.languages[lang] for lang in ("python", "javascript", "java"))
    assert (python.counts.tp, python.counts.fp, python.counts.fn) == (4, 1, 4)
    assert python.scores.precision == pytest.approx(0.8)
    assert python.scores.recall == pytest.approx(0.5)
    assert python.scores.f1 == pytest.approx(2 * 0.8 * 0.5 / 1.3)
    assert python.programs == 2 and python.missing == ("p_0003",)
    assert (javascript.counts.tp, javascript.counts.fp, javascript.counts.fn) == (2, 0, 0)
    assert (java.counts.tp, java.counts.fp, java.counts.fn) == (1, 1, 1)
    assert row.average.precision == pytest.approx((0.8 + 1 + 0.5) / 3)
    assert row.average.recall == pytest.approx((0.5 + 1 + 0.5) / 3)
    assert row.average.f1 == pytest.approx((2 * 0.8 * 0.5 / 1.3 + 1 + 0.5) / 3)


def test_paper_table_without_normalisation(scored):
    row = _row(score_table(scored, modes=()))
    python, javascript, java = (row.languages[lang] for lang in ("python", "javascript", "java"))
    assert (python.counts.tp, python.counts.fp, python.counts.fn) == (3, 3, 5)
    assert (javascript.counts.tp, javascript.counts.fp, javascript.counts.fn) == (2, 2, 0)
    assert (java.counts.tp, java.counts.fp, java.counts.fn) == (0, 3, 2)
    assert java.scores.f1 == 0.0  # zero denominators give 0, the paper's rule
    assert row.average.f1 == pytest.approx((2 * 0.5 * 0.375 / 0.875 + 2 / 3 + 0) / 3)


def test_only_init_mode_keeps_stdlib_calls(scored):
    row = _row(score_table(scored, modes={"init"}))
    assert row.languages["javascript"].counts.fp == 2
    assert row.languages["python"].counts.tp == 4


def test_cached_counts_are_reused_and_invalidated(scored, tmp_path):
    assert scored.db.execute("select count(*) from scores").fetchone()[0] == 4  # scored at import
    scored.db.execute("delete from scores")
    first = _row(score_table(scored))
    assert scored.db.execute("select count(*) from scores").fetchone()[0] == 4
    again = _row(score_table(scored))
    assert again == first
    better = tmp_path / "fix.jsonl"
    better.write_text(json.dumps({"instance_id": "p_0002", "model": "model-a",
                                  "prediction": {"main": ["main.run"], "main.run": [
                                      "main.Shape.__init__", "main.helper", "main.Shape.area"]}}) + "\n")
    import_results(scored, [better])
    fixed = _row(score_table(scored)).languages["python"]
    assert (fixed.counts.tp, fixed.counts.fp, fixed.counts.fn) == (7, 0, 1)


def test_language_and_repo_selection(scored):
    table = score_table(scored, selection=Selection(languages=("python",), repo="p"))
    row = _row(table)
    assert list(row.languages) == ["python"] and row.languages["python"].programs == 2
    assert row.average.f1 == pytest.approx(row.languages["python"].scores.f1)


def test_group_by_repo(tmp_path, scored):
    table = score_table(scored, group_by="repo")
    assert [(r.model, r.group) for r in table.rows] == [("model-a", "j"), ("model-a", "k"), ("model-a", "p")]
    k_row = table.rows[1]
    assert k_row.average.f1 == pytest.approx(0.5)  # macro only over languages with scored programs


def test_bootstrap_interval_is_seeded_and_brackets_the_estimate(scored):
    a = _row(score_table(scored, confidence=0.95, resamples=300, seed=7))
    b = _row(score_table(scored, confidence=0.95, resamples=300, seed=7))
    assert a.average_ci == b.average_ci
    low, high = a.languages["python"].ci["f1"]
    assert low <= a.languages["python"].scores.f1 <= high
    assert a.languages["javascript"].ci["f1"] == (1.0, 1.0)  # one perfect program: no spread


def test_instance_diff(scored):
    diff = instance_diff(scored, "model-a", "python/p_0002")
    assert diff.tp == (("main.run", "main.Shape.area"),)
    assert diff.fp == (("main.run", "helper"),)
    assert diff.fn == (("main", "main.run"), ("main.run", "main.Shape"), ("main.run", "main.helper"))
    assert instance_diff(scored, "model-a", "python/p_0003") is None


@pytest.mark.parametrize("fmt", ["text", "md", "latex", "csv", "json"])
def test_every_format_renders_the_same_numbers(scored, fmt):
    text = render_table(score_table(scored), fmt)
    assert "61.5" in text or "0.615385" in text or '"f1": 0.6153846153846' in text
    assert "p_0003" in text or fmt == "csv"
    if fmt == "csv":
        header, line = text.splitlines()
        values = dict(zip(header.split(","), line.split(",")))
        assert values["python_missing"] == "1" and values["python_tp"] == "4"


def test_json_table_round_trip(scored):
    data = table_to_dict(score_table(scored))
    assert data["rows"][0]["languages"]["java"] == {
        "programs": 1, "missing": [], "tp": 1, "fp": 1, "fn": 1, "precision": 0.5, "recall": 0.5, "f1": 0.5}
    assert data["normalisation"] == ["init", "nested_class", "stdlib"]


def test_a_few_programs_are_scored_from_their_own_answers(scored):
    """A model run's batch reads only its answers; counts and mappings match a full read."""
    from core.scoring.normalise import MODES
    from core.scoring.scores import instance_counts

    everything = scored.prediction_mappings("model-a")
    some = sorted(everything)[:2]
    assert scored.prediction_mappings("model-a", some) == {k: everything[k] for k in some}
    assert scored.prediction_mappings("model-a", []) == {}
    rows = scored.instance_rows()
    few = instance_counts(scored, "model-a", [r for r in rows if r.key in some], frozenset(MODES))
    scored.db.execute("delete from scores")
    assert few == {k: c for k, c in instance_counts(scored, "model-a", rows, frozenset(MODES)).items() if k in some}
