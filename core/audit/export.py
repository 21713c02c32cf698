"""Write an `AuditReport` (core.audit.reports) as JSON, a readable Markdown report, or a CSV of its items.

The score tables inside (paper beside corrected F1, the baseline comparison) are rendered by `core.scoring.tables`, so
they read exactly like `traceeval score` output; every export names the correction rule it applied.
"""
from __future__ import annotations

import csv
import io
from collections.abc import Sequence
from dataclasses import asdict, replace
from pathlib import Path

from core.audit.agreement import Agreement
from core.audit.audits import BASELINE_AUDIT, population_phrase
from core.audit.reports import CORRECTION_RULE, FP_OUTCOME_TITLES, FP_OUTCOMES, HOWS, AuditReport, Corrections, ItemRow
from core.errors import AuditError
from core.languages import registry
from core.payloads import json_document
from core.scoring.scores import LanguageResult, ScoreTable, TableRow
from core.scoring.stats import Proportion
from core.scoring.tables import render_table, table_to_dict
from core.verdicts import LABEL_TITLES, LABELS

REPORT_FORMATS = ("json", "md", "csv")
SUFFIXES = {".json": "json", ".md": "md", ".markdown": "md", ".csv": "csv"}
NONE = "—"


# -- JSON ------------------------------------------------------------------------------------------------------
def report_json(report: AuditReport) -> dict:
    """The whole report as JSON-safe data, keys in a fixed order."""
    baseline = report.baseline
    return {
        "audit": _audit_dict(report),
        "annotators": list(report.annotators),
        "progress": {"items": report.progress.items, "judged": report.progress.judged,
                     "annotators": [{"annotator": p.annotator, "judged": p.judged, "labels": dict(p.labels)}
                                    for p in report.progress.annotators]},
        "final_verdicts": {"by_how": dict(report.finals.by_how), "by_label": dict(report.finals.by_label),
                           "unjudged": report.finals.unjudged},
        "gt_precision": _proportion_dict(report.gt_precision),
        "fp_breakdown": [{"model": b.model, "audited": b.audited, "counts": dict(b.counts),
                          "real_share": _proportion_dict(b.real_share)} for b in report.fp_breakdown],
        "corrected_f1": _corrections_dict(report.corrections),
        "agreement": None if report.agreement is None else {
            "overall": _agreement_dict(report.agreement.overall),
            "by_language": {k: _agreement_dict(a) for k, a in report.agreement.by_language.items()},
            "by_edge_class": {k: _agreement_dict(a) for k, a in report.agreement.by_edge_class.items()}},
        "disagreements": [_item_dict(r) for r in report.disagreements],
        "baseline": None if baseline is None else {
            "annotators": [asdict(a) for a in baseline.annotators], "scores": table_to_dict(baseline.table)},
        "items": [_item_dict(r) for r in report.items],
    }


def _audit_dict(report: AuditReport) -> dict:
    return {key: list(value) if isinstance(value, tuple) else value for key, value in asdict(report.audit).items()}


def _proportion_dict(proportion: Proportion | None) -> dict | None:
    return None if proportion is None else asdict(proportion)


def _agreement_dict(agreement: Agreement) -> dict:
    return {**asdict(agreement), "annotators": list(agreement.annotators)}


def _corrections_dict(corrections: Corrections | None) -> dict | None:
    if corrections is None:
        return None
    return {
        "rule": corrections.rule, "real_edges": corrections.real_edges, "wrong_edges": corrections.wrong_edges,
        "paper": table_to_dict(corrections.table),
        "corrected": table_to_dict(_table_like(corrections.table, [m.corrected for m in corrections.models])),
        "changes": [{"model": m.model, "truth_added": m.truth_added, "fp_to_tp": m.fp_to_tp,
                     "truth_removed": m.truth_removed, "tp_to_fp": m.tp_to_fp} for m in corrections.models],
    }


def _item_dict(row: ItemRow) -> dict:
    item, final, adjudication = row.item, row.final, row.adjudication
    data = {
        "item": item.position + 1, "instance_key": item.instance_key, "program": item.instance_id,
        "language": item.language, "repo": item.repo, "edge_class": item.edge_class, "caller": item.caller,
        "callee": item.callee, "stratum": item.stratum, "stratum_size": item.stratum_size,
        "verdicts": {a: {"label": v.label, "note": v.note, "time": v.created_at} for a, v in row.verdicts.items()},
        "final": None if final is None else {"label": final.label, "how": final.how, "by": list(final.by),
                                             "reason": final.reason},
        "adjudication": None if adjudication is None else {
            "label": adjudication.label, "adjudicator": adjudication.adjudicator, "reason": adjudication.reason,
            "time": adjudication.created_at},
    }
    if row.answers:
        data["answers"] = {a: list(callees) for a, callees in row.answers.items()}
    return data


