"""Render an `OverRunsTable`: text, Markdown, CSV or JSON. Every rendering names the rule set and the spread rule."""
from __future__ import annotations

import csv
import io

from core.languages import registry
from core.payloads import json_document
from core.scoring.over_runs import AVERAGE, METRICS, SD_RULE, FamilyRow, OverRunsTable, spread_text
from core.scoring.tables import METRIC_LABELS, aligned_lines

FORMATS = ("text", "md", "csv", "json")
OVER_RUNS_SCHEMA = "score-over-runs"


def render_over_runs(table: OverRunsTable, fmt: str = "text") -> str:
    renderers = {"text": _text, "md": _markdown, "csv": _csv, "json": _json}
    if fmt not in renderers:
        raise ValueError(f"unknown format {fmt!r} (choose from {', '.join(FORMATS)})")
    return renderers[fmt](table)


def describe(table: OverRunsTable) -> str:
    modes = ", ".join(sorted(table.modes)) if table.modes else "off"
    return (f"{table.rules_title}; normalisation: {modes}; mean ± {SD_RULE} of each run's paper figure "
            "(micro per language, macro Average)")


def _columns(table: OverRunsTable) -> list[str]:
    return [*table.languages, AVERAGE]


def _header(table: OverRunsTable) -> list[str]:
    return ["Model", "Runs"] + [f"{registry.title(column, 'Average')} {label}" for column in _columns(table)
                                for _, label in METRIC_LABELS] + ["Same answer"]


def _cells(table: OverRunsTable, row: FamilyRow) -> list[str]:
    agreement = row.agreement
    return ([row.family, str(len(row.runs))]
            + [spread_text(row.spreads[column][metric]) for column in _columns(table) for metric in METRICS]
            + [f"{agreement.identical}/{agreement.compared}"])


def _text(table: OverRunsTable) -> str:
    out = [describe(table), *aligned_lines([[*_header(table)], *[_cells(table, row) for row in table.rows]])]
    out += _notes(table)
    return "\n".join(out) + "\n"


def _notes(table: OverRunsTable) -> list[str]:
    notes = ["Same answer: programs whose normalised predicted edges were identical in every run, of those every "
             "run answered"]
    for row in table.rows:
        if row.agreement.partial:
            notes.append(f"{row.family}: {row.agreement.partial} program(s) answered by some runs only, not compared")
        if len(row.runs) == 1:
            notes.append(f"{row.family}: one run, no spread")
    return notes


def _markdown(table: OverRunsTable) -> str:
    header = _header(table)
    lines = [f"*{describe(table)}*", "", "| " + " | ".join(header) + " |",
             "|" + "|".join(["---"] + ["---:"] * (len(header) - 1)) + "|"]
    lines += ["| " + " | ".join(_cells(table, row)) + " |" for row in table.rows]
    lines += ["", *(f"- {note}" for note in _notes(table))]
    return "\n".join(lines) + "\n"


def _csv(table: OverRunsTable) -> str:
    buffer = io.StringIO()
    writer = csv.writer(buffer, lineterminator="\n")
    writer.writerow(["model", "runs", "column", "metric", "mean", "sd", "values", "rules"])
    for row in table.rows:
        for column in _columns(table):
            for metric in METRICS:
                spread = row.spreads[column][metric]
                writer.writerow([row.family, len(row.runs), column, metric, f"{spread.mean:.6f}",
                                 "" if spread.sd is None else f"{spread.sd:.6f}",
                                 " ".join(f"{value:.6f}" for value in spread.values), table.rules])
    return buffer.getvalue()


def _json(table: OverRunsTable) -> str:
    return json_document(OVER_RUNS_SCHEMA, over_runs_body(table))


def over_runs_body(table: OverRunsTable) -> dict:
    """The table as the body of a `traceeval.score-over-runs` document (core.payloads)."""
    rows = []
    for row in table.rows:
        agreement = row.agreement
        rows.append({
            "model": row.family, "runs": list(row.runs),
            "scores": {column: {metric: {"mean": spread.mean, "sd": spread.sd, "values": list(spread.values)}
                                for metric, spread in row.spreads[column].items()} for column in _columns(table)},
            "agreement": {"compared": agreement.compared, "identical": agreement.identical,
                          "changed": agreement.changed, "partial": agreement.partial, "rate": agreement.rate,
                          "distinct": agreement.distinct}})
    return {"rules": table.rules, "rules_title": table.rules_title, "normalisation": sorted(table.modes),
            "spread": SD_RULE, "languages": list(table.languages), "rows": rows}
