"""`traceeval trace | retrace | doctor` end to end on the bundled demo dataset and copies of it."""
import csv
import io
import json
import shutil

import pytest

from core.dataset.workspace import Workspace
from resources import DEMO_DATASET
from traceeval_gui.cli.main import main

DEMO_PROGRAM = DEMO_DATASET / "benchmark" / "python" / "calcpad_0001"


def test_trace_prints_the_callgraph_with_every_key_in_source_order(capsys, tmp_path):
    code = main(["trace", str(DEMO_PROGRAM), "--workspace", str(tmp_path / "w.sqlite")])
    out, err = capsys.readouterr()
    expected = json.loads((DEMO_PROGRAM / "callgraph.json").read_text())
    graph = json.loads(out)
    assert code == 0 and "python/calcpad_0001: ok" in err
    assert list(graph) == list(expected)
    assert {k: sorted(v) for k, v in graph.items()} == {k: sorted(v) for k, v in expected.items()}
    with Workspace(tmp_path / "w.sqlite") as ws:
        assert [r.status for r in ws.run_rows("python/calcpad_0001")] == ["ok"]


def test_trace_json_is_the_full_run_with_evidence(capsys, tmp_path):
    assert main(["trace", str(DEMO_PROGRAM), "--json", "--runs", "2", "--workspace", str(tmp_path / "w")]) == 0
    run = json.loads(capsys.readouterr().out)
    assert run["status"] == "ok" and run["runs"] == 2 and run["tracer"] and run["sandbox"].startswith("bwrap")
    edge = next(e for e in run["edges"] if (e["caller"], e["callee"]) == ("main", "main.main"))
    assert edge["count"] == 2 and edge["runs_seen"] == 2 and edge["lines"]
    node = next(n for n in run["nodes"] if n["name"] == "main.tokenize")
    assert node["file"] == "main.py" and node["start_line"] > 1


def test_trace_of_a_crashing_program_exits_1_and_keeps_the_partial_graph(capsys, tmp_path):
    folder = tmp_path / "crash_0001"
    folder.mkdir()
    (folder / "main.py").write_text("def f():\n    raise KeyError('x')\n\n\nf()\n")
    assert main(["trace", str(folder), "--workspace", str(tmp_path / "w")]) == 1
    out, err = capsys.readouterr()
    assert json.loads(out) == {"main": ["main.f"], "main.f": []}
    assert "exception: uncaught exception: KeyError" in err


def test_trace_of_a_missing_folder_is_one_line_and_exit_2(capsys, tmp_path):
    assert main(["trace", str(tmp_path / "nope")]) == 2
    assert capsys.readouterr().err.count("\n") == 1


@pytest.fixture
def demo_copy(tmp_path):
    root = tmp_path / "demo"
    shutil.copytree(DEMO_DATASET, root)
    return root


def test_retrace_check_on_the_demo_dataset_agrees_fully_and_resumes(capsys, demo_copy, tmp_path):
    workspace = str(tmp_path / "w.sqlite")
    assert main(["retrace", str(demo_copy), "--check", "--jobs", "2", "--workspace", workspace]) == 0
    out, err = capsys.readouterr()
    assert "full agreement: 15/15 instances agree" in out
    assert "traced 15" in err
    assert main(["retrace", str(demo_copy), "--workspace", workspace]) == 0
    assert "traced 0, already done 15" in capsys.readouterr().err


def test_retrace_check_reports_edges_only_in_trace_and_only_in_truth(capsys, demo_copy, tmp_path):
    program = demo_copy / "benchmark" / "python" / "calcpad_0001"
    truth = json.loads((program / "callgraph.json").read_text())
    truth["main.main"].remove("main.tokenize")  # the trace will see it: only in the trace
    truth["main.debug_tokens"].append("main.tokenize")  # never runs: only in the ground truth
    (program / "callgraph.json").write_text(json.dumps(truth))
    report = tmp_path / "check.csv"
    code = main(["retrace", str(demo_copy), "--check", "--instances", "python/calcpad_0001,python/ledgerlite_0001",
                 "--format", "csv", "-o", str(report), "--workspace", str(tmp_path / "w")])
    assert code == 1
    rows = list(csv.DictReader(io.StringIO(report.read_text())))
    assert {(r["side"], r["caller"], r["callee"]) for r in rows} == {
        ("trace_only", "main.main", "main.tokenize"), ("truth_only", "main.debug_tokens", "main.tokenize")}
    assert "1/2 instances agree" in capsys.readouterr().err


def test_retrace_rejects_unknown_instances(capsys, tmp_path):
    assert main(["retrace", "--instances", "python/nope_0001", "--workspace", str(tmp_path / "w")]) == 2
    assert "python/nope_0001" in capsys.readouterr().err


