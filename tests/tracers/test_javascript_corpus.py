"""The JavaScript tracer on its feature corpus: one tiny program per feature, edges written by hand.

Each `tests/tracer_corpus/javascript/<case>/expected.json` says which edges the program makes at
run time (`edges`, compared as a set), which it must not make (`absent`), and how it ends.
"""
import json
from pathlib import Path

import pytest

from core.dataset.layout import load_program
from tests.tracers.expected_children import check_children
from tracers.base import TraceOptions
from tracers.javascript import TRACER
from tracers.sandbox import Limits

CORPUS = Path(__file__).parents[1] / "tracer_corpus" / "javascript"
CASES = sorted(p.name for p in CORPUS.iterdir() if (p / "expected.json").is_file())

pytestmark = pytest.mark.skipif(not TRACER.check().ok, reason="Node.js 18+ is not available")


def trace_case(name: str):
    folder = CORPUS / name
    expected = json.loads((folder / "expected.json").read_text())
    loaded = load_program(folder, "javascript", [], require_ground_truth=False)
    assert loaded is not None, f"{name}: not loadable"
    limits = Limits(wall_s=expected.get("wall_s", 10.0))
    return TRACER.trace(loaded[0], TraceOptions(limits=limits)), expected


def test_the_corpus_covers_at_least_thirty_features():
    assert len(CASES) >= 30


@pytest.mark.parametrize("name", CASES)
def test_corpus_case(name):
    run, expected = trace_case(name)
    got = {e.edge for e in run.edges}
    want = {tuple(edge) for edge in expected["edges"]}
    assert run.status == expected["status"], (run.message, run.stderr_tail)
    assert got == want, f"only traced: {sorted(got - want)}; only expected: {sorted(want - got)}"
    assert not got & {tuple(edge) for edge in expected.get("absent", ())}
    assert expected.get("message_contains", "") in run.message
    if "exit_code" in expected:
        assert run.exit_code == expected["exit_code"]
    if run.status == "ok":
        assert not run.unresolved and not run.warnings
    check_children(run, expected)
