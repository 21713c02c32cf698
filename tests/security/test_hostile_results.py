"""Hostile results files (issue #18, item 4): a 5,000-digit number, an integer >= 2^63, a lone surrogate and
nesting 100,000 deep, each in one record of a released results file or a JSONL, met by the real
`traceeval import-results`, `score` and `diff` in subprocesses: each is a per-record problem, the other
records import, and nothing prints a traceback."""
import json
import os
from pathlib import Path

import pytest

from core.records import CallGraph
from core.safe_files import MAX_RESULTS_BYTES
from tests.builders import PY_GRAPH, released_dataset
from tests.llm_server import answer_text
from tests.security.test_hostile_dataset import run_cli

IDS = ["ok_0001", "deep_0001", "deepinput_0001", "digits_0001", "huge_0001", "surrogate_0001", "keysurrogate_0001"]
DEEP = "[" * 100_000 + "]" * 100_000
DIGITS = "7" * 5_000


@pytest.fixture
def dataset(tmp_path):
    return released_dataset(tmp_path / "data", {"python": IDS})


def released_file(folder, records: dict[str, str], metadata: str = '{"model": "m1", "language": "python"}'):
    """A released results file written from raw JSON text per key and record (what json.dumps cannot write)."""
    body = ", ".join(f'"{key}": {text}' for key, text in records.items())
    path = folder / "m1_python_t0.0_r0.json"
    path.write_text(f'{{"metadata": {metadata}, "results": {{{body}}}}}')
    return path


def good(**extra) -> str:
    return json.dumps({"raw_response": answer_text(CallGraph.from_dict(PY_GRAPH)), "prediction": PY_GRAPH, **extra})


def parse_problems(dataset, workspace, model, program):
    done = run_cli("diff", "--dataset", dataset, "--workspace", workspace, "--model", model, program,
                   "--format", "json")
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)


def test_each_hostile_record_of_a_released_file_is_its_own_problem(dataset, tmp_path):
    folder = tmp_path / "results"
    folder.mkdir()
    released_file(folder, {
        "ok_0001": good(tokens_in=12),
        "deep_0001": '{"raw_response": "1. main.run", "prediction": {"main": ' + DEEP + '}}',
        "deepinput_0001": good()[:-1] + ', "input": ' + DEEP + "}",
        "digits_0001": '{"raw_response": "1. main.run", "prediction": {"main": []}, "tokens_in": ' + DIGITS + "}",
        "huge_0001": good(tokens_in=2 ** 63, tokens_out=-(2 ** 63) - 1, latency_s=1.5),
        "surrogate_0001": '{"raw_response": "1. main.run \\ud800", "prediction": {"main": ["main.run"]}}',
        "\\udfffkeysurrogate_0001": good(),
    })
    workspace = tmp_path / "ws.sqlite"
    done = run_cli("import-results", dataset, folder, "--workspace", workspace)
    assert done.returncode == 0, done.stderr
    assert "m1: 6 prediction(s) stored" in done.stdout, done.stdout
    assert [line for line in done.stdout.splitlines() if "#7" in line] == \
        [f"error: {folder / 'm1_python_t0.0_r0.json'}#7: program id not read: a string with a lone surrogate "
         "(\\udfff); skipped"]

    ok = parse_problems(dataset, workspace, "m1", "ok_0001")
    assert ok["f1"] == 1.0 and ok["parse_problems"] == []
    unread = parse_problems(dataset, workspace, "m1", "deepinput_0001")  # what is never read is never refused
    assert unread["f1"] == 1.0 and unread["parse_problems"] == []
    for program, reason in (("deep_0001", "nested deeper than 64 levels"),
                            ("digits_0001", "a number of 5,000 characters (the bound is 40)"),
                            ("surrogate_0001", "a string with a lone surrogate (\\ud800)")):
        result = parse_problems(dataset, workspace, "m1", program)
        assert result["parse_problems"] == [f"record not read: {reason}; scored as empty"], program
        assert result["tp"] == result["fp"] == []
    huge = parse_problems(dataset, workspace, "m1", "huge_0001")
    assert huge["f1"] == 1.0  # its prediction is scored; only the number SQLite cannot hold is left out
    assert huge["parse_problems"] == [f"tokens_in {2 ** 63} does not fit a 64-bit integer; left out"]

    done = run_cli("score", dataset, "--workspace", workspace, "--split", "all")
    assert done.returncode == 0 and "m1" in done.stdout, done.stderr


