"""`traceeval trace | retrace | doctor`: run the tracers, check stored ground truth, check toolchains."""
from __future__ import annotations

import json
import os
import sys
import threading
from pathlib import Path

from core.dataset.layout import load_program_folder
from core.dataset.workspace import KEEP_RUNS_ENV, Workspace, default_workspace_path, runs_kept
from core.errors import UsageError
from core.scoring import replay
from core.scoring.scores import parse_languages
from core.traces import TraceRun
from core.user_folders import folder_rows
from core.wording import count
from traceeval_gui.cli.baseline_commands import analyzer_rows
from traceeval_gui.cli.common import ProgressLine, open_workspace, print_document, records_text
from tracers import check_toolchains, trace_instance
from tracers.base import TraceOptions
from tracers.retrace import retrace as retrace_instances
from tracers.sandbox import Limits
from tracers.sandbox_doctor import sandbox_report
from tracers.tracelog import now_iso

BATCH_SETTING = "retrace_batch"


def trace(args) -> int:
    folder = Path(args.program).expanduser().resolve()
    instance = load_program_folder(args.program, args.language)
    keep = _keep_runs(args)
    run = trace_instance(instance, _options(args), runs=args.runs)
    workspace_path = Path(args.workspace) if args.workspace else default_workspace_path(folder)
    with Workspace(workspace_path) as ws:
        stored = ws.store_run(run, keep=keep)
    if args.json or args.format == "json":
        print_document("trace-run", run.to_dict())
    else:  # the ground-truth file format itself (callgraph.json), so it is written as the release writes it
        print(json.dumps(run.graph.to_dict(), indent=2))
    print(f"traceeval: {instance.key}: {run.status}: {run.message} (run #{stored.id} in {workspace_path})",
          file=sys.stderr)
    for note in [stored.pruned_note(instance.key), *run_notes(run)]:
        if note:
            print(f"traceeval: {note}", file=sys.stderr)
    return 0 if run.status == "ok" else 1


SHOWN = 3  # of a run's unstable edges, unresolved frames or children named on stderr; all are in --format json


def run_notes(run: TraceRun) -> list[str]:
    """One line each about the run's unstable edges, unresolved frames and child processes (when it has any),
    naming the first SHOWN: a program can make thousands of them."""
    def named(items: list[str], separator: str = ", ") -> str:
        more = f" and {len(items) - SHOWN:,} more (all of them: --format json)" if len(items) > SHOWN else ""
        return separator.join(item[:200] for item in items[:SHOWN]) + more

    notes = []
    unstable = run.unstable_edges()
    if unstable:
        notes.append(f"{count(len(unstable), 'edge')} seen in only some of the {run.runs} runs: "
                     + named([f"{e.caller} -> {e.callee} ({e.runs_seen}/{run.runs})" for e in unstable]))
    if run.unresolved:
        calls = min(sum(frame.count for frame in run.unresolved), 2**63 - 1)
        notes.append(f"{count(len(run.unresolved), 'unresolved frame')} ({count(calls, 'call')}): "
                     + named([f"{frame.frame} ({frame.reason})" for frame in run.unresolved]))
    if run.children:
        notes.append(f"{count(len(run.children), 'child process')}: "
                     + named([child.summary() for child in run.children], "; "))
    return notes


