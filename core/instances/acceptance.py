"""Whether a harness's traced runs make a verified instance (docs/benchmark.md; the paper's filter).

A harness is accepted only when every run finished with status ok within the limits (a run whose
trace log shows tampering is `untrusted`, never ok: a harness that forges its records is refused
however alike its runs are), all runs saw exactly the same edge set, the target (for a class: it
or one of its methods) took part in some edge, and at least `min_edges` internal edges were seen.
Internal edges are edges between functions of the repository's own files: the harness's own calls
into them do not count, so a harness cannot pass by calling many trivial things itself.
"""
from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from core import traces
from core.instances.records import (
    CRASHED,
    DID_NOT_RUN,
    OVER_LIMIT,
    TARGET_NOT_REACHED,
    TIMED_OUT,
    TOO_FEW_EDGES,
    UNSTABLE,
    UNTRUSTED_LOG,
)
from core.records import Edge
from core.traces import TraceRun

_STATUS_REASONS = {traces.EXCEPTION: CRASHED, traces.EXIT_CODE: CRASHED, traces.KILLED: CRASHED,
                   traces.TIMEOUT: TIMED_OUT, traces.LIMIT: OVER_LIMIT, traces.UNTRUSTED: UNTRUSTED_LOG}


@dataclass(frozen=True)
class Judgement:
    reason: str  # "" when accepted
    detail: str  # one line
    internal_edges: int = 0

    @property
    def accepted(self) -> bool:
        return not self.reason


def judge_runs(runs: Sequence[TraceRun], target: str, members: Sequence[str], harness_file: str,
               min_edges: int) -> Judgement:
    if not runs:
        return Judgement(DID_NOT_RUN, "no run was made")
    for number, run in enumerate(runs, 1):
        if run.status != traces.OK:
            reason = _STATUS_REASONS.get(run.status, DID_NOT_RUN)
            return Judgement(reason, f"run {number} of {len(runs)}: {run.status}: {_first_line(run.message)}")
    first = _edge_set(runs[0])
    for number, run in enumerate(runs[1:], 2):
        edges = _edge_set(run)
        if edges != first:
            return Judgement(UNSTABLE, f"run {number} differs from run 1: {_difference(edges, first)}")
    harness_nodes = {node.name for node in runs[0].nodes if node.file == harness_file}
    reached = {target, *members}
    if not any(caller in reached or callee in reached for caller, callee in first):
        return Judgement(TARGET_NOT_REACHED, f"no edge has {target} at either end")
    internal = sum(1 for caller, callee in first if caller not in harness_nodes and callee not in harness_nodes)
    if internal < min_edges:
        return Judgement(TOO_FEW_EDGES, f"{internal} internal edge(s), at least {min_edges} needed", internal)
    return Judgement("", f"{internal} internal edges, the same in all {len(runs)} runs", internal)


def _edge_set(run: TraceRun) -> frozenset[Edge]:
    return frozenset(e.edge for e in run.edges)


def _difference(edges: frozenset[Edge], first: frozenset[Edge]) -> str:
    def shown(items: frozenset[Edge]) -> str:
        ordered = sorted(items)
        text = ", ".join(f"{a} -> {b}" for a, b in ordered[:2])
        return text + (f" and {len(ordered) - 2} more" if len(ordered) > 2 else "")
    parts = []
    if edges - first:
        parts.append(f"{len(edges - first)} new ({shown(edges - first)})")
    if first - edges:
        parts.append(f"{len(first - edges)} missing ({shown(first - edges)})")
    return "; ".join(parts)


def _first_line(text: str) -> str:
    return (text.strip().splitlines() or [""])[0][:200]
