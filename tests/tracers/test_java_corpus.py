"""The Java feature corpus and the demo dataset, traced for real (one JVM per program).

Each `tests/tracer_corpus/java/<case>/expected.json` holds edges written by hand from reading
the program; the traced edge set must equal them exactly. The demo programs must reproduce
their `callgraph.json`: same keys in the same order, same edges.
"""
from __future__ import annotations

import json
import os
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

from core.dataset.layout import load_program
from tests.tracers.expected_children import check_children
from tracers.base import TraceOptions
from tracers.java import TRACER
from tracers.java_toolchain import JAVA_HOME_ENV
from tracers.sandbox import Limits

ROOT = Path(__file__).resolve().parents[2]
CORPUS = ROOT / "tests" / "tracer_corpus" / "java"
DEMO = ROOT / "resources" / "demo" / "benchmark" / "java"
CASES = sorted(p.name for p in CORPUS.iterdir() if (p / "expected.json").is_file())
DEMOS = sorted(p.name for p in DEMO.iterdir() if (p / "callgraph.json").is_file())

# Skipped without a JDK, but never when $TRACEEVAL_JAVA_HOME asks for one (CI's second JDK): then a refusal fails.
pytestmark = pytest.mark.skipif(not TRACER.check().ok and not os.environ.get(JAVA_HOME_ENV),
                                reason=f"Java toolchain: {TRACER.check().detail}")


def _expected(case: str) -> dict:
    return json.loads((CORPUS / case / "expected.json").read_text(encoding="utf-8"))


def _trace(folder: Path, wall_s: float = 30.0):
    instance, _ = load_program(folder, "java", [], require_ground_truth=False)
    return instance, TRACER.trace(instance, TraceOptions(Limits(wall_s=wall_s)))


@pytest.fixture(scope="module")
def corpus_runs() -> dict:
    """Every case traced once, two at a time (as retrace does, sharing the warm compiler)."""
    with ThreadPoolExecutor(2) as pool:
        futures = {case: pool.submit(_trace, CORPUS / case, _expected(case).get("wall_s", 30.0)) for case in CASES}
        return {case: future.result()[1] for case, future in futures.items()}


@pytest.fixture(scope="module")
def demo_runs() -> dict:
    with ThreadPoolExecutor(2) as pool:
        futures = {name: pool.submit(_trace, DEMO / name) for name in DEMOS}
        return {name: future.result() for name, future in futures.items()}


def test_corpus_is_big_enough():
    assert len(CASES) >= 30


@pytest.mark.parametrize("case", CASES)
def test_corpus_case(case, corpus_runs):
    expected = _expected(case)
    run = corpus_runs[case]
    assert run.status == expected["status"], run.message + "\n" + run.stderr_tail
    got = {edge.edge for edge in run.edges}
    assert got == {tuple(e) for e in expected["edges"]}
    assert not got & {tuple(e) for e in expected.get("absent", [])}
    assert expected.get("message_contains", "") in run.message
    assert not run.unresolved
    assert not run.warnings
    check_children(run, expected)


@pytest.mark.parametrize("name", DEMOS)
def test_demo_program_reproduces_its_ground_truth(name, demo_runs):
    instance, run = demo_runs[name]
    assert run.status == "ok", run.message
    assert [node.name for node in run.nodes] == list(instance.ground_truth.keys)
    assert {edge.edge for edge in run.edges} == set(instance.ground_truth.edges)
    assert run.graph.keys == instance.ground_truth.keys


def test_call_site_lines_and_counts(corpus_runs):
    edges = {e.edge: e for e in corpus_runs["recursion"].edges}
    recursive = edges[("Main:fact(int)", "Main:fact(int)")]
    assert recursive.lines == (3,) and recursive.count == 4 and recursive.count_known
    edges = {e.edge: e for e in corpus_runs["lambda"].edges}
    assert edges[("Main:main(java.lang.String[])", "Main:inc(int)")].lines == (13, 15)  # the lambda bodies
    edges = {e.edge: e for e in corpus_runs["threads"].edges}
    assert edges[("Main:spawn()", "Worker:run()")].lines == (26,)


def test_exit_code_keeps_counts_and_timeout_keeps_edges(corpus_runs):
    exited = corpus_runs["system_exit"]
    assert exited.exit_code == 3 and all(e.count_known for e in exited.edges)
    looped = corpus_runs["infinite_loop"]
    assert looped.status == "timeout" and all(not e.count_known for e in looped.edges)


def test_uncaught_exception_leaves_the_jvm_behaviour_alone(corpus_runs):
    run = corpus_runs["uncaught_exception"]
    assert run.exit_code == 1
    assert 'Exception in thread "main" java.lang.IllegalStateException: broken' in run.stderr_tail
    assert "at Main.step2(Main.java:7)" in run.stderr_tail


def test_compile_error_names_the_first_error(corpus_runs):
    run = corpus_runs["compile_error"]
    assert run.message.startswith("Main.java:3: error: incompatible types")
    assert not run.ran and run.timings.get("compile", 0) > 0
