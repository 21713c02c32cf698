"""`traceeval info | validate`."""
from __future__ import annotations

from collections import Counter

from core.dataset.validation import validate_dataset
from core.errors import ReleaseError
from core.languages import registry
from traceeval_gui.cli.common import (
    ProgressLine,
    dataset_root,
    open_workspace,
    print_document,
    records_text,
    wording_from,
)


def info(args) -> int:
    ws, report = open_workspace(args)
    with ws:
        rows = ws.instance_rows()
        by_language = Counter(r.language for r in rows)
        by_split = Counter((r.language, r.split or "none") for r in rows)
        repos = {(r.language, r.repo) for r in rows}
        models = ws.models()
        wording = _wording(args, ws)
        summary = {
            "dataset": ws.setting("dataset_root"), "layout": ws.setting("layout"),
            "splits": ws.setting("splits_dir") or None, "workspace": str(ws.path),
            "schema_version": ws.schema_version, "programs": len(rows),
            "languages": {lang: {"programs": by_language[lang],
                                 "test": by_split[(lang, "test")], "train": by_split[(lang, "train")],
                                 "no_split": by_split[(lang, "none")],
                                 "repositories": sum(1 for language, _ in repos if language == lang),
                                 "functions": sum(r.functions for r in rows if r.language == lang),
                                 "edges": sum(r.edges for r in rows if r.language == lang)}
                          for lang in registry.names()},
            "models": [{"name": m.name, "predictions": m.predictions, "illustrative": m.illustrative}
                       for m in models],
            "prompt_wording": wording,
            "problems": len(report.problems),
            "index": {"read": report.loaded, "reused": report.reused, "removed": report.removed,
                      "seconds": round(report.seconds, 3)},
        }
    if args.format == "json":
        print_document("info", summary)
        return 0
    print(f"dataset    {summary['dataset']}  ({summary['layout']} layout)")
    print(f"splits     {summary['splits'] or 'none (no split files found; use --splits DIR)'}")
    print(f"workspace  {summary['workspace']}  (schema v{summary['schema_version']})")
    print(f"prompts    {wording}")
    print(f"programs   {len(rows):,}  (index: {report.loaded:,} read, {report.reused:,} unchanged, "
          f"{report.seconds:.2f} s)")
    print()
    print(f"{'language':<12}{'programs':>9}{'test':>7}{'train':>7}{'no split':>9}{'repos':>7}{'functions':>11}"
          f"{'edges':>9}")
    for lang in registry.names():
        s = summary["languages"][lang]
        print(f"{registry.title(lang):<12}{s['programs']:>9,}{s['test']:>7,}{s['train']:>7,}{s['no_split']:>9,}"
              f"{s['repositories']:>7,}{s['functions']:>11,}{s['edges']:>9,}")
    print()
    if models:
        print("models     " + ", ".join(f"{m.name} ({m.predictions:,}{', illustrative' if m.illustrative else ''})"
                                       for m in models))
    else:
        print("models     none imported (traceeval import-results DATASET RESULTS...)")
    if report.problems:
        errors = sum(p.severity == "error" for p in report.problems)
        print(f"problems   {errors} error(s), {len(report.problems) - errors} warning(s): "
              "run 'traceeval validate' for the list")
    return 0


def validate(args) -> int:
    root = dataset_root(args.dataset)
    report = validate_dataset(root, args.splits, deep=not args.quick, progress=ProgressLine("validating"))
    problems = [p for p in report.problems if not args.errors_only or p.severity == "error"]
    if args.format == "json":
        print_document("validate", {"dataset": str(root), "programs": report.programs, "loaded": report.loaded,
                                         "problems": [p.as_record() for p in problems]})
    elif args.format in ("jsonl", "csv"):
        print(records_text([p.as_record() for p in problems], args.format,
                           ("path", "message", "severity", "instance_id")), end="")
    else:
        for problem in problems:
            print(f"{problem.severity}: {problem}")
        errors = sum(p.severity == "error" for p in problems)
        print(f"{root}: {report.programs:,} program folder(s), {report.loaded:,} loaded, "
              f"{errors} error(s), {len(problems) - errors} warning(s)")
    return 1 if problems else 0


def _wording(args, ws) -> str:
    """Which words prompts for this dataset would have (a release that cannot be read, or is found and not
    confirmed, is said, not raised or asked about)."""
    try:
        return wording_from(args, ws, ask=False).label
    except ReleaseError as error:
        return f"studio wording, not the paper's ({error})"
