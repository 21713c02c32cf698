"""What the views show about one instance under one model: sources, symbols and the edge diff.

Built in the GUI thread on selection: reading a program's files and parsing them with
tree-sitter takes milliseconds for benchmark-sized programs. An absurd answer (10^6 callees) is still
scored in full (`diff`), but what is looked at edge by edge (`shown_edges`, call sites) is the overlay's
bounded shown part.
"""
from __future__ import annotations

import threading
from bisect import bisect_left
from dataclasses import dataclass, field
from functools import cached_property
from typing import NamedTuple

from core.dataset.workspace import Workspace
from core.records import Edge, Prediction
from core.report.program_view import ParsedProgram, ProgramView, parse_program
from core.report.view_modes import view_mode
from core.scoring.metrics import EdgeDiff, Scores, instance_scores
from core.scoring.normalise import MODES
from core.verdicts import Verdict

EDGE_CLASSES = ("TP", "FP", "FN")


class ClassifiedEdge(NamedTuple):
    kind: str  # TP | FP | FN of the current model; "" when only another model or the trace has it
    caller: str
    callee: str


@dataclass(frozen=True, eq=False)
class InstanceDetail(ProgramView):
    """The program (`core.report.program_view`) under the window's current model."""

    model: str | None = None
    verdicts: dict[Edge, Verdict] = field(default_factory=dict)  # the newest audit verdict per edge

    @cached_property
    def prediction(self) -> Prediction | None:
        return self.predictions.get(self.model) if self.model is not None else None

    @cached_property
    def diff(self) -> EdgeDiff | None:
        """The current model's TP / FP / FN; None without a model or its prediction."""
        return self.overlay.diff(self.model) if self.model is not None else None

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

    def classify(self, caller: str, callee: str) -> ClassifiedEdge:
        """The edge as the current model sees it (kind "" when the model neither has it nor misses it)."""
        edge = self.overlay.edge(caller, callee)
        kind = edge.kind(self.model) if edge is not None and self.model in self.overlay.models else None
        return ClassifiedEdge(kind or "", caller, callee)

    @property
    def shown_edges(self) -> tuple[ClassifiedEdge, ...]:
        """The current model's edges among the shown part, in the order of `edges` (all of them while the
        overlay has at most `SHOWN_EDGE_LIMIT` edges)."""
        cache = self.__dict__.get("_shown_edges")
        if cache is None or cache[0] is not self.diff:
            by_kind: dict[str, list[ClassifiedEdge]] = {kind: [] for kind in EDGE_CLASSES}
            if self.diff is not None and self.model in self.overlay.models:
                for edge in self.shown.edges:
                    kind = edge.kind(self.model)
                    if kind is not None:
                        by_kind[kind].append(ClassifiedEdge(kind, edge.caller, edge.callee))
            shown = tuple(edge for kind in EDGE_CLASSES for edge in by_kind[kind])
            cache = self.__dict__["_shown_edges"] = (self.diff, shown)
        return cache[1]

    def classify_node(self, name: str) -> str:
        """The worst class among the current model's edges from `name` ("" when it has none): a look at that
        caller's edges only (the overlay's edges are sorted by caller)."""
        if self.diff is None or self.model not in self.overlay.models:
            return ""
        edges = self.overlay.edges
        kinds = set()
        for index in range(bisect_left(edges, name, key=lambda edge: edge.caller), len(edges)):
            if edges[index].caller != name:
                break
            kinds.add(edges[index].kind(self.model))
            if "FN" in kinds:  # the worst: nothing to look for further
                break
        return next((kind for kind in view_mode("model").worst_first if kind in kinds), "")

    def edges_by_caller(self) -> dict[str, list[ClassifiedEdge]]:
        """The shown edges (`shown_edges`) by caller."""
        by_caller: dict[str, list[ClassifiedEdge]] = {}
        for edge in self.shown_edges:
            by_caller.setdefault(edge.caller, []).append(edge)
        return by_caller


class InstanceDetailLoader:
    """Builds `InstanceDetail`s, keeping the parsed sources of recently shown instances and of those
    parsed ahead of time on another thread (`keep_parsed`)."""

    def __init__(self, keep: int = 8) -> None:
        self.keep = keep
        self._parsed: dict[str, ParsedProgram] = {}
        self._lock = threading.Lock()
        self.generation = 0  # counts `clear` calls: a parse begun before one is not kept

    def clear(self) -> None:
        with self._lock:
            self._parsed.clear()
            self.generation += 1

    def is_parsed(self, key: str) -> bool:
        with self._lock:
            return key in self._parsed

    def keep_parsed(self, parsed: ParsedProgram, generation: int | None = None) -> None:
        """Remember `parsed` as the most recent (any thread); `generation`: the one it was begun in."""
        with self._lock:
            if generation is not None and generation != self.generation:
                return
            self._parsed.pop(parsed.instance.key, None)
            self._parsed[parsed.instance.key] = parsed
            while len(self._parsed) > self.keep:
                self._parsed.pop(next(iter(self._parsed)))

    def load(self, ws: Workspace, key: str, model: str | None, models: tuple[str, ...] = (),
             annotator: str | None = None) -> InstanceDetail | None:
        """`models`: every loaded model (the overlay lines them all up; `model` is the current one);
        `annotator`: show only their audit verdicts (None: the newest of anyone's)."""
        with self._lock:
            parsed = self._parsed.get(key)
        parsed = parsed or parse_program(ws, key)
        if parsed is None:
            return None
        self.keep_parsed(parsed)
        return InstanceDetail.load(ws, key, (*models, *([model] if model else [])), MODES, parsed=parsed, model=model,
                                   verdicts=ws.latest_verdicts(key, annotator))
