"""Render PairedStats (`core.scoring.paired`): text, Markdown, CSV or JSON (schema `traceeval.paired-stats`).

Differences are F1(A) - F1(B) in percentage points (positive: A is better, the sign of `traceeval compare`'s
ranking) and the sign test counts A's wins, losses and ties; every rendering names the two models, the rule set,
the normalisation, the confidence, the resamples and seed, and the programs left out (answered by one model only).
"""
from __future__ import annotations

import csv
import io
import textwrap

from core.languages import registry
from core.payloads import json_document
from core.scoring.paired import MACRO, PairedRow, PairedStats
from core.scoring.rules import rules_title
from core.scoring.scores import SCORER_VERSION
from core.scoring.tables import aligned_lines

PAIRED_FORMATS = ("text", "json", "csv", "md")
PAIRED_SCHEMA = "paired-stats"
CSV_HEADER = ("language", "programs", "f1_a", "f1_b", "delta_f1", "ci_low", "ci_high", "wins_a", "losses_a", "ties",
              "sign_p")


def render_paired(stats: PairedStats, fmt: str = "text") -> str:
    renderers = {"text": _text, "json": _json, "csv": _csv, "md": _markdown}
    if fmt not in renderers:
        raise ValueError(f"unknown format {fmt!r} (choose from {', '.join(PAIRED_FORMATS)})")
    return renderers[fmt](stats)


def row_title(language: str, short: bool = False) -> str:
    if language == MACRO:
        return "Average" if short else "Average (macro)"
    return registry.title(language)


def row_cells(row: PairedRow) -> list[str]:
    """The shown cells of a row after its title: programs, F1 A, F1 B, ΔF1, interval, wins/losses/ties, p."""
    d = row.difference
    return [f"{row.programs:,}", f"{row.f1_a * 100:.1f}", f"{row.f1_b * 100:.1f}", f"{d.observed * 100:+.1f}",
            f"[{d.low * 100:+.1f}, {d.high * 100:+.1f}]", f"{row.sign.wins}/{row.sign.losses}/{row.sign.ties}",
            p_text(row.sign.p)]


def p_text(p: float) -> str:
    return "<0.0001" if p < 0.0001 else f"{p:.4f}"


def column_titles(confidence: float) -> list[str]:
    return ["", "programs", "F1 A", "F1 B", "ΔF1 (A−B)", f"{confidence:.0%} interval", "A wins/losses/ties",
            "sign p"]


def describe(stats: PairedStats) -> str:
    split = stats.selection.split or "all splits"
    repo = f", repos matching {stats.selection.repo}" if stats.selection.repo else ""
    modes = ", ".join(sorted(stats.modes)) or "off"
    return (f"A {stats.model_a}  vs  B {stats.model_b}; {rules_title(stats.rules)}; {split}{repo}; normalisation: "
            f"{modes}; paired bootstrap, {stats.resamples:,} resamples, seed {stats.seed}")


def notes(stats: PairedStats) -> list[str]:
    out = ["ΔF1 = F1(A) − F1(B) in points of the paper metric (micro per language, macro = their mean), positive "
           "when A is better; the interval is a percentile bootstrap resampling the same programs for both models; "
           f"the sign test is exact and two-sided on per-program F1 ({stats.instance_rule}), counting A's wins / "
           "losses / ties, ties dropped; the macro row's "
           "sign test is over all paired programs"]
    for letter, keys in (("A", stats.only_a), ("B", stats.only_b)):
        if keys:
            shown = ", ".join(keys[:5]) + (f" and {len(keys) - 5:,} more" if len(keys) > 5 else "")
            out.append(f"{len(keys):,} program(s) answered by {letter} only, left out: {shown}")
    if stats.unpaired_languages and stats.rows:
        out.append(f"no paired {' or '.join(registry.title(lang) for lang in stats.unpaired_languages)} program: "
                   "left out of the macro mean")
    return out


def _text(stats: PairedStats) -> str:
    lines = [describe(stats)]
    if not stats.rows:
        return "\n".join(lines + ["no program has results from both models"] + notes(stats)[1:]) + "\n"
    table = [column_titles(stats.confidence)] + [[row_title(r.language)] + row_cells(r) for r in stats.rows]
    lines += ["", *aligned_lines(table)]
    wrapped = [textwrap.fill(note, 110, subsequent_indent="  ") for note in notes(stats)]
    return "\n".join(lines + [""] + wrapped) + "\n"


def _markdown(stats: PairedStats) -> str:
    titles = column_titles(stats.confidence)
    titles[0] = "Language"
    lines = [f"Paired statistics: {describe(stats)}", "", "| " + " | ".join(titles) + " |",
             "|---|" + "---:|" * (len(titles) - 1)]
    lines += ["| " + " | ".join([row_title(r.language)] + row_cells(r)) + " |" for r in stats.rows]
    return "\n".join(lines + [""] + [f"- {n}" for n in notes(stats)]) + "\n"


def _csv(stats: PairedStats) -> str:
    buffer = io.StringIO()
    writer = csv.writer(buffer, lineterminator="\n")
    writer.writerow(CSV_HEADER)
    for r in stats.rows:
        writer.writerow([r.language, r.programs, f"{r.f1_a:.6f}", f"{r.f1_b:.6f}", f"{r.difference.observed:.6f}",
                         f"{r.difference.low:.6f}", f"{r.difference.high:.6f}", r.sign.wins, r.sign.losses,
                         r.sign.ties, f"{r.sign.p:.6g}"])
    return buffer.getvalue()


def paired_to_dict(stats: PairedStats) -> dict:
    """The JSON document's body (fractions, not percentages)."""
    return {
        "model_a": stats.model_a, "model_b": stats.model_b, "rules": stats.rules,
        "normalisation": sorted(stats.modes),
        "selection": {"languages": list(stats.selection.languages), "split": stats.selection.split,
                      "repo": stats.selection.repo},
        "confidence": stats.confidence, "resamples": stats.resamples, "seed": stats.seed,
        "scorer_version": SCORER_VERSION, "instance_rule": stats.instance_rule, "difference": "f1_a - f1_b",
        "rows": [{"language": r.language, "programs": r.programs, "f1_a": r.f1_a, "f1_b": r.f1_b,
                  "delta_f1": r.difference.observed, "ci": [r.difference.low, r.difference.high],
                  "wins_a": r.sign.wins, "losses_a": r.sign.losses, "ties": r.sign.ties, "sign_p": r.sign.p}
                 for r in stats.rows],
        "only_a": list(stats.only_a), "only_b": list(stats.only_b),
        "unpaired_languages": list(stats.unpaired_languages),
    }


def _json(stats: PairedStats) -> str:
    return json_document(PAIRED_SCHEMA, paired_to_dict(stats))
