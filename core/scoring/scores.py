"""Score models stored in a workspace: per-instance counts (cached), the paper table, slices.

Ground truth and predictions are read under one rule set (`core.scoring.rules`, the paper's by default)
and normalised the same way; each (model, instance, scoring) count is cached in the workspace,
keyed by the rule set, the normalisation modes and SCORER_VERSION, so a fixed
normaliser never serves stale numbers and paper and studio numbers never mix.

The table follows the paper (docs/benchmark.md "Metric (paper parity)"): TP/FP/FN summed per
language, and Average = the unweighted mean of the selected languages' P, R and F1, a language
with no scored program counting 0 as a language without a results file does in the release.
Rows grouped by split or repository average only the languages the group has programs in.
"""
from __future__ import annotations

import hashlib
import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from fnmatch import fnmatch

from core.dataset.workspace import InstanceRow, Workspace
from core.freeing import free_gradually
from core.languages import registry
from core.records import CallGraph, Edge
from core.scoring.answers import scored_graph
from core.scoring.edge_counts import count_blobs
from core.scoring.metrics import (
    INSTANCE_RULE,
    Counts,
    EdgeDiff,
    Scores,
    count_edges,
    diff_edges,
    macro_average,
    micro_scores,
    sum_counts,
)
from core.scoring.normalise import MODES, normalise_edges
from core.scoring.rules import DEFAULT_RULES, PAPER, rules_title

GROUPINGS = ("split", "repo")
# Cached scores are keyed by this version. Bump it whenever the scorer's output changes (normalisation,
# parsing, the metric); tests/test_scorer_version.py fails until it is bumped and its golden figures
# are regenerated with `python -m tests.scorer_golden`.
SCORER_VERSION = "2026.11-1"


@dataclass(frozen=True)
class Selection:
    """Which instances are scored."""

    languages: tuple[str, ...] = field(default_factory=registry.names)
    split: str | None = None  # "test", "train" or None for all
    repo: str | None = None  # fnmatch pattern on the repository name

    def rows(self, ws: Workspace) -> list[InstanceRow]:
        rows = ws.instance_rows(self.languages, self.split)
        return [r for r in rows if self.repo is None or fnmatch(r.repo, self.repo)]

    def admits(self, row: InstanceRow) -> bool:
        """Whether `rows` would return `row` (for rows already read, as the window holds them)."""
        return (row.language in self.languages and (self.split is None or row.split == self.split)
                and (self.repo is None or fnmatch(row.repo, self.repo)))


@dataclass(frozen=True)
class LanguageResult:
    counts: Counts
    scores: Scores
    programs: int  # scored programs (with a result record)
    missing: tuple[str, ...]  # selected programs without a record (ids)
    ci: dict[str, tuple[float, float]] | None = None


@dataclass(frozen=True)
class TableRow:
    model: str
    group: str  # "" when not grouped, else the split or repository
    illustrative: bool
    languages: dict[str, LanguageResult]
    average: Scores  # the mean over `averaged`
    average_ci: dict[str, tuple[float, float]] | None = None
    averaged: tuple[str, ...] = ()  # the languages the average is over (an unscored one counts 0)


@dataclass
class ScoreTable:
    rows: list[TableRow]
    languages: tuple[str, ...]
    modes: frozenset[str]
    selection: Selection
    group_by: str | None
    programs: dict[str, int] = field(default_factory=dict)  # selected programs per language
    instance_rule: str = INSTANCE_RULE
    confidence: float | None = None
    rules: str = DEFAULT_RULES

    @property
    def rules_title(self) -> str:
        return rules_title(self.rules)


def default_split(ws: Workspace) -> str | None:
    """The paper scores the test split: use it when the dataset has split files, else everything."""
    return "test" if "test" in ws.split_names() else None


def scoring_key(modes: Iterable[str], rules: str = DEFAULT_RULES) -> str:
    return f"{SCORER_VERSION}|{rules}|{','.join(sorted(modes)) or 'none'}"


class NormalisedTruths:
    """Ground-truth edge sets normalised once per instance, shared by every model scored."""

    def __init__(self, ws: Workspace, modes: frozenset[str], rules: str = DEFAULT_RULES):
        self.ws, self.modes, self.rules = ws, frozenset(modes), rules
        self.edges: dict[str, frozenset[tuple[str, str]]] = {}  # normalised ground-truth edges per instance
        self.keys: dict[str, tuple[str, ...]] = {}  # the question keys, for rule sets that re-read answers
        self.blobs: dict[str, bytes] = {}  # interned ground-truth edges (core.dataset.name_ids), for paper rules

    def __call__(self, keys: list[str], languages: dict[str, str]) -> dict[str, frozenset]:
        needed = [k for k in keys if k not in self.edges]
        for key, mapping in self.ws.ground_truth_mappings(needed).items():
            self.edges[key] = normalise_edges(mapping_pairs(mapping), languages[key], self.modes, self.rules)
            if self.rules != PAPER:
                self.keys[key] = tuple(mapping)
        return self.edges

    def truth_edges(self, keys: list[str]) -> dict[str, bytes]:
        self.blobs.update(self.ws.truth_edges([k for k in keys if k not in self.blobs]))
        return self.blobs

    def release(self) -> None:
        """Free the edge sets without holding the GIL for the whole of it (`core.freeing`)."""
        free_gradually(self.edges, self.keys, self.blobs)


