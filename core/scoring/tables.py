"""Render a ScoreTable in the paper's layout: text, Markdown, LaTeX, CSV or JSON.

Percentages with one decimal, as in the paper. Every rendering names its rule set ("paper rules"
or "studio rules, not the paper's") in its header. Illustrative models are marked with a dagger,
every model with programs lacking a result is named in a footnote (nothing silently dropped), and
so is a language that has no scored program but counts 0 in the Average, as in the paper.
"""
from __future__ import annotations

import csv
import io
from collections.abc import Sequence

from core.languages import registry
from core.payloads import json_document
from core.scoring.metrics import Scores
from core.scoring.scores import SCORER_VERSION, LanguageResult, ScoreTable, TableRow

FORMATS = ("text", "md", "latex", "csv", "json")
METRIC_LABELS = (("precision", "P"), ("recall", "R"), ("f1", "F1"))
DAGGER = "†"
SCORE_TABLE_SCHEMA = "score-table"


def aligned_lines(grid: Sequence[Sequence[str]], left: int = 1) -> list[str]:
    """Rows of cells as aligned text: the first `left` columns left-justified, the others right-justified, two
    spaces apart (no trailing spaces)."""
    widths = [max(len(row[i]) for row in grid) for i in range(len(grid[0]))]
    return ["  ".join(cell.ljust(width) if i < left else cell.rjust(width)
                      for i, (cell, width) in enumerate(zip(row, widths))).rstrip() for row in grid]


def render_table(table: ScoreTable, fmt: str = "text") -> str:
    """The table as text (aligned columns), md (Markdown), latex (a tabular), csv or json."""
    renderers = {"text": _text, "md": _markdown, "latex": _latex, "csv": _csv, "json": _json}
    if fmt not in renderers:
        raise ValueError(f"unknown format {fmt!r} (choose from {', '.join(FORMATS)})")
    return renderers[fmt](table)


def describe_selection(table: ScoreTable) -> str:
    split = table.selection.split or "all splits"
    repo = f", repos matching {table.selection.repo}" if table.selection.repo else ""
    programs = ", ".join(f"{registry.title(lang)} {n:,}" for lang, n in table.programs.items())
    modes = ", ".join(sorted(table.modes)) if table.modes else "off"
    ci = f"; {table.confidence:.0%} bootstrap CI over programs" if table.confidence else ""
    return f"{table.rules_title}; {split}{repo} ({programs} programs); normalisation: {modes}{ci}"


def footnotes(table: ScoreTable) -> list[str]:
    notes = []
    if any(row.illustrative for row in table.rows):
        notes.append(f"{DAGGER} illustrative answers written by hand for the demo, not real model output")
    for row in table.rows:
        where = f" [{row.group}]" if row.group else ""
        unscored = [registry.title(lang) for lang in row.averaged if not row.languages[lang].programs]
        if unscored and len(unscored) < len(row.averaged):
            notes.append(f"{row.model}{where}: no scored {' or '.join(unscored)} program; it counts 0 in the "
                         "Average (the mean over the languages, as in the paper)")
        for language, result in row.languages.items():
            if result.missing:
                shown = ", ".join(result.missing[:5]) + (f" and {len(result.missing) - 5} more"
                                                         if len(result.missing) > 5 else "")
                notes.append(f"{row.model}{where}: {len(result.missing)} {registry.title(language)} "
                             f"program(s) without a result, not scored: {shown}")
    return notes


def _columns(table: ScoreTable) -> list[str]:
    return [*table.languages, "average"]


def _title(column: str) -> str:
    return registry.title(column, "Average")


def _cells(table: ScoreTable, row: TableRow, with_ci: bool) -> list[str]:
    cells = []
    for column in _columns(table):
        scores, ci, scored = _scores_of(row, column)
        for metric, _ in METRIC_LABELS:
            if not scored:
                cells.append("–")
                continue
            value = f"{getattr(scores, metric) * 100:.1f}"
            if with_ci and ci:
                low, high = ci[metric]
                value += f" [{low * 100:.1f}–{high * 100:.1f}]"
            cells.append(value)
    return cells


def _scores_of(row: TableRow, column: str) -> tuple[Scores, dict | None, bool]:
    """(scores, interval, shown): a language counted in the Average is shown even when unscored (0)."""
    if column == "average":
        return row.average, row.average_ci, any(row.languages[lang].programs for lang in row.averaged)
    result: LanguageResult = row.languages[column]
    return result.scores, result.ci, result.programs > 0 or column in row.averaged


def _label(row: TableRow) -> str:
    return row.model + (f" {DAGGER}" if row.illustrative else "")


def _group_title(table: ScoreTable) -> str:
    return {"split": "Split", "repo": "Repository"}.get(table.group_by or "", "")


def _text(table: ScoreTable) -> str:
    head1 = ["Model"] + ([_group_title(table)] if table.group_by else [])
    head2 = [""] * len(head1)
    for column in _columns(table):
        head1 += [_title(column), "", ""]
        head2 += [label for _, label in METRIC_LABELS]
    body = [[_label(r)] + ([r.group] if table.group_by else []) + _cells(table, r, bool(table.confidence))
            for r in table.rows]
    grid = [head1, head2, *body]
    widths = [max(len(line[i]) for line in grid) for i in range(len(head1))]
    fixed = len(head1) - 3 * len(_columns(table))
    for g in range(len(_columns(table))):  # a language title spans its three metric columns
        start = fixed + 3 * g
        need = len(head1[start]) - (sum(widths[start:start + 3]) + 4)
        if need > 0:
            widths[start + 2] += need

    def line(cells: list[str], spans: bool = False) -> str:
        out = [cells[i].ljust(widths[i]) for i in range(fixed)]
        for g in range(len(_columns(table))):
            start = fixed + 3 * g
            if spans:
                out.append(cells[start].center(sum(widths[start:start + 3]) + 4))
            else:
                out.append("  ".join(cells[i].rjust(widths[i]) for i in range(start, start + 3)))
        return " | ".join(out).rstrip()

    rule = "-" * len(line(head2))
    lines = [f"TraceEval scores: {describe_selection(table)}", line(head1, spans=True), line(head2), rule]
    lines += [line(cells) for cells in body]
    if not body:
        lines.append("(no models: import results first)")
    notes = footnotes(table)
    lines += [""] + notes if notes else []
    return "\n".join(lines) + "\n"


