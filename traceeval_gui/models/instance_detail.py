"""What the views show about one instance under one model: sources, symbols and the edge diff.

Built in the GUI thread on selection: reading a program's files and parsing them with
tree-sitter takes milliseconds for benchmark-sized programs.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import NamedTuple

from core.metrics import EdgeDiff, Scores, instance_scores
from core.model import Edge, Instance, Node, Prediction
from core.normalise import MODES
from core.overlay import InstanceOverlay, build_overlay
from core.palette import WORST_FIRST
from core.symbols import SymbolTable, call_site_lines, extract_symbols
from core.verdicts import Verdict
from core.workspace import Workspace

EDGE_CLASSES = ("TP", "FP", "FN")


class ClassifiedEdge(NamedTuple):
    kind: str  # TP | FP | FN of the current model; "" when only another model or the trace has it
    caller: str
    callee: str


@dataclass
class InstanceDetail:
    instance: Instance
    sources: dict[str, str]  # readable files only
    unreadable: dict[str, str]  # file -> why it could not be read
    symbols: SymbolTable
    overlay: InstanceOverlay
    model: str | None = None
    prediction: Prediction | None = None
    diff: EdgeDiff | None = None
    verdicts: dict[Edge, Verdict] = field(default_factory=dict)  # the newest audit verdict per edge
    _call_sites: dict[ClassifiedEdge, list[int]] = field(default_factory=dict, repr=False)

    @property
    def edges(self) -> tuple[ClassifiedEdge, ...]:
        """TP, then FP, then FN; each sorted (the order `instance_diff` gives)."""
        if self.diff is None:
            return ()
        return tuple(ClassifiedEdge(kind, caller, callee)
                     for kind, edges in zip(EDGE_CLASSES, (self.diff.tp, self.diff.fp, self.diff.fn))
                     for caller, callee in edges)

    @property
    def scores(self) -> Scores | None:
        return instance_scores(self.diff.counts) if self.diff is not None else None

    def place(self, name: str) -> Node | None:
        """The node a (normalised) name refers to, or None when the program defines nothing like it."""
        node = self.symbols.place(name)
        return node if node is not None and node.file in self.sources else None

    def classify(self, caller: str, callee: str) -> ClassifiedEdge:
        """The edge as the current model sees it (kind "" when the model neither has it nor misses it)."""
        edge = self.overlay.edge(caller, callee)
        kind = edge.kind(self.model) if edge is not None and self.model in self.overlay.models else None
        return ClassifiedEdge(kind or "", caller, callee)

    def classify_node(self, name: str) -> str:
        """The worst class among the current model's edges from `name` ("" when it has none)."""
        kinds = {edge.kind for edge in self.edges if edge.caller == name}
        return next((kind for kind in WORST_FIRST["model"] if kind in kinds), "")

    def edges_by_caller(self) -> dict[str, list[ClassifiedEdge]]:
        by_caller: dict[str, list[ClassifiedEdge]] = {}
        for edge in self.edges:
            by_caller.setdefault(edge.caller, []).append(edge)
        return by_caller

    def call_sites(self, edge: ClassifiedEdge) -> list[int]:
        """Lines in the caller's body where it calls the callee: witnessed by the latest trace when it
        saw the call, else candidates from a static look at the caller's body (approximate)."""
        if edge not in self._call_sites:
            evidence = self.overlay.trace_evidence.get((edge.caller, edge.callee))
            self._call_sites[edge] = list(evidence.lines) if evidence is not None and evidence.lines else \
                call_site_lines(self.symbols, self.sources, edge.caller, edge.callee)
        return self._call_sites[edge]


class InstanceDetailLoader:
    """Builds `InstanceDetail`s, keeping the parsed sources of recently shown instances."""

    def __init__(self, keep: int = 8) -> None:
        self.keep = keep
        self._parsed: dict[str, tuple[Instance, dict[str, str], dict[str, str], SymbolTable]] = {}

    def clear(self) -> None:
        self._parsed.clear()

    def load(self, ws: Workspace, key: str, model: str | None, models: tuple[str, ...] = (),
             annotator: str | None = None) -> InstanceDetail | None:
        """`models`: every loaded model (the overlay lines them all up; `model` is the current one);
        `annotator`: show only their audit verdicts (None: the newest of anyone's)."""
        parsed = self._parsed.pop(key, None)
        if parsed is None:
            instance = ws.instance(key)
            if instance is None:
                return None
            sources, unreadable = instance.read_sources()
            parsed = (instance, sources, unreadable, extract_symbols(instance.language, sources))
        self._parsed[key] = parsed  # most recent last
        while len(self._parsed) > self.keep:
            self._parsed.pop(next(iter(self._parsed)))
        instance, sources, unreadable, symbols = parsed
        predictions = {}
        for name in dict.fromkeys((*models, *([model] if model else []))):
            prediction = ws.predictions(name, [key]).get(key)
            if prediction is not None:
                predictions[name] = prediction
        runs = ws.run_rows(key)
        trace = ws.run(runs[0].id) if runs else None
        overlay = build_overlay(instance, predictions, trace, MODES)
        detail = InstanceDetail(instance, sources, unreadable, symbols, overlay, model,
                                verdicts=ws.latest_verdicts(key, annotator))
        if model is not None:
            detail.prediction = predictions.get(model)
            detail.diff = overlay.diff(model)
        return detail
