"""The `traceeval` command: every workbench action, headless. Qt is never imported here.

Every command's arguments are set up at each start, so the command modules import at their head only
what argument set-up needs; a handler imports the heavy parts it uses (the model client, the drawing
stack, sqlite-utils through an opened workspace) when it runs. tests/test_cli_startup.py checks this,
tests/bench/bench_cli_startup.py times it.

Exit codes: 0 success, 1 the command ran and found problems (validate, missing data),
2 bad input (a one-line message naming the file and the problem), 130 interrupted.
"""
from __future__ import annotations

import argparse
import logging
import sys

from core.errors import TraceEvalError
from core.languages import registry
from core.report.terminal_text import SafeTerminalStream
from core.scoring.normalise import MODES
from core.scoring.tables import FORMATS
from traceeval_gui.cli import (
    audit_commands,
    baseline_commands,
    batch_commands,
    build_commands,
    dataset_commands,
    export_commands,
    finetune_commands,
    inspect_commands,
    model_commands,
    parity_commands,
    results_commands,
    trace_commands,
    view_commands,
)
from traceeval_gui.cli.common import format_option, instance_arg, rules_option

DATASET_HELP = "dataset folder: the released layout (benchmark/<language>/<id>/), a folder of program folders, " \
               "or one program folder (default: the bundled demo dataset)"


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="traceeval",
        description="Inspect and score TraceEval call-graph benchmark results (arXiv 2605.11006).",
        epilog="Run 'traceeval COMMAND --help' for the options of a command.")
    parser.add_argument("--version", action="version", version=f"%(prog)s {_version()}")
    parser.add_argument("-v", "--verbose", action="store_true", help="log what is being done to stderr")
    commands = parser.add_subparsers(dest="command", metavar="COMMAND", required=True)

    info = commands.add_parser("info", help="summarise a dataset: programs per language and split, models, problems",
                               description="Index the dataset into its workspace (only changed programs are read "
                                           "again) and summarise it.")
    _dataset_args(info)
    format_option(info, help="text: a summary table; json: the same facts as one object")
    info.set_defaults(handler=dataset_commands.info)

    validate = commands.add_parser(
        "validate", help="check layout and content; exit 1 when anything is wrong",
        description="Read every program and report each problem as 'file: problem': unreadable or malformed "
                    "callgraph.json, bad UTF-8, unknown language, no sources, split-file inconsistencies, and "
                    "ground-truth names that cannot be placed in the source. Exit status 1 when any is found.")
    _dataset_args(validate, workspace=False)
    format_option(validate, ("text", "json", "jsonl", "csv"),
                  help="text: one 'severity: file: problem' line each and a total; json: counts and problems; "
                       "jsonl, csv: one problem per line")
    validate.add_argument("--quick", action="store_true", help="skip the source-level checks (name placement)")
    validate.add_argument("--errors-only", action="store_true", help="only problems that make a program unusable")
    validate.set_defaults(handler=dataset_commands.validate)

    imp = commands.add_parser(
        "import-results", help="import model results (released JSON files or JSONL) into the workspace",
        description="Import results files: the released <model>_<language>_t0.0_r0.json format, or JSONL with "
                    '{"instance_id", "model", "prediction"} or "raw_response" per line. Raw responses are '
                    "parsed with the TraceEval answer parser; parse problems are recorded per instance.")
    imp.add_argument("dataset", metavar="DATASET",
                     help=DATASET_HELP.replace(" (default: the bundled demo dataset)", ""))
    imp.add_argument("results", metavar="RESULTS", nargs="+", help="results files or folders holding them")
    imp.add_argument("--model", help="model name to use instead of the one in the files")
    _workspace_args(imp)
    format_option(imp, help="text: what was stored and each problem; json: the same as one document")
    imp.set_defaults(handler=results_commands.import_results)

    score = commands.add_parser(
        "score", help="the paper's table: P/R/F1 per language (micro) and their average (macro)",
        description="Score every model in the workspace (after importing --results, if given) exactly as the "
                    "paper does: TP/FP/FN summed over programs per language, then the unweighted mean of the "
                    "languages. Programs without a result record are named, not scored.")
    _dataset_args(score)
    score.add_argument("--results", nargs="+", metavar="PATH", help="results files or folders to import first")
    score.add_argument("--models", help="comma-separated model names (default: all in the workspace)")
    _selection_args(score)
    score.add_argument("--by", choices=("split", "repo"), help="one row per model and split or repository")
    score.add_argument("--ci", nargs="?", type=float, const=0.95, metavar="LEVEL",
                       help="add bootstrap confidence intervals over programs (default level 0.95)")
    score.add_argument("--resamples", type=int, default=1000, help="bootstrap resamples (default 1000)")
    score.add_argument("--seed", type=int, default=0, help="bootstrap seed (default 0)")
    score.add_argument("--over-runs", action="store_true",
                       help="one row per model over its repeated runs (NAME, NAME@r1, ...: predict --runs, or "
                            "imported _r<i> files): mean ± sample sd (n-1) of each run's paper figures per language "
                            "and Average, and how many programs got the same answer in every run")
    score.add_argument("--format", choices=FORMATS, default="text",
                       help="table format: aligned text, Markdown, LaTeX tabular, CSV or JSON (--over-runs: no LaTeX)")
    score.add_argument("-o", "--output", metavar="FILE", help="write the table to FILE instead of stdout")
    score.set_defaults(handler=results_commands.score)

    diff = commands.add_parser(
        "diff", help="one model's TP / FP / FN edges on one program",
        description="Show the true positives, false positives (predicted, not in the ground truth) and false "
                    "negatives (missed) of one model on one program, after normalisation.")
    instance_arg(diff)
    diff.add_argument("--model", required=True, help="model name (see 'traceeval models')")
    diff.add_argument("--dataset", help=DATASET_HELP)
    _workspace_args(diff)
    _modes_args(diff)
    format_option(diff, ("text", "json", "jsonl", "csv"),
                  help="text: counts, scores and one 'TP/FP/FN caller -> callee' line per edge; json: the edge "
                       "lists, scores and parse problems; jsonl, csv: one edge per line with its class")
    diff.set_defaults(handler=results_commands.diff)

    export = commands.add_parser(
        "export-results", help="write a model's predictions as released results files (with metrics)",
        description="Write <model>_<language>_t0.0_r0.json files in the released format, with per-program "
                    "metrics and edge_diff and aggregate_metrics computed by this tool, so the authors' "
                    "scripts can read them.")
    _dataset_args(export)
    export.add_argument("--model", required=True, help="model name (see 'traceeval models')")
    export.add_argument("--out", required=True, metavar="DIR", help="folder to write the files into")
    export.add_argument("--timestamp", help="timestamp to record instead of now (for reproducible files)")
    _modes_args(export)
    format_option(export, help="text: one 'wrote FILE' line each; json: the files written, as one document")
    export.set_defaults(handler=results_commands.export_results)

    models = commands.add_parser("models", help="list the models imported into the workspace")
    _dataset_args(models)
    format_option(models, ("text", "json", "jsonl", "csv"), help="text: one line per model; json: one document; "
                                                                "jsonl, csv: one model per line")
    models.set_defaults(handler=results_commands.models)

    trace = commands.add_parser(
        "trace", help="run one program under its language's tracer and print the call graph it witnessed",
        description="Run the program in the sandbox (a temporary copy, time/memory/process limits, no network, "
                    "no secrets) under the tracer and print a callgraph.json-compatible graph: every defined "
                    "function as a key in source order. The run is stored in the workspace (the newest runs of a "
                    "program are kept: --keep-runs). Exit status 1 when "
                    "the program did not run to completion (the graph of what ran is still printed).")
    trace.add_argument("program", metavar="PROGRAM_DIR", help="the program folder")
    trace.add_argument("--language", choices=registry.names(), help="language (default: guessed from the files)")
    trace.add_argument("--runs", type=int, default=1, metavar="N",
                       help="run N times and report edges seen in only some runs (non-determinism)")
    format_option(trace, help="text: the witnessed graph in the callgraph.json format (the release's own file "
                              "format, so it can be saved as one); json: the full trace run: status, timings, "
                              "nodes with spans, edges with call counts and call-site lines, unresolved frames, "
                              "output tails")
    trace.add_argument("--json", action="store_true", help="the same as --format json (kept for older scripts)")
    _trace_args(trace)
    _workspace_args(trace)
    trace.set_defaults(handler=trace_commands.trace)

    retrace = commands.add_parser(
        "retrace", help="re-trace every instance of a dataset; with --check, compare with the stored ground truth",
        description="Trace every selected instance (in parallel, resumable: an interrupted retrace continues "
                    "where it stopped; --fresh starts a new batch). Every run is kept in the workspace, up to "
                    "--keep-runs per program. With "
                    "--check, report per instance the edges only in the trace and only in the stored ground "
                    "truth, and a summary; exit status 1 unless every instance agrees.")
    _dataset_args(retrace)
    retrace.add_argument("--check", action="store_true", help="compare the runs with the stored ground truth")
    retrace.add_argument("--jobs", type=int, default=trace_commands.default_jobs(), metavar="N",
                         help="programs traced at once (default: the number of CPUs)")
    retrace.add_argument("--runs", type=int, default=1, metavar="N", help="runs per program (default 1)")
    retrace.add_argument("--fresh", action="store_true", help="start a new batch instead of resuming the last one")
    retrace.add_argument("--instances", metavar="KEYS", help="comma-separated language/id keys (default: all)")
    retrace.add_argument("--languages", default=",".join(registry.names()), help="comma-separated languages")
    retrace.add_argument("--split", choices=("test", "train", "all"), default="all", help="programs to trace")
    format_option(retrace, ("text", "json", "jsonl", "csv"),
                  help="the --check report: text, json (one document), jsonl (one instance per line) or csv (one "
                       "differing edge per line); without --check, json is the batch's summary")
    retrace.add_argument("--all", action="store_true", help="list agreeing instances too in the text report")
    retrace.add_argument("-o", "--output", metavar="FILE", help="write the --check report to FILE")
    _trace_args(retrace)
    retrace.set_defaults(handler=trace_commands.retrace)

    doctor = commands.add_parser("doctor", help="which toolchains and sandbox features work on this machine")
    format_option(doctor, ("text", "json", "jsonl", "csv"), help="text: one line per check; json: one document; "
                                                                "jsonl, csv: one check per line")
    doctor.set_defaults(handler=trace_commands.doctor)

    view_commands.register(commands, DATASET_HELP, _dataset_args, _workspace_args, _modes_args)
    model_commands.register(commands, DATASET_HELP, _dataset_args, _workspace_args)
    audit_commands.register(commands, DATASET_HELP, _workspace_args,  # audits read edges as the paper does
                            lambda parser: _modes_args(parser, with_rules=False))
    build_commands.register(commands)
    parity_commands.register(commands, _dataset_args, _selection_args)
    finetune_commands.register(commands, _dataset_args)
    inspect_commands.register(commands, DATASET_HELP, _workspace_args)
    export_commands.register(commands, _dataset_args, _modes_args)
    baseline_commands.register(commands, _dataset_args, _selection_args)
    batch_commands.register(commands, _dataset_args)
    return parser