def instance_counts(ws: Workspace, model: str, rows: Sequence[InstanceRow], modes: frozenset[str],
                    truths: NormalisedTruths | None = None, rules: str = DEFAULT_RULES) -> dict[str, Counts]:
    """Counts for every selected instance the model has a prediction for (cached in the workspace)."""
    key = scoring_key(modes, rules)
    cached = ws.cached_counts(model, key)
    languages = {r.key: r.language for r in rows}
    missing_keys = [k for k in languages if k not in cached]
    if missing_keys:  # programs never answered stay uncached: check for answers before reading any
        answered = ws.predicted_keys(model)
        missing_keys = [k for k in missing_keys if k in answered]
    if truths is not None and (truths.modes, truths.rules) != (frozenset(modes), rules):
        raise ValueError(f"the shared truths are normalised with {truths.rules} rules and {sorted(truths.modes)}, "
                         f"not {rules} and {sorted(modes)}")
    if missing_keys and rules == PAPER:  # the stored graphs are what counts: score their interned edges
        cached.update(count_stored(ws, model, {k: languages[k] for k in missing_keys}, frozenset(modes), truths))
    elif missing_keys:
        own = truths is None
        truths = truths or NormalisedTruths(ws, modes, rules)
        fresh = {k: count_edges(truth, predicted)
                 for k, (truth, predicted) in _normalised_pairs(ws, model, missing_keys, languages, truths).items()}
        if fresh:
            ws.store_counts(model, key, fresh)
            cached.update(fresh)
        if own:
            truths.release()
    return {k: cached[k] for k in languages if k in cached}


def count_stored(ws: Workspace, model: str, languages: Mapping[str, str], modes: frozenset[str] = frozenset(MODES),
                 truths: NormalisedTruths | None = None) -> dict[str, Counts]:
    """Count, under the paper's rules, the model's stored predictions of the keys of `languages` (key -> language)
    from their interned edges, and cache the counts. `truths` may share the ground truths' edges between models."""
    keys = list(languages)
    truth_edges = truths.truth_edges(keys) if truths is not None else ws.truth_edges(keys)
    fresh = count_blobs(ws, languages, truth_edges, ws.prediction_edges(model, keys), modes)
    ws.store_counts(model, scoring_key(modes, PAPER), fresh)
    return fresh


def instance_diffs(ws: Workspace, model: str, rows: Sequence[InstanceRow], modes: Iterable[str] = MODES,
                   rules: str = DEFAULT_RULES, truths: NormalisedTruths | None = None) -> dict[str, EdgeDiff]:
    """TP/FP/FN edges (after normalisation) of one model on every selected instance it answered: the edges
    `instance_counts` counts, read in one pass (not cached). `truths`, normalised with the same modes and rules,
    may be shared by several models' calls (the caller releases it)."""
    own = truths is None
    truths = truths or NormalisedTruths(ws, frozenset(modes), rules)
    languages = {r.key: r.language for r in rows}
    answered = ws.predicted_keys(model)
    pairs = _normalised_pairs(ws, model, [k for k in languages if k in answered], languages, truths)
    if own:
        truths.release()
    return {k: diff_edges(truth, predicted) for k, (truth, predicted) in pairs.items()}


def _normalised_pairs(ws: Workspace, model: str, keys: list[str], languages: Mapping[str, str],
                      truths: NormalisedTruths) -> dict[str, tuple[frozenset[Edge], frozenset[Edge]]]:
    """(normalised truth, normalised prediction) of each key the model has a prediction for, under the truths'
    rule set and modes."""
    modes, rules = truths.modes, truths.rules
    predictions = ws.prediction_mappings(model, keys)
    todo = [k for k in keys if k in predictions]
    pairs: dict[str, tuple[frozenset[Edge], frozenset[Edge]]] = {}
    if todo:
        truth = truths(todo, dict(languages))
        if rules != PAPER:  # the rule set reads the raw responses itself
            stored = ws.predictions(model, todo, checked=False)
            predictions = {k: scored_graph(stored[k], truths.keys[k], rules).to_dict() for k in todo}
        pairs = {k: (truth[k], normalise_edges(mapping_pairs(predictions[k]), languages[k], modes, rules))
                 for k in todo}
    free_gradually(predictions)
    return pairs


def mapping_pairs(mapping: dict[str, list[str]]):
    """The (caller, callee) edges of a `{caller: [callees]}` mapping."""
    return ((caller, callee) for caller, callees in mapping.items() for callee in callees)


