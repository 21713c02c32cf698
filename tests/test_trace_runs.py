"""TraceRun as plain data: JSON round trip, combining repeated runs, keeping runs in the workspace."""
import pytest

from core import traces
from core.dataset.workspace import Workspace
from core.errors import UsageError
from core.records import Node
from core.traces import EdgeEvidence, TraceRun, UnresolvedFrame, combine_runs


def make_run(edges, status=traces.OK, started="2026-11-21T10:00:00+00:00", key="python/demo_0001"):
    nodes = (Node("main", "module", "main.py", 1, 0, 9, 0), Node("main.f", "function", "main.py", 2, 0, 3, 0),
             Node("main.g", "function", "main.py", 4, 0, 5, 0))
    return TraceRun(instance_key=key, language="python", tracer="python-profile", tracer_version="1",
                    started_at=started, duration_s=0.5, status=status, message="m", exit_code=0, nodes=nodes,
                    edges=tuple(edges), unresolved=(UnresolvedFrame("main.py:7 <string>", "exec", 2),),
                    warnings=("w",), stdout_tail="out", stderr_tail="", timings={"run": 0.5})


def test_a_run_round_trips_through_json_and_gives_a_callgraph_with_every_key():
    run = make_run([EdgeEvidence("main", "main.f", 3, (7, 8)), EdgeEvidence("main.f", "main.g", 1, (2,), False)])
    assert TraceRun.from_dict(run.to_dict()) == run
    assert run.graph.to_dict() == {"main": ["main.f"], "main.f": ["main.g"], "main.g": []}


def test_combined_runs_mark_edges_seen_in_only_some_runs_and_take_the_worst_status():
    first = make_run([EdgeEvidence("main", "main.f", 2, (7,)), EdgeEvidence("main", "main.g", 1, (8,))])
    second = make_run([EdgeEvidence("main", "main.f", 3, (9,))], status=traces.TIMEOUT)
    combined = combine_runs([first, second])
    assert combined.runs == 2 and combined.status == traces.TIMEOUT
    by_edge = {e.edge: e for e in combined.edges}
    assert by_edge[("main", "main.f")] == EdgeEvidence("main", "main.f", 5, (7, 9), True, 2)
    assert [e.edge for e in combined.unstable_edges()] == [("main", "main.g")]
    assert combined.unresolved == (UnresolvedFrame("main.py:7 <string>", "exec", 4),)


def test_runs_are_kept_not_overwritten_and_the_latest_is_found(tmp_path):
    with Workspace(tmp_path / "w.sqlite") as ws:
        first = ws.store_run(make_run([]), batch="b1").id
        second = ws.store_run(make_run([EdgeEvidence("main", "main.f")]), batch="b2").id
        other = ws.store_run(make_run([], key="python/other_0001"), batch="b1").id
        assert [r.id for r in ws.run_rows("python/demo_0001")] == [second, first]
        assert ws.run(first).edges == () and len(ws.run(second).edges) == 1
        assert set(ws.latest_runs()) == {"python/demo_0001", "python/other_0001"}
        assert len(ws.latest_runs()["python/demo_0001"].edges) == 1
        assert len(ws.latest_runs(batch="b1")["python/demo_0001"].edges) == 0
        assert ws.traced_keys("b1") == {"python/demo_0001", "python/other_0001"}
        assert ws.run(other + 100) is None


def test_the_workspace_keeps_the_newest_runs_of_a_program_and_says_what_it_removed(tmp_path, monkeypatch):
    with Workspace(tmp_path / "w.sqlite") as ws:
        ids = [ws.store_run(make_run([]), keep=3).id for _ in range(3)]
        other = ws.store_run(make_run([], key="python/other_0001"), keep=3)
        fourth = ws.store_run(make_run([]), keep=3)
        assert (fourth.pruned, fourth.kept) == (1, 3)
        assert fourth.pruned_note("python/demo_0001") == (
            "python/demo_0001: removed the 1 oldest run(s), keeping the newest 3 (--keep-runs, $TRACEEVAL_KEEP_RUNS)")
        assert [r.id for r in ws.run_rows("python/demo_0001")] == [fourth.id, ids[2], ids[1]]
        assert [r.id for r in ws.run_rows("python/other_0001")] == [other.id]  # another program's are its own
        monkeypatch.setenv("TRACEEVAL_KEEP_RUNS", "1")
        assert ws.store_run(make_run([])).pruned == 3 and len(ws.run_rows("python/demo_0001")) == 1
        monkeypatch.setenv("TRACEEVAL_KEEP_RUNS", "lots")
        with pytest.raises(UsageError, match=r"\$TRACEEVAL_KEEP_RUNS must be a whole number of at least 1, got 'lots'"):
            ws.store_run(make_run([]))
