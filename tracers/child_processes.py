"""Child processes of a traced program: how each language's runtime traces them, and how the run lists them.

Each language's runtime passes the tracer on to children of its own language (Node: `NODE_OPTIONS`
and `execArgv`; Python: `python_runtime/children.py` rewrites a `sys.executable` child's argv;
Java: `JAVA_TOOL_OPTIONS`). A traced child writes its records to the run's log pipe like the
program (`tracers.trace_channel`), as a log of its own (its lineage, `python_runtime/log.py`),
with a key it gets from the supervisor for a one-time ticket its parent's runtime put in its
environment; a child started any other way (through a shell) has no key, and its records are not
used. Runtimes also log every program a process starts (`S`) and how it ended (`Q`), so children
of other languages are listed. The records of traced children join the run's (`TraceLog.merged`);
`child_facts` lists every program started, at most MAX_CHILDREN.
"""
from __future__ import annotations

from collections.abc import Callable

from core.records import Edge
from core.traces import ChildProcess
from tracers.trace_records import RawTrace, TraceLog

MAX_CHILDREN = 200  # programs listed a run (the rest are counted in a warning of the run)


def child_facts(log: TraceLog, name_of: Callable[[str], str | None],
                keep_self_edges: bool) -> tuple[ChildProcess, ...]:
    """Every process the program started: those that wrote a log are traced, with the edges they saw;
    the others (other languages, tools) are listed from their `S` records."""
    exits: dict[int, int | None] = {}
    spawns: list[tuple[int, tuple[str, ...]]] = []
    for each in log.logs.values():
        exits.update(each.exits)
        spawns += each.spawns
    traced = {child.process[1]: child for child in log.children if child.process is not None}
    facts: list[ChildProcess] = []
    listed: set[int] = set()
    for pid, argv in spawns:
        if pid in traced and pid not in listed:
            listed.add(pid)
            facts.append(_traced(traced[pid], exits.get(pid), name_of, keep_self_edges, argv))
        elif pid not in traced:
            facts.append(ChildProcess(argv=argv, exit_code=exits.get(pid) if pid else None))
    for pid, child in traced.items():
        if pid not in listed:
            facts.append(_traced(child, exits.get(pid), name_of, keep_self_edges, ()))
    if len(facts) > MAX_CHILDREN:  # said as bounded_argv says it
        facts[MAX_CHILDREN - 1:] = [ChildProcess(argv=(f"[... {len(facts) - MAX_CHILDREN + 1} more programs]",))]
    return tuple(facts)


def _traced(child: RawTrace, exit_code: int | None, name_of: Callable[[str], str | None],
            keep_self_edges: bool, spawned_as: tuple[str, ...]) -> ChildProcess:
    assert child.process is not None
    language, _, argv = child.process
    edges: dict[Edge, None] = {}
    for caller_frame, callee_frame, _ in child.seen:
        caller, callee = name_of(caller_frame), name_of(callee_frame)
        if caller is not None and callee is not None and (caller != callee or keep_self_edges):
            edges[(caller, callee)] = None
    return ChildProcess(argv=spawned_as or argv, language=language, traced=True, exit_code=exit_code,
                        edges=tuple(edges))
