"""The `children` of a corpus case's expected.json, checked against a run (every corpus test uses it).

Each expected child gives its argv (`"*"` matches any one argument: an interpreter's path, a
temporary class path), language, whether it was traced, its exit code and the edges it saw, in
the order the program started them. A case without `children` must list none.
"""
from core.traces import TraceRun


def check_children(run: TraceRun, expected: dict) -> None:
    want = expected.get("children", [])
    got = run.children
    assert len(got) == len(want), f"children: {[c.argv for c in got]}"
    for child, spec in zip(got, want, strict=True):
        assert len(child.argv) == len(spec["argv"]) and all(
            w == "*" or w == g for g, w in zip(child.argv, spec["argv"], strict=True)), child.argv
        got_facts = (child.language, child.traced, child.exit_code)
        assert got_facts == (spec["language"], spec["traced"], spec["exit_code"]), child
        assert set(child.edges) == {tuple(edge) for edge in spec["edges"]}
