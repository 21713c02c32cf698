"""The JavaScript tracer end to end: demo ground truth, evidence, statuses, toolchain check."""
import json
import time
from pathlib import Path

import pytest

from core import traces
from core.dataset.layout import load_program
from tracers.base import TraceOptions
from tracers.javascript import TRACER
from tracers.sandbox import Limits

DEMO = Path(__file__).parents[2] / "resources" / "demo" / "benchmark" / "javascript"
DEMO_PROGRAMS = sorted(p.name for p in DEMO.iterdir() if (p / "callgraph.json").is_file())

needs_node = pytest.mark.skipif(not TRACER.check().ok, reason="Node.js 18+ is not available")


def load(folder: Path):
    loaded = load_program(folder, "javascript", [], require_ground_truth=False)
    assert loaded is not None
    return loaded[0]


def trace_source(tmp_path: Path, files: dict[str, str], **limits):
    folder = tmp_path / "prog"
    for path, text in files.items():
        (folder / path).parent.mkdir(parents=True, exist_ok=True)
        (folder / path).write_text(text)
    return TRACER.trace(load(folder), TraceOptions(limits=Limits(**{"wall_s": 10.0, **limits})))


@needs_node
@pytest.mark.parametrize("program", DEMO_PROGRAMS)
def test_each_demo_program_traces_to_its_ground_truth(program):
    expected = json.loads((DEMO / program / "callgraph.json").read_text())
    run = TRACER.trace(load(DEMO / program))
    assert run.status == traces.OK, run.message
    assert [node.name for node in run.nodes] == list(expected)
    assert {e.edge for e in run.edges} == {(caller, callee) for caller, callees in expected.items()
                                          for callee in callees}
    assert not run.unresolved and not run.warnings


@needs_node
def test_edges_carry_call_counts_and_call_site_lines(tmp_path):
    run = trace_source(tmp_path, {"main.js": (
        "function leaf(x) { return x; }\n"
        "function twice(a,\n"
        "               b) { return leaf(a) + leaf(b); }\n"
        "function outer() {\n"
        "  return twice(\n"
        "    leaf(1),\n"
        "    2);\n"
        "}\n"
        "outer(); outer();\n")})
    evidence = {e.edge: e for e in run.edges}
    assert evidence[("main", "main.outer")].count == 2 and evidence[("main", "main.outer")].lines == (9,)
    assert evidence[("main.twice", "main.leaf")].count == 4 and evidence[("main.twice", "main.leaf")].lines == (3,)
    # a call spanning lines is at its callee's line, not at the line of a nested call
    assert evidence[("main.outer", "main.twice")].lines == (5,)
    assert evidence[("main.outer", "main.leaf")].lines == (6,)
    assert all(e.count_known for e in run.edges)
    assert set(run.timings) >= {"symbols", "instrument", "run"}


@needs_node
def test_stack_traces_keep_the_original_line_numbers(tmp_path):
    run = trace_source(tmp_path, {"main.js": "const f = (x) =>\n  g(x);\n"
                                             "function g(x) {\n  throw new Error(`no ${x}`);\n}\nf(1);\n"})
    assert run.status == traces.EXCEPTION
    assert run.message == "uncaught exception: Error: no 1 (main.js:4)"
    assert "main.js:4" in run.stderr_tail


@needs_node
def test_a_killed_run_keeps_its_edges_with_unknown_counts(tmp_path):
    run = trace_source(tmp_path, {"main.js": "function a() {}\nfunction b() { a(); for (;;) {} }\nb();\n"},
                       wall_s=1.0)
    assert run.status == traces.TIMEOUT
    assert {e.edge for e in run.edges} == {("main", "main.b"), ("main.b", "main.a")}
    assert not any(e.count_known for e in run.edges)