def _table_like(table: ScoreTable, rows: list[TableRow]) -> ScoreTable:
    return ScoreTable(rows, table.languages, table.modes, table.selection, table.group_by, table.programs)


# -- Markdown --------------------------------------------------------------------------------------------------
MARKDOWN_SECTIONS = ("definition", "progress", "estimate", "corrections", "agreement", "disagreements", "baseline")


def report_markdown(report: AuditReport, sections: Sequence[str] = MARKDOWN_SECTIONS) -> str:
    """A readable report: definition, progress, estimates, corrected F1, agreement and disputes (or the
    humans beside the models, for a baseline audit); `sections` picks some of them, in report order."""
    audit = report.audit
    baseline = audit.kind == BASELINE_AUDIT
    parts = {"definition": lambda: [f"# Audit report: {audit.name}", "", _definition(report)],
             "progress": lambda: _progress_md(report),
             "estimate": lambda: [*_gt_md(report), "", *_fp_md(report)],
             "corrections": lambda: _corrections_md(report.corrections),
             "agreement": lambda: _agreement_md(report),
             "disagreements": lambda: _disagreements_md(report),
             "baseline": lambda: _baseline_md(report)}
    wanted = [name for name in MARKDOWN_SECTIONS if name in sections and
              (name in ("definition", "progress") or (name == "baseline") == baseline)]
    return "\n\n".join("\n".join(parts[name]()).rstrip("\n") for name in wanted) + "\n"


def _definition(report: AuditReport) -> str:
    audit = report.audit
    if audit.kind == BASELINE_AUDIT:
        programs = len({r.item.instance_key for r in report.items})
        what = (f"**Baseline audit** (annotators answer the questions a model gets); sample: {audit.size:,} "
                f"questions from {programs:,} of {audit.population_size:,} programs")
    else:
        what = (f"**Edge audit** of {population_phrase(audit.population, audit.model)}; "
                f"sample: {audit.size:,} of {audit.population_size:,} edges")
    size = (f"margin ±{audit.margin * 100:.1f} % at {_level(audit.confidence)} confidence" if audit.margin
            else f"fixed size, {_level(audit.confidence)} confidence")
    return (f"{what}; seed {audit.seed}; strata: {', '.join(audit.strata) or 'none'}; {size}; "
            f"split: {audit.split or 'all'}; languages: {', '.join(audit.languages) or 'all'}; "
            f"normalisation: {', '.join(audit.modes) or 'off'}; fingerprint {audit.fingerprint or NONE}")


def _progress_md(report: AuditReport) -> list[str]:
    progress, baseline = report.progress, report.audit.kind == BASELINE_AUDIT
    lines = ["## Progress", "",
             (f"{progress.items:,} items; {progress.judged:,} {'answered' if baseline else 'judged'} by at least "
              f"one annotator ({_share(progress.judged, progress.items)}).")]
    if progress.annotators:
        if baseline:
            head = ["Annotator", "Answered", "Questions"]
            rows = [[p.annotator, f"{p.judged:,}", f"{progress.items:,}"] for p in progress.annotators]
        else:
            head = ["Annotator", "Judged", *(LABEL_TITLES[lab] for lab in LABELS)]
            rows = [[p.annotator, f"{p.judged:,}", *(f"{p.labels[lab]:,}" for lab in LABELS)]
                    for p in progress.annotators]
        lines += [""] + markdown_table(head, rows)
    if not baseline:
        finals = report.finals
        hows = "; ".join(f"{how} {finals.by_how[how]:,}" for how in HOWS)
        labels = "; ".join(f"{LABEL_TITLES[lab]} {finals.by_label[lab]:,}" for lab in LABELS)
        lines += ["", f"Final verdicts: {hows}; no verdict {finals.unjudged:,}. Labels (not disputed): {labels}."]
    return lines


def _gt_md(report: AuditReport) -> list[str]:
    lines = ["## Ground-truth precision", ""]
    estimate = report.gt_precision
    if estimate is None:
        return lines + ["No ground-truth edge has a final verdict of correct, real but not exercised, or wrong."]
    return lines + [f"Ground-truth edges that are real calls: {format_proportion(estimate)}.", "",
                    (f"Method: {estimate.method}; effective n = {estimate.effective_n:.1f} over "
                     f"{estimate.strata} strata.")]


