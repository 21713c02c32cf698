"""How a `TraceRun` is made of a run's trace log (`trace_records`) and how the program ended.

`build_run` names the frames the runtimes logged, adds up each edge's calls and call-site lines and
classifies the run (`classify`: a log that shows tampering makes the run `untrusted` before anything
else); `stopped_run` is a run that ended before its program ran.
"""
from __future__ import annotations

from collections.abc import Callable, Sequence
from datetime import UTC, datetime
from typing import TYPE_CHECKING

from core import traces
from core.records import Node
from core.traces import EdgeEvidence, TraceRun, UnresolvedFrame
from tracers.trace_records import COUNT_MAX, MAX_UNRESOLVED, RawTrace, TraceLog

if TYPE_CHECKING:
    from tracers.base import Tracer
    from tracers.sandbox import Limits, SandboxResult


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
              nodes: Sequence[Node], result: SandboxResult | None, limits: Limits,
              name_of: Callable[[str], str | None], keep_self_edges: bool,
              timings: dict[str, float], warnings: Sequence[str] = ()) -> TraceRun:
    """Map raw frames to names, aggregate per edge, and classify how the run ended.

    `name_of(frame)` gives a frame's TraceEval name, or None when it cannot be named (the frame
    is then listed as unresolved and its edges left out). Self-edges are dropped unless
    `keep_self_edges` (Java keeps recursion, as the released data does). The logs of traced
    children join the program's (`TraceLog.merged`).
    """
    log = log_of(result)
    raw = log.merged()
    edges: dict[tuple[str, str], list] = {}  # (caller, callee) -> [count, lines, count_known]
    unresolved = _Unresolved(raw.unresolved, log.totals.unresolved_left_out)
    for site in raw.seen:
        caller_frame, callee_frame, line = site
        caller, callee = name_of(caller_frame), name_of(callee_frame)
        for frame, name in ((caller_frame, caller), (callee_frame, callee)):
            if name is None:
                unresolved.add((frame, "no node of the program matches this frame"), raw.counts.get(site, 1))
        if caller is None or callee is None or (caller == callee and not keep_self_edges):
            continue
        entry = edges.setdefault((caller, callee), [0, set(), True])
        if site in raw.counts:
            entry[0] = min(entry[0] + raw.counts[site], COUNT_MAX)
        else:
            entry[0] = min(entry[0] + 1, COUNT_MAX)
            entry[2] = False
        if line > 0:
            entry[1].add(line)
    evidence = tuple(EdgeEvidence(caller, callee, count, tuple(sorted(lines)), known)
                     for (caller, callee), (count, lines, known) in edges.items())
    status, message, exit_code = classify(result, raw, limits, len(evidence), log)
    return TraceRun(
        instance_key=instance_key, language=language, tracer=tracer, tracer_version=version,
        started_at=started_at, duration_s=sum(timings.values()), status=status, message=message,
        exit_code=exit_code, nodes=tuple(nodes), edges=evidence, unresolved=unresolved.frames(),
        warnings=tuple(dict.fromkeys([*warnings, *raw.warnings])),
        stdout_tail=result.stdout if result else "", stderr_tail=result.stderr if result else "",
        timings=timings, sandbox=result.isolation if result else "")


def log_of(result: SandboxResult | None) -> TraceLog:
    """The trace log a run's result holds (an empty one when the program did not run)."""
    return result.trace_log if result is not None and result.trace_log is not None else TraceLog()


class _Unresolved:
    """Unresolved frames with their calls: at most MAX_UNRESOLVED distinct ones, the rest in one entry."""

    def __init__(self, found: dict[tuple[str, str], int], left_out: int):
        self._found = dict(found)
        self._left_out = left_out

    def add(self, key: tuple[str, str], count: int) -> None:
        if key in self._found or len(self._found) < MAX_UNRESOLVED:
            self._found[key] = min(self._found.get(key, 0) + count, COUNT_MAX)
        else:
            self._left_out = min(self._left_out + count, COUNT_MAX)

    def frames(self) -> tuple[UnresolvedFrame, ...]:
        kept = [UnresolvedFrame(frame, reason, count) for (frame, reason), count in self._found.items()]
        if self._left_out:
            kept.append(UnresolvedFrame("[more frames]", f"not kept: over {MAX_UNRESOLVED:,} distinct unresolved "
                                        "frames", self._left_out))
        return tuple(kept)


def classify(result: SandboxResult | None, raw: RawTrace, limits: Limits, edge_count: int,
             log: TraceLog | None = None) -> tuple[str, str, int | None]:
    """(status, one-line message, exit code) for a finished sandboxed run: `untrusted` before anything else
    when its log shows tampering (`TraceLog.tampering`), with how the program ended after it."""
    status, message, exit_code = _ended(result, raw, limits, edge_count, log)
    ended_by_itself = (result is not None and result.exit_code is not None and result.limit_reason is None
                       and not result.cancelled)
    tampering = log.tampering(ended_by_itself) if log is not None and result is not None and not result.refused \
        else []
    if tampering:
        shown = "; ".join(tampering[:3]) + (f"; and {len(tampering) - 3} more" if len(tampering) > 3 else "")
        return traces.UNTRUSTED, f"the trace log cannot be trusted: {shown} (the program: {status}: {message})", \
            exit_code
    return status, message, exit_code


def _ended(result: SandboxResult | None, raw: RawTrace, limits: Limits, edge_count: int,
           log: TraceLog | None) -> tuple[str, str, int | None]:
    """How the program ended: (status, one-line message, exit code)."""
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
    if reason == "trace log limit" and log is not None:
        return traces.LIMIT, f"stopped: {log.limited}{kept}", None
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