def retrace(args) -> int:
    if not args.check and args.format in ("jsonl", "csv"):  # said before any program is traced
        raise UsageError(f"--format {args.format} lists the --check report's instances: add --check")
    ws, _ = open_workspace(args)
    with ws:
        keys = _selected_keys(args, ws)
        batch = ws.setting(BATCH_SETTING)
        if args.fresh or batch is None:
            batch = f"retrace-{now_iso()}"
            ws.set_setting(BATCH_SETTING, batch)
        cancel = threading.Event()
        try:
            report = retrace_instances(ws, keys, batch=batch, jobs=args.jobs, runs=args.runs, options=_options(args),
                                       progress=ProgressLine("tracing", minimum_total=1), cancel=cancel,
                                       keep=_keep_runs(args))
        except KeyboardInterrupt:
            cancel.set()
            raise
        statuses = ", ".join(f"{n} {status}" for status, n in sorted(report.statuses.items())) or "nothing new"
        print(f"traceeval: batch {batch}: traced {report.traced}, already done {report.skipped} "
              f"({statuses}; {report.seconds:.1f} s, {report.per_second:.1f} programs/s)", file=sys.stderr)
        if report.pruned:
            print(f"traceeval: removed {count(report.pruned, 'older run')} of "
                  f"{count(report.pruned_programs, 'program')}, keeping the newest {report.kept} of each "
                  f"(--keep-runs, ${KEEP_RUNS_ENV})", file=sys.stderr)
        if not args.check:
            if args.format == "json":
                print_document("retrace", {"batch": batch, "traced": report.traced, "skipped": report.skipped,
                                           "statuses": dict(sorted(report.statuses.items())),
                                           "seconds": report.seconds})
            return 0
        runs = ws.latest_runs(batch)
        truths = ws.ground_truths(keys)
        diffs = [replay.compare_run(runs[key], truths[key]) for key in keys if key in runs]
    summary = replay.summarise(diffs)
    if args.format == "csv":
        text = replay.to_csv(diffs)
    elif args.format == "jsonl":
        text = records_text(replay.instance_records(diffs), "jsonl")
    elif args.format == "json":
        text = replay.to_json(diffs, summary)
    else:
        text = replay.render_text(diffs, summary, show_agreeing=args.all)
    _write(text, args.output)
    if args.output or args.format != "text":
        print(f"traceeval: {replay.summary_line(summary)}", file=sys.stderr)
    return 0 if summary.full_agreement else 1


def doctor(args) -> int:
    from tracers.java_doctor import jdk_rows  # here: it imports the Java tracer (tree-sitter), slow for startup
    from tracers.python import backend_rows as python_backend_rows  # here too: it loads tree-sitter

    def checks(found: list[tuple[str, bool, str]], optional: bool) -> list[dict]:
        return [{"check": name, "ok": ok, "detail": detail, "optional": optional} for name, ok, detail in found]

    chosen_jdk, other_jdks = jdk_rows()  # only the chosen JDK must work
    # in the order shown: what traces, the sandbox around it, `traceeval baseline`'s analyzers, the user folders;
    # optional checks (other JDKs, each Python's backend, the analyzers) do not count in the exit status
    records = (checks([(f"tracer: {s.language}", s.ok, s.detail) for s in check_toolchains()], False)
               + checks(chosen_jdk, False) + checks(other_jdks, True) + checks(python_backend_rows(), True)
               + checks(sandbox_report(), False) + checks(analyzer_rows(), True) + checks(folder_rows(), True))
    status = 0 if all(record["ok"] for record in records if not record["optional"]) else 1
    if args.format == "json":
        print_document("doctor", {"checks": records, "all_ok": status == 0})
    elif args.format != "text":
        print(records_text(records, args.format, ("check", "ok", "detail", "optional")), end="")
    else:
        width = max(len(record["check"]) for record in records)
        for record in records:
            print(f"{record['check']:<{width}}  {'ok ' if record['ok'] else 'NO '}  {record['detail']}")
    return status


def _selected_keys(args, ws: Workspace) -> list[str]:
    if args.instances:
        keys = [key.strip() for key in args.instances.split(",") if key.strip()]
        unknown = [key for key in keys if not ws.has_instance(key)]
        if unknown:
            raise UsageError(f"not in the dataset: {', '.join(unknown)} (use language/id, e.g. python/calcpad_0001)")
        return keys
    try:
        languages = parse_languages(args.languages)
    except ValueError as error:
        raise UsageError(str(error)) from None
    split = None if args.split == "all" else args.split
    return [row.key for row in ws.instance_rows(languages, split)]


def _keep_runs(args) -> int:
    """`--keep-runs`, else `$TRACEEVAL_KEEP_RUNS`, else the default; said before any program is traced."""
    if args.keep_runs is not None and args.keep_runs < 1:
        raise UsageError(f"--keep-runs must be at least 1, got {args.keep_runs}")
    return args.keep_runs if args.keep_runs is not None else runs_kept()


def _options(args) -> TraceOptions:
    if args.timeout <= 0:
        raise UsageError(f"--timeout must be positive, got {args.timeout}")
    return TraceOptions(limits=Limits(wall_s=args.timeout))


def _write(text: str, output: str | None) -> None:
    text = text if text.endswith("\n") else text + "\n"  # one newline at the end, never a blank line
    if output:
        Path(output).write_text(text, encoding="utf-8")
    else:
        print(text, end="")


def default_jobs() -> int:
    return max(1, min(os.cpu_count() or 1, 8))
