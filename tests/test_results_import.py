import json

import pytest

from core.dataset.indexing import open_dataset
from core.errors import ResultsError
from core.results.importing import import_results
from tests.builders import released_dataset

RAW = "Sure! Here are the calls:\n1. main.run\n2. none\n3.\n5. main.helper, main.Shape.area\n"


@pytest.fixture
def ws(tmp_path):
    root = released_dataset(tmp_path / "ds", {"python": ["p_0001", "p_0002", "cli_0003"],
                                              "javascript": ["cli_0003"]})
    workspace, _ = open_dataset(root, tmp_path / "ws.sqlite")
    yield workspace
    workspace.close()


def released_file(folder, model="gpt-x", language="python", results=None):
    path = folder / f"{model}_{language}_t0.0_r0.json"
    path.write_text(json.dumps({"metadata": {"model": model, "language": language, "temperature": 0.0,
                                             "run_id": 0, "num_benchmarks": len(results)},
                                "results": results}))
    return path


def test_released_format_uses_stored_prediction_and_checks_raw_response(ws, tmp_path):
    path = released_file(tmp_path, results={
        "p_0001": {"raw_response": RAW, "prediction": {"main": ["main.run"], "main.run": ["main.helper",
                                                                                      "main.Shape.area"]}},
        "p_0002": {"raw_response": RAW, "prediction": {"main": ["main.run"]}},
        "cli_0003": {"raw_response": "1. main.run"},
        "ghost_0001": {"prediction": {}},
    })
    report = import_results(ws, [path])
    assert report.stored == {"gpt-x": 3}
    assert [str(p) for p in report.problems] == [f"{path}: ghost_0001: no python/ghost_0001 in the dataset; skipped"]
    stored = ws.predictions("gpt-x")
    assert stored["python/p_0001"].parse_problems == ("no answer for question 4",)
    assert stored["python/p_0002"].parse_problems == (
        "no answer for question 4",
        "stored prediction differs from the parsed raw_response in 2 edge(s); the stored one is scored")
    assert not stored["python/p_0002"].raw_unchecked
    graphs_only = ws.predictions("gpt-x", checked=False)["python/p_0002"]  # the import left the response unparsed
    assert (graphs_only.parse_problems, graphs_only.raw_unchecked) == ((), True)
    assert graphs_only.graph == stored["python/p_0002"].graph
    only_raw = stored["python/cli_0003"]  # the python one: the file says python
    assert only_raw.graph.edges == ()  # the paper's metric scores a released record's "prediction" only
    assert only_raw.raw_response == "1. main.run"
    assert only_raw.parse_problems[0] == "no answer for questions 2, 3, 4, 5"
    assert only_raw.parse_problems[1].startswith('no "prediction" in the record: scored as empty')
    assert only_raw.source == "gpt-x_python_t0.0_r0.json#cli_0003"


def test_a_stored_prediction_is_read_as_the_paper_reads_it(ws, tmp_path):
    """Blank callees and JSON scalars are edges (wrong ones); a caller whose value is not a list has none."""
    path = released_file(tmp_path, results={"p_0001": {"prediction": {
        "main": ["main.run", "", " main.run ", 7, 7.0, True, None, ["x"]], "main.run": "main.helper"}}})
    import_results(ws, [path])
    prediction = ws.predictions("gpt-x")["python/p_0001"]
    assert prediction.graph.edges == (("main", "main.run"), ("main", ""), ("main", " main.run "),
                                      ("main", "7 (not a string)"), ("main", "1 (not a string)"),
                                      ("main", "null (not a string)"))
    assert [p.split(";")[0] for p in prediction.parse_problems] == [
        'a callee of "main" is 7, not a string', 'a callee of "main" is a JSON list',
        'callees of "main.run" are str, not a list']


def test_jsonl_with_raw_responses_and_bad_lines(ws, tmp_path):
    path = tmp_path / "run.jsonl"
    path.write_text("\n".join([
        json.dumps({"instance_id": "p_0001", "model": "m", "raw_response": RAW, "tokens_in": 120, "latency_s": 1.5}),
        "{not json",
        json.dumps({"instance_id": "cli_0003", "model": "m", "prediction": {}}),
        json.dumps({"instance_id": "cli_0003", "language": "javascript", "model": "m",
                    "prediction": {"main": ["main.greet"]}}),
        json.dumps({"instance_id": "p_0002", "model": "m", "prediction": ["not", "a", "dict"]}),
        json.dumps({"model": "m"}),
    ]) + "\n")
    report = import_results(ws, [path])
    assert report.stored == {"m": 3}
    messages = [str(p) for p in report.problems]
    assert messages == [
        f"{path}:2: invalid JSON: Expecting property name enclosed in double quotes",  # in the order read
        f"{path}: cli_0003: id exists in javascript and python; give the record a \"language\"; skipped",
        f"{path}:6: expected an object with a string \"instance_id\"",
    ]
    stored = ws.predictions("m")
    first = stored["python/p_0001"]
    assert first.graph.to_dict()["main.Shape.area"] == []  # line "5." answers the 5th key
    assert first.tokens_in == 120 and first.latency_s == 1.5
    assert first.parse_problems == ("no answer for question 4",)
    assert stored["python/p_0002"].graph.edges == ()
    assert stored["python/p_0002"].parse_problems == ("prediction is list, not an object; scored as empty",)


