"""The Python tracer on its feature corpus: one tiny program per feature, edges written by hand.

Each case of `tests/tracer_corpus/python/<case>/` is traced with both profiler backends (the C
extension and the pure-Python fallback) and must give exactly the edge set and the status of
its `expected.json`; `absent` lists edges that must not appear.
"""
import json
from pathlib import Path

import pytest

from core.dataset.layout import load_program
from tests.tracers.expected_children import check_children
from tracers.base import TraceOptions
from tracers.python import PythonTracer, c_backend_available
from tracers.sandbox import Limits

CORPUS = Path(__file__).resolve().parent.parent / "tracer_corpus" / "python"
CASES = sorted(p.name for p in CORPUS.iterdir() if (p / "expected.json").is_file())
BACKENDS = ["c", "python"]


def trace_case(name: str, backend: str):
    folder = CORPUS / name
    expected = json.loads((folder / "expected.json").read_text(encoding="utf-8"))
    loaded = load_program(folder, "python", [], require_ground_truth=False)
    assert loaded is not None, f"{name} cannot be loaded"
    limits = Limits(**expected.get("limits", {}))
    return expected, PythonTracer(backend).trace(loaded[0], TraceOptions(limits))


def test_corpus_is_big_enough():
    assert len(CASES) >= 30


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("case", CASES)
def test_corpus_case(case, backend):
    if backend == "c" and not c_backend_available():
        pytest.skip("the C extension is not built (pip install -e .)")
    expected, run = trace_case(case, backend)
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
    assert not [w for w in run.warnings if "C profiler not available" in w]
    check_children(run, expected)
