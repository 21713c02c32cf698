"""Static analyzers as models: naming a tool's graph (core.baselines), running the real tools in the sandbox
(tracers.static) and the `traceeval baseline` command, whose model `traceeval score` then scores like any other."""
import json

import pytest

from core.baselines.naming import name_graph
from core.baselines.predictions import static_prediction
from core.baselines.tool_graph import BadToolOutput, ToolEnd, ToolGraph, read_tool_graph
from core.scoring.answers import parse_answer
from core.symbols import extract_symbols
from tests.cli_run import run
from tracers.sandbox import Limits
from tracers.static import TOOLS, tool_status
from tracers.static.runner import analyse

SHAPESHOP = "python/shapeshop_0001"
SHAPEYARD = "javascript/shapeyard_0001"


def _table(instance):
    return extract_symbols(instance.language, {p: instance.read_source(p) for p in instance.files})


def test_tool_names_are_placed_on_the_programs_symbols(ws):
    instance = ws.instance(SHAPESHOP)
    graph = ToolGraph("pycg", "0.0.7", (
        (ToolEnd("main"), ToolEnd("main.main")),
        (ToolEnd("main.Shape"), ToolEnd("main.load_rates")),  # a class body: its calls are the module's
        (ToolEnd("main.parse_spec"), ToolEnd("main.Circle")),  # a class called: its constructor
        (ToolEnd("main.Shape.price"), ToolEnd("<builtin>.round")),  # outside the program: left out
        (ToolEnd("main.describe"), ToolEnd("abc.abstractmethod")),
        (ToolEnd("main.total"), ToolEnd("main.Shape.volume")),  # in the program by name, no such node: kept
        (ToolEnd("main.nowhere"), ToolEnd("main.total")),  # a caller that is no node: reported
        (ToolEnd("Shape.area", "main.py", 16, 0, "function"), ToolEnd("main.py", "main.py", 0, 0, "module")),
        (ToolEnd("main.main"), ToolEnd("main.main")),  # Python's truth has no self-edges
    ))
    named = name_graph(graph, _table(instance), instance.ground_truth.keys, self_edges=False)
    assert named.answers["main"] == ["main.main", "main.load_rates"]
    assert named.answers["main.parse_spec"] == ["main.Circle.__init__"]
    assert named.answers["main.total"] == ["main.Shape.volume"]
    assert named.answers["main.Shape.area"] == ["main"]
    assert named.answers["main.main"] == [] and named.answers["main.Shape.price"] == []
    assert named.outside == 2 and named.unplaced == ("main.Shape.volume",)
    assert named.problems == (
        "pycg: 1 callee not in the program's symbols, kept as written: main.Shape.volume",
        "pycg: 1 caller not in the program's symbols, their 1 calls left out: main.nowhere")


def test_the_prediction_is_the_answer_a_model_would_give(ws):
    instance = ws.instance(SHAPESHOP)
    graph = ToolGraph("code2flow", "2.5.1", (
        (ToolEnd("main", "main.py", 76, 0, "function"), ToolEnd("total", "main.py", 72, 0, "function")),
        (ToolEnd("total", "main.py", 72, 0, "function"), ToolEnd("main.bad, name\n2. x", "", 0, 0, "function")),
    ))
    prediction, _ = static_prediction(instance, _table(instance), graph)
    assert prediction.model == "static:code2flow" and prediction.source == "code2flow 2.5.1"
    assert parse_answer(prediction.raw_response, instance.ground_truth.keys).graph == prediction.graph
    assert sorted(prediction.graph.edges) == [("main.main", "main.total"), ("main.total", "main.bad name 2. x")]
    assert any("kept as written: main.bad name 2. x" in problem for problem in prediction.parse_problems)


