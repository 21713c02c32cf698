"""Precision / recall / F1 exactly as the paper computes them (docs/benchmark.md "Metric").

Per language: TP, FP, FN summed over the scored programs (micro), P = TP/(TP+FP),
R = TP/(TP+FN), F1 = 2PR/(P+R), each 0 when its denominator is 0. "Average" is the
unweighted mean of the languages' P, R and F1 (macro over languages).
Per-instance scores shown to a person use `INSTANCE_RULE` instead (see `instance_scores`).
"""
from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass

from core.records import Edge

INSTANCE_RULE = "empty prediction: P = 1; empty ground truth: R = 1"


@dataclass(frozen=True)
class Counts:
    tp: int = 0
    fp: int = 0
    fn: int = 0

    def __add__(self, other: Counts) -> Counts:
        return Counts(self.tp + other.tp, self.fp + other.fp, self.fn + other.fn)


@dataclass(frozen=True)
class Scores:
    precision: float
    recall: float
    f1: float


@dataclass(frozen=True)
class EdgeDiff:
    """Edges by class, sorted: true positives, false positives (hallucinated), false negatives (missed)."""

    tp: tuple[Edge, ...]
    fp: tuple[Edge, ...]
    fn: tuple[Edge, ...]

    @property
    def counts(self) -> Counts:
        return Counts(len(self.tp), len(self.fp), len(self.fn))


def count_edges(truth: frozenset[Edge], predicted: frozenset[Edge]) -> Counts:
    tp = len(truth & predicted)
    return Counts(tp, len(predicted) - tp, len(truth) - tp)


def diff_edges(truth: frozenset[Edge], predicted: frozenset[Edge]) -> EdgeDiff:
    return EdgeDiff(_sorted(truth & predicted), _sorted(predicted - truth), _sorted(truth - predicted))


def _sorted(edges: frozenset[Edge]) -> tuple[Edge, ...]:
    """`tuple(sorted(edges))`, each caller's callees sorted as strings: comparing pairs costs twice as much, which
    shows for an answer of a million callees."""
    by_caller: dict[str, list[str]] = {}
    for caller, callee in edges:
        by_caller.setdefault(caller, []).append(callee)
    return tuple((caller, callee) for caller in sorted(by_caller) for callee in sorted(by_caller[caller]))


def micro_scores(counts: Counts) -> Scores:
    """The paper's rule: every ratio with a zero denominator is 0."""
    precision = _ratio(counts.tp, counts.tp + counts.fp)
    recall = _ratio(counts.tp, counts.tp + counts.fn)
    return Scores(precision, recall, _f1(precision, recall))


def instance_scores(counts: Counts) -> Scores:
    """Per-program scores for people (`INSTANCE_RULE`): nothing predicted is not a wrong prediction,
    nothing to find is not a miss, so an empty prediction for an empty truth scores 1."""
    precision = _ratio(counts.tp, counts.tp + counts.fp) if counts.tp + counts.fp else 1.0
    recall = _ratio(counts.tp, counts.tp + counts.fn) if counts.tp + counts.fn else 1.0
    return Scores(precision, recall, _f1(precision, recall))


def sum_counts(counts: Iterable[Counts]) -> Counts:
    tp = fp = fn = 0
    for c in counts:
        tp += c.tp
        fp += c.fp
        fn += c.fn
    return Counts(tp, fp, fn)


def macro_average(per_language: Mapping[str, Scores]) -> Scores:
    """Unweighted mean over the languages given (the paper's "Average" column)."""
    if not per_language:
        return Scores(0.0, 0.0, 0.0)
    n = len(per_language)
    return Scores(sum(s.precision for s in per_language.values()) / n,
                  sum(s.recall for s in per_language.values()) / n,
                  sum(s.f1 for s in per_language.values()) / n)


def _ratio(numerator: int, denominator: int) -> float:
    return numerator / denominator if denominator else 0.0


def _f1(precision: float, recall: float) -> float:
    return 2 * precision * recall / (precision + recall) if precision + recall else 0.0
