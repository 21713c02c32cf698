"""The trace log every runtime helper writes, and how a `TraceRun` is assembled from it.

Runtimes (the code that runs inside the traced process) append JSON arrays, one per line,
to the file named by `$TRACEEVAL_LOG`:

    ["E", caller, callee, line]          an edge seen for the first time at this call-site line
                                         (written and flushed at once, so a killed run keeps it)
    ["C", caller, callee, line, count]   final call count for that (caller, callee, line)
    ["U", frame, reason, count]          a frame that could not be named
    ["X", "ValueError: bad input (main.py:12)"]   the uncaught exception that ended the program
    ["W", "warning text"]                anything else worth telling the user
    ["P", language, pid, argv]           (a child's own log) who wrote it: see `child_processes`
    ["S", pid, argv]                     this process started a program (pid 0 when it is not known)
    ["Q", pid, exit code or null]        a program it started ended

`caller`/`callee` are frame ids the language module maps to TraceEval names (JavaScript
writes names directly). `line` is the call-site line in the caller's file, 0 when unknown.
A truncated last line (the process was killed mid-write) is ignored.
"""
from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING

from core import traces
from core.records import Node
from core.safe_files import read_bytes, why_unreadable
from core.traces import EdgeEvidence, TraceRun, UnresolvedFrame
from tracers.sandbox import Limits, SandboxResult

if TYPE_CHECKING:
    from tracers.base import Tracer

LOG_ENV = "TRACEEVAL_LOG"

Site = tuple[str, str, int]  # (caller frame, callee frame, call-site line)


@dataclass
class RawTrace:
    seen: dict[Site, None] = field(default_factory=dict)  # first-sighting order
    counts: dict[Site, int] = field(default_factory=dict)
    unresolved: dict[tuple[str, str], int] = field(default_factory=dict)
    exception: str = ""
    warnings: list[str] = field(default_factory=list)
    process: tuple[str, int, tuple[str, ...]] | None = None  # P: (language, pid, argv) of a child's log
    spawns: list[tuple[int, tuple[str, ...]]] = field(default_factory=list)  # S, in order
    exits: dict[int, int | None] = field(default_factory=dict)  # Q


LOG_LINES = 2_000_000  # distinct call sites a run can report; past it the rest is ignored


def read_log(path: Path, limits: Limits) -> RawTrace:
    """The records of a trace log, read by the bounded reader (a regular file of at most `limits.file_mb`
    MiB, the most the program could write under its file-size limit) and at most LOG_LINES lines: the
    program could write junk to it, it cannot replace it."""
    raw = RawTrace()
    try:
        data = read_bytes(path, limits.file_mb * 1024 * 1024)
    except FileNotFoundError:
        return raw
    except OSError as error:
        raw.warnings.append(f"the trace log was not read: {why_unreadable(error)}")
        return raw
    return parse_log(data, raw)


def parse_log(data: bytes, raw: RawTrace | None = None) -> RawTrace:
    """The records of a log's bytes (into `raw`, or a new RawTrace); junk lines are skipped."""
    raw = raw if raw is not None else RawTrace()
    lines = data.decode("utf-8", errors="replace").splitlines()
    if len(lines) > LOG_LINES:
        raw.warnings.append(f"the trace log has over {LOG_LINES:,} lines: the rest is ignored")
        del lines[LOG_LINES:]
    for line in lines:
        try:
            record = json.loads(line)
            kind = record[0]
            if kind == "E":
                raw.seen[(str(record[1]), str(record[2]), int(record[3]))] = None
            elif kind == "C":
                site = (str(record[1]), str(record[2]), int(record[3]))
                raw.seen[site] = None
                raw.counts[site] = raw.counts.get(site, 0) + int(record[4])
            elif kind == "U":
                key = (str(record[1]), str(record[2]))
                raw.unresolved[key] = raw.unresolved.get(key, 0) + int(record[3])
            elif kind == "X":
                raw.exception = str(record[1])
            elif kind == "W":
                raw.warnings.append(str(record[1]))
            elif kind in ("P", "S", "Q"):
                _process_record(record, raw)
        except (ValueError, IndexError, TypeError):
            continue  # a line cut short by a kill, or garbage written by the program
    return raw


ARGV_ITEMS = 24  # of a child's argv kept, each cut to ARGV_CHARS
ARGV_CHARS = 200
SPAWNS = 1000  # programs started, per log


def bounded_argv(value: object) -> tuple[str, ...]:
    """A program's argv as the run keeps it: at most ARGV_ITEMS strings of at most ARGV_CHARS."""
    items = value if isinstance(value, list) else []
    kept = tuple(str(item)[:ARGV_CHARS] for item in items[:ARGV_ITEMS])
    return (*kept, f"[... {len(items) - ARGV_ITEMS} more]") if len(items) > ARGV_ITEMS else kept


def _process_record(record: list, raw: RawTrace) -> None:
    """P, S and Q records: who wrote a child's log, what a process started and how that ended."""
    kind = record[0]
    if kind == "P":
        raw.process = (str(record[1])[:40], int(record[2]), bounded_argv(record[3]))
    elif kind == "S" and len(raw.spawns) < SPAWNS:
        raw.spawns.append((int(record[1]), bounded_argv(record[2])))
    elif kind == "Q":
        code = record[2]
        raw.exits[int(record[1])] = None if code is None else int(code)


