"""`traceeval import-results | score | diff | models`."""
from __future__ import annotations

import sys
from pathlib import Path

from core.errors import UsageError
from core.report.overlay import SHOWN_EDGE_LIMIT
from core.report.shown_response import shown_problems
from core.results.importing import import_results as import_into
from core.results.writer import write_released_results
from core.scoring.metrics import INSTANCE_RULE, instance_scores
from core.scoring.rules import rules_title
from core.scoring.scores import instance_diff, score_table
from core.scoring.tables import render_table
from traceeval_gui.cli.common import (
    ProgressLine,
    instance_key_of,
    model_names,
    modes_from,
    open_workspace,
    print_document,
    records_text,
    rules_from,
    selection_from,
    write_output,
)

MODEL_COLUMNS = ("name", "predictions", "illustrative", "note", "sources", "imported_at")


def import_results(args) -> int:
    ws, _ = open_workspace(args)
    with ws:
        report = import_into(ws, args.results, args.model, ProgressLine("results files", minimum_total=2))
        return report_import(ws, report, args.format, "import-results")


def report_import(ws, report, fmt: str, schema: str) -> int:
    """What an import stored and the problems met, as text or one JSON document; exit 1 when nothing was stored."""
    if fmt == "json":
        print_document(schema, {
            "workspace": str(ws.path), "files": report.files, "stored": dict(sorted(report.stored.items())),
            "problems": [p.as_record() for p in report.problems]})
        return 0 if report.stored else 1
    for problem in report.problems:
        print(f"warning: {problem}" if problem.severity == "warning" else f"error: {problem}")
    if not report.stored:
        print(f"nothing imported from {report.files} file(s)")
        return 1
    for model, count in sorted(report.stored.items()):
        print(f"{model}: {count:,} prediction(s) stored")
    print(f"workspace: {ws.path}")
    return 0


def score(args) -> int:
    ws, _ = open_workspace(args)
    with ws:
        if args.results:
            report = import_into(ws, args.results, progress=ProgressLine("results files", minimum_total=2))
            for problem in report.problems:
                print(f"{problem.severity}: {problem}", file=sys.stderr)
        models = model_names(args.models, ws)
        if args.over_runs:
            return _score_over_runs(ws, args, models)
        table = score_table(ws, models, selection_from(args, ws), modes_from(args), group_by=args.by,
                            confidence=args.ci, resamples=args.resamples, seed=args.seed, rules=rules_from(args))
        text = render_table(table, args.format)
    return write_output(text, args.output)


def _score_over_runs(ws, args, models) -> int:
    from core.scoring.over_runs import over_runs_table
    from core.scoring.over_runs_tables import FORMATS as OVER_RUNS_FORMATS
    from core.scoring.over_runs_tables import render_over_runs

    if args.format not in OVER_RUNS_FORMATS:
        raise UsageError(f"--over-runs writes {', '.join(OVER_RUNS_FORMATS)}, not {args.format}")
    if args.by or args.ci:
        raise UsageError("--over-runs does not take --by or --ci (the spread is over runs)")
    table = over_runs_table(ws, models, selection_from(args, ws), modes_from(args), rules_from(args))
    return write_output(render_over_runs(table, args.format), args.output)


def diff(args) -> int:
    ws, _ = open_workspace(args, args.dataset)
    with ws:
        key = instance_key_of(ws, args.instance)
        ws.model_names([args.model])
        modes, rules = modes_from(args), rules_from(args)
        result = instance_diff(ws, args.model, key, modes, rules)
        if result is None:
            print(f"{args.model} has no result for {key} (it is reported as missing when scoring)")
            return 1
        prediction = ws.predictions(args.model, [key])[key]
        scores = instance_scores(result.counts)
    if args.format == "json":
        print_document("diff", {"instance": key, "model": args.model, "rules": rules, "normalisation": sorted(modes),
                                "tp": [list(e) for e in result.tp], "fp": [list(e) for e in result.fp],
                                "fn": [list(e) for e in result.fn], "precision": scores.precision,
                                "recall": scores.recall, "f1": scores.f1, "instance_rule": INSTANCE_RULE,
                                "parse_problems": list(prediction.parse_problems)})
        return 0
    if args.format in ("jsonl", "csv"):
        print(records_text([{"class": label, "caller": caller, "callee": callee}
                            for label, edges in (("TP", result.tp), ("FP", result.fp), ("FN", result.fn))
                            for caller, callee in edges], args.format, ("class", "caller", "callee")), end="")
        return 0
    counts = result.counts
    print(f"{key}  model {args.model}  {rules_title(rules)}; normalisation: {', '.join(sorted(modes)) or 'off'}")
    print(f"TP {counts.tp}  FP {counts.fp}  FN {counts.fn}   P {scores.precision:.1%}  R {scores.recall:.1%}  "
          f"F1 {scores.f1:.1%}   ({INSTANCE_RULE})")
    for problem in shown_problems(prediction.parse_problems):  # every one: --format json
        print(f"parse problem: {problem}")
    for label, edges in (("TP", result.tp), ("FP", result.fp), ("FN", result.fn)):
        for caller, callee in edges[:SHOWN_EDGE_LIMIT]:  # what a person reads; scores count every edge
            print(f"{label}  {caller} -> {callee}")
        if len(edges) > SHOWN_EDGE_LIMIT:
            print(f"{label}  … and {len(edges) - SHOWN_EDGE_LIMIT:,} more (counted above; --format json, jsonl or "
                  "csv lists every edge)")
    return 0


def export_results(args) -> int:
    ws, _ = open_workspace(args)
    with ws:
        ws.model_names([args.model])  # a clear error for an unknown model
        row = next(m for m in ws.models() if m.name == args.model)
        metadata = {"illustrative": True, "note": row.note} if row.illustrative else {}
        if args.timestamp:
            metadata["timestamp"] = args.timestamp
        paths = write_released_results(ws, args.model, Path(args.out), modes_from(args), metadata,
                                       rules=rules_from(args))
    if args.format == "json":
        print_document("export-results", {"model": args.model, "out": str(Path(args.out)),
                                          "files": [str(path) for path in paths]})
        return 0
    for path in paths:
        print(f"wrote {path}")
    return 0


def models(args) -> int:
    ws, _ = open_workspace(args)
    with ws:
        rows = ws.models()
        records = [{"name": r.name, "predictions": r.predictions, "illustrative": r.illustrative, "note": r.note,
                    "sources": list(r.sources), "imported_at": r.imported_at} for r in rows]
        if args.format == "json":
            print_document("models", {"workspace": str(ws.path), "models": records})
            return 0
        if args.format in ("jsonl", "csv"):
            print(records_text(records, args.format, MODEL_COLUMNS), end="")
            return 0
        if not rows:
            print("no models imported yet (traceeval import-results DATASET RESULTS...)")
        for row in rows:
            flag = "  [illustrative, not real model output]" if row.illustrative else ""
            print(f"{row.name}: {row.predictions:,} predictions{flag}")
    return 0
