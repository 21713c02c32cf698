"""Replay check: a fresh trace against the stored ground truth, per instance and in total.

Edges are compared exactly as strings (no normalisation): the question is whether the stored
graph is what a tracer sees today, not how a model would be scored. Keys are compared too
(the stored keys should be every defined function, in source order).
"""
from __future__ import annotations

import csv
import io
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from core.payloads import json_document
from core.records import CallGraph, Edge
from core.traces import OK, TraceRun


@dataclass(frozen=True)
class ReplayDiff:
    instance_key: str
    status: str
    message: str
    agreed: int
    only_in_trace: tuple[Edge, ...]
    only_in_truth: tuple[Edge, ...]
    keys_only_in_trace: tuple[str, ...]
    keys_only_in_truth: tuple[str, ...]
    keys_reordered: bool
    unresolved_frames: int

    @property
    def agrees(self) -> bool:
        return (self.status == OK and not self.only_in_trace and not self.only_in_truth
                and not self.keys_only_in_trace and not self.keys_only_in_truth and not self.keys_reordered)


@dataclass(frozen=True)
class ReplaySummary:
    instances: int
    agreeing: int
    differing: int  # ran fine, but edges or keys differ
    not_ok: dict[str, int]  # status -> instances whose run did not end "ok"
    agreed_edges: int
    only_in_trace: int
    only_in_truth: int

    @property
    def full_agreement(self) -> bool:
        return self.instances > 0 and self.agreeing == self.instances


def compare_run(run: TraceRun, truth: CallGraph) -> ReplayDiff:
    traced_edges = [e.edge for e in run.edges]
    traced_keys = [n.name for n in run.nodes]
    only_trace_keys = tuple(_only_in(traced_keys, truth.keys))
    only_truth_keys = tuple(_only_in(truth.keys, traced_keys))
    shared_trace = [k for k in traced_keys if k not in only_trace_keys]
    shared_truth = [k for k in truth.keys if k not in only_truth_keys]
    return ReplayDiff(
        instance_key=run.instance_key, status=run.status, message=run.message,
        agreed=len(set(traced_edges) & truth.edge_set),
        only_in_trace=tuple(_only_in(traced_edges, truth.edges)),
        only_in_truth=tuple(_only_in(truth.edges, traced_edges)),
        keys_only_in_trace=only_trace_keys, keys_only_in_truth=only_truth_keys,
        keys_reordered=shared_trace != shared_truth, unresolved_frames=len(run.unresolved))


def summarise(diffs: Sequence[ReplayDiff]) -> ReplaySummary:
    not_ok = Counter(d.status for d in diffs if d.status != OK)
    agreeing = sum(d.agrees for d in diffs)
    return ReplaySummary(
        instances=len(diffs), agreeing=agreeing, differing=len(diffs) - agreeing - sum(not_ok.values()),
        not_ok=dict(not_ok), agreed_edges=sum(d.agreed for d in diffs),
        only_in_trace=sum(len(d.only_in_trace) for d in diffs),
        only_in_truth=sum(len(d.only_in_truth) for d in diffs))


def render_text(diffs: Sequence[ReplayDiff], summary: ReplaySummary, show_agreeing: bool = False) -> str:
    """A table of the instances that differ (or all), their differing edges, then the summary."""
    lines = [f"{'instance':<36} {'status':<15} {'agreed':>6} {'trace only':>10} {'truth only':>10}  note"]
    for d in diffs:
        if d.agrees and not show_agreeing:
            continue
        note = d.message if d.status != OK else _key_note(d)
        lines.append(f"{d.instance_key:<36} {d.status:<15} {d.agreed:>6} {len(d.only_in_trace):>10} "
                     f"{len(d.only_in_truth):>10}  {note}")
        lines += [f"    + {caller} -> {callee}   (only in the trace)" for caller, callee in d.only_in_trace]
        lines += [f"    - {caller} -> {callee}   (only in the ground truth)" for caller, callee in d.only_in_truth]
    if len(lines) == 1:
        lines = []
    lines.append(summary_line(summary))
    return "\n".join(lines)


def summary_line(summary: ReplaySummary) -> str:
    verdict = "full agreement" if summary.full_agreement else "differences found"
    failed = ", ".join(f"{n} {status}" for status, n in sorted(summary.not_ok.items())) or "none"
    return (f"{verdict}: {summary.agreeing}/{summary.instances} instances agree, {summary.differing} differ, "
            f"runs not ok: {failed}; edges agreed {summary.agreed_edges}, only in trace {summary.only_in_trace}, "
            f"only in ground truth {summary.only_in_truth}")


def key_notes(d: ReplayDiff) -> list[str]:
    """What differs in the keys (the defined functions) besides the edges."""
    notes = []
    if d.keys_only_in_trace:
        notes.append(f"{len(d.keys_only_in_trace)} function(s) not keys of the ground truth")
    if d.keys_only_in_truth:
        notes.append(f"{len(d.keys_only_in_truth)} ground-truth key(s) not found in the source")
    if d.keys_reordered:
        notes.append("keys in another order than the source")
    return notes


def _key_note(d: ReplayDiff) -> str:
    unresolved = [f"{d.unresolved_frames} unresolved frame(s)"] if d.unresolved_frames else []
    return "; ".join(key_notes(d) + unresolved)


def to_csv(diffs: Iterable[ReplayDiff]) -> str:
    """One row per differing edge; a run that did not end ok is one row of its own."""
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(["instance", "status", "side", "caller", "callee", "message"])
    for d in diffs:
        if d.status != OK:
            writer.writerow([d.instance_key, d.status, "run", "", "", d.message])
        writer.writerows([d.instance_key, d.status, "trace_only", c, e, ""] for c, e in d.only_in_trace)
        writer.writerows([d.instance_key, d.status, "truth_only", c, e, ""] for c, e in d.only_in_truth)
    return out.getvalue()


def to_json(diffs: Sequence[ReplayDiff], summary: ReplaySummary) -> str:
    return json_document("replay-check", {
        "summary": {"instances": summary.instances, "agreeing": summary.agreeing, "differing": summary.differing,
                    "not_ok": summary.not_ok, "agreed_edges": summary.agreed_edges,
                    "only_in_trace": summary.only_in_trace, "only_in_truth": summary.only_in_truth,
                    "full_agreement": summary.full_agreement},
        "instances": instance_records(diffs),
    })


def instance_records(diffs: Iterable[ReplayDiff]) -> list[dict]:
    """One record per instance (the JSON report's `instances`, and `retrace --check --format jsonl`)."""
    return [{"instance": d.instance_key, "status": d.status, "message": d.message, "agrees": d.agrees,
             "agreed": d.agreed, "only_in_trace": [list(e) for e in d.only_in_trace],
             "only_in_truth": [list(e) for e in d.only_in_truth],
             "keys_only_in_trace": list(d.keys_only_in_trace),
             "keys_only_in_truth": list(d.keys_only_in_truth), "keys_reordered": d.keys_reordered,
             "unresolved_frames": d.unresolved_frames} for d in diffs]


def _only_in(first: Iterable, second: Iterable) -> list:
    """Items of `first` missing from `second`, in `first`'s order."""
    other = set(second)
    return [item for item in first if item not in other]
