"""The statistics this project reports, in one place: normal quantiles, Wilson intervals and stratified
proportions (audits), the sample size for a margin of error (audit sampling), percentile bootstrap
intervals of the paper metric (score tables), and the paired statistics of two models on the same programs
(a paired bootstrap of the F1 difference and an exact sign test: `traceeval compare --stats`).

Percentile bootstrap: each resample draws, per language, as many programs as were scored (with
replacement), then recomputes the paper metric: micro P/R/F1 per language and their macro average.
Seeded, so a table is reproducible. The paired bootstrap draws the SAME programs for both models in each
resample, so what the two models share (a hard program is hard for both) cancels out of the difference.
Inter-annotator agreement (kappas, alpha) is its own subject, in
`core.audit.agreement`.
"""
from __future__ import annotations

import math
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from fractions import Fraction
from statistics import NormalDist
from typing import TYPE_CHECKING

from core.scoring.metrics import Counts, micro_scores, sum_counts

if TYPE_CHECKING:
    import numpy as np  # imported where used: the CLI reads this module's defaults without loading numpy

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
    import numpy as np

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
    import numpy as np

    with np.errstate(divide="ignore", invalid="ignore"):
        precision = np.where(tp + fp > 0, tp / np.maximum(tp + fp, 1), 0.0)
        recall = np.where(tp + fn > 0, tp / np.maximum(tp + fn, 1), 0.0)
        f1 = np.where(precision + recall > 0, 2 * precision * recall / np.maximum(precision + recall, 1e-300), 0.0)
    return {"precision": precision, "recall": recall, "f1": f1}


def _interval(values: np.ndarray, low_q: float, high_q: float) -> tuple[float, float]:
    import numpy as np

    return float(np.percentile(values, low_q)), float(np.percentile(values, high_q))


# -- paired statistics of two models on the same programs ------------------------------------------------------
PAIRED_RESAMPLES = 10_000  # percentile tails of 250 draws each at 95 %: endpoints steady to ~0.1 point of F1
_CHUNK = 2_000  # resamples drawn at once: bounds memory (2,000 x programs weights) without slowing numpy down


@dataclass(frozen=True)
class PairedDifference:
    """F1(A) - F1(B) of the paper metric on paired programs (positive: A is better, as `traceeval compare` and
    the Compare tab rank programs), with its percentile bootstrap interval."""

    observed: float
    low: float
    high: float


@dataclass(frozen=True)
class SignTest:
    """Per-program F1: programs where A is better (wins), worse (losses), equal (ties, dropped from the test);
    `p` the exact two-sided binomial p-value of wins against losses at one half (1.0 when there are none)."""

    wins: int
    losses: int
    ties: int
    p: float


def sign_test(wins: int, losses: int, ties: int = 0) -> SignTest:
    """The exact two-sided sign test: p = min(1, 2 P(X <= min(wins, losses))), X ~ Binomial(wins + losses, 1/2).
    In the paired statistics `wins` are the programs where A is better, `losses` those where B is (as ΔF1 = A - B)."""
    if min(wins, losses, ties) < 0:
        raise ValueError("wins, losses and ties must be 0 or more")
    n = wins + losses
    if n == 0:
        return SignTest(wins, losses, ties, 1.0)
    tail = Fraction(sum(math.comb(n, k) for k in range(min(wins, losses) + 1)), 2 ** n)
    return SignTest(wins, losses, ties, float(min(Fraction(1), 2 * tail)))


def paired_bootstrap(samples_a: Mapping[str, Sequence[Counts]], samples_b: Mapping[str, Sequence[Counts]],
                     confidence: float = 0.95, resamples: int = PAIRED_RESAMPLES,
                     seed: int = 0) -> dict[str, PairedDifference]:
    """{language | "macro": PairedDifference}, the difference F1(A) - F1(B). `samples_a[language][i]` and
    `samples_b[language][i]` are the two models' counts on the same program. Each resample draws, per language,
    as many programs as there are (with replacement), the same ones for both models, and recomputes each model's
    micro F1 per language and their macro mean (over the languages given that have programs; one without is left
    out, not counted 0). `resamples=0` gives the observed differences with the interval collapsed on them."""
    import numpy as np

    if not 0 < confidence < 1:
        raise ValueError(f"confidence must be between 0 and 1, got {confidence}")
    if resamples < 0:
        raise ValueError(f"resamples must be 0 or more, got {resamples}")
    if samples_a.keys() != samples_b.keys():
        raise ValueError("the two models' samples must cover the same languages")
    rng = np.random.default_rng(seed)
    observed: dict[str, float] = {}
    drawn: dict[str, np.ndarray] = {}
    for language in samples_a:
        a, b = samples_a[language], samples_b[language]
        if len(a) != len(b):
            raise ValueError(f"{language}: {len(a)} programs for A but {len(b)} for B (pairs are needed)")
        if not a:
            continue
        table = np.array([(x.tp, x.fp, x.fn, y.tp, y.fp, y.fn) for x, y in zip(a, b)], dtype=np.float64)
        observed[language] = micro_scores(sum_counts(a)).f1 - micro_scores(sum_counts(b)).f1  # as the table
        drawn[language] = _f1_difference(_resampled_totals(table, resamples, rng)) if resamples else np.array([])
    if not observed:
        return {}
    observed["macro"] = sum(observed.values()) / len(observed)
    if resamples:
        drawn["macro"] = np.mean([drawn[language] for language in drawn], axis=0)
    low_q, high_q = (1 - confidence) / 2 * 100, (1 + confidence) / 2 * 100
    return {key: PairedDifference(value, *(_interval(drawn[key], low_q, high_q) if resamples else (value, value)))
            for key, value in observed.items()}


def _resampled_totals(table: np.ndarray, resamples: int, rng: np.random.Generator) -> np.ndarray:
    """(resamples, columns): column sums over `len(table)` rows drawn with replacement, per resample. Each
    resample's draws become per-program weights (how often each was drawn), so the sums are one matrix
    product instead of a gather of every draw."""
    import numpy as np

    n = len(table)
    out = np.empty((resamples, table.shape[1]))
    for start in range(0, resamples, _CHUNK):
        size = min(_CHUNK, resamples - start)
        picks = rng.integers(0, n, size=(size, n))
        picks += np.arange(size)[:, None] * n
        weights = np.bincount(picks.ravel(), minlength=size * n).reshape(size, n)
        out[start:start + size] = weights @ table
    return out


def _f1_difference(totals: np.ndarray) -> np.ndarray:
    """Micro F1 of A minus micro F1 of B from rows of (tp_a, fp_a, fn_a, tp_b, fp_b, fn_b) totals."""
    f1_a = _prf(totals[:, 0], totals[:, 1], totals[:, 2])["f1"]
    f1_b = _prf(totals[:, 3], totals[:, 4], totals[:, 5])["f1"]
    return f1_a - f1_b
