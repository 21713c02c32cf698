"""`traceeval export`: instances, predictions, per-program scores and edges as JSONL, Parquet or a Hugging Face
`datasets` folder (core.report.exports, core.report.hf_dataset; the columns are in docs/exports.md)."""
from __future__ import annotations

import sys

from core.errors import UsageError
from core.languages import registry
from core.report.export_rows import KINDS
from traceeval_gui.cli.common import format_option, model_names, modes_from, open_workspace, parse_option, rules_from

FORMATS = ("jsonl", "parquet", "hf")


def register(commands, dataset_args, modes_args) -> None:
    """Add `export` to `traceeval`'s subparsers (the helpers are the CLI's shared options)."""
    export = commands.add_parser(
        "export", help="instances, predictions, per-program scores or edges as JSONL, Parquet or a Hugging Face "
                       "dataset folder",
        description="Write open data files: --what instances (programs, files, ground truth, provenance), "
                    "predictions (answers and parsed graphs), scores (TP/FP/FN and P/R/F1 per program and model) or "
                    "edges (each edge classed TP/FP/FN per model), as JSON Lines, Parquet (needs the parquet "
                    "extra) or a folder that Hugging Face datasets.load_dataset() reads, with a dataset card "
                    "(--format hf: every kind unless --what names some). The columns are in docs/exports.md.")
    dataset_args(export)
    export.add_argument("--what", default=None, metavar="KINDS",
                        help=f"what to export: one of {', '.join(KINDS)} (hf: a comma list, default all)")
    format_option(export, FORMATS, help="jsonl: one record per line (default; to stdout without --out); parquet: "
                                        "one Parquet file (pip install 'traceeval-studio[parquet]'); hf: a Hugging "
                                        "Face dataset folder, Parquet when pyarrow is installed, else JSONL")
    export.add_argument("--out", metavar="PATH", help="the file (jsonl, parquet) or folder (hf) to write")
    export.add_argument("--models", help="comma-separated model names (default: all in the workspace)")
    export.add_argument("--split", choices=("test", "train", "all"), default="all",
                        help="programs to export (default: all)")
    export.add_argument("--languages", default=",".join(registry.names()),
                        help="comma-separated languages (default: all)")
    export.add_argument("--repo", metavar="PATTERN", help="only repositories matching this glob pattern")
    modes_args(export)
    export.set_defaults(handler=export_data)


def export_data(args) -> int:
    from core.report.export_rows import rows_of  # its module is light; the writers bring pyarrow when asked
    from core.report.exports import parquet_available, write_jsonl, write_rows
    from core.scoring.scores import Selection, parse_languages

    kinds = _kinds(args)
    if args.format != "jsonl" and not args.out:
        raise UsageError(f"--format {args.format} needs --out PATH")
    ws, _ = open_workspace(args)
    with ws:
        models = model_names(args.models, ws)
        selection = Selection(languages=parse_option(parse_languages, args.languages),
                              split=None if args.split == "all" else args.split, repo=args.repo)
        modes, rules = modes_from(args), rules_from(args)
        if args.format == "hf":
            from core.report.hf_dataset import write_hf_folder

            if not parquet_available():
                print("traceeval: pyarrow is not installed, so the data files are JSONL "
                      "(pip install 'traceeval-studio[parquet]' for Parquet)", file=sys.stderr)
            report = write_hf_folder(ws, args.out, kinds, models, selection, modes, rules)
            for kind, splits in report.rows.items():
                counts = ", ".join(f"{count:,} {split}" for split, count in splits.items())
                print(f"{kind}: {counts}", file=sys.stderr)
            print(f"wrote {report.folder} (load it with datasets.load_dataset({str(report.folder)!r}, "
                  f"{kinds[0]!r}))", file=sys.stderr)
            return 0
        rows = rows_of(kinds[0], ws, models, selection, modes, rules)
        if not args.out:
            count = write_jsonl(rows, sys.stdout)
        else:
            count = write_rows(kinds[0], rows, args.out, args.format)
            print(f"wrote {args.out}", file=sys.stderr)
    print(f"traceeval: {count:,} {kinds[0]} row(s)", file=sys.stderr)
    return 0


def _kinds(args) -> tuple[str, ...]:
    given = tuple(dict.fromkeys(k.strip() for k in (args.what or "").split(",") if k.strip()))
    unknown = [k for k in given if k not in KINDS]
    if unknown:
        raise UsageError(f"--what: unknown kind {unknown[0]!r} (choose from {', '.join(KINDS)})")
    if args.format == "hf":
        return given or KINDS
    if len(given) != 1:
        raise UsageError(f"--format {args.format} writes one kind: give --what as one of {', '.join(KINDS)}")
    return given
