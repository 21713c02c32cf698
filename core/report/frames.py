"""pandas data frames of the paper table, per-program scores and per-edge classes, for notebooks.

pandas is optional (the `frames` extra) and imported when a frame is made. The frames hold the same values under
the same column names as the exports (`core.report.export_rows`; docs/exports.md): `program_frame` is the `scores`
export, `edge_frame` the `edges` export. `score_frame` is the paper table (`core.scoring.scores.score_table`) with
one row per model, group and language, the average as language `average`.
"""
from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

from core.dataset.workspace import Workspace
from core.extras import require
from core.report.export_rows import COLUMNS, rows_of
from core.scoring.normalise import MODES
from core.scoring.rules import DEFAULT_RULES
from core.scoring.scores import ScoreTable, Selection

AVERAGE = "average"
TABLE_COLUMNS = ("model", "group", "illustrative", "language", "programs", "missing", "tp", "fp", "fn", "p", "r",
                 "f1")
_METRICS = (("p", "precision"), ("r", "recall"), ("f1", "f1"))


def pandas() -> Any:
    """The pandas module (a one-line `MissingExtraError` naming the `frames` extra when it is not installed)."""
    return require("pandas", "frames", "data frames")


def score_frame(table: ScoreTable) -> Any:
    """The paper table as a frame: one row per model, group ("" unless grouped by split or repository) and language,
    then the row's `average` (the unweighted mean of the languages' P, R, F1; its counts are empty). `programs`:
    scored programs, `missing`: selected programs without an answer. With intervals (`confidence`), each metric has
    `<metric>_low` and `<metric>_high` columns."""
    records = []
    for row in table.rows:
        head = {"model": row.model, "group": row.group, "illustrative": row.illustrative}
        for language, result in row.languages.items():
            records.append({**head, "language": language, "programs": result.programs,
                            "missing": len(result.missing), "tp": result.counts.tp, "fp": result.counts.fp,
                            "fn": result.counts.fn, **_metrics(result.scores, result.ci)})
        records.append({**head, "language": AVERAGE, "programs": sum(row.languages[lang].programs
                                                                    for lang in row.averaged),
                        "missing": sum(len(row.languages[lang].missing) for lang in row.averaged),
                        "tp": None, "fp": None, "fn": None, **_metrics(row.average, row.average_ci)})
    columns = list(TABLE_COLUMNS)
    if table.confidence:
        columns += [f"{short}_{end}" for short, _ in _METRICS for end in ("low", "high")]
    frame = pandas().DataFrame.from_records(records, columns=columns)
    for column in ("tp", "fp", "fn"):
        frame[column] = frame[column].astype("Int64")  # the average's counts are missing, not 0
    return frame


def program_frame(ws: Workspace, models: Sequence[str] | str | None = None, selection: Selection | None = None,
                  modes: Iterable[str] = MODES, rules: str = DEFAULT_RULES) -> Any:
    """Per-program counts and scores of each model (default: every model) on every selected program it answered
    (default: all programs): model, program, language, split, repo, tp, fp, fn, p, r, f1, with p/r/f1 by the
    per-program rule (`core.scoring.metrics.INSTANCE_RULE`)."""
    return _frame("scores", rows_of("scores", ws, models, selection, modes, rules))


def edge_frame(ws: Workspace, models: Sequence[str] | str | None = None, selection: Selection | None = None,
               modes: Iterable[str] = MODES, rules: str = DEFAULT_RULES) -> Any:
    """Every edge of the truth or a model's answer (normalised), classed TP / FP / FN per model and program:
    model, program, language, split, repo, caller, callee, class."""
    return _frame("edges", rows_of("edges", ws, models, selection, modes, rules))


def _frame(kind: str, rows: Iterable[dict]) -> Any:
    return pandas().DataFrame.from_records(list(rows), columns=[c.name for c in COLUMNS[kind]])


def _metrics(scores, ci) -> dict[str, Any]:
    values: dict[str, Any] = {short: getattr(scores, name) for short, name in _METRICS}
    for short, name in _METRICS:
        if ci and name in ci:
            values[f"{short}_low"], values[f"{short}_high"] = ci[name]
    return values