def _fp_md(report: AuditReport) -> list[str]:
    lines = ["## What the audited false positives are", ""]
    if not report.fp_breakdown:
        return lines + ["No model has a prediction on an audited program."]
    head = ["Model", "Audited FPs", *(FP_OUTCOME_TITLES[o] for o in FP_OUTCOMES), "Real calls among judged"]
    rows = [[b.model, f"{b.audited:,}", *(f"{b.counts[o]:,}" for o in FP_OUTCOMES),
             format_proportion(b.real_share) if b.real_share else NONE] for b in report.fp_breakdown]
    note = ("Real calls among judged: the plain share of the audited FPs with a final verdict of correct, not "
            "exercised or wrong, with its Wilson score interval (not weighted to the population).")
    return lines + markdown_table(head, rows) + ["", note]


def _corrections_md(corrections: Corrections | None) -> list[str]:
    lines = ["## F1 with the audited truth corrected", "", f"Rule: {CORRECTION_RULE}."]
    if corrections is None:
        return lines
    lines += ["", (f"Applied: {corrections.real_edges:,} audited edge(s) judged real calls, "
                   f"{corrections.wrong_edges:,} judged wrong."), ""]
    rows = []
    for model in corrections.models:
        rows += [replace(model.paper, model=f"{model.model} (paper)"),
                 replace(model.corrected, model=f"{model.model} (corrected)",
                         languages={k: _without_missing(r) for k, r in model.corrected.languages.items()})]
    lines += [render_table(_table_like(corrections.table, rows), "md").rstrip("\n"), ""]
    head = ["Model", "Truth added", "FP → TP", "Truth removed", "TP → FP"]
    body = [[m.model, f"{m.truth_added:,}", f"{m.fp_to_tp:,}", f"{m.truth_removed:,}", f"{m.tp_to_fp:,}"]
            for m in corrections.models]
    return lines + markdown_table(head, body)


def _without_missing(result: LanguageResult) -> LanguageResult:
    """The corrected row scores the same programs as the paper row: name the missing ones only once."""
    return replace(result, missing=())


def _agreement_md(report: AuditReport) -> list[str]:
    lines = ["## Agreement", ""]
    summary = report.agreement
    if summary is None:
        raise ValueError(f"audit {report.audit.name!r} has no agreement summary: it is a baseline audit")
    groups = [("overall", summary.overall)]
    groups += [(f"language: {registry.title(k, k)}", a) for k, a in summary.by_language.items()]
    groups += [(f"class: {k or NONE}", a) for k, a in summary.by_edge_class.items()]
    head = ["Group", "Annotators", "Items", "Percent", "Cohen κ", "Fleiss κ", "Krippendorff α"]
    rows = [[name, ", ".join(a.annotators) or NONE, f"{a.items:,}", _percent(a.percent), _number(a.cohen_kappa),
             _number(a.fleiss_kappa), _number(a.krippendorff_alpha)] for name, a in groups]
    return lines + markdown_table(head, rows, left=2) + ["", "Items: edges with verdicts from at least two annotators."]


def _disagreements_md(report: AuditReport) -> list[str]:
    lines = ["## Disagreements", ""]
    if not report.disagreements:
        return lines + ["None: no edge got different labels from different annotators."]
    annotators = [a for a in report.annotators if any(a in r.verdicts for r in report.disagreements)]
    head = ["Item", "Program", "Language", "Class", "Caller", "Callee", *annotators, "Adjudication"]
    rows = [[str(r.item.position + 1), r.item.instance_id, registry.title(r.item.language, r.item.language),
             r.item.edge_class, f"`{r.item.caller}`", f"`{r.item.callee}`",
             *(_verdict_cell(r, a) for a in annotators), _adjudication_cell(r)] for r in report.disagreements]
    return lines + markdown_table(head, rows, left=len(head))


def _verdict_cell(row: ItemRow, annotator: str) -> str:
    verdict = row.verdicts.get(annotator)
    if verdict is None:
        return NONE
    return LABEL_TITLES[verdict.label] + (f": {verdict.note}" if verdict.note else "")


def _adjudication_cell(row: ItemRow) -> str:
    adjudication = row.adjudication
    if adjudication is None:
        return "open"
    reason = f": {adjudication.reason}" if adjudication.reason else ""
    return f"{LABEL_TITLES[adjudication.label]} by {adjudication.adjudicator}{reason} ({adjudication.created_at})"


