"""The numbers behind the metrics plots and the per-program score table, without Qt.

Everything starts from per-instance counts (`core.scoring.scores.instance_counts`, as cached in the
workspace and held by the GUI after opening a dataset), so the plots agree with the paper table:
- per-program values (histogram, scatter, "this program") use the per-instance rule
  (`core.scoring.metrics.instance_scores`, named by `INSTANCE_RULE`);
- per-language bars use the paper's rule: counts summed per language (micro), then the
  unweighted mean over the languages, an unscored one counting 0 (macro), exactly as
  `core.scoring.scores.score_table` computes its rows.
A program without a result record is not scored: it appears in no plot.
"""
from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field

import numpy as np

from core.dataset.workspace import InstanceRow, ModelRow
from core.languages import registry
from core.scoring.metrics import Counts, Scores, instance_scores, macro_average, micro_scores, sum_counts
from core.scoring.normalise import MODES
from core.scoring.rules import DEFAULT_RULES

# How a program's size is measured on the scatter's x axis: InstanceRow attribute -> axis title.
SIZE_MEASURES = {"edges": "ground-truth edges", "lines": "lines of code", "functions": "defined functions"}
HISTOGRAM_BINS = 10


@dataclass(frozen=True, eq=False)
class ModelPoints:
    """One model's scored programs of a selection, in row order (language, then id)."""

    model: str
    illustrative: bool
    keys: tuple[str, ...]
    ids: tuple[str, ...]
    languages: tuple[str, ...]
    counts: tuple[Counts, ...]
    precision: np.ndarray  # per-instance rule, fractions 0..1
    recall: np.ndarray
    f1: np.ndarray
    sizes: dict[str, np.ndarray]  # SIZE_MEASURES key -> one value per program
    _index: dict[str, int] = field(default_factory=dict, repr=False)

    def __len__(self) -> int:
        return len(self.keys)

    def index(self, key: str) -> int | None:
        """Position of a program in this series (None when the model has no result for it)."""
        if not self._index and self.keys:
            self._index.update((k, i) for i, k in enumerate(self.keys))
        return self._index.get(key)


@dataclass(frozen=True)
class Histogram:
    edges: np.ndarray  # HISTOGRAM_BINS + 1 bin edges, 0 to 1
    counts: np.ndarray  # programs per bin; the last bin includes F1 = 1


@dataclass(frozen=True)
class LanguageBars:
    """One model's bar group values: micro scores per language and their macro average."""

    model: str
    illustrative: bool
    languages: dict[str, Scores | None]  # None: no scored program in that language
    programs: dict[str, int]  # scored programs per language
    average: Scores | None  # None when no language has a scored program


@dataclass(frozen=True)
class PlotData:
    split: str | None
    modes: frozenset[str]
    languages: tuple[str, ...]
    programs: dict[str, int]  # selected programs per language (scored or not)
    points: tuple[ModelPoints, ...]  # one per model, in the order given
    histograms: dict[str, Histogram]  # model -> histogram of its per-program F1
    bars: tuple[LanguageBars, ...]
    rules: str = DEFAULT_RULES

    def series(self, model: str) -> ModelPoints | None:
        return next((p for p in self.points if p.model == model), None)


@dataclass(frozen=True)
class ProgramScore:
    """One model on one program (after normalisation); counts None = no result for the program."""

    model: str
    illustrative: bool
    counts: Counts | None

    @property
    def scores(self) -> Scores | None:
        return instance_scores(self.counts) if self.counts is not None else None


def select_rows(rows: Iterable[InstanceRow], split: str | None = None,
                languages: Sequence[str] | None = None) -> list[InstanceRow]:
    """The rows `core.scoring.scores.Selection(languages, split)` selects (split None = all, languages None =
    every language), order kept."""
    wanted = set(registry.names() if languages is None else languages)
    return [r for r in rows if r.language in wanted and (not split or r.split == split)]


def model_points(model: str, illustrative: bool, rows: Sequence[InstanceRow],
                 counts: Mapping[str, Counts]) -> ModelPoints:
    scored = [r for r in rows if r.key in counts]
    per_program = [counts[r.key] for r in scored]
    scores = [instance_scores(c) for c in per_program]
    return ModelPoints(
        model, illustrative, tuple(r.key for r in scored), tuple(r.id for r in scored),
        tuple(r.language for r in scored), tuple(per_program),
        np.array([s.precision for s in scores], dtype=float), np.array([s.recall for s in scores], dtype=float),
        np.array([s.f1 for s in scores], dtype=float),
        {measure: np.array([getattr(r, measure) for r in scored], dtype=float) for measure in SIZE_MEASURES})


def f1_histogram(values: np.ndarray | Sequence[float], bins: int = HISTOGRAM_BINS) -> Histogram:
    """Equal-width bins over 0..1; each bin holds [low, high) except the last, which holds 1 too.

    The edges are `k / bins` (so an F1 of exactly 0.3 or 0.6 lands in the bin starting there;
    numpy's `range=` form spaces edges with `linspace` and puts them in the bin below)."""
    edges = np.arange(bins + 1) / bins
    counts, _ = np.histogram(np.asarray(values, dtype=float), bins=edges)
    return Histogram(edges, counts)


def language_bars(model: str, illustrative: bool, rows: Sequence[InstanceRow], counts: Mapping[str, Counts],
                  languages: Sequence[str] | None = None) -> LanguageBars:
    """Micro scores per language and their macro average: the numbers of the model's paper-table row."""
    per_language: dict[str, Scores | None] = {}
    programs: dict[str, int] = {}
    for language in registry.names() if languages is None else languages:
        scored = [counts[r.key] for r in rows if r.language == language and r.key in counts]
        programs[language] = len(scored)
        per_language[language] = micro_scores(sum_counts(scored)) if scored else None
    present = any(s is not None for s in per_language.values())  # the Average: an unscored language counts 0
    average = macro_average({lang: s or Scores(0.0, 0.0, 0.0) for lang, s in per_language.items()})
    return LanguageBars(model, illustrative, per_language, programs, average if present else None)


def plot_data(rows: Sequence[InstanceRow], models: Sequence[ModelRow], counts: Mapping[str, Mapping[str, Counts]],
              split: str | None = None, modes: Iterable[str] = MODES,
              languages: Sequence[str] | None = None, bins: int = HISTOGRAM_BINS,
              rules: str = DEFAULT_RULES) -> PlotData:
    """Everything the three plots draw for one selection. `counts`: model -> instance key -> counts,
    computed with `modes` under `rules` (a model missing from `counts` has no scored program)."""
    languages = tuple(lang for lang in (registry.names() if languages is None else languages)
                      if registry.is_known(lang))
    selected = select_rows(rows, split, languages)
    points, histograms, bars = [], {}, []
    for model in models:
        model_counts = counts.get(model.name, {})
        series = model_points(model.name, model.illustrative, selected, model_counts)
        points.append(series)
        histograms[model.name] = f1_histogram(series.f1, bins)
        bars.append(language_bars(model.name, model.illustrative, selected, model_counts, languages))
    programs = {lang: sum(r.language == lang for r in selected) for lang in languages}
    return PlotData(split, frozenset(modes), languages, programs, tuple(points), histograms, tuple(bars), rules)


def program_scores(key: str, models: Sequence[ModelRow],
                   counts: Mapping[str, Mapping[str, Counts]]) -> tuple[ProgramScore, ...]:
    """Every model on one program, from per-instance counts (`counts`: model -> key -> counts)."""
    return tuple(ProgramScore(m.name, m.illustrative, counts.get(m.name, {}).get(key)) for m in models)
