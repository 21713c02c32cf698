"""One output convention (issue #21): every command of `traceeval`, found by walking its parser, runs on the demo
with `--format json` and prints one JSON document naming its `schema` (`traceeval.<what>`) and an int `version`,
every schema emitted is documented in docs/output-formats.md, and commands listing records also give JSONL.

A command without an entry in RUNS or SKIPPED fails `test_every_command_is_covered`: a new command says how it runs
on the demo (or why JSON does not apply to it).
"""
from __future__ import annotations

import argparse
import csv
import io
import json
import re
import shutil
from pathlib import Path

import pytest

from core.audit.sampling import create_audit
from core.audit.store import AuditStore
from core.dataset.indexing import open_dataset
from core.instances.candidates import find_candidates
from resources import DEMO_DATASET
from tests.cli_run import run
from tests.harness_server import repo
from tests.llm_server import FakeChatServer, demo_truth_answers, truth_answers
from tests.release_standin import write_release
from traceeval_gui.cli.main import build_parser

ROOT = Path(__file__).resolve().parent.parent
FORMATS_DOC = ROOT / "docs" / "output-formats.md"
AUDIT = "spot"
PROGRAM = "python/calcpad_0001"

# The arguments (after the command) each command runs with on the demo; {ws} is a fresh demo workspace, {tmp} a
# folder, {url} a local chat server answering the demo's prompts with their ground truth, {release} a stand-in
# release checkout, {other} a second workspace, {repo} a small repository to build from.
RUNS: dict[tuple[str, ...], list[str]] = {
    ("info",): ["--workspace", "{ws}"],
    ("validate",): ["--quick"],
    ("import-results",): [str(DEMO_DATASET), str(DEMO_DATASET / "results"), "--workspace", "{ws}"],
    ("score",): ["--workspace", "{ws}"],
    ("diff",): [PROGRAM, "--model", "illustrative-weak", "--workspace", "{ws}"],
    ("export-results",): ["--model", "illustrative-weak", "--out", "{tmp}/released", "--workspace", "{ws}"],
    ("models",): ["--workspace", "{ws}"],
    ("trace",): [str(DEMO_DATASET / "benchmark" / "python" / "calcpad_0001"), "--workspace", "{ws}"],
    ("retrace",): ["--instances", PROGRAM, "--check", "--workspace", "{ws}"],
    ("doctor",): [],
    ("compare",): ["illustrative-strong", "illustrative-weak", "--workspace", "{ws}"],
    ("graph",): [PROGRAM, "--workspace", "{ws}"],
    ("prompt",): [PROGRAM, "--workspace", "{ws}"],
    ("predict",): ["--workspace", "{ws}", "--model", "fake", "--base-url", "{url}", "--instances", PROGRAM,
                   "--out", "{tmp}/results"],
    ("answer",): [PROGRAM, "--model", "illustrative-weak", "--workspace", "{ws}"],
    ("runs",): ["--workspace", "{ws}"],
    ("audit", "new"): ["another", "--size", "5", "--workspace", "{ws}"],
    ("audit", "list"): ["--workspace", "{ws}"],
    ("audit", "status"): [AUDIT, "--workspace", "{ws}"],
    ("audit", "items"): [AUDIT, "--workspace", "{ws}"],
    ("audit", "verdict"): [AUDIT, "1", "correct", "--annotator", "ana", "--workspace", "{ws}"],
    ("audit", "undo"): [AUDIT, "--annotator", "bob", "--workspace", "{ws}"],  # bob judged item 1 in the fixture
    ("audit", "adjudicate"): [AUDIT, "1", "correct", "--by", "carol", "--reason", "seen in the trace",
                              "--workspace", "{ws}"],
    ("audit", "answer"): ["humans", "1", "main.helper", "--annotator", "ana", "--workspace", "{ws}"],
    ("audit", "agreement"): [AUDIT, "--workspace", "{ws}"],
    ("audit", "export"): [AUDIT, "--workspace", "{ws}"],
    ("audit", "merge"): ["{other}", "--workspace", "{ws}"],
    ("build",): ["{repo}", "--language", "python", "--out", "{tmp}/built", "--max-per-repo", "1",
                 "--harness", "{tmp}/harness.py", "--target", "{target}", "--timeout", "5"],
    ("candidates",): ["{repo}", "--language", "python"],
    ("parity",): ["--workspace", "{ws}", "--release", "{release}", "--prompts", "1", "--split", "all"],
    ("finetune-set",): ["--workspace", "{ws}", "--out", "{tmp}/train.jsonl"],
    ("import-inspect",): ["{tmp}/not-a-log.eval", "--workspace", "{ws}"],  # a bad log: named in `problems`
    ("baseline",): ["pycg", "--split", "test", "--workspace", "{ws}"],
    ("batch", "prepare"): ["--workspace", "{ws}", "--provider", "vllm", "--model", "fake", "--instances", PROGRAM,
                           "--out", "{tmp}/batches"],
    ("batch", "submit"): ["--workspace", "{ws}"],  # nothing prepared: an empty list (tests/test_batches.py sends)
    ("batch", "status"): ["--workspace", "{ws}"],
    ("batch", "collect"): ["--workspace", "{ws}"],
    ("batch", "resubmit"): ["--workspace", "{ws}", "--model", "fake"],
}
SKIPPED = {
    ("audit",): "a group: its actions are run one by one",
    ("batch",): "a group: its actions are run one by one",
    ("batch", "cancel"): "needs a prepared or submitted batch; tests/test_batches.py checks its JSON document",
    ("evidence",): "writes one self-contained HTML page; the facts in it are diff's and compare's JSON documents",
    ("export",): "writes data files whose format --format names (jsonl, parquet, hf); tests/test_exports.py reads them",
}
# Commands whose output is a list of records: --format jsonl gives one JSON object per line.
RECORDS = {("models",), ("validate",), ("diff",), ("doctor",), ("runs",), ("compare",), ("answer",),
           ("candidates",), ("audit", "list"), ("audit", "items"), ("retrace",)}
