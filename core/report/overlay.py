"""Every edge source of one instance side by side: the ground truth, each model, the latest trace.

All sources are normalised with the same modes as scoring, so an edge means the same thing in
every column: `kind(model)` gives exactly the TP / FP / FN the metrics count. The union of all
sources is what the graph view lays out once, so toggling a source never moves a node.
"""
from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field

from core.records import Edge, Instance, Prediction
from core.report.view_modes import TRUTH, effective_mode, view_mode
from core.scoring.answers import scored_graph
from core.scoring.metrics import Counts, EdgeDiff, count_edges, instance_scores
from core.scoring.normalise import MODES, normalise_edges, normalise_name
from core.scoring.rules import DEFAULT_RULES
from core.traces import EdgeEvidence, TraceRun

# Compare classes for truth vs model A vs model B, per edge of the union.
BOTH_RIGHT, ONLY_A_RIGHT, ONLY_B_RIGHT, BOTH_WRONG = "both_right", "only_a_right", "only_b_right", "both_wrong"
COMPARE_CLASSES = (BOTH_RIGHT, ONLY_A_RIGHT, ONLY_B_RIGHT, BOTH_WRONG)
# Trace vs ground truth.
TRACE_AGREES, TRACE_ONLY, TRUTH_ONLY = "agrees", "trace_only", "truth_only"


SHOWN_EDGE_LIMIT = 2000  # edges a view draws or lists; beyond it "… and K more" (scores still count every edge)


@dataclass(frozen=True, slots=True)
class OverlayEdge:
    caller: str
    callee: str
    truth: bool
    models: frozenset[str]  # the models that predict this edge
    traced: bool  # seen by the latest trace run (False when there is none)

    @property
    def edge(self) -> Edge:
        return (self.caller, self.callee)

    def kind(self, model: str) -> str | None:
        """TP / FP / FN of `model` on this edge; None when neither the truth nor the model has it."""
        predicted = model in self.models
        if self.truth:
            return "TP" if predicted else "FN"
        return "FP" if predicted else None

    def compare(self, model_a: str, model_b: str) -> str | None:
        """Which of two models is right about this edge (None: neither mentions it and it is not true)."""
        a_right = (model_a in self.models) == self.truth
        b_right = (model_b in self.models) == self.truth
        if not self.truth and model_a not in self.models and model_b not in self.models:
            return None
        if a_right and b_right:
            return BOTH_RIGHT
        if a_right:
            return ONLY_A_RIGHT
        if b_right:
            return ONLY_B_RIGHT
        return BOTH_WRONG

    def trace_class(self) -> str | None:
        if self.truth and self.traced:
            return TRACE_AGREES
        if self.traced:
            return TRACE_ONLY
        return TRUTH_ONLY if self.truth else None


@dataclass(frozen=True)
class InstanceOverlay:
    instance_key: str
    language: str
    modes: frozenset[str]
    models: tuple[str, ...]  # models with a prediction for this instance, in the order given
    edges: tuple[OverlayEdge, ...]  # the union, sorted by (caller, callee)
    nodes: tuple[str, ...]  # every normalised name: truth keys and edges first, then the rest
    trace: TraceRun | None = None
    trace_evidence: Mapping[Edge, EdgeEvidence] = field(default_factory=dict)  # by normalised edge
    rules: str = DEFAULT_RULES

    def normalise_edge(self, caller: str, callee: str) -> Edge | None:
        """A raw edge (as a tracer or a file names it) under this overlay's names; None when dropped."""
        caller_name = normalise_name(caller, self.language, self.modes, self.rules)
        callee_name = normalise_name(callee, self.language, self.modes, self.rules)
        return None if caller_name is None or callee_name is None else (caller_name, callee_name)

    def edge(self, caller: str, callee: str) -> OverlayEdge | None:
        return self._by_edge().get((caller, callee))

    def _by_edge(self) -> dict[Edge, OverlayEdge]:
        cache = self.__dict__.get("_index")
        if cache is None:
            cache = {e.edge: e for e in self.edges}
            object.__setattr__(self, "_index", cache)
        return cache

    def truth_edges(self) -> frozenset[Edge]:
        return frozenset(e.edge for e in self.edges if e.truth)

    def model_edges(self, model: str) -> frozenset[Edge]:
        return frozenset(e.edge for e in self.edges if model in e.models)

    def diff(self, model: str) -> EdgeDiff | None:
        """The model's TP / FP / FN (the same numbers as scoring); None without a prediction."""
        if model not in self.models:
            return None
        return _sorted_diff(self.edges, lambda edge: model in edge.models)

    def trace_diff(self) -> EdgeDiff | None:
        """The latest trace against the stored ground truth, as TP (agree) / FP (trace only) / FN."""
        return _sorted_diff(self.edges, lambda edge: edge.traced) if self.trace is not None else None

    def shown(self, limit: int = SHOWN_EDGE_LIMIT) -> ShownPart:
        """The part a view draws or lists: every edge while there are at most `limit`, else the truth's and the
        trace's edges first, then the others in order, `limit` in all; the names are the truth's keys and the
        shown edges' ends. The same whatever the view mode, so switching modes never moves a node."""
        cache = self.__dict__.get("_shown")
        if cache is None:
            cache = {}
            object.__setattr__(self, "_shown", cache)
        if limit not in cache:
            cache[limit] = _shown_part(self, limit)
        return cache[limit]

    def class_counts(self, mode: str, model_a: str | None = None, model_b: str | None = None) -> dict[str, int]:
        """How many edges of the whole overlay each class of a view mode has (`classify_edges` on every edge):
        what a view counts while it draws only `shown()`. Cached per mode and models (one pass over the edges)."""
        cache = self.__dict__.get("_class_counts")
        if cache is None:
            cache = {}
            object.__setattr__(self, "_class_counts", cache)
        key = (mode, model_a, model_b)
        if key not in cache:
            cache[key] = dict(Counter(category for _, category in _edge_classes(self, mode, model_a, model_b,
                                                                              self.edges)))
        return cache[key]

    def compare(self, model_a: str, model_b: str) -> dict[str, tuple[OverlayEdge, ...]]:
        """Edges by compare class (see `OverlayEdge.compare`); empty when a model has no prediction."""
        out: dict[str, list[OverlayEdge]] = {name: [] for name in COMPARE_CLASSES}
        if model_a in self.models and model_b in self.models:
            for edge in self.edges:
                category = edge.compare(model_a, model_b)
                if category is not None:
                    out[category].append(edge)
        return {name: tuple(edges) for name, edges in out.items()}


