"""`traceeval baseline TOOL [DATASET]`: a static call-graph analyzer run on every program, stored as a model.

The graphs are stored as model `static:<tool>` (see core.baselines), so `traceeval score`, `compare`, the audits
and the window treat them as any model's answers. `--list` says which analyzers can run here and why not.
"""
from __future__ import annotations

import sys
import threading

TOOL_NAMES = ("pycg", "pyan3", "code2flow", "wala")  # tracers.static.TOOLS, named here so --help imports no tracer


def register(commands, dataset_args, selection_args) -> None:
    from traceeval_gui.cli.common import format_option

    baseline = commands.add_parser(
        "baseline", help="run a static call-graph analyzer (PyCG, pyan3, code2flow) as model static:TOOL",
        description="Run a static call-graph analyzer on every selected program in the sandbox, name its nodes "
                    "with TraceEval's names through the programs' symbol tables, and store its graphs as model "
                    "static:TOOL, scored, compared and audited like any model. Programs already analysed by the "
                    "same tool version are skipped (the run resumes).")
    baseline.add_argument("tool", metavar="TOOL", nargs="?", choices=TOOL_NAMES,
                          help=f"the analyzer: {', '.join(TOOL_NAMES)}")
    dataset_args(baseline)
    selection_args(baseline, with_modes=False)
    baseline.add_argument("--jobs", type=int, default=2, metavar="N", help="programs analysed at once (default 2)")
    baseline.add_argument("--timeout", type=float, default=60.0, metavar="SECONDS",
                          help="wall-clock limit per program (default 60)")
    baseline.add_argument("--list", action="store_true",
                          help="list the analyzers, their languages, and whether each can run here (and why not)")
    format_option(baseline, ("text", "json"))
    baseline.set_defaults(handler=run_baseline_command)


def run_baseline_command(args) -> int:
    from core.errors import UsageError

    if args.list:
        return _list(args)
    if not args.tool:
        raise UsageError("name an analyzer (one of " + ", ".join(TOOL_NAMES) + "), or use --list")
    return _run(args)


def _list(args) -> int:
    from core.languages import get
    from traceeval_gui.cli.common import print_document
    from tracers.static import TOOLS, tool_status

    statuses = [tool_status(name) for name in TOOLS]
    if args.format == "json":
        body = {"analyzers": [{"tool": s.tool, "model": f"static:{s.tool}", "available": s.available,
                               "tool_version": s.version, "problem": s.problem, "languages": s.languages}
                              for s in statuses]}
        print_document("baselines", body)
    else:
        for status in statuses:
            state = f"{status.version}" if status.available else "unavailable"
            print(f"{status.tool:<10} {state:<12} {status.problem}")
            for language, why in status.languages.items():
                print(f"  {get(language).title:<12} {'ok' if not why else 'no: ' + why}")
    return 0 if all(s.available for s in statuses if not TOOLS[s.tool].gap) else 1  # wala: listed, not built


def analyzer_rows() -> list[tuple[str, bool, str]]:
    """`traceeval doctor`'s lines for the analyzers (name, can run, detail): the check `--list` makes."""
    from core.languages import get
    from tracers.static import TOOLS, tool_status

    rows = []
    for status in (tool_status(name) for name in TOOLS):
        languages = ", ".join(get(language).title + (f" (not: {why})" if why else "")
                              for language, why in status.languages.items())
        rows.append((f"static analyzer: {status.tool}", status.available,
                     status.problem or f"{status.version}; {languages}"))
    return rows


def _run(args) -> int:
    from core.errors import UsageError
    from traceeval_gui.cli.common import ProgressLine, open_workspace, print_document, selection_from, sigint_sets
    from tracers.static import tool_status
    from tracers.static.runner import limits_for, run_baseline

    status = tool_status(args.tool)
    if not status.available:
        raise UsageError(f"{args.tool} cannot run here: {status.problem or '; '.join(status.languages.values())}")
    if args.jobs < 1 or args.timeout <= 0:
        raise UsageError("--jobs and --timeout must be positive")
    limits = limits_for(args.timeout)
    ws, _ = open_workspace(args)
    with ws:
        keys = [row.key for row in selection_from(args, ws).rows(ws)]
        cancel = threading.Event()
        with sigint_sets(cancel, "stopping: finished programs are kept; run the same command again to resume"):
            report = run_baseline(ws, args.tool, keys, jobs=args.jobs, limits=limits, cancel=cancel,
                                  progress=ProgressLine(f"{args.tool}", minimum_total=1))
    if args.format == "json":
        body = {"tool": report.tool, "tool_version": report.version, "model": report.model, "selected": report.selected,
                "analysed": report.analysed, "skipped": report.skipped, "unsupported": report.unsupported,
                "failed": report.failed, "outside_edges": report.outside, "cancelled": report.cancelled,
                "seconds": round(report.seconds, 3), "problems": report.problems}
        print_document("baseline-run", body)
    else:
        for line in report.problems:
            print(f"traceeval: {line}", file=sys.stderr)
        print(report.summary())
    return 1 if report.cancelled else 0