@needs_node
def test_an_unhandled_rejection_is_an_exception(tmp_path):
    run = trace_source(tmp_path,
                       {"main.js": "async function f() {\n  await null;\n  throw new RangeError('late');\n}\nf();\n"})
    assert run.status == traces.EXCEPTION
    assert run.message == "uncaught exception: RangeError: late (main.js:3)"
    assert {e.edge for e in run.edges} == {("main", "main.f")}


@needs_node
def test_a_syntax_error_in_any_file_stops_before_running(tmp_path):
    run = trace_source(tmp_path, {"main.js": "require('./lib/a');\n", "lib/a.js": "function (\n"})
    assert run.status == traces.COMPILE_ERROR
    assert run.message.startswith("lib/a.js:1:")
    assert not run.edges and run.nodes[0].name == "main"


def test_no_entry_point(tmp_path):
    run = trace_source(tmp_path, {"a.js": "function f() {}\n", "b.js": "function g() {}\n"})
    assert run.status == traces.NO_ENTRY_POINT and not run.edges


def test_a_missing_node_is_reported_clearly(tmp_path, monkeypatch):
    monkeypatch.setenv("PATH", str(tmp_path))
    status = TRACER.check()
    assert not status.ok and "Node.js not found" in status.detail
    run = trace_source(tmp_path, {"main.js": "function f() {}\nf();\n"})
    assert run.status == traces.TOOLCHAIN_MISSING


@needs_node
def test_check_reports_the_node_version():
    status = TRACER.check()
    assert status.ok and status.detail.startswith("Node ")


@needs_node
def test_tracing_a_demo_program_is_fast():
    instance = load(DEMO / DEMO_PROGRAMS[0])
    TRACER.trace(instance)
    started = time.monotonic()
    for _ in range(3):
        TRACER.trace(instance)
    assert (time.monotonic() - started) / 3 < 0.5


@needs_node
@pytest.mark.parametrize("suffix", [".js", ".mjs"])
def test_an_early_error_tree_sitter_accepts_is_a_compile_error_before_anything_runs(tmp_path, suffix):
    main = "require('./lib');\n" if suffix == ".js" else "import './lib.mjs';\n"
    run = trace_source(tmp_path, {f"main{suffix}": main + "function a() {}\na();\n",
                                  f"lib{suffix}": "let x = 1;\nlet x = 2;\n"})
    assert run.status == traces.COMPILE_ERROR
    assert run.message == f"lib{suffix}:2: SyntaxError: Identifier 'x' has already been declared"
    assert not run.edges


@needs_node
def test_a_runtime_syntax_error_stays_an_exception(tmp_path):
    run = trace_source(tmp_path, {"main.js": "function a() {\n  return JSON.parse('{');\n}\na();\n"})
    assert run.status == traces.EXCEPTION and "(main.js:2)" in run.message


@needs_node
def test_a_worker_threads_calls_join_the_run_and_its_environment_keeps_no_key(tmp_path):
    """A worker thread loads the runtime too and writes its own stream of the process's log, with the process's
    key from its Worker's environment (a copy of the program's options; removed before the worker's code runs)."""
    run = trace_source(tmp_path, {"main.js": """
const { Worker, isMainThread } = require('worker_threads');
function inMain() { return 1; }
function inWorker() { return 2; }
if (isMainThread) {
  inMain();
  const options = { env: { ...process.env, OWN: '1' } };
  new Worker(__filename, options).on('exit', () => console.log('main sees', Object.keys(options.env).sort()));
} else {
  inWorker();
  console.log('worker sees', Object.keys(process.env).filter((name) => name.startsWith('TRACEEVAL_')).sort());
}
"""})
    assert run.status == traces.OK and not run.warnings, run.message + repr(run.warnings)
    assert {("main", "main.inMain"), ("main", "main.inWorker")} <= run.graph.edge_set
    assert "TRACEEVAL_KEY" not in run.stdout_tail and "TRACEEVAL_STREAM" not in run.stdout_tail, run.stdout_tail
