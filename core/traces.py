"""`TraceRun`: what one execution of a program under a tracer witnessed (docs/design.md "Core data").

A run keeps every defined node (with its span, in source order: the `callgraph.json` keys),
the edges it saw with their evidence (call count, call-site lines in the caller), the frames
it could not name, a status with a one-line message, timings and the tails of the program's
output. Runs are plain data: `to_dict`/`from_dict` are the JSON form stored in the workspace
and printed by `traceeval trace --json`.
"""
from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace

from core.records import CallGraph, Edge, Node

# Statuses, from best to worst. Every run has exactly one; `message` says what happened.
OK = "ok"  # the program ran to completion and exited 0
EXIT_CODE = "exit_code"  # the program exited with a non-zero code (sys.exit(3), System.exit(1))
EXCEPTION = "exception"  # an uncaught exception ended the program
TIMEOUT = "timeout"  # wall-clock or CPU time limit reached; the process tree was killed
LIMIT = "limit"  # memory, file size, process count or output limit reached; killed
KILLED = "killed"  # ended by a signal for another reason
UNTRUSTED = "untrusted"  # the trace log shows tampering (forged, missing or replayed records, a cut log)
COMPILE_ERROR = "compile_error"  # syntax or compile errors: the program never ran
NO_ENTRY_POINT = "no_entry_point"  # nothing to run
TOOLCHAIN_MISSING = "toolchain_missing"  # Node, a JDK or the sandbox is not available
TRACER_ERROR = "tracer_error"  # the tracer itself failed (a bug: please report it)
STATUSES = (OK, EXIT_CODE, EXCEPTION, TIMEOUT, LIMIT, KILLED, UNTRUSTED, COMPILE_ERROR, NO_ENTRY_POINT,
            TOOLCHAIN_MISSING, TRACER_ERROR)
RAN = frozenset({OK, EXIT_CODE, EXCEPTION, TIMEOUT, LIMIT, KILLED, UNTRUSTED})  # the program started


@dataclass(frozen=True)
class EdgeEvidence:
    """One witnessed call edge. `lines` are call-site lines in the caller's file (sorted).

    `count` is the number of calls seen; `count_known` is False when the process was killed
    before it could report counts (the edge was seen, the count is a lower bound).
    `runs_seen` counts the runs of a `--runs N` trace that saw the edge.
    """

    caller: str
    callee: str
    count: int = 1
    lines: tuple[int, ...] = ()
    count_known: bool = True
    runs_seen: int = 1

    @property
    def edge(self) -> Edge:
        return (self.caller, self.callee)


@dataclass(frozen=True)
class UnresolvedFrame:
    """A frame the tracer saw but could not name (so edges through it may be missing)."""

    frame: str  # e.g. "util.py:12 <genexpr>" or "Main$1.run()V"
    reason: str
    count: int = 1


@dataclass(frozen=True)
class ChildProcess:
    """A process the program started. Children of the program's own language are traced (`traced`) and
    their edges merged into the run; `edges` are the ones this child saw. Other programs are listed only."""

    argv: tuple[str, ...]  # as started, each argument and the list cut short (`child_processes`)
    language: str = ""  # the tracer's language when traced, else ""
    traced: bool = False
    exit_code: int | None = None  # None when unknown (still running when the run ended, or not reported)
    edges: tuple[Edge, ...] = ()

    def summary(self) -> str:
        """One line naming it: `python worker.py 3 (traced python, exit 0, 4 edge(s))`."""
        argv = " ".join(self.argv)
        argv = argv if len(argv) <= 120 else argv[:117] + "..."
        ended = "exit code unknown" if self.exit_code is None else f"exit {self.exit_code}"
        if self.traced:
            return f"{argv} (traced {self.language}, {ended}, {len(self.edges)} edge(s))"
        return f"{argv} (not traced: another program, {ended})"

    def to_dict(self) -> dict:
        return {"argv": list(self.argv), "language": self.language, "traced": self.traced,
                "exit_code": self.exit_code, "edges": [list(edge) for edge in self.edges]}

    @classmethod
    def from_dict(cls, data: Mapping) -> ChildProcess:
        return cls(argv=tuple(str(a) for a in data.get("argv", ())), language=str(data.get("language", "")),
                   traced=bool(data.get("traced", False)), exit_code=data.get("exit_code"),
                   edges=tuple((str(e[0]), str(e[1])) for e in data.get("edges", ())))