def test_a_missing_results_path_is_a_one_line_error(ws, tmp_path):
    with pytest.raises(ResultsError, match="no such results file or folder"):
        import_results(ws, [tmp_path / "nope.json"])


def test_a_file_that_is_not_a_results_file_is_reported(ws, tmp_path):
    path = tmp_path / "other.json"
    path.write_text('{"hello": 1}')
    report = import_results(ws, [path])
    assert report.stored == {} and "not a results file" in report.problems[0].message


def _contents(workspace) -> dict:
    """What an import leaves in a workspace, but the import time."""
    return {"predictions": workspace.db.execute("select * from predictions order by model, instance_key").fetchall(),
            "models": workspace.db.execute("select name, illustrative, note, sources from models order by name")
            .fetchall(),
            "scores": workspace.db.execute("select * from scores order by 1, 2, 3").fetchall(),
            "names": workspace.db.execute("select * from names order by id").fetchall()}


def test_reading_in_a_reader_process_stores_the_same_as_reading_here(ws, tmp_path):
    """Released files (records needing their question's keys among them), a JSONL, a file broken part-way, a
    model answering the same program in two files (the later file wins) and an illustrative file: imported with the
    files read here and read by a reader process, 2 records to a batch, the same report and the same rows."""
    import core.results.importing as importing

    folder = tmp_path / "results"
    folder.mkdir()
    released_file(folder, "a-model", results={
        "p_0001": {"raw_response": RAW, "prediction": {"main": ["main.run"], "main.run": ["main.helper"]}},
        "p_0002": {"raw_response": RAW, "prediction": {"main": "main.run"}},  # a shape problem: parsed with keys
        "cli_0003": {"raw_response": "1. main.run"}, "ghost_0001": {"prediction": {}}})
    released_file(folder, "b-model", "javascript", {"cli_0003": {"prediction": {"main": ["main.greet"]}}})
    (folder / "c-model_python_t0.0_r0.json").write_text(json.dumps({
        "metadata": {"model": "c-model", "illustrative": True, "note": "made up"},
        "results": {"p_0001": {"prediction": {"main": ["main.run"]}}}}))
    (folder / "d-broken_python_t0.0_r0.json").write_text(
        '{"metadata": {"model": "d-broken"}, "results": {"p_0001": {"prediction": {"main": []}}, "p_0002": {')
    (folder / "e-run.jsonl").write_text("\n".join([
        json.dumps({"instance_id": "p_0001", "model": "a-model", "raw_response": RAW, "tokens_in": 5}),
        "{not json", json.dumps({"instance_id": "cli_0003", "model": "a-model", "prediction": {}})]) + "\n")
    importing.BATCH = 2  # the reader process reads its own module: a batch there stays BATCH (500)
    try:
        here = import_results(ws, [folder], jobs=1)
    finally:
        importing.BATCH = 500
    other, _ = open_dataset(ws.setting("dataset_root"), tmp_path / "other.sqlite")
    with other:
        elsewhere = import_results(other, [folder], jobs=2)
        assert _contents(other) == _contents(ws)
    assert (elsewhere.files, elsewhere.stored, [str(p) for p in elsewhere.problems]) == (
        here.files, here.stored, [str(p) for p in here.problems])
    assert here.stored == {"a-model": 3, "b-model": 1, "c-model": 1, "d-broken": 1}
    assert ws.predictions("a-model")["python/p_0001"].tokens_in == 5  # the JSONL, read after the released file
    assert len(here.problems) == 4


def test_a_reader_process_that_fails_is_a_one_line_error(tmp_path):
    from core.results.importing import _read_elsewhere

    path = released_file(tmp_path, results={"p_0001": {"prediction": {}}})
    with pytest.raises(ResultsError, match=r"^the results reader failed: AttributeError: 'list' object"):
        list(_read_elsewhere([path], None, ["not", "an", "index"]))  # type: ignore[arg-type]
