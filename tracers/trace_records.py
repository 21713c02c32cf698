"""The records every tracer runtime writes, what they may hold, and the logs they make up.

Runtimes (the code that runs inside the traced process) write JSON arrays, one per line, into the run's
log pipe (`tracers.trace_channel`; the line format and its authentication: `python_runtime/log.py`):

    ["P", language, pid, argv]           who writes this log (a traced child says so first)
    ["E", caller, callee, line]          an edge seen for the first time at this call-site line
                                         (written at once, so a killed run keeps it)
    ["C", caller, callee, line, count]   final call count for that (caller, callee, line)
    ["U", frame, reason, count]          a frame that could not be named
    ["X", "ValueError: bad input (main.py:12)"]   the uncaught exception that ended the program
    ["W", "warning text"]                anything else worth telling the user
    ["S", pid, argv]                     this process started a program (pid 0 when it is not known)
    ["Q", pid, exit code or null]        a program it started ended
    ["Z"]                                the process ended normally: nothing of its log is missing

`caller`/`callee` are frame ids the language module maps to TraceEval names (JavaScript
writes names directly). `line` is the call-site line in the caller's file, 0 when unknown.

A program can write to its log too, so every record is hostile: `apply_record` keeps what it may hold
within bounds (numbers that fit their meaning, strings cut short, at most MAX_SITES distinct call sites
a run, MAX_UNRESOLVED unresolved frames, MAX_WARNINGS warnings a log) and refuses the record otherwise,
with a warning; past MAX_SITES the run is stopped (`RecordTotals.limited`). `tracers.tracelog` makes
a `TraceRun` of them.
"""
from __future__ import annotations

from dataclasses import dataclass, field

Site = tuple[str, str, int]  # (caller frame, callee frame, call-site line)

MAX_SITES = 50_000  # distinct call sites a run may report (all its processes): past it the run is stopped
MAX_UNRESOLVED = 1_000  # distinct unresolved frames kept a run; the rest are counted in one entry
MAX_WARNINGS = 100  # warnings kept a log (process), then one line says how many more
FRAME_CHARS = 2_000  # a frame id (a longer one is no frame of a program)
TEXT_CHARS = 1_000  # an exception or warning text is cut here
LINE_MAX = 2**31 - 1
COUNT_MAX = 2**63 - 1  # counts are 64-bit, and so are their sums
PID_MAX = 2**22  # the kernel's largest pid_max
EXIT_CODES = range(-255, 256)  # 0-255, or minus a signal number (Python's returncode)
NUMBER_CHARS = 20  # a JSON number literal longer than this is refused before it is converted
ARGV_ITEMS = 24  # of a child's argv kept, each cut to ARGV_CHARS
ARGV_CHARS = 200
SPAWNS = 1000  # programs started, per log
CHILD_WARNINGS = 20  # kept of each child's warnings in the run's


@dataclass
class RawTrace:
    """The records of one log: the program's process and its forks, or one traced child and its forks."""

    seen: dict[Site, None] = field(default_factory=dict)  # first-sighting order
    counts: dict[Site, int] = field(default_factory=dict)
    unresolved: dict[tuple[str, str], int] = field(default_factory=dict)
    exception: str = ""
    warnings: list[str] = field(default_factory=list)
    process: tuple[str, int, tuple[str, ...]] | None = None  # P: (language, pid, argv) of the log's process
    spawns: list[tuple[int, tuple[str, ...]]] = field(default_factory=list)  # S, in order
    exits: dict[int, int | None] = field(default_factory=dict)  # Q
    closed: bool = False  # the log's process wrote its closing record (Z)
    warnings_left_out: int = 0

    def warn(self, text: str) -> None:
        if len(self.warnings) < MAX_WARNINGS:
            self.warnings.append(text[:TEXT_CHARS])
        else:
            self.warnings_left_out += 1

    def all_warnings(self) -> list[str]:
        more = [f"{self.warnings_left_out:,} more warnings of this log were not kept"] if self.warnings_left_out else []
        return [*self.warnings, *more]


@dataclass
class RecordTotals:
    """What the records of one run add up to, across its logs; `limited` says why the run must stop."""

    sites: int = 0
    unresolved: int = 0
    unresolved_left_out: int = 0  # calls of the distinct frames past MAX_UNRESOLVED
    limited: str = ""


@dataclass
class TraceLog:
    """Everything the run's log pipe held: one `RawTrace` per traced process, what shows tampering, why
    reading stopped the run ('' when it did not)."""

    logs: dict[str, RawTrace] = field(default_factory=dict)  # lineage -> its log ("0": the program's process)
    found: tuple[str, ...] = ()  # tampering seen in the lines, one phrase each
    warnings: tuple[str, ...] = ()
    totals: RecordTotals = field(default_factory=RecordTotals)
    limited: str = ""

    @property
    def top(self) -> RawTrace:
        return self.logs.get("0") or RawTrace()

    @property
    def children(self) -> list[RawTrace]:
        """The traced children's logs (each names its process), in the order they first wrote."""
        return [log for lineage, log in self.logs.items() if lineage != "0" and log.process is not None]

    def merged(self) -> RawTrace:
        """The program's records with every child's call sites, counts and unresolved frames added
        (a child's uncaught exception is a fact of that child, not of the run)."""
        top = self.top
        raw = RawTrace(seen=dict(top.seen), counts=dict(top.counts), unresolved=dict(top.unresolved),
                       exception=top.exception, warnings=top.all_warnings(), spawns=list(top.spawns),
                       exits=dict(top.exits), closed=top.closed)
        for child in self.children:
            raw.seen.update(child.seen)
            for site, count in child.counts.items():
                raw.counts[site] = min(raw.counts.get(site, 0) + count, COUNT_MAX)
            for key, count in child.unresolved.items():
                raw.unresolved[key] = min(raw.unresolved.get(key, 0) + count, COUNT_MAX)
            pid = child.process[1] if child.process else 0
            raw.warnings += [f"child process {pid}: {warning}" for warning in child.all_warnings()[:CHILD_WARNINGS]]
            if child.exception:
                raw.warnings.append(f"child process {pid} ended with an uncaught exception: {child.exception}")
        raw.warnings += self.warnings
        return raw

    def tampering(self, ended_by_itself: bool) -> list[str]:
        """What shows the log cannot be trusted: what the lines showed, and a log cut short (no closing
        record) of a process that ended by itself: the program (`ended_by_itself`: the run was not stopped),
        a child whose exit code (0-127) its parent saw."""
        problems = list(self.found)
        if ended_by_itself and not self.top.closed:
            problems.append("the program's log has no closing record (cut short: the tracer could not finish it)")
        exits = {pid: code for log in self.logs.values() for pid, code in log.exits.items()}
        for child in self.children:
            pid = child.process[1] if child.process else 0
            code = exits.get(pid)
            if code is not None and 0 <= code < 128 and not child.closed:
                problems.append(f"child process {pid}'s log has no closing record though it exited with code {code}")
        return problems