EMPTY_ON_DEMO = {("runs",): "no model run in a fresh workspace", ("validate",): "the demo has no problem"}


def _commands(parser: argparse.ArgumentParser, path: tuple[str, ...] = ()):
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for name, subparser in action.choices.items():
                yield path + (name,), subparser
                yield from _commands(subparser, path + (name,))


COMMANDS = dict(_commands(build_parser()))


def test_every_command_is_covered():
    missing = sorted(set(COMMANDS) - set(RUNS) - set(SKIPPED))
    assert not missing, f"add these commands to RUNS (their demo arguments) or SKIPPED (why): {missing}"
    assert not (set(RUNS) | set(SKIPPED)) - set(COMMANDS), "entries for commands that no longer exist"


@pytest.fixture
def places(tmp_path):
    """The {placeholders} of RUNS: a demo workspace with an audit (two annotators' verdicts on item 1) and a human
    baseline audit, a second workspace with one more verdict, a repository with a harness, a release stand-in."""
    ws_path, other = tmp_path / "demo.sqlite", tmp_path / "other.sqlite"
    ws, _ = open_dataset(DEMO_DATASET, ws_path)
    with ws:
        create_audit(ws, AUDIT, size=6, seed=1, annotators=("ana", "bob"))
        create_audit(ws, "humans", kind="baseline", size=2, seed=1)
        store = AuditStore(ws)
        store.give_verdict(AUDIT, store.items(AUDIT)[0].ref, "bob", "wrong")
    shutil.copy(ws_path, other)
    ws, _ = open_dataset(DEMO_DATASET, other)
    with ws:
        store = AuditStore(ws)
        store.give_verdict(AUDIT, store.items(AUDIT)[1].ref, "ana", "correct")
    geomkit = tmp_path / "repos" / "geomkit"
    shutil.copytree(repo("python", "geomkit"), geomkit)
    target = find_candidates(geomkit, "python")[0][0].name
    (tmp_path / "harness.py").write_text(f"import {target.rsplit('.', 1)[0]} as m\n", encoding="utf-8")
    release = write_release(tmp_path / "TraceEva")
    return {"ws": str(ws_path), "tmp": str(tmp_path), "other": str(other), "repo": str(geomkit),
            "target": target, "release": str(release)}


def _argv(command: tuple[str, ...], places: dict[str, str], url: str) -> list[str]:
    return [*command, *(arg.format(**places, url=url) for arg in RUNS[command])]


def _run(capsys, command, places, *extra):
    with FakeChatServer(truth_answers(demo_truth_answers(places["ws"]))) as server:
        return run(capsys, *_argv(command, places, server.base_url), *extra)