@dataclass(frozen=True)
class ShownPart:
    """What a view shows of an overlay (see `InstanceOverlay.shown`) and how much it leaves out."""

    edges: tuple[OverlayEdge, ...]
    nodes: tuple[str, ...]
    omitted_edges: int = 0
    omitted_nodes: int = 0

    def summary(self) -> str:
        """`… and 998,000 more edges (998,000 names) not shown; scores count them all`, or ""."""
        if not self.omitted_edges:
            return ""
        return (f"… and {self.omitted_edges:,} more edge{'s' if self.omitted_edges > 1 else ''} "
                f"({self.omitted_nodes:,} more names) not shown; scores count them all")


def _sorted_diff(edges: Sequence[OverlayEdge], predicted: Callable[[OverlayEdge], bool]) -> EdgeDiff:
    """`diff_edges` of the truth and the edges `predicted` says yes to, in one pass over edges that are
    already sorted (so each class comes out sorted without sorting 10^6 edges again)."""
    tp: list[Edge] = []
    fp: list[Edge] = []
    fn: list[Edge] = []
    for edge in edges:
        if predicted(edge):
            (tp if edge.truth else fp).append(edge.edge)
        elif edge.truth:
            fn.append(edge.edge)
    return EdgeDiff(tuple(tp), tuple(fp), tuple(fn))


def _shown_part(overlay: InstanceOverlay, limit: int) -> ShownPart:
    if len(overlay.edges) <= limit:
        return ShownPart(overlay.edges, overlay.nodes)
    first = [edge for edge in overlay.edges if edge.truth or edge.traced][:limit]
    rest = (edge for edge in overlay.edges if not (edge.truth or edge.traced))
    chosen = set(first)
    for edge in rest:
        if len(chosen) >= limit:
            break
        chosen.add(edge)
    edges = tuple(edge for edge in overlay.edges if edge in chosen)
    shown_ends = {name for edge in edges for name in edge.edge}
    all_ends = {name for edge in overlay.edges for name in edge.edge}
    nodes = tuple(name for name in overlay.nodes if name in shown_ends or name not in all_ends)  # and lone keys
    return ShownPart(edges, nodes, len(overlay.edges) - len(edges), len(overlay.nodes) - len(nodes))