def test_each_hostile_line_of_a_jsonl_is_skipped_with_its_problem(dataset, tmp_path):
    lines = [json.dumps({"instance_id": "ok_0001", "model": "m2", "prediction": PY_GRAPH}),
             '{"instance_id": "deep_0001", "model": "m2", "prediction": ' + DEEP + "}",
             '{"instance_id": "digits_0001", "model": "m2", "prediction": {}, "cost_usd": ' + DIGITS + ".5}",
             json.dumps({"instance_id": "huge_0001", "model": "m2", "prediction": PY_GRAPH, "tokens_out": 2 ** 64}),
             '{"instance_id": "surrogate_0001", "model": "m2\\udc80", "prediction": {}}',
             "[" * 100_000]
    path = tmp_path / "m2.jsonl"
    path.write_text("\n".join(lines) + "\n")
    workspace = tmp_path / "ws.sqlite"
    done = run_cli("import-results", dataset, path, "--workspace", workspace)
    assert done.returncode == 0, done.stderr
    assert "m2: 2 prediction(s) stored" in done.stdout
    problems = [line for line in done.stdout.splitlines() if line.startswith("error:")]
    assert problems == [f"error: {path}:2: not read: nested deeper than 64 levels; skipped",
                        f"error: {path}:3: not read: a number of 5,002 characters (the bound is 40); skipped",
                        f"error: {path}:5: not read: a string with a lone surrogate (\\udc80); skipped",
                        f"error: {path}:6: invalid JSON: Expecting ',' delimiter"], done.stdout
    huge = parse_problems(dataset, workspace, "m2", "huge_0001")
    assert huge["parse_problems"] == [f"tokens_out {2 ** 64} does not fit a 64-bit integer; left out"]


def test_hostile_metadata_is_ignored_and_the_records_import(dataset, tmp_path):
    folder = tmp_path / "results"
    folder.mkdir()
    released_file(folder, {"ok_0001": good()}, metadata='{"model": "m\\ud800", "language": "python"}')
    done = run_cli("import-results", dataset, folder, "--workspace", tmp_path / "ws.sqlite")
    assert done.returncode == 0, done.stderr
    assert "metadata not read: a string with a lone surrogate (\\ud800); the file name names the model" \
        in done.stdout
    assert "m1: 1 prediction(s) stored" in done.stdout


def test_results_that_are_not_regular_files_or_too_large_are_refused_without_blocking(dataset, tmp_path):
    folder = tmp_path / "results"
    folder.mkdir()
    released_file(folder, {"ok_0001": good()})
    os.mkfifo(folder / "fifo_python_t0.0_r0.json")
    os.symlink("/dev/zero", folder / "zero.jsonl")
    with open(folder / "huge.jsonl", "wb") as handle:
        handle.truncate(MAX_RESULTS_BYTES + 1)  # sparse: refused from its size
    fifo_given = tmp_path / "given.jsonl"
    os.mkfifo(fifo_given)
    done = run_cli("import-results", dataset, folder, fifo_given, "--workspace", tmp_path / "ws.sqlite")
    assert done.returncode == 0, done.stderr
    assert "m1: 1 prediction(s) stored" in done.stdout
    problems = sorted(line for line in done.stdout.splitlines() if line.startswith("error:"))
    assert problems == sorted([
        f"error: {folder / 'fifo_python_t0.0_r0.json'}: not a regular file (a FIFO); not read",
        f"error: {folder / 'zero.jsonl'}: not a regular file (a device); not read",
        f"error: {folder / 'huge.jsonl'}: {MAX_RESULTS_BYTES + 1:,} bytes, over the bound of 2,048 MiB; not read",
        f"error: {fifo_given}: not a regular file (a FIFO); not read"]), done.stdout


def test_a_workspace_in_use_given_as_a_results_file_is_refused_by_name(dataset, tmp_path):
    """Reading a live workspace as a plain file would drop its owner's SQLite locks (core/dataset/workspace_db.py)."""
    from core.dataset.workspace import Workspace

    live = tmp_path / "live.sqlite"
    with Workspace(live) as ws:  # another process's open workspace, as the window holds it
        ws.instance_count()
        assert Path(f"{live}-wal").exists()
        done = run_cli("import-results", dataset, live, f"{live}-wal", "--workspace", tmp_path / "ws.sqlite")
    problems = sorted(line for line in done.stdout.splitlines() if line.startswith("error:"))
    assert problems == sorted(f"error: {path}: a database in use (a workspace), not a file to read; not read"
                              for path in (live, f"{live}-wal")), done.stdout + done.stderr
