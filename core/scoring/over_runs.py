"""Scores over repeated runs: the paper's metric per run, then its mean and spread, and how often answers change.

Each run of a family (`core.scoring.run_family`) is scored exactly as the paper's table scores one model
(`core.scoring.scores.score_table`: micro P/R/F1 per language, macro Average). Over the runs, per language and for
the Average: the mean of the per-run figures and their sample standard deviation (n - 1 in the denominator; none
with a single run). Agreement is per program, on the normalised predicted edge sets (the edges scored, TP and FP):
a program agrees when every run that answered it gave the same set; `distinct` counts the different sets. Programs
answered by only some runs are counted apart, not compared.
"""
from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from statistics import fmean, stdev

from core.dataset.workspace import Workspace
from core.scoring.normalise import MODES
from core.scoring.rules import DEFAULT_RULES, rules_title
from core.scoring.run_family import families
from core.scoring.scores import NormalisedTruths, Selection, TableRow, instance_diffs, score_table

METRICS = ("precision", "recall", "f1")
AVERAGE = "average"
SD_RULE = "sample standard deviation over runs (n - 1)"


@dataclass(frozen=True)
class Spread:
    """One figure over the runs: its mean and sample standard deviation (None with fewer than two runs)."""

    mean: float
    sd: float | None
    values: tuple[float, ...]

    @classmethod
    def of(cls, values: Sequence[float]) -> Spread:
        return cls(fmean(values), stdev(values) if len(values) > 1 else None, tuple(values))


@dataclass(frozen=True)
class Agreement:
    compared: int  # programs answered by every run
    identical: int  # of those, how many got the same edge set in every run
    partial: int  # programs answered by some runs only (not compared)
    distinct: dict[str, int] = field(default_factory=dict)  # program key -> distinct edge sets over the runs

    @property
    def changed(self) -> int:
        return self.compared - self.identical

    @property
    def rate(self) -> float:
        """The share of compared programs whose answer never changed (1 when nothing was compared)."""
        return self.identical / self.compared if self.compared else 1.0


@dataclass(frozen=True)
class FamilyRow:
    family: str  # the base name
    runs: tuple[str, ...]  # stored names, in run order
    per_run: tuple[TableRow, ...]  # the paper's row of each run
    spreads: dict[str, dict[str, Spread]]  # language or "average" -> metric -> spread
    agreement: Agreement


@dataclass(frozen=True)
class OverRunsTable:
    rows: list[FamilyRow]
    languages: tuple[str, ...]
    modes: frozenset[str]
    rules: str = DEFAULT_RULES

    @property
    def rules_title(self) -> str:
        return rules_title(self.rules)


def over_runs_table(ws: Workspace, models: Iterable[str] | None = None, selection: Selection | None = None,
                    modes: Iterable[str] = MODES, rules: str = DEFAULT_RULES) -> OverRunsTable:
    """One row per run family among `models` (default: every model in the workspace)."""
    modes = frozenset(modes)
    selection = selection or Selection()
    names = list(models) if models is not None else sorted(m.name for m in ws.models())
    grouped = families(names)
    members = [name for runs in grouped.values() for _, name in runs]
    table = score_table(ws, members, selection, modes, rules=rules)
    by_name = {row.model: row for row in table.rows}
    rows = selection.rows(ws)
    result = OverRunsTable([], table.languages, modes, rules)
    for base, runs in grouped.items():
        stored = tuple(name for _, name in runs)
        per_run = tuple(by_name[name] for name in stored)
        result.rows.append(FamilyRow(base, stored, per_run, _spreads(per_run, table.languages),
                                     agreement(ws, stored, rows, modes, rules)))
    return result


def _spreads(per_run: Sequence[TableRow], languages: Sequence[str]) -> dict[str, dict[str, Spread]]:
    def figures(of) -> dict[str, Spread]:
        return {metric: Spread.of([getattr(of(row), metric) for row in per_run]) for metric in METRICS}

    spreads = {language: figures(lambda row, lang=language: row.languages[lang].scores) for language in languages}
    spreads[AVERAGE] = figures(lambda row: row.average)
    return spreads


def agreement(ws: Workspace, runs: Sequence[str], rows, modes: frozenset[str], rules: str = DEFAULT_RULES) -> Agreement:
    """Per program, how many different normalised edge sets the runs predicted."""
    answers: dict[str, list[frozenset]] = {}
    truths = NormalisedTruths(ws, frozenset(modes), rules)  # normalised once for every run
    for name in runs:
        for key, diff in instance_diffs(ws, name, rows, modes, rules, truths).items():
            answers.setdefault(key, []).append(frozenset(diff.tp) | frozenset(diff.fp))
    truths.release()
    everywhere = {key: sets for key, sets in answers.items() if len(sets) == len(runs)}
    distinct = {key: len(set(sets)) for key, sets in everywhere.items()}
    return Agreement(len(everywhere), sum(1 for n in distinct.values() if n == 1), len(answers) - len(everywhere),
                     distinct)


def spread_text(spread: Spread, percent: bool = True) -> str:
    """`71.2 ± 1.3` (percent, one decimal as the paper prints), or `71.2` with a single run."""
    scale = 100 if percent else 1
    if spread.sd is None:
        return f"{spread.mean * scale:.1f}"
    return f"{spread.mean * scale:.1f} ± {spread.sd * scale:.1f}"