def build_overlay(instance: Instance, predictions: Mapping[str, Prediction], trace: TraceRun | None = None,
                  modes: Iterable[str] = MODES, rules: str = DEFAULT_RULES) -> InstanceOverlay:
    """Read the truth, every prediction and the trace under the rule set, normalised with `modes`, and line
    them up per edge."""
    modes = frozenset(modes)
    language = instance.language
    keys = instance.ground_truth.keys
    truth = normalise_edges(instance.ground_truth.edges, language, modes, rules)
    predicted = {model: normalise_edges(scored_graph(p, keys, rules).edges, language, modes, rules)
                 for model, p in predictions.items()}
    evidence: dict[Edge, EdgeEvidence] = {}
    for record in trace.edges if trace is not None else ():
        caller = normalise_name(record.caller, language, modes, rules)
        callee = normalise_name(record.callee, language, modes, rules)
        if caller is not None and callee is not None:
            evidence.setdefault((caller, callee), record)
    traced = frozenset(evidence)
    union = set(truth) | traced
    for model_edges in predicted.values():
        union |= model_edges
    member: dict[Edge, int] = {}  # edge -> bit i set when the i-th model predicts it
    for bit, model_edges in enumerate(predicted.values()):
        for edge in model_edges:
            member[edge] = member.get(edge, 0) | 1 << bit
    model_sets = {bits: frozenset(m for i, m in enumerate(predicted) if bits >> i & 1)  # one per combination
                  for bits in set(member.values()) | {0}}
    edges = tuple(OverlayEdge(edge[0], edge[1], edge in truth, model_sets[member.get(edge, 0)], edge in traced)
                  for edge in sorted(union))
    names: dict[str, None] = {}
    for key in keys:
        normalised = normalise_name(key, language, modes, rules)
        if normalised is not None:
            names[normalised] = None
    for caller, callee in sorted(truth):
        names.setdefault(caller, None)
        names.setdefault(callee, None)
    for overlay_edge in edges:
        names.setdefault(overlay_edge.caller, None)
        names.setdefault(overlay_edge.callee, None)
    return InstanceOverlay(instance.key, language, modes, tuple(predictions), edges, tuple(names), trace, evidence,
                           rules)


@dataclass(frozen=True)
class ModelDifference:
    """One instance's F1 under two models (per-instance rule), for "where do A and B differ most"."""

    key: str
    f1_a: float
    f1_b: float
    counts_a: Counts
    counts_b: Counts

    @property
    def delta(self) -> float:
        return self.f1_a - self.f1_b


def rank_differences(counts_a: Mapping[str, Counts], counts_b: Mapping[str, Counts],
                     keys: Sequence[str] | None = None) -> list[ModelDifference]:
    """Instances both models answered, largest |F1(A) - F1(B)| first (ties by key)."""
    shared = [k for k in (keys if keys is not None else counts_a) if k in counts_a and k in counts_b]
    out = [ModelDifference(k, instance_scores(counts_a[k]).f1, instance_scores(counts_b[k]).f1,
                           counts_a[k], counts_b[k]) for k in shared]
    out.sort(key=lambda d: (-abs(d.delta), d.key))
    return out


def counts_of(overlay: InstanceOverlay, model: str) -> Counts | None:
    if model not in overlay.models:
        return None
    return count_edges(overlay.truth_edges(), overlay.model_edges(model))


# -- what the graph draws -------------------------------------------------------------------------
def classify_edges(overlay: InstanceOverlay, mode: str, model_a: str | None = None,
                   model_b: str | None = None, edges: Iterable[OverlayEdge] | None = None) -> dict[Edge, str]:
    """The class of every edge drawn in a view mode (edges a mode does not draw are left out).

    model: TP / FP / FN of model A; compare: who of A and B is right; trace: the latest trace
    against the truth; truth: ground-truth edges only. A mode whose inputs are missing (no
    prediction, no trace) falls back to the ground truth (`core.report.view_modes.effective_mode`). `edges`: only
    these (default: all of the overlay's).
    """
    view_mode(mode)  # an unknown mode is a ValueError
    return {edge.edge: category for edge, category in
            _edge_classes(overlay, mode, model_a, model_b, overlay.edges if edges is None else edges)}


def _edge_classes(overlay: InstanceOverlay, mode: str, model_a: str | None, model_b: str | None,
                  edges: Iterable[OverlayEdge]) -> Iterator[tuple[OverlayEdge, str]]:
    """(edge, class) for each edge a view mode draws (see `classify_edges`)."""
    edges = edges if isinstance(edges, Sequence) else tuple(edges)
    mode, _ = effective_mode(mode, model_a, model_b, overlay.models, overlay.trace is not None)
    if mode == "compare":
        if model_a is None or model_b is None:
            raise ValueError("effective_mode kept the compare mode without two models")
        classes = (edge.compare(model_a, model_b) for edge in edges)
    elif mode == "model":
        if model_a is None:
            raise ValueError("effective_mode kept the model mode without model A")
        classes = (edge.kind(model_a) for edge in edges)
    elif mode == "trace":
        classes = (edge.trace_class() for edge in edges)
    else:
        classes = (TRUTH if edge.truth else None for edge in edges)
    return ((edge, category) for edge, category in zip(edges, classes) if category is not None)