def score_table(ws: Workspace, models: Sequence[str] | None = None, selection: Selection = Selection(),
                modes: Iterable[str] = MODES, group_by: str | None = None, confidence: float | None = None,
                resamples: int = 1000, seed: int = 0, rules: str = DEFAULT_RULES) -> ScoreTable:
    """The paper table: one row per model (and group), P/R/F1 per language (micro) and their average."""
    modes = frozenset(modes)
    all_models = {m.name: m for m in ws.models()}
    names = list(models) if models is not None else sorted(all_models)
    rows = selection.rows(ws)
    languages = tuple(lang for lang in selection.languages if registry.is_known(lang))
    table = ScoreTable([], languages, modes, selection, group_by, confidence=confidence, rules=rules,
                       programs={lang: sum(r.language == lang for r in rows) for lang in languages})
    truths = NormalisedTruths(ws, modes, rules)
    for name in names:
        counts = instance_counts(ws, name, rows, modes, truths, rules)
        illustrative = all_models[name].illustrative if name in all_models else False
        for group, group_rows in _groups(rows, group_by):
            averaged = languages if group_by is None else tuple(sorted({r.language for r in group_rows},
                                                                      key=languages.index))
            table.rows.append(table_row(name, illustrative, group_rows, counts, languages, averaged, group,
                                        confidence, resamples, seed))
    truths.release()
    return table


def instance_diff(ws: Workspace, model: str, instance_key: str, modes: Iterable[str] = MODES,
                  rules: str = DEFAULT_RULES) -> EdgeDiff | None:
    """TP/FP/FN edges (after normalisation) of one model on one instance, or None without a prediction."""
    modes = frozenset(modes)
    prediction = ws.predictions(model, [instance_key]).get(instance_key)
    instance = ws.instance(instance_key)
    if prediction is None or instance is None:
        return None
    truth = instance.ground_truth
    return diff_edges(normalise_edges(truth.edges, instance.language, modes, rules),
                      normalise_edges(scored_graph(prediction, truth.keys, rules).edges, instance.language, modes,
                                      rules))


def answer_counts(truth: CallGraph, predicted: CallGraph, language: str, modes: Iterable[str] = MODES,
                  rules: str = DEFAULT_RULES) -> Counts:
    """TP/FP/FN of one answer's graph (`parse_answer(...).graph`) against one program's ground truth, normalised as
    `instance_counts` scores a stored answer (for scorers outside a workspace, such as the inspect_ai task)."""
    modes = frozenset(modes)
    return count_edges(normalise_edges(mapping_pairs(truth.to_dict()), language, modes, rules),
                       normalise_edges(predicted.edges, language, modes, rules))


def table_row(model: str, illustrative: bool, rows: Sequence[InstanceRow], counts: Mapping[str, Counts],
              languages: Sequence[str], averaged: Sequence[str] | None = None, group: str = "",
              confidence: float | None = None, resamples: int = 1000, seed: int = 0) -> TableRow:
    """A table row from per-program counts: micro P/R/F1 per language; the Average is the mean over
    `averaged` (default: every language of `languages`, an unscored one counting 0, as in the paper)."""
    averaged = tuple(languages if averaged is None else averaged)
    per_language: dict[str, LanguageResult] = {}
    samples: dict[str, list[Counts]] = {}
    for language in languages:
        selected = [r for r in rows if r.language == language]
        scored = [counts[r.key] for r in selected if r.key in counts]
        missing = tuple(r.id for r in selected if r.key not in counts)
        total = sum_counts(scored)
        per_language[language] = LanguageResult(total, micro_scores(total), len(scored), missing)
        samples[language] = scored
    average_ci = None
    if confidence:
        from core.scoring.stats import bootstrap_intervals  # numpy, only for --ci

        intervals = bootstrap_intervals({lang: samples[lang] for lang in averaged}, confidence, resamples,
                                        seed=_seed(seed, model, group))
        per_language = {lang: (_with_ci(res, intervals.get(lang))) for lang, res in per_language.items()}
        average_ci = intervals.get("average")
    return TableRow(model, group, illustrative, per_language,
                    macro_average({lang: per_language[lang].scores for lang in averaged}), average_ci, averaged)


def _with_ci(result: LanguageResult, ci) -> LanguageResult:
    return LanguageResult(result.counts, result.scores, result.programs, result.missing, ci)


def _groups(rows: list[InstanceRow], group_by: str | None):
    if group_by is None:
        yield "", rows
        return
    if group_by not in GROUPINGS:
        raise ValueError(f"cannot group by {group_by!r} (choose from {', '.join(GROUPINGS)})")
    values = sorted({getattr(r, group_by) or "(none)" for r in rows})
    for value in values:
        yield value, [r for r in rows if (getattr(r, group_by) or "(none)") == value]


def _seed(seed: int, model: str, group: str) -> int:
    """A per-row seed so rows do not share resamples, yet each row is reproducible on its own."""
    return int(hashlib.sha1(f"{seed}|{model}|{group}".encode()).hexdigest()[:8], 16)


def parse_languages(text: str) -> tuple[str, ...]:
    names = tuple(part.strip().lower() for part in re.split(r"[,\s]+", text) if part.strip())
    unknown = [n for n in names if registry.find(n) is None]
    if unknown:
        raise ValueError(f"unknown language {unknown[0]!r} (choose from {', '.join(registry.names())})")
    return tuple(registry.get(n).name for n in names)
