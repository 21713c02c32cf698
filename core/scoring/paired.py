"""Two models on the same programs: the paired statistics of `traceeval compare --stats` and the Compare tab.

Only programs both models have a result for are paired; the others are named (`only_a`, `only_b`) and left
out, since a program one model never answered says nothing about the difference. Per language and for the
macro mean over languages: F1(A) - F1(B) of the paper metric (micro per language) with a paired percentile
bootstrap interval (`core.scoring.stats.paired_bootstrap`), and the exact sign test on per-program F1
(`INSTANCE_RULE`) counted as A's wins, losses and ties, ties dropped. The sign is the ranking's
(`core.report.overlay`): positive when A is better. The macro row's sign test is over all paired programs.
"""
from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass

from core.dataset.workspace import InstanceRow, Workspace
from core.scoring.metrics import INSTANCE_RULE, Counts, instance_scores, micro_scores, sum_counts
from core.scoring.normalise import MODES
from core.scoring.rules import DEFAULT_RULES
from core.scoring.scores import NormalisedTruths, Selection, instance_counts
from core.scoring.stats import PAIRED_RESAMPLES, PairedDifference, SignTest, paired_bootstrap, sign_test

MACRO = "macro"
ALL = Selection()  # every language, every split


@dataclass(frozen=True)
class PairedRow:
    """One language (or MACRO): paired programs, each model's F1, the difference A - B and the sign test."""

    language: str
    programs: int
    f1_a: float
    f1_b: float
    difference: PairedDifference
    sign: SignTest


@dataclass(frozen=True)
class PairedStats:
    model_a: str
    model_b: str
    selection: Selection
    modes: frozenset[str]
    rules: str
    confidence: float
    resamples: int
    seed: int
    rows: tuple[PairedRow, ...]  # the languages with paired programs, then MACRO (empty: nothing paired)
    only_a: tuple[str, ...]  # selected programs only A has a result for (left out)
    only_b: tuple[str, ...]
    unpaired_languages: tuple[str, ...]  # selected languages without one paired program (left out of the macro)
    instance_rule: str = INSTANCE_RULE

    def row(self, language: str) -> PairedRow | None:
        return next((r for r in self.rows if r.language == language), None)


def paired_stats(ws: Workspace, model_a: str, model_b: str, selection: Selection = ALL,
                 modes: Iterable[str] = MODES, rules: str = DEFAULT_RULES, confidence: float = 0.95,
                 resamples: int = PAIRED_RESAMPLES, seed: int = 0) -> PairedStats:
    """The paired statistics of two models stored in a workspace (counts cached as `score` caches them)."""
    modes = frozenset(modes)
    rows = selection.rows(ws)
    truths = NormalisedTruths(ws, modes, rules)
    counts_a = instance_counts(ws, model_a, rows, modes, truths, rules)
    counts_b = instance_counts(ws, model_b, rows, modes, truths, rules)
    truths.release()
    return paired_from_counts(model_a, model_b, rows, counts_a, counts_b, selection, modes, rules, confidence,
                              resamples, seed)


def paired_from_counts(model_a: str, model_b: str, rows: Sequence[InstanceRow], counts_a: Mapping[str, Counts],
                       counts_b: Mapping[str, Counts], selection: Selection = ALL,
                       modes: frozenset[str] = frozenset(MODES), rules: str = DEFAULT_RULES,
                       confidence: float = 0.95, resamples: int = PAIRED_RESAMPLES, seed: int = 0) -> PairedStats:
    """The statistics from per-program counts (`rows` the selected programs, in a stable order)."""
    paired = [r for r in rows if r.key in counts_a and r.key in counts_b]
    languages = [lang for lang in selection.languages if any(r.language == lang for r in paired)]
    samples_a = {lang: [counts_a[r.key] for r in paired if r.language == lang] for lang in languages}
    samples_b = {lang: [counts_b[r.key] for r in paired if r.language == lang] for lang in languages}
    differences = paired_bootstrap(samples_a, samples_b, confidence, resamples, seed)
    out = []
    for language in languages:
        out.append(PairedRow(language, len(samples_a[language]), micro_scores(sum_counts(samples_a[language])).f1,
                             micro_scores(sum_counts(samples_b[language])).f1, differences[language],
                             _sign(samples_a[language], samples_b[language])))
    if out:
        all_a = [c for lang in languages for c in samples_a[lang]]
        all_b = [c for lang in languages for c in samples_b[lang]]
        out.append(PairedRow(MACRO, len(paired), sum(r.f1_a for r in out) / len(out),
                             sum(r.f1_b for r in out) / len(out), differences[MACRO], _sign(all_a, all_b)))
    return PairedStats(model_a, model_b, selection, frozenset(modes), rules, confidence, resamples, seed, tuple(out),
                       tuple(r.key for r in rows if r.key in counts_a and r.key not in counts_b),
                       tuple(r.key for r in rows if r.key in counts_b and r.key not in counts_a),
                       tuple(lang for lang in selection.languages if lang not in languages))


def _sign(a: Sequence[Counts], b: Sequence[Counts]) -> SignTest:
    """A's wins, losses and ties on per-program F1 (INSTANCE_RULE), and the exact sign test."""
    wins = losses = 0
    for x, y in zip(a, b):
        f1_a, f1_b = instance_scores(x).f1, instance_scores(y).f1
        wins += f1_a > f1_b
        losses += f1_a < f1_b
    return sign_test(wins, losses, len(a) - wins - losses)