@pytest.mark.parametrize("text, problem", [
    ("[]", "not a JSON object"),
    ('{"tool": "t", "version": "1"}', "no list of edges"),
    ('{"tool": "t", "version": "1", "edges": [[{"name": "a"}]]}', r"not a \[caller, callee\] pair"),
    ('{"tool": "t", "version": "1", "edges": [[{"name": "a", "line": -1}, {"name": "b"}]]}', "bad line"),
    ('{"tool": "t", "version": "1", "edges": [[{"name": 3}, {"name": "b"}]]}', "bad name"),
    ("[" * 200 + "]" * 200, "nested"),
])
def test_a_malformed_tool_output_is_one_line(text, problem):
    with pytest.raises(BadToolOutput, match=problem):
        read_tool_graph(text)


@pytest.mark.parametrize("name", sorted(name for name, described in TOOLS.items() if not described.gap))
def test_every_analyzer_is_available_here(name):
    status = tool_status(name)
    assert status.available, status.problem
    assert status.version


@pytest.mark.parametrize("name, key", [("pycg", SHAPESHOP), ("pyan3", SHAPESHOP), ("code2flow", SHAPESHOP),
                                       ("code2flow", SHAPEYARD)])
def test_the_real_tool_runs_in_the_sandbox_and_finds_true_calls(ws, name, key):
    instance = ws.instance(key)
    run_ = analyse(name, instance)
    assert not run_.failed, run_.prediction.parse_problems
    truth = set(instance.ground_truth.edges)
    found = set(run_.prediction.graph.edges)
    assert len(found & truth) >= 3, (found, truth)


def test_a_tool_stopped_by_its_limit_gives_a_failed_prediction(ws):
    run_ = analyse("pyan3", ws.instance(SHAPESHOP), Limits(wall_s=0.05))
    assert run_.failed
    assert "stopped by the wall-clock time limit" in run_.prediction.parse_problems[0]
    assert not run_.prediction.graph.edges


def test_baseline_then_score_shows_the_model_row(tmp_path, capsys):
    workspace = tmp_path / "ws.sqlite"
    code, out, err = run(capsys, "baseline", "pycg", "--workspace", workspace, "--split", "all")
    assert code == 0, err
    assert "static:pycg" in out and "analysed 5" in out
    code, out, _ = run(capsys, "baseline", "pycg", "--workspace", workspace, "--split", "all", "--format", "json")
    report = json.loads(out)
    assert report["schema"] == "traceeval.baseline-run" and report["skipped"] == 5 and report["analysed"] == 0
    code, out, err = run(capsys, "score", "--workspace", workspace, "--split", "all")
    assert code == 0, err
    row = next(line for line in out.splitlines() if line.startswith("static:pycg"))
    python_f1 = float(row.split("|")[1].split()[2])
    assert 40 < python_f1 < 100
    assert "illustrative-strong" in out


def test_baseline_list_names_every_analyzer(capsys):
    code, out, _ = run(capsys, "baseline", "--list", "--format", "json")
    listed = json.loads(out)
    assert code == 0 and listed["schema"] == "traceeval.baselines"
    assert {a["tool"]: sorted(a["languages"]) for a in listed["analyzers"]} == {
        "pycg": ["python"], "pyan3": ["python"], "code2flow": ["javascript", "python"], "wala": []}
    wala = next(a for a in listed["analyzers"] if a["tool"] == "wala")
    assert not wala["available"] and "unknown class file version: 61.0" in wala["problem"]


def test_an_analyzer_without_an_adapter_is_refused_with_its_reason(tmp_path, capsys):
    code, _, err = run(capsys, "baseline", "wala", "--workspace", tmp_path / "ws.sqlite")
    assert code != 0 and "wala cannot run here: libwala-java is" in err and "no adapter is built" in err


def test_doctor_lists_the_analyzers_without_failing_for_them(capsys):
    code, out, _ = run(capsys, "doctor")
    lines = {line.split()[2]: line for line in out.splitlines() if line.startswith("static analyzer: ")}
    assert sorted(lines) == sorted(TOOLS)
    assert all(" ok " in lines[name] for name in ("pycg", "pyan3", "code2flow"))
    assert " NO " in lines["wala"] and "no adapter is built" in lines["wala"]
    assert code == 0  # optional: an analyzer that cannot run does not fail the check of the tracers and sandbox
