"""The Python tracer on its feature corpus: one tiny program per feature, edges written by hand.

Each case of `tests/tracer_corpus/python/<case>/` is traced with every profiler backend that can
run here (`python_legs`: the C extension and the pure-Python fallback with this interpreter,
`sys.monitoring` with a 3.12+ one) and must give exactly the edge set and the status of its
`expected.json`; `absent` lists edges that must not appear. All backends must also agree on the
counts and call-site lines of every edge, case by case.
"""
import json
from functools import cache
from pathlib import Path

import pytest

from core.dataset.layout import load_program
from tests.tracers.expected_children import check_children
from tests.tracers.python_legs import BACKENDS, all_legs, assert_backends_agree, leg_interpreter, leg_on
from tracers.base import TraceOptions
from tracers.python_interpreter import Interpreter
from tracers.sandbox import Limits

CORPUS = Path(__file__).resolve().parent.parent / "tracer_corpus" / "python"
CASES = sorted(p.name for p in CORPUS.iterdir() if (p / "expected.json").is_file())


def expected_of(name: str) -> dict:
    return json.loads((CORPUS / name / "expected.json").read_text(encoding="utf-8"))


def trace_case(name: str, backend: str):
    interpreter, why = leg_interpreter(backend)
    if interpreter is None:
        pytest.skip(why)
    return trace_case_on(name, backend, interpreter)


@cache
def trace_case_on(name: str, backend: str, interpreter: Interpreter):
    """The run of one case with one backend (once per test session: the agreement test reuses it)."""
    loaded = load_program(CORPUS / name, "python", [], require_ground_truth=False)
    assert loaded is not None, f"{name} cannot be loaded"
    limits = Limits(**expected_of(name).get("limits", {}))
    with leg_on(backend, interpreter) as tracer:
        return tracer.trace(loaded[0], TraceOptions(limits))


def test_corpus_is_big_enough():
    assert len(CASES) >= 30


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("case", CASES)
def test_corpus_case(case, backend):
    expected, run = expected_of(case), trace_case(case, backend)
    edges = {tuple(edge) for edge in expected["edges"]}
    seen = run.graph.edge_set
    assert run.status == expected["status"], run.message + "\n" + run.stderr_tail
    assert seen == edges, f"only traced: {sorted(seen - edges)}; only expected: {sorted(edges - seen)}"
    assert not seen & {tuple(edge) for edge in expected.get("absent", ())}
    assert expected.get("message_contains", "") in run.message
    if "exit_code" in expected:
        assert run.exit_code == expected["exit_code"]
    if expected.get("unresolved"):
        assert run.unresolved, "the dynamically created code should be reported as unresolved"
    assert not [w for w in run.warnings if "not available" in w]
    check_children(run, expected)


@pytest.mark.parametrize("case", CASES)
def test_every_backend_gives_the_same_counts_and_lines(case):
    legs = all_legs()
    if len(legs) < 2:
        pytest.skip("only one backend can run here")
    assert_backends_agree({(backend, interpreter): trace_case_on(case, backend, interpreter)
                           for backend, interpreter in legs})