def test_doctor_lists_every_toolchain_and_the_sandbox(capsys):
    code = main(["doctor"])
    out = capsys.readouterr().out
    for component in ("tracer: python", "tracer: javascript", "tracer: java", "sandbox", "process limit"):
        assert component in out
    assert code in (0, 1)



def test_doctor_names_the_python_backend_of_each_interpreter_found(capsys):
    import sys

    from tracers.python import PythonTracer
    from tracers.python_interpreter import find_interpreter

    main(["doctor", "--format", "json"])
    checks = {c["check"]: c for c in json.loads(capsys.readouterr().out)["checks"]}
    this = checks[f"python backend: this {'.'.join(map(str, sys.version_info[:3]))}"]
    expected = PythonTracer().backend_for(find_interpreter())
    named = {"c": "C extension", "monitoring": "sys.monitoring", "python": "pure-Python fallback"}[expected]
    assert this["optional"] and this["detail"].endswith(f": {expected} ({named})")
    for name, check in checks.items():
        if name.startswith("python backend: pyenv 3.1") and int(name.split(".")[1]) >= 12:
            assert check["detail"].endswith(("c (C extension)", "monitoring (sys.monitoring)")), check


def test_trace_runs_names_the_edges_seen_in_only_some_runs(capsys, tmp_path):
    folder = tmp_path / "coin_0001"
    folder.mkdir()
    (folder / "main.py").write_text("import os\n\n\ndef heads():\n    pass\n\n\ndef always():\n    pass\n\n\n"
                                    "always()\nif os.urandom(1)[0] % 2:\n    heads()\n")
    assert main(["trace", str(folder), "--runs", "16", "--workspace", str(tmp_path / "w")]) == 0
    out, err = capsys.readouterr()
    assert set(json.loads(out)["main"]) == {"main.always", "main.heads"}
    assert "1 edge seen in only some of the 16 runs: main -> main.heads (" in err  # all alike: odds 2**-15
    assert "main.always" not in err


def test_trace_says_in_one_line_each_what_a_run_has_many_of():
    from core.traces import ChildProcess, EdgeEvidence, TraceRun, UnresolvedFrame
    from traceeval_gui.cli.trace_commands import run_notes

    run = TraceRun("python/x_0001", "python", "t", "1", "2026-01-01T00:00:00+00:00", 1.0, "ok", "", runs=2,
                   edges=tuple(EdgeEvidence("main", f"main.f{n}", runs_seen=1) for n in range(5)),
                   unresolved=tuple(UnresolvedFrame(f"frame{n}", "why", 2) for n in range(1000)),
                   children=tuple(ChildProcess(argv=("/bin/true", str(n))) for n in range(200)))
    notes = run_notes(run)
    assert notes == [
        "5 edges seen in only some of the 2 runs: main -> main.f0 (1/2), main -> main.f1 (1/2), main -> main.f2 (1/2) "
        "and 2 more (all of them: --format json)",
        "1,000 unresolved frames (2,000 calls): frame0 (why), frame1 (why), frame2 (why) and 997 more (all of them: "
        "--format json)",
        "200 child processes: /bin/true 0 (not traced: another program, exit code unknown); /bin/true 1 (not traced: "
        "another program, exit code unknown); /bin/true 2 (not traced: another program, exit code unknown) and 197 "
        "more (all of them: --format json)"]


def test_trace_and_retrace_keep_the_newest_runs_of_a_program_and_say_what_they_removed(capsys, demo_copy, tmp_path):
    workspace = str(tmp_path / "w.sqlite")
    for _ in range(3):
        assert main(["trace", str(DEMO_PROGRAM), "--keep-runs", "2", "--workspace", workspace]) == 0
    err = capsys.readouterr().err
    assert err.count("traceeval: python/calcpad_0001: removed the 1 oldest run(s), keeping the newest 2 "
                     "(--keep-runs, $TRACEEVAL_KEEP_RUNS)") == 1
    with Workspace(tmp_path / "w.sqlite") as ws:
        assert len(ws.run_rows("python/calcpad_0001")) == 2
    key = "python/calcpad_0001,python/ledgerlite_0001"
    assert main(["retrace", str(demo_copy), "--instances", key, "--keep-runs", "1", "--workspace", workspace]) == 0
    assert "removed 2 older runs of 1 program, keeping the newest 1 of each" in capsys.readouterr().err
    assert main(["trace", str(DEMO_PROGRAM), "--keep-runs", "0", "--workspace", workspace]) == 2
    assert "--keep-runs must be at least 1, got 0" in capsys.readouterr().err