def now_iso() -> str:
    return datetime.now(UTC).isoformat(timespec="seconds")


def stopped_run(tracer: Tracer, instance_key: str, started_at: str, status: str, message: str, *,
                nodes: Sequence[Node] = (), timings: dict[str, float] | None = None,
                stderr: str = "") -> TraceRun:
    """A run that ended before the program ran (no entry point, compile error, missing toolchain,
    a tracer bug): still a run, with the program's nodes so the graph has every key."""
    timings = timings or {}
    return TraceRun(instance_key=instance_key, language=tracer.language, tracer=tracer.name,
                    tracer_version=tracer.version, started_at=started_at, duration_s=sum(timings.values()),
                    status=status, message=message, nodes=tuple(nodes), stderr_tail=stderr, timings=timings)


def build_run(*, instance_key: str, language: str, tracer: str, version: str, started_at: str,
              nodes: Sequence[Node], raw: RawTrace, result: SandboxResult | None, limits: Limits,
              name_of: Callable[[str], str | None], keep_self_edges: bool,
              timings: dict[str, float], warnings: Sequence[str] = ()) -> TraceRun:
    """Map raw frames to names, aggregate per edge, and classify how the run ended.

    `name_of(frame)` gives a frame's TraceEval name, or None when it cannot be named (the frame
    is then listed as unresolved and its edges left out). Self-edges are dropped unless
    `keep_self_edges` (Java keeps recursion, as the released data does).
    """
    edges: dict[tuple[str, str], list] = {}  # (caller, callee) -> [count, lines, count_known]
    unresolved = dict(raw.unresolved)
    for site in raw.seen:
        caller_frame, callee_frame, line = site
        caller, callee = name_of(caller_frame), name_of(callee_frame)
        for frame, name in ((caller_frame, caller), (callee_frame, callee)):
            if name is None:
                key = (frame, "no node of the program matches this frame")
                unresolved[key] = unresolved.get(key, 0) + raw.counts.get(site, 1)
        if caller is None or callee is None or (caller == callee and not keep_self_edges):
            continue
        entry = edges.setdefault((caller, callee), [0, set(), True])
        if site in raw.counts:
            entry[0] += raw.counts[site]
        else:
            entry[0] += 1
            entry[2] = False
        if line > 0:
            entry[1].add(line)
    evidence = tuple(EdgeEvidence(caller, callee, count, tuple(sorted(lines)), known)
                     for (caller, callee), (count, lines, known) in edges.items())
    status, message, exit_code = classify(result, raw, limits, len(evidence))
    return TraceRun(
        instance_key=instance_key, language=language, tracer=tracer, tracer_version=version,
        started_at=started_at, duration_s=sum(timings.values()), status=status, message=message,
        exit_code=exit_code, nodes=tuple(nodes), edges=evidence,
        unresolved=tuple(UnresolvedFrame(frame, reason, count)
                         for (frame, reason), count in unresolved.items()),
        warnings=tuple(dict.fromkeys([*warnings, *raw.warnings])),
        stdout_tail=result.stdout if result else "", stderr_tail=result.stderr if result else "",
        timings=timings, sandbox=result.isolation if result else "")


def classify(result: SandboxResult | None, raw: RawTrace, limits: Limits,
             edge_count: int) -> tuple[str, str, int | None]:
    """(status, one-line message, exit code) for a finished sandboxed run."""
    if result is None:
        return traces.TRACER_ERROR, "the program was not run", None
    if result.refused:
        return traces.TOOLCHAIN_MISSING, result.refused, None
    kept = f"; {edge_count} edge(s) seen before it was stopped are kept"
    if result.cancelled:
        return traces.KILLED, f"cancelled by the user{kept}", None
    reason = result.limit_reason
    if reason == "wall-clock time limit":
        return traces.TIMEOUT, f"killed after {limits.wall_s:g} s (wall-clock time limit){kept}", None
    if reason == "CPU time limit":
        return traces.TIMEOUT, f"killed after {limits.cpu_s} s of CPU time (CPU limit){kept}", None
    if reason == "output size limit":
        return traces.LIMIT, f"killed: printed more than {limits.output_bytes // 2**20} MiB{kept}", None
    if reason == "child log limit":
        return traces.LIMIT, f"stopped: {result.child_logs_limited}{kept}", None
    if reason == "memory limit":
        return traces.LIMIT, f"killed: used more than {limits.memory_mb} MiB of memory (memory limit){kept}", None
    if reason == "process limit":
        return traces.LIMIT, f"stopped: more than {limits.processes} processes/threads{kept}", None
    if reason == "file size limit":
        return traces.LIMIT, f"killed: wrote a file over {limits.file_mb} MiB{kept}", None
    if raw.exception:
        return traces.EXCEPTION, f"uncaught exception: {raw.exception}", result.exit_code
    if result.signal is not None:
        return traces.KILLED, f"killed by signal {_signal_name(result.signal)}{kept}", None
    if result.exit_code:
        return traces.EXIT_CODE, f"exited with code {result.exit_code}", result.exit_code
    return traces.OK, f"ran to completion in {result.duration_s:.2f} s", 0


def _signal_name(number: int) -> str:
    import signal

    try:
        return signal.Signals(number).name
    except ValueError:
        return str(number)