def _baseline_md(report: AuditReport) -> list[str]:
    baseline = report.baseline
    if baseline is None:
        raise ValueError(f"audit {report.audit.name!r} has no baseline summary: it is an edge audit")
    lines = ["## Humans beside the models, on the sampled programs only", ""]
    if baseline.annotators:
        head = ["Annotator", "Scored as", "Answered", "Questions"]
        rows = [[a.annotator, a.model, f"{a.answered:,}", f"{a.questions:,}"] for a in baseline.annotators]
        lines += markdown_table(head, rows, left=3) + [""]
    return lines + [render_table(baseline.table, "md").rstrip("\n")]


def format_proportion(p: Proportion) -> str:
    """"94.1 % (95 % CI 88.0–97.3 %, n = 85)"."""
    return (f"{p.estimate * 100:.1f} % ({_level(p.confidence)} CI {p.low * 100:.1f}–{p.high * 100:.1f} %, "
            f"n = {p.judged:,})")


def markdown_table(head: list[str], rows: list[list[str]], left: int = 1) -> list[str]:
    """A Markdown table, the first `left` columns left-aligned and the rest right-aligned; cells escaped."""
    align = ["---"] * left + ["---:"] * (len(head) - left)
    lines = ["| " + " | ".join(_cell(h) for h in head) + " |", "|" + "|".join(align) + "|"]
    return lines + ["| " + " | ".join(_cell(c) for c in row) + " |" for row in rows]


def _cell(text: str) -> str:
    return " ".join(str(text).split()).replace("|", "\\|")


def _level(confidence: float) -> str:
    return f"{confidence * 100:g} %"


def _share(part: int, whole: int) -> str:
    return f"{part / whole * 100:.1f} %" if whole else NONE


def _percent(value: float | None) -> str:
    return NONE if value is None else f"{value * 100:.1f} %"


def _number(value: float | None) -> str:
    return NONE if value is None else f"{value:.3f}"


# -- CSV -------------------------------------------------------------------------------------------------------
def items_csv(report: AuditReport) -> str:
    """One row per item: where it is, each annotator's label and note (answer too in a baseline audit), the final
    verdict and its adjudication."""
    baseline = report.audit.kind == BASELINE_AUDIT
    per_annotator = ("label", "note", "answer") if baseline else ("label", "note")
    buffer = io.StringIO()
    writer = csv.writer(buffer, lineterminator="\n")
    writer.writerow(["item", "program", "language", "repo", "edge_class", "caller", "callee",
                     *(f"{a}_{what}" for a in report.annotators for what in per_annotator),
                     "final_label", "how", "adjudicator", "reason"])
    for row in report.items:
        item, final, adjudication = row.item, row.final, row.adjudication
        cells = [item.position + 1, item.instance_id, item.language, item.repo, item.edge_class, item.caller,
                 item.callee]
        for annotator in report.annotators:
            verdict = row.verdicts.get(annotator)
            cells += [verdict.label if verdict else "", verdict.note if verdict else ""]
            if baseline:
                answer = row.answers.get(annotator)
                cells.append("" if answer is None else ", ".join(answer))
        cells += [(final.label or "") if final else "", final.how if final else "",
                  adjudication.adjudicator if adjudication else "", adjudication.reason if adjudication else ""]
        writer.writerow(cells)
    return buffer.getvalue()


# -- files -----------------------------------------------------------------------------------------------------
def write_report(report: AuditReport, path: str | Path, fmt: str | None = None) -> Path:
    """Write the report as JSON, Markdown or CSV (items), by `fmt` or else by the file's suffix."""
    path = Path(path)
    chosen = {"markdown": "md"}.get(fmt, fmt) if fmt else SUFFIXES.get(path.suffix.lower())
    if chosen not in REPORT_FORMATS:
        given = f"format {fmt!r}" if fmt else f"suffix {path.suffix or '(none)'!r}"
        raise AuditError(f"cannot write {path}: unknown report {given} (choose from .json, .md, .csv)")
    text = render_report(report, chosen)
    try:
        path.write_text(text, encoding="utf-8", newline="")
    except OSError as error:
        raise AuditError(f"cannot write the audit report to {path}: {error.strerror or error}") from None
    return path


def render_report(report: AuditReport, fmt: str) -> str:
    """The report as text in one of REPORT_FORMATS."""
    if fmt == "json":
        return json_document("audit-report", report_json(report))
    return report_markdown(report) if fmt == "md" else items_csv(report)