class RefusedRecord(ValueError):
    """A record that holds what it may not (its reason is the warning)."""


class LongNumber(int):
    """A JSON number literal longer than NUMBER_CHARS, kept as its length (never converted)."""


def parse_number(literal: str) -> int:
    """`json.loads(parse_int=...)`: a number of at most NUMBER_CHARS characters, else a LongNumber of its length."""
    return int(literal) if len(literal) <= NUMBER_CHARS else LongNumber(len(literal))


def apply_record(raw: RawTrace, record: object, totals: RecordTotals) -> None:
    """Add one decoded record to `raw` within the bounds (raises RefusedRecord with the reason otherwise)."""
    if not isinstance(record, list) or not record or not isinstance(record[0], str):
        raise RefusedRecord("a trace record is not a list with its kind first")
    kind = record[0]
    if kind in ("E", "C"):
        site = (_frame(record, 1), _frame(record, 2), _number(record, 3, "call-site line", 0, LINE_MAX))
        count = _number(record, 4, "call count", 0, COUNT_MAX) if kind == "C" else None
        if site not in raw.seen:
            if totals.sites >= MAX_SITES:
                totals.limited = f"the trace log reports over {MAX_SITES:,} distinct call sites"
                return
            totals.sites += 1
            raw.seen[site] = None
        if count is not None:
            raw.counts[site] = min(raw.counts.get(site, 0) + count, COUNT_MAX)
    elif kind == "U":
        key = (_frame(record, 1), _text(record, 2))
        count = _number(record, 3, "unresolved count", 0, COUNT_MAX)
        if key not in raw.unresolved and totals.unresolved >= MAX_UNRESOLVED:
            totals.unresolved_left_out = min(totals.unresolved_left_out + count, COUNT_MAX)
            return
        if key not in raw.unresolved:
            totals.unresolved += 1
        raw.unresolved[key] = min(raw.unresolved.get(key, 0) + count, COUNT_MAX)
    elif kind == "X":
        raw.exception = _text(record, 1)
    elif kind == "W":
        raw.warn(_text(record, 1))
    elif kind == "P":
        raw.process = (_text(record, 1)[:40], _number(record, 2, "pid", 0, PID_MAX), bounded_argv(_item(record, 3)))
    elif kind == "S":
        pid = _number(record, 1, "pid", 0, PID_MAX)
        if len(raw.spawns) < SPAWNS:
            raw.spawns.append((pid, bounded_argv(_item(record, 2))))
    elif kind == "Q":
        pid = _number(record, 1, "pid", 0, PID_MAX)
        code = _item(record, 2)
        if len(raw.exits) < SPAWNS or pid in raw.exits:
            raw.exits[pid] = None if code is None else _number(record, 2, "exit code", EXIT_CODES.start,
                                                               EXIT_CODES.stop - 1)
    else:
        raise RefusedRecord(f"a trace record of an unknown kind {kind[:20]!r}")


def _item(record: list, index: int) -> object:
    if index >= len(record):
        raise RefusedRecord(f"a {record[0][:20]!r} trace record has too few fields")
    return record[index]


def _frame(record: list, index: int) -> str:
    value = _item(record, index)
    if not isinstance(value, str) or len(value) > FRAME_CHARS:
        raise RefusedRecord(f"a trace record's frame id is not a string of at most {FRAME_CHARS:,} characters")
    return value


def _text(record: list, index: int) -> str:
    value = _item(record, index)
    return (value if isinstance(value, str) else repr(value))[:TEXT_CHARS]


def _number(record: list, index: int, what: str, low: int, high: int) -> int:
    value = _item(record, index)
    if isinstance(value, LongNumber):
        raise RefusedRecord(f"a trace record's {what} is a {int(value):,}-digit number: left out")
    if type(value) is not int:
        raise RefusedRecord(f"a trace record's {what} is not a whole number: left out")
    if not low <= value <= high:
        raise RefusedRecord(f"a trace record's {what} {value} is outside {low}..{high}: left out")
    return value


def bounded_argv(value: object) -> tuple[str, ...]:
    """A program's argv as the run keeps it: at most ARGV_ITEMS strings of at most ARGV_CHARS."""
    items = value if isinstance(value, list) else []
    kept = tuple(str(item)[:ARGV_CHARS] for item in items[:ARGV_ITEMS])
    return (*kept, f"[... {len(items) - ARGV_ITEMS} more]") if len(items) > ARGV_ITEMS else kept