def _trace_args(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--timeout", type=float, default=30.0, metavar="SECONDS",
                        help="wall-clock limit per run (default 30)")
    parser.add_argument("--keep-runs", type=int, metavar="N",
                        help="runs kept per program in the workspace: older ones are removed, and the command says "
                             "so (default $TRACEEVAL_KEEP_RUNS, else 20)")


def _dataset_args(parser: argparse.ArgumentParser, workspace: bool = True) -> None:
    parser.add_argument("dataset", metavar="DATASET", nargs="?", help=DATASET_HELP)
    parser.add_argument("--splits", metavar="DIR", help="folder with test_ids.json, train_ids.json and "
                        "<language>_repo_assignment.json (default: DATASET/traceeval_split)")
    if workspace:
        _workspace_args(parser)


def _workspace_args(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--workspace", metavar="FILE", help="workspace database (default: one per dataset in "
                        "the user data folder, or $TRACEEVAL_WORKSPACE_DIR)")


def _modes_args(parser: argparse.ArgumentParser, with_rules: bool = True) -> None:
    group = parser.add_mutually_exclusive_group()
    group.add_argument("--modes", default=",".join(MODES),
                       help=f"normalisation modes, comma-separated, or 'all' / 'none' (default: {','.join(MODES)})")
    group.add_argument("--no-normalize", action="store_true", help="compare names exactly (same as --modes none)")
    if with_rules:
        rules_option(parser)


def _selection_args(parser: argparse.ArgumentParser, with_modes: bool = True) -> None:
    if with_modes:
        _modes_args(parser)
    parser.add_argument("--split", choices=("test", "train", "all"),
                        help="programs to score (default: test when the dataset has split files, else all)")
    parser.add_argument("--languages", default=",".join(registry.names()),
                        help="comma-separated languages (default: all)")
    parser.add_argument("--repo", metavar="PATTERN", help="only repositories matching this glob pattern")


def _version() -> str:
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version("traceeval-studio")
    except PackageNotFoundError:
        return "unknown (not installed)"


def main(argv: list[str] | None = None) -> int:
    """Run one command; whatever it prints passes through `core.report.terminal_text` (names, answers and program
    output may hold terminal control sequences)."""
    stdout, stderr = sys.stdout, sys.stderr
    sys.stdout, sys.stderr = SafeTerminalStream(stdout), SafeTerminalStream(stderr)
    try:
        return _run(argv)
    finally:
        sys.stdout, sys.stderr = stdout, stderr


def _run(argv: list[str] | None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    logging.basicConfig(level=logging.INFO if args.verbose else logging.WARNING,
                        format="%(levelname)s %(name)s: %(message)s")
    try:
        return args.handler(args)
    except TraceEvalError as error:
        print(f"traceeval: error: {error}", file=sys.stderr)
        return 2
    except BrokenPipeError:
        return 0
    except KeyboardInterrupt:
        print("traceeval: interrupted", file=sys.stderr)
        return 130


if __name__ == "__main__":
    sys.exit(main())