@dataclass(frozen=True)
class TraceRun:
    """One traced run of a program (or N runs combined): how it ended, the edges it witnessed with their evidence,
    the frames that could not be named, and the tails of its output."""

    instance_key: str  # `language/id`, or the program folder for an ad-hoc trace
    language: str
    tracer: str
    tracer_version: str
    started_at: str  # ISO 8601, UTC
    duration_s: float
    status: str
    message: str
    exit_code: int | None = None
    nodes: tuple[Node, ...] = ()
    edges: tuple[EdgeEvidence, ...] = ()
    unresolved: tuple[UnresolvedFrame, ...] = ()
    warnings: tuple[str, ...] = ()
    stdout_tail: str = ""
    stderr_tail: str = ""
    timings: Mapping[str, float] = field(default_factory=dict)  # phase -> seconds
    runs: int = 1
    sandbox: str = ""  # how the program was isolated, e.g. "bwrap (network cut, read-only host)"
    children: tuple[ChildProcess, ...] = ()  # processes the program started, in the order seen

    @property
    def graph(self) -> CallGraph:
        """The `callgraph.json` form: every defined node as a key in source order."""
        return CallGraph.from_edges((e.edge for e in self.edges), (n.name for n in self.nodes))

    @property
    def ran(self) -> bool:
        return self.status in RAN

    def unstable_edges(self) -> tuple[EdgeEvidence, ...]:
        """Edges seen in only some of the runs (non-determinism), for `--runs N`."""
        return tuple(e for e in self.edges if e.runs_seen < self.runs)

    def to_dict(self) -> dict:
        return {
            "instance": self.instance_key, "language": self.language, "tracer": self.tracer,
            "tracer_version": self.tracer_version, "started_at": self.started_at,
            "duration_s": round(self.duration_s, 4), "status": self.status, "message": self.message,
            "exit_code": self.exit_code, "runs": self.runs, "sandbox": self.sandbox,
            "nodes": [_node_dict(n) for n in self.nodes],
            "edges": [{"caller": e.caller, "callee": e.callee, "count": e.count, "lines": list(e.lines),
                       "count_known": e.count_known, "runs_seen": e.runs_seen} for e in self.edges],
            "unresolved": [{"frame": u.frame, "reason": u.reason, "count": u.count} for u in self.unresolved],
            "warnings": list(self.warnings), "timings": {k: round(v, 4) for k, v in self.timings.items()},
            "stdout_tail": self.stdout_tail, "stderr_tail": self.stderr_tail,
            "children": [child.to_dict() for child in self.children],
        }

    @classmethod
    def from_dict(cls, data: Mapping) -> TraceRun:
        return cls(
            instance_key=data["instance"], language=data["language"], tracer=data["tracer"],
            tracer_version=data["tracer_version"], started_at=data["started_at"],
            duration_s=float(data["duration_s"]), status=data["status"], message=data["message"],
            exit_code=data.get("exit_code"), runs=int(data.get("runs", 1)), sandbox=data.get("sandbox", ""),
            nodes=tuple(Node(**n) for n in data.get("nodes", ())),
            edges=tuple(EdgeEvidence(e["caller"], e["callee"], int(e["count"]), tuple(e.get("lines", ())),
                                     bool(e.get("count_known", True)), int(e.get("runs_seen", 1)))
                        for e in data.get("edges", ())),
            unresolved=tuple(UnresolvedFrame(u["frame"], u["reason"], int(u.get("count", 1)))
                             for u in data.get("unresolved", ())),
            warnings=tuple(data.get("warnings", ())), timings=dict(data.get("timings", {})),
            stdout_tail=data.get("stdout_tail", ""), stderr_tail=data.get("stderr_tail", ""),
            children=tuple(ChildProcess.from_dict(c) for c in data.get("children", ())),
        )


def _node_dict(node: Node) -> dict:
    return {"name": node.name, "kind": node.kind, "file": node.file, "start_line": node.start_line,
            "start_col": node.start_col, "end_line": node.end_line, "end_col": node.end_col}


def combine_runs(runs: Sequence[TraceRun]) -> TraceRun:
    """One run standing for N repeats: the union of edges, each with how many runs saw it,
    counts and lines summed/merged; status and message of the worst run."""
    if not runs:
        raise ValueError("no runs to combine")
    if len(runs) == 1:
        return runs[0]
    merged: dict[Edge, EdgeEvidence] = {}
    for run in runs:
        for e in run.edges:
            old = merged.get(e.edge)
            merged[e.edge] = e if old is None else replace(
                old, count=old.count + e.count, lines=tuple(sorted(set(old.lines) | set(e.lines))),
                count_known=old.count_known and e.count_known, runs_seen=old.runs_seen + 1)
    worst = max(runs, key=lambda r: STATUSES.index(r.status) if r.status in STATUSES else len(STATUSES))
    unresolved: dict[tuple[str, str], int] = {}
    for run in runs:
        for u in run.unresolved:
            unresolved[(u.frame, u.reason)] = unresolved.get((u.frame, u.reason), 0) + u.count
    timings: dict[str, float] = {}
    for run in runs:
        for phase, seconds in run.timings.items():
            timings[phase] = timings.get(phase, 0.0) + seconds
    return replace(
        worst, started_at=runs[0].started_at, duration_s=sum(r.duration_s for r in runs),
        edges=tuple(merged.values()), runs=len(runs), timings=timings,
        unresolved=tuple(UnresolvedFrame(f, r, n) for (f, r), n in unresolved.items()),
        warnings=tuple(dict.fromkeys(w for r in runs for w in r.warnings)))

