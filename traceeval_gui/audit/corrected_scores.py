"""The Corrected F1 tab of the audit results, as HTML: per model the paper scores beside the ones with the
audited truth corrected, then the ground-truth precision and what the audited false positives are.
"""
from __future__ import annotations

import html

from core.audit.audits import BASELINE_AUDIT
from core.audit.export import NONE, format_proportion
from core.audit.reports import FP_OUTCOME_TITLES, FP_OUTCOMES, AuditReport, Corrections, ModelCorrection
from core.languages import registry
from core.scoring.scores import TableRow
from core.scoring.tables import DAGGER, METRIC_LABELS
from traceeval_gui.metrics.metrics_panel import HEADER_BACKGROUND
from traceeval_gui.theme.style import ILLUSTRATIVE_NOTE, MUTED_TEXT

UP_COLOUR, DOWN_COLOUR = "#2e7d32", "#c62828"


def corrections_html(report: AuditReport) -> str:
    """Per model, the paper row beside the corrected one; then the ground-truth precision and what the
    audited false positives are."""
    if report.audit.kind == BASELINE_AUDIT:
        return (f"<p style='color:{MUTED_TEXT}'>A baseline audit: humans answer the questions a model gets. "
                "Their scores beside the models are in the Report tab.</p>")
    parts = [_corrections_part(report.corrections), _precision_part(report), _fp_part(report)]
    return "".join(parts)


def _corrections_part(corrections: Corrections | None) -> str:
    parts = ["<h3 style='margin:0 0 4px 0'>F1 with the audited truth corrected</h3>"]
    if corrections is None or not corrections.models:
        return parts[0] + f"<p style='color:{MUTED_TEXT}'>No model to score.</p>"
    parts.append(f"<p style='margin:0 0 2px 0'>Applied: <b>{corrections.real_edges:,}</b> audited edge(s) judged "
                 f"real calls, <b>{corrections.wrong_edges:,}</b> judged wrong (final verdicts only).</p>")
    parts.append(f"<p style='margin:0 0 8px 0; color:{MUTED_TEXT}'>Rule: {html.escape(corrections.rule)}.</p>")
    languages = corrections.table.languages
    for model in corrections.models:
        parts.append(_model_table(model, languages))
    if any(m.paper.illustrative for m in corrections.models):
        parts.append(f"<p style='color:{MUTED_TEXT}'>{DAGGER} {html.escape(ILLUSTRATIVE_NOTE)}</p>")
    return "".join(parts)


def _model_table(model: ModelCorrection, languages: tuple[str, ...]) -> str:
    columns = [*languages, "average"]
    head1 = "".join(f"<th colspan='3' align='center'>{registry.title(c, 'Average')}</th>" for c in columns)
    head2 = "".join(f"<th align='right'>{label}</th>" for _ in columns for _, label in METRIC_LABELS)
    paper = [_score(model.paper, c, m) for c in columns for m, _ in METRIC_LABELS]
    corrected = [_score(model.corrected, c, m) for c in columns for m, _ in METRIC_LABELS]
    rows = [_score_row("Paper", paper, paper), _score_row("<b>Corrected</b>", corrected, paper, mark=True),
            _change_row(paper, corrected)]
    name = html.escape(model.model) + (f" {DAGGER}" if model.paper.illustrative else "")
    missing = [f"{len(r.missing)} {registry.title(lang, lang)} program(s) without a result, not scored: "
               f"{', '.join(r.missing)}" for lang, r in model.paper.languages.items() if r.missing]
    moves = (f"{model.fp_to_tp:,} FP → TP and {model.truth_added:,} edge(s) added to the truth; "
             f"{model.tp_to_fp:,} TP → FP and {model.truth_removed:,} edge(s) taken out of it")
    notes = "".join(f"<br><span style='color:{MUTED_TEXT}'>{html.escape(line)}</span>" for line in missing)
    return (f"<p style='margin:12px 0 4px 0'><b>{name}</b> &nbsp; <span style='color:{MUTED_TEXT}'>"
            f"{html.escape(moves)}</span>{notes}</p>"
            f"<table cellspacing='0' cellpadding='4' width='100%' style='border-collapse:collapse'>"
            f"<tr bgcolor='{HEADER_BACKGROUND}'><th rowspan='2' align='left' width='120'></th>{head1}</tr>"
            f"<tr bgcolor='{HEADER_BACKGROUND}'>{head2}</tr>{''.join(rows)}</table>")


