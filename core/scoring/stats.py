"""The statistics this project reports, in one place: normal quantiles, Wilson intervals and stratified
proportions (audits), the sample size for a margin of error (audit sampling), and percentile bootstrap
intervals of the paper metric (score tables).

Percentile bootstrap: each resample draws, per language, as many programs as were scored (with
replacement), then recomputes the paper metric: micro P/R/F1 per language and their macro average.
Seeded, so a table is reproducible. Inter-annotator agreement (kappas, alpha) is its own subject, in
`core.audit.agreement`.
"""
from __future__ import annotations

import math
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from fractions import Fraction
from statistics import NormalDist

import numpy as np

from core.scoring.metrics import Counts

# -- proportions and their intervals -------------------------------------------------------------------------
STRATIFIED_METHOD = ("stratified estimate sum W_h p_h, W_h = N_h / N over the strata with at least one judged "
                     "item (strata without judged items left out, weights renormalised; N_h the stratum's share "
                     "of the population in the domain); variance sum W_h^2 (1 - n_h/N_h) p_h (1 - p_h) / (n_h - 1); "
                     "Wilson score interval at the effective sample size min(n, n / deff), deff = that variance "
                     "over the same-size simple random sample's (never narrower than a simple random sample of n)")
PLAIN_METHOD = "share of the audited items (not weighted to a population); Wilson score interval"


@dataclass(frozen=True)
class Proportion:
    """An estimated proportion with a Wilson score interval at `confidence`."""

    estimate: float
    low: float
    high: float
    judged: int  # items the estimate rests on
    real: int  # of them, the "yes" ones (unweighted)
    confidence: float
    effective_n: float  # the sample size the interval is computed at
    strata: int  # strata the estimate used
    method: str


@dataclass(frozen=True)
class StratumCount:
    """Judged items of one stratum: `size` is N_h (None when unknown), `judged` n_h, `real` the yes-count."""

    size: Fraction | int | None
    judged: int
    real: int


def z_value(confidence: float) -> float:
    return NormalDist().inv_cdf(1 - (1 - confidence) / 2)


def wilson_interval(proportion: float, n: float, confidence: float) -> tuple[float, float]:
    """Wilson score interval of a proportion observed on `n` items (n may be an effective, non-integer size)."""
    if n <= 0:
        return 0.0, 1.0
    z = z_value(confidence)
    z2 = z * z
    denominator = 1 + z2 / n
    centre = (proportion + z2 / (2 * n)) / denominator
    half = z * math.sqrt(max(0.0, proportion * (1 - proportion) / n + z2 / (4 * n * n))) / denominator
    return max(0.0, centre - half), min(1.0, centre + half)


def stratified_proportion(strata: Iterable[StratumCount], confidence: float,
                          method: str = STRATIFIED_METHOD) -> Proportion | None:
    """The stratified estimator of a proportion (see STRATIFIED_METHOD), None when nothing is judged.

    When a used stratum's size is unknown, every stratum is weighted by its judged items and no finite
    population correction applies, which makes the estimate the plain sample share. One stratum always
    gives the plain Wilson interval (its design effect is 1). The effective size is capped at n: strata with
    one or two judged items make the variance estimate unreliably small (n_h = 1 contributes 0), and an
    interval narrower than a simple random sample's would overstate what a small audit shows.
    """
    used = [s for s in strata if s.judged > 0]
    n = sum(s.judged for s in used)
    if not n:
        return None
    known_sizes = [s.size for s in used if s.size]
    known = len(known_sizes) == len(used)
    sizes = [Fraction(size) for size in known_sizes] if known else [Fraction(s.judged) for s in used]
    total = sum(sizes, Fraction(0))
    estimate = sum(((size / total) * Fraction(s.real, s.judged) for size, s in zip(sizes, used)), Fraction(0))
    variance = sum((_stratum_variance(size / total, s, size if known else None) for size, s in zip(sizes, used)),
                   Fraction(0))
    srs = _stratum_variance(Fraction(1), StratumCount(None, n, 0), total if known else None, estimate)
    effective_n = min(float(n), float(n * srs / variance)) if variance else float(n)
    low, high = wilson_interval(float(estimate), effective_n, confidence)
    return Proportion(float(estimate), low, high, n, sum(s.real for s in used), confidence, effective_n,
                      len(used), method)


def _stratum_variance(weight: Fraction, stratum: StratumCount, size: Fraction | None,
                      proportion: Fraction | None = None) -> Fraction:
    """W_h^2 (1 - n_h/N_h) p_h (1 - p_h) / (n_h - 1); 0 for a single judged item."""
    n = stratum.judged
    if n < 2:
        return Fraction(0)
    p = Fraction(stratum.real, n) if proportion is None else proportion
    correction = max(Fraction(0), 1 - n / size) if size else Fraction(1)
    return weight * weight * correction * p * (1 - p) / (n - 1)


def plain_proportion(real: int, judged: int, confidence: float) -> Proportion | None:
    """A sample share with its Wilson interval (no weighting)."""
    return stratified_proportion([StratumCount(None, judged, real)], confidence, PLAIN_METHOD)


# -- audit sample sizes ----------------------------------------------------------------------------------------
def sample_size_for_margin(margin: float, population: int, confidence: float = 0.95,
                           proportion: float = 0.5) -> int:
    """Sample size for estimating a proportion within +-`margin` at `confidence` (normal approximation):
    n0 = z^2 p(1-p) / e^2, then the finite population correction n = n0 / (1 + (n0-1)/N), rounded up.
    p = 0.5 (the default) is the worst case, so the margin holds whatever the true proportion is."""
    if not 0 < margin <= 0.5:
        raise ValueError(f"margin of error must be in (0, 0.5], got {margin!r}")
    if not 0 < confidence < 1:
        raise ValueError(f"confidence must be in (0, 1), got {confidence!r}")
    if not 0 <= proportion <= 1:
        raise ValueError(f"expected proportion must be in [0, 1], got {proportion!r}")
    if population < 0:
        raise ValueError(f"population size must be >= 0, got {population!r}")
    if population == 0:
        return 0
    z = z_value(confidence)
    n0 = z * z * proportion * (1 - proportion) / (margin * margin)
    n = n0 / (1 + (n0 - 1) / population)
    return max(1, min(population, math.ceil(round(n, 9))))  # round: 80.0000000001 is 80, not 81


# -- bootstrap intervals of the paper metric ------------------------------------------------------------------
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
