"""Percentile bootstrap confidence intervals over programs, stratified by language.

Each resample draws, per language, as many programs as were scored (with replacement), then
recomputes the paper metric: micro P/R/F1 per language and their macro average. Seeded, so a
table is reproducible.
"""
from __future__ import annotations

from typing import Mapping, Sequence

import numpy as np

from core.metrics import Counts

METRICS = ("precision", "recall", "f1")


def bootstrap_intervals(samples: Mapping[str, Sequence[Counts]], confidence: float = 0.95,
                        resamples: int = 1000, seed: int = 0) -> dict[str, dict[str, tuple[float, float]]]:
    """{language | "average": {metric: (low, high)}}. A language with no programs has no interval of its
    own and counts 0 in the average, as it does in the paper's Average."""
    if not 0 < confidence < 1:
        raise ValueError(f"confidence must be between 0 and 1, got {confidence}")
    rng = np.random.default_rng(seed)
    per_language: dict[str, dict[str, np.ndarray]] = {}
    unscored = set()
    for language, counts in samples.items():
        if not counts:
            unscored.add(language)
            per_language[language] = {m: np.zeros(resamples) for m in METRICS}
            continue
        table = np.array([(c.tp, c.fp, c.fn) for c in counts], dtype=np.int64)
        picks = rng.integers(0, len(table), size=(resamples, len(table)))
        tp, fp, fn = (table[:, column][picks].sum(axis=1) for column in range(3))
        per_language[language] = _prf(tp, fp, fn)
    if len(unscored) == len(per_language):
        return {}
    low_q, high_q = (1 - confidence) / 2 * 100, (1 + confidence) / 2 * 100
    out = {language: {m: _interval(values[m], low_q, high_q) for m in METRICS}
           for language, values in per_language.items() if language not in unscored}
    out["average"] = {m: _interval(np.mean([v[m] for v in per_language.values()], axis=0), low_q, high_q)
                      for m in METRICS}
    return out


def _prf(tp: np.ndarray, fp: np.ndarray, fn: np.ndarray) -> dict[str, np.ndarray]:
    with np.errstate(divide="ignore", invalid="ignore"):
        precision = np.where(tp + fp > 0, tp / np.maximum(tp + fp, 1), 0.0)
        recall = np.where(tp + fn > 0, tp / np.maximum(tp + fn, 1), 0.0)
        f1 = np.where(precision + recall > 0, 2 * precision * recall / np.maximum(precision + recall, 1e-300), 0.0)
    return {"precision": precision, "recall": recall, "f1": f1}


def _interval(values: np.ndarray, low_q: float, high_q: float) -> tuple[float, float]:
    return float(np.percentile(values, low_q)), float(np.percentile(values, high_q))