def _score(row: TableRow, column: str, metric: str) -> float | None:
    if column == "average":
        scored = any(result.programs for result in row.languages.values())
        return getattr(row.average, metric) if scored else None
    result = row.languages[column]
    return getattr(result.scores, metric) if result.programs else None


def _score_row(title: str, values: list, paper: list, mark: bool = False) -> str:
    cells = []
    for index, (value, before) in enumerate(zip(values, paper)):
        text = "–" if value is None else f"{value * 100:.1f}"
        changed = mark and value is not None and before is not None and round(value * 100, 1) != round(before * 100, 1)
        shade = " bgcolor='#fafbfc'" if index >= len(values) - 3 else ""
        cells.append(f"<td align='right'{shade}>{'<b>' + text + '</b>' if changed else text}</td>")
    return f"<tr><td>{title}</td>{''.join(cells)}</tr>"


def _change_row(paper: list, corrected: list) -> str:
    cells = []
    for index, (before, after) in enumerate(zip(paper, corrected)):
        shade = " bgcolor='#fafbfc'" if index >= len(paper) - 3 else ""
        if before is None or after is None:
            cells.append(f"<td align='right'{shade}>–</td>")
            continue
        points = round((after - before) * 100, 1)
        colour = UP_COLOUR if points > 0 else DOWN_COLOUR if points < 0 else MUTED_TEXT
        text = f"{points:+.1f}" if points else "0.0"
        cells.append(f"<td align='right'{shade} style='color:{colour}'>{text}</td>")
    return f"<tr><td style='color:{MUTED_TEXT}'>Change (points)</td>{''.join(cells)}</tr>"


def _precision_part(report: AuditReport) -> str:
    parts = ["<h3 style='margin:20px 0 4px 0'>Ground-truth precision</h3>"]
    estimate = report.gt_precision
    if estimate is None:
        return parts[0] + (f"<p style='color:{MUTED_TEXT}'>No ground-truth edge has a final verdict of correct, "
                           "real but not exercised, or wrong yet.</p>")
    parts.append(f"<p style='margin:0'>Ground-truth edges that are real calls: <b>{format_proportion(estimate)}</b>"
                 "</p>")
    parts.append(f"<p style='margin:2px 0 0 0; color:{MUTED_TEXT}'>Estimated from the sample over "
                 f"{estimate.strata} strata, effective n = {estimate.effective_n:.1f}. Method: "
                 f"{html.escape(estimate.method)}.</p>")
    return "".join(parts)


def _fp_part(report: AuditReport) -> str:
    parts = ["<h3 style='margin:20px 0 4px 0'>What the audited false positives are</h3>"]
    if not report.fp_breakdown:
        return parts[0] + f"<p style='color:{MUTED_TEXT}'>No model has a prediction on an audited program.</p>"
    head = ["Model", "Audited FPs", *(FP_OUTCOME_TITLES[o] for o in FP_OUTCOMES), "Real calls among judged"]
    header = "".join(f"<th align='{'left' if i == 0 else 'right'}'>{html.escape(h)}</th>" for i, h in enumerate(head))
    rows = []
    for breakdown in report.fp_breakdown:
        share = format_proportion(breakdown.real_share) if breakdown.real_share else NONE
        cells = [f"{breakdown.audited:,}", *(f"{breakdown.counts[o]:,}" for o in FP_OUTCOMES), share]
        rows.append(f"<tr><td>{html.escape(breakdown.model)}</td>"
                    + "".join(f"<td align='right'>{html.escape(c)}</td>" for c in cells) + "</tr>")
    parts.append(f"<table cellspacing='0' cellpadding='5'><tr bgcolor='{HEADER_BACKGROUND}'>{header}"
                 f"</tr>{''.join(rows)}</table>")
    parts.append(f"<p style='margin:4px 0 0 0; color:{MUTED_TEXT}'>Hallucinated: judged wrong. Real calls among "
                 "judged: the plain share of the audited FPs with a final verdict of correct, not exercised or "
                 "wrong, with its Wilson score interval (not weighted to the population).</p>")
    return "".join(parts)