@pytest.mark.parametrize("command", sorted(RUNS), ids=" ".join)
def test_every_command_prints_a_json_document_with_its_schema(command, places, capsys):
    code, out, err = _run(capsys, command, places, "--format", "json")
    assert code in (0, 1), f"exit {code}: {err}"  # 1: the command's own verdict (a difference found, ...)
    document = json.loads(out)
    assert isinstance(document, dict)
    assert document["schema"].startswith("traceeval.") and type(document["version"]) is int
    assert list(document)[:2] == ["schema", "version"]
    assert document["schema"] in documented_schemas(), f"{document['schema']} is not in {FORMATS_DOC.name}"


@pytest.mark.parametrize("command", sorted(RECORDS), ids=" ".join)
def test_record_lists_also_come_as_json_lines(command, places, capsys):
    code, out, err = _run(capsys, command, places, "--format", "jsonl")
    assert code in (0, 1), err
    records = [json.loads(line) for line in out.splitlines()]
    assert records or command in EMPTY_ON_DEMO
    assert all(isinstance(r, dict) and "schema" not in r for r in records)


@pytest.mark.parametrize("command", sorted(RECORDS), ids=" ".join)
def test_record_lists_as_csv_have_a_header_and_the_jsonl_rows(command, places, capsys):
    _, lines, _ = _run(capsys, command, places, "--format", "jsonl")
    code, out, err = _run(capsys, command, places, "--format", "csv")
    assert code in (0, 1), err
    rows = list(csv.reader(io.StringIO(out)))
    if command != ("retrace",):  # retrace's CSV is one row per differing edge (core.scoring.replay.to_csv)
        assert len(rows) - 1 == len(lines.splitlines())
    assert rows and rows[0] and all(len(row) == len(rows[0]) for row in rows)


def test_trace_json_is_kept_as_an_alias(places, capsys):
    _, new, _ = _run(capsys, ("trace",), places, "--format", "json")
    _, old, _ = _run(capsys, ("trace",), places, "--json")
    drop = ("run_id", "started_at", "duration_s", "wall_s", "cpu_s", "max_rss_kb")
    first, second = (json.loads(text) for text in (new, old))
    assert first["schema"] == second["schema"] == "traceeval.trace-run"
    assert {k for k in first if k not in drop} == {k for k in second if k not in drop}
    _, graph, _ = _run(capsys, ("trace",), places)  # text: the callgraph.json format itself, no envelope
    assert "schema" not in json.loads(graph)


def documented_schemas() -> set[str]:
    return set(re.findall(r"^### `(traceeval\.[a-z0-9-]+)`", FORMATS_DOC.read_text(encoding="utf-8"), re.M))


def test_the_format_page_is_linked_from_the_user_guide():
    assert "(output-formats.md)" in (ROOT / "docs" / "user-guide.md").read_text(encoding="utf-8")


@pytest.mark.parametrize("command, extra, schema", [
    (("compare",), ["--instance", PROGRAM], "traceeval.compare-instance"),
    (("compare",), ["--stats", "--resamples", "200"], "traceeval.paired-stats"),
    (("predict",), ["--dry-run"], "traceeval.predict-dry-run"),
    (("baseline",), ["--list"], "traceeval.baselines"),
    (("retrace",), ["--fresh"], "traceeval.replay-check"),
    (("audit", "export"), ["--format", "json", "--output", "{tmp}/report.json"], None),
], ids=lambda value: " ".join(value) if isinstance(value, (list, tuple)) else str(value))
def test_the_variants_of_a_command_name_their_own_schema(command, extra, schema, places, capsys):
    extra = [arg.format(**places) for arg in extra]
    if schema is None:  # a report written to a file is the same document as on stdout
        run(capsys, *_argv(command, places, ""), *extra)
        assert json.loads(Path(places["tmp"], "report.json").read_text())["schema"] == "traceeval.audit-report"
        return
    code, out, err = _run(capsys, command, places, *extra, "--format", "json")
    assert code in (0, 1), err
    assert json.loads(out)["schema"] == schema and schema in documented_schemas()


def test_retrace_without_check_summarises_the_batch(places, capsys):
    argv = [a for a in RUNS[("retrace",)] if a != "--check"]
    code, out, _ = run(capsys, "retrace", *(a.format(**places) for a in argv), "--format", "json")
    assert code == 0 and json.loads(out)["schema"] == "traceeval.retrace" and json.loads(out)["traced"] == 1
    code, _, err = run(capsys, "retrace", *(a.format(**places) for a in argv), "--format", "jsonl")
    assert code == 2 and "--check" in err
