"""Child processes of a traced program: where their logs go, reading them with bounds, merging them.

Each language's runtime passes the tracer on to children of its own language (Node: `NODE_OPTIONS`
and `execArgv`; Python: `python_runtime/children.py` rewrites a `sys.executable` child's argv;
Java: `JAVA_TOOL_OPTIONS`). A child cannot write to the parent's log (it is an inherited
descriptor, which Python's `subprocess` and Java's `ProcessBuilder` close), so each traced child
creates its own `<pid>-<random>.jsonl` (O_EXCL|O_NOFOLLOW) in a folder handed into the sandbox
read-write at `SANDBOX_FOLDER` and named by `$TRACEEVAL_CHILD_LOGS`. Runtimes also log every
program a process starts (`S`) and how it ended (`Q`), so children of other languages are listed.

The folder is as hostile as the log. While the program runs the supervisor watches it
(`over_budget`: at most MAX_ENTRIES entries and MAX_TOTAL bytes, looked at every
WATCH_INTERVAL_S) and stops the run past it; afterwards it is read with bounds: regular files
only (links, FIFOs, folders are refused with a warning), each within the file-size limit, at most
MAX_LOGS of them and MAX_TOTAL bytes in all.
"""
from __future__ import annotations

import os
import stat
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from core.records import Edge
from core.safe_files import read_bytes, why_unreadable
from core.traces import ChildProcess
from tracers.child_log_folder import MAX_ENTRIES, MAX_TOTAL
from tracers.sandbox import Limits
from tracers.tracelog import RawTrace, parse_log

MAX_LOGS = 64  # traced children whose logs are read
CHILD_WARNINGS = 20  # kept of each child's warnings


@dataclass
class ChildLogs:
    logs: list[RawTrace] = field(default_factory=list)  # one per traced child, its `process` set
    warnings: list[str] = field(default_factory=list)


def read_child_logs(folder: Path, limits: Limits) -> ChildLogs:
    """Every child log in `folder`, read by the bounded reader; what was refused becomes a warning."""
    found = ChildLogs()
    if not folder.is_dir() or folder.is_symlink():
        return found
    total, refused = 0, 0
    try:
        listing = os.scandir(folder)
    except OSError as error:
        found.warnings.append(f"child-process logs not read: {why_unreadable(error)}")
        return found
    with listing:
        for index, entry in enumerate(listing):
            if index >= MAX_ENTRIES or len(found.logs) >= MAX_LOGS:
                found.warnings.append(f"child-process logs: more than {len(found.logs)} logs or "
                                      f"{MAX_ENTRIES} entries; the rest were not read")
                break
            name = entry.name[:80]
            try:
                regular = stat.S_ISREG(entry.stat(follow_symlinks=False).st_mode)
            except OSError:
                regular = False
            if not regular or not entry.name.endswith(".jsonl"):
                refused += 1
                if refused <= 5:
                    found.warnings.append(f"child-process log {name!r} not read: not a regular .jsonl file")
                continue
            try:
                data = read_bytes(entry.path, min(limits.file_mb * 1024 * 1024, MAX_TOTAL - total), root=folder)
            except OSError as error:
                found.warnings.append(f"child-process log {name!r} not read: {why_unreadable(error)}")
                continue
            total += len(data)
            raw = parse_log(data)
            if raw.process is None:
                found.warnings.append(f"child-process log {name!r} names no process: not used")
                continue
            found.logs.append(raw)
    if refused > 5:
        found.warnings.append(f"child-process logs: {refused - 5} more entries were not regular .jsonl files")
    return found


def merged(parent: RawTrace, children: ChildLogs) -> RawTrace:
    """The parent's raw trace with every child's call sites, counts and unresolved frames added
    (a child's uncaught exception is a fact of that child, not of the run)."""
    raw = RawTrace(seen=dict(parent.seen), counts=dict(parent.counts), unresolved=dict(parent.unresolved),
                   exception=parent.exception, warnings=list(parent.warnings), spawns=list(parent.spawns),
                   exits=dict(parent.exits))
    for child in children.logs:
        raw.seen.update(child.seen)
        for site, count in child.counts.items():
            raw.counts[site] = raw.counts.get(site, 0) + count
        for key, count in child.unresolved.items():
            raw.unresolved[key] = raw.unresolved.get(key, 0) + count
        pid = child.process[1] if child.process else 0
        raw.warnings += [f"child process {pid}: {warning}" for warning in child.warnings[:CHILD_WARNINGS]]
        if child.exception:
            raw.warnings.append(f"child process {pid} ended with an uncaught exception: {child.exception}")
    raw.warnings += children.warnings
    return raw


def child_facts(parent: RawTrace, children: ChildLogs, name_of: Callable[[str], str | None],
                keep_self_edges: bool) -> tuple[ChildProcess, ...]:
    """Every process the program started: those that wrote a log are traced, with the edges they saw;
    the others (other languages, tools) are listed from their `S` records."""
    exits: dict[int, int | None] = dict(parent.exits)
    spawns = list(parent.spawns)
    for child in children.logs:
        exits.update(child.exits)
        spawns += child.spawns
    traced = {child.process[1]: child for child in children.logs if child.process is not None}
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
