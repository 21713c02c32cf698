import json

import pytest

from core.dataset.layout import detect_layout, load_dataset, parse_ground_truth
from core.errors import DatasetError
from core.records import repo_of
from tests.builders import JS_GRAPH, JS_MAIN, PY_GRAPH, PY_MAIN, released_dataset, write_program


def test_released_layout_with_the_real_split_files(tmp_path, shared_splits):
    test_ids = json.loads((shared_splits / "test_ids.json").read_text())
    train_ids = json.loads((shared_splits / "train_ids.json").read_text())
    assert {k: len(v) for k, v in test_ids.items()} == {"python": 769, "javascript": 649, "java": 711}
    assert {k: len(v) for k, v in train_ids.items()} == {"python": 3051, "javascript": 2577, "java": 2826}
    chosen = {"python": [test_ids["python"][0], train_ids["python"][0], "cli_0003"],
              "javascript": ["cli_0003", test_ids["javascript"][5]]}
    root = released_dataset(tmp_path / "release", chosen)
    dataset = load_dataset(root, splits_dir=shared_splits)
    splits = {i.key: i.split for i in dataset.instances}
    assert splits[f"python/{test_ids['python'][0]}"] == "test"
    assert splits[f"python/{train_ids['python'][0]}"] == "train"
    assert "python/cli_0003" in splits and "javascript/cli_0003" in splits  # same id, two languages
    assert dataset.errors == []
    first = dataset.by_key()[f"python/{test_ids['python'][0]}"]
    assert first.repo == repo_of(first.id) and first.entry_point == "main.py"
    assert first.provenance.source_url == "https://example.org/repo"
    assert first.ground_truth.to_dict() == PY_GRAPH


def test_split_files_that_contradict_each_other_are_reported(tmp_path):
    root = released_dataset(tmp_path / "r", {"python": ["a_0001", "a_0002"]},
                            splits={"test": {"python": ["a_0001"]}, "train": {"python": ["a_0002"]}})
    dataset = load_dataset(root)
    messages = [str(p) for p in dataset.problems]
    assert any("repository a has programs in both splits" in m for m in messages)


def test_broken_instances_are_reported_and_skipped(tmp_path):
    root = released_dataset(tmp_path / "r", {"python": ["good_0001"], "javascript": ["good_0002"]})
    base = root / "benchmark" / "python"
    write_program(base / "badjson_0001", {"main.py": PY_MAIN}, '{"main": [')
    write_program(base / "shape_0001", {"main.py": PY_MAIN}, '["main"]')
    write_program(base / "callees_0001", {"main.py": PY_MAIN}, '{"main": "main.run"}')
    write_program(base / "utf_0001", {"main.py": b"x = '\xff\xfe'\n"}, PY_GRAPH)
    write_program(base / "nosource_0001", {"notes.txt": "hello"}, PY_GRAPH)
    write_program(base / "nogt_0001", {"main.py": PY_MAIN})
    write_program(root / "benchmark" / "rust" / "x_0001", {"main.rs": "fn main() {}"}, {})
    dataset = load_dataset(root)
    assert sorted(i.key for i in dataset.instances) == ["javascript/good_0002", "python/good_0001"]
    problems = {p.path: p.message for p in dataset.problems}
    assert problems["benchmark/python/badjson_0001/callgraph.json"].startswith("invalid JSON at line 1")
    assert "expected an object" in problems["benchmark/python/shape_0001/callgraph.json"]
    assert problems["benchmark/python/callees_0001/callgraph.json"] == 'callees of "main" must be a list of strings'
    assert problems["benchmark/python/utf_0001/main.py"] == "not valid UTF-8 (byte 5)"
    assert problems["benchmark/python/nosource_0001"] == "no python source files"
    assert problems["benchmark/python/nogt_0001/callgraph.json"].startswith("missing")
    assert "unknown language folder" in problems["benchmark/rust"]
    assert all(p.severity == "error" for p in dataset.problems if "rust" not in p.path)


def test_single_program_folder_and_folder_of_programs(tmp_path):
    program = write_program(tmp_path / "one" / "greeter_0001", {"main.js": JS_MAIN}, JS_GRAPH)
    assert detect_layout(program) == "program"
    single = load_dataset(program)
    assert [(i.key, i.entry_point, i.repo) for i in single.instances] == [("javascript/greeter_0001", "main.js",
                                                                           "greeter")]
    folder = tmp_path / "many"
    write_program(folder / "a_0001", {"main.py": PY_MAIN}, PY_GRAPH)
    write_program(folder / "b_0001", {"app.js": JS_MAIN}, JS_GRAPH)  # single-file JS may have another name
    write_program(folder / "c_0001", {"x/one.py": "", "x/two.py": ""}, {})
    assert detect_layout(folder) == "folder"
    many = load_dataset(folder)
    found = {i.key: i.entry_point for i in many.instances}
    assert found == {"python/a_0001": "main.py", "javascript/b_0001": "app.js", "python/c_0001": ""}
    assert [p.message for p in many.problems] == ["no entry point (main.py not found)"]
    assert many.problems[0].severity == "warning"


def test_ground_truth_parsing_keeps_order_and_rejects_duplicates():
    graph = parse_ground_truth('{"b": ["a"], "a": []}')
    assert graph.keys == ("b", "a")
    with pytest.raises(ValueError, match="duplicate caller keys: a"):
        parse_ground_truth('{"a": [], "a": ["b"]}')


def test_missing_dataset_is_a_one_line_error(tmp_path):
    with pytest.raises(DatasetError, match="no such dataset folder"):
        load_dataset(tmp_path / "nope")