def _markdown(table: ScoreTable) -> str:
    head = ["Model"] + ([_group_title(table)] if table.group_by else [])
    head += [f"{_title(c)} {label}" for c in _columns(table) for _, label in METRIC_LABELS]
    lines = [f"TraceEval scores: {describe_selection(table)}", "", "| " + " | ".join(head) + " |",
             "|" + "|".join(["---"] * (len(head) - 3 * len(_columns(table))) +
                            ["---:"] * 3 * len(_columns(table))) + "|"]
    for row in table.rows:
        cells = [_label(row).replace("|", "\\|")] + ([row.group] if table.group_by else [])
        lines.append("| " + " | ".join(cells + _cells(table, row, bool(table.confidence))) + " |")
    notes = footnotes(table)
    return "\n".join(lines + ([""] + [f"- {n}" for n in notes] if notes else [])) + "\n"


def _latex(table: ScoreTable) -> str:
    fixed = 1 + bool(table.group_by)
    spec = "l" * fixed + "".join("rrr" for _ in _columns(table))
    head1 = ["Model"] + ([_group_title(table)] if table.group_by else [])
    head1 += [f"\\multicolumn{{3}}{{c}}{{{_title(c)}}}" for c in _columns(table)]
    head2 = [""] * fixed + [label for _ in _columns(table) for _, label in METRIC_LABELS]
    rules = " ".join(f"\\cmidrule(lr){{{fixed + 3 * i + 1}-{fixed + 3 * i + 3}}}" for i in range(len(_columns(table))))
    lines = [f"% TraceEval scores: {describe_selection(table)}", f"\\begin{{tabular}}{{{spec}}}", "\\toprule",
             " & ".join(head1) + " \\\\", rules, " & ".join(head2) + " \\\\", "\\midrule"]
    for row in table.rows:
        label = _latex_escape(row.model) + ("$^\\dagger$" if row.illustrative else "")
        cells = [label] + ([_latex_escape(row.group)] if table.group_by else [])
        values = [c.replace("–", "--") for c in _cells(table, row, bool(table.confidence))]
        lines.append(" & ".join(cells + values) + " \\\\")
    lines += ["\\bottomrule", "\\end{tabular}"]
    lines += [f"% {n}" for n in footnotes(table)]
    return "\n".join(lines) + "\n"


def _latex_escape(text: str) -> str:
    for char in "\\&%$#_{}":
        text = text.replace(char, "\\" + char)
    return text


def _csv(table: ScoreTable) -> str:
    buffer = io.StringIO()
    writer = csv.writer(buffer, lineterminator="\n")
    header = ["model", "group", "illustrative"]
    for language in table.languages:
        header += [f"{language}_{k}" for k in ("programs", "missing", "tp", "fp", "fn", "precision", "recall", "f1")]
    header += ["average_precision", "average_recall", "average_f1", "rules", "normalisation"]
    writer.writerow(header)
    for row in table.rows:
        values = [row.model, row.group, int(row.illustrative)]
        for language in table.languages:
            r = row.languages[language]
            values += [r.programs, len(r.missing), r.counts.tp, r.counts.fp, r.counts.fn,
                       f"{r.scores.precision:.6f}", f"{r.scores.recall:.6f}", f"{r.scores.f1:.6f}"]
        values += [f"{row.average.precision:.6f}", f"{row.average.recall:.6f}", f"{row.average.f1:.6f}",
                   table.rules, ",".join(sorted(table.modes)) or "none"]
        writer.writerow(values)
    return buffer.getvalue()


def table_to_dict(table: ScoreTable) -> dict:
    def scores(s: Scores) -> dict:
        return {"precision": s.precision, "recall": s.recall, "f1": s.f1}

    return {
        "selection": {"languages": list(table.languages), "split": table.selection.split,
                      "repo": table.selection.repo, "programs": table.programs},
        "rules": table.rules, "normalisation": sorted(table.modes), "group_by": table.group_by,
        "confidence": table.confidence,
        "scorer_version": SCORER_VERSION, "instance_rule": table.instance_rule,
        "rows": [{
            "model": row.model, "group": row.group, "illustrative": row.illustrative,
            "languages": {lang: {"programs": r.programs, "missing": list(r.missing), "tp": r.counts.tp,
                                 "fp": r.counts.fp, "fn": r.counts.fn, **scores(r.scores),
                                 **({"ci": {k: list(v) for k, v in r.ci.items()}} if r.ci else {})}
                          for lang, r in row.languages.items()},
            "average": {**scores(row.average), "languages": list(row.averaged),
                        **({"ci": {k: list(v) for k, v in row.average_ci.items()}} if row.average_ci else {})},
        } for row in table.rows],
    }


def _json(table: ScoreTable) -> str:
    return json_document(SCORE_TABLE_SCHEMA, table_to_dict(table))
