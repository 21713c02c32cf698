"""The run's log pipe, line by line: which lines the tracer runtimes wrote, and the logs they make.

The program can write to the pipe too (it holds a descriptor of it), so each line is checked
before its record is used (the format: `python_runtime/log.py`): its tag must be the HMAC of its
stream's key, its sequence number the next of its stream, and nothing may follow a process's
closing record. A line that fails is not used, and what it shows is counted as tampering
(`TraceLog.tampering`: the run is then `untrusted`). Lines a runtime marks as written without a
key (a child started through a shell gets none) are set aside with a warning. Each log (the
program's process, or one traced child, with their forks) is a `RawTrace` (`trace_records.apply_record`
keeps its records within bounds); at most MAX_LOGS logs from MAX_STREAMS writers.

The same object answers the key socket (`answer`): a child's one-time ticket for its key.
"""
from __future__ import annotations

import hmac
import json
from collections import Counter

from tracers.python_runtime.log import CLOSING, NO_TAG, Mac, child_key, ticket
from tracers.trace_records import RawTrace, RecordTotals, RefusedRecord, TraceLog, apply_record, parse_number

MAX_LOGS = 64  # traced processes (the program and its traced children) whose records are kept
MAX_STREAMS = 256  # writers (processes and their forks)
MAX_LINES = 2_000_000  # lines a run may write; past it the run is stopped
LINEAGE_DEPTH = 8  # children of children ...
COMPONENT_CHARS = 24
MAX_AHEAD = 4096  # numbers a stream may have seen past a missing one (threads writing out of order)
FORGED = "lines that are not the tracer's (a wrong tag, or not in the log's format)"
GAP = "records missing from a process's log (a gap in its numbering)"


class StreamReader:
    """Checks lines of the log pipe as they come (`feed`), and answers the key socket (`answer`)."""

    def __init__(self, key: bytes):
        self._keys: dict[str, bytes | None] = {"0": key}  # lineage -> its key (None: not a valid lineage)
        self._macs: dict[str, Mac] = {}
        self._numbers: dict[bytes, _Numbers] = {}  # stream -> the sequence numbers seen
        self._closed: dict[bytes, int] = {}  # stream -> the number of its closing record
        self._starter: dict[str, bytes] = {}  # lineage -> the stream of its own process (the first to write)
        self._tickets: set[str] = set()
        self._tampering: Counter[str] = Counter()
        self._unkeyed = 0
        self._logs: dict[str, RawTrace] = {}
        self._left_out_logs = 0
        self._partial = b""
        self._overlong = False
        self.totals = RecordTotals()
        self.lines = 0
        self.limited = ""

    def feed(self, data: bytes) -> None:
        """Check and use every whole line of `data` (the rest waits for the next piece)."""
        from tracers.python_runtime.log import PIPE_BUF

        lines = (self._partial + data).split(b"\n")
        self._partial = lines.pop()
        for line in lines:
            if self._overlong:
                self._overlong = False
                continue
            self._line(line)
            if self.limited:
                return
        if len(self._partial) >= PIPE_BUF:  # no runtime writes such a line: it is not looked at
            self._partial = b""
            self._overlong = True
            self._tampering[FORGED] += 1

    def _line(self, line: bytes) -> None:
        self.lines += 1
        if self.lines > MAX_LINES:
            self.limited = f"the trace log has over {MAX_LINES:,} lines"
            return
        parts = line.split(b" ", 3)
        if len(parts) != 4 or len(line) >= 4096:
            self._tampering[FORGED] += 1
            return
        tag, stream, seq_text, record = parts
        lineage, pid = _stream(stream)
        mac = self._mac(lineage) if lineage is not None and pid is not None else None
        if mac is None or not seq_text.isdigit() or len(seq_text) > 19:
            self._tampering[FORGED] += 1
            return
        if tag == NO_TAG:
            self._unkeyed += 1
            return
        if not hmac.compare_digest(tag, mac.tag(b"%s %s %s" % (stream, seq_text, record))):
            self._tampering[FORGED] += 1
            return
        assert lineage is not None
        if self._in_sequence(stream, int(seq_text)):
            self._record(lineage, stream, record)

    def _in_sequence(self, stream: bytes, seq: int) -> bool:
        """Whether the line's number is new in its stream. Threads of one process may write their lines out of
        order (a number is taken, then written), so a gap shows only if it is never filled (`result`); a number
        seen twice (a replay) or one past the closing record's shows tampering."""
        numbers = self._numbers.get(stream)
        if numbers is None:
            if len(self._numbers) >= MAX_STREAMS:
                self.limited = f"over {MAX_STREAMS} processes wrote to the trace log"
                return False
            numbers = self._numbers[stream] = _Numbers()
        if seq > self._closed.get(stream, seq):
            self._tampering["records after a process's closing record"] += 1
            return False
        if not numbers.add(seq):
            self._tampering["records written twice (replayed)"] += 1
            return False
        if len(numbers.ahead) > MAX_AHEAD:
            numbers.give_up()
            self._tampering[GAP] += 1
        return True

    def _record(self, lineage: str, stream: bytes, record: bytes) -> None:
        log = self._log(lineage)
        if log is None:
            return
        self._starter.setdefault(lineage, stream)  # the log's own process writes first; its forks after it
        if record == CLOSING:
            self._closed[stream] = self._numbers[stream].last
            log.closed = log.closed or self._starter.get(lineage) == stream
            return
        try:
            decoded = json.loads(record, parse_int=parse_number)
            apply_record(log, decoded, self.totals)
        except RefusedRecord as refused:
            log.warn(str(refused))
        except (ValueError, RecursionError):
            log.warn("a trace record is not JSON: left out")
        self.limited = self.limited or self.totals.limited

    def _log(self, lineage: str) -> RawTrace | None:
        log = self._logs.get(lineage)
        if log is None:
            if len(self._logs) >= MAX_LOGS:
                self._left_out_logs += 1
                return None
            log = self._logs[lineage] = RawTrace()
        return log

    def _mac(self, lineage: str) -> Mac | None:
        """The MAC of a lineage's key, derived from its parent's (None: not a lineage of this run)."""
        mac = self._macs.get(lineage)
        if mac is None:
            key = self._key(lineage)
            if key is None:
                return None
            mac = Mac(key)
            if len(self._macs) < 4 * MAX_STREAMS:
                self._macs[lineage] = mac
        return mac

    def _key(self, lineage: str) -> bytes | None:
        if lineage in self._keys:
            return self._keys[lineage]
        parent, _, component = lineage.rpartition(".")
        valid = (parent and lineage.count(".") <= LINEAGE_DEPTH and 0 < len(component) <= COMPONENT_CHARS
                 and component.replace("_", "").isdigit() and component.count("_") == 1)
        parent_key = self._key(parent) if valid else None
        key = child_key(parent_key, component.encode()) if parent_key is not None else None
        if len(self._keys) < 4 * MAX_STREAMS:
            self._keys[lineage] = key
        return key

    def answer(self, request: bytes) -> bytes:
        """The key socket's answer to `LINEAGE TICKET`: the child's key in hex, or `refused`. A ticket is good
        once: asked again, it was taken by someone else (tampering), as is a ticket that is not its parent's."""
        words = request.decode("ascii", "replace").split()
        lineage = words[0] if len(words) == 2 and len(words[0]) < 256 else ""
        parent, _, component = lineage.rpartition(".")
        key = self._key(lineage) if parent else None
        parent_key = self._key(parent) if key is not None else None
        if key is None or parent_key is None or not hmac.compare_digest(
                words[1].encode("ascii", "replace"), ticket(parent_key, component.encode()).encode()):
            self._tampering["requests for a child's trace key with a forged ticket"] += 1
            return b"refused\n"
        if lineage in self._tickets:
            self._tampering["a child's trace key asked for twice (its ticket was taken)"] += 1
            return b"refused\n"
        self._tickets.add(lineage)
        return key.hex().encode() + b"\n"

    def result(self) -> TraceLog:
        warnings = []
        if self._unkeyed:
            warnings.append(f"{self._unkeyed:,} trace records of processes without a key were not used (a "
                            "traced child started through a shell or another program gets no key)")
        if self._left_out_logs:
            warnings.append(f"records of traced processes past the first {MAX_LOGS} were not used "
                            f"({self._left_out_logs:,} records)")
        self._tampering[GAP] += sum(bool(numbers.ahead) for numbers in self._numbers.values())
        found = tuple(f"{count:,} {what}" for what, count in self._tampering.items() if count)
        return TraceLog(logs=dict(self._logs), found=found, warnings=tuple(warnings), totals=self.totals,
                        limited=self.limited)


class _Numbers:
    """The sequence numbers seen in one stream: all below `low`, and those above it in `ahead`."""

    def __init__(self) -> None:
        self.low = 0
        self.ahead: set[int] = set()
        self.last = -1

    def add(self, seq: int) -> bool:
        """False when `seq` was seen already."""
        if seq < self.low or seq in self.ahead:
            return False
        self.last = max(self.last, seq)
        self.ahead.add(seq)
        while self.low in self.ahead:
            self.ahead.remove(self.low)
            self.low += 1
        return True

    def give_up(self) -> None:
        """A gap that too many numbers passed: counted once, and the numbers go on from the last seen."""
        self.low = self.last + 1
        self.ahead.clear()


def _stream(stream: bytes) -> tuple[str | None, int | None]:
    """(lineage, pid) of `LINEAGE@PID` or `LINEAGE@PID/THREAD` (a JavaScript worker thread), or Nones."""
    lineage, at, writer = stream.partition(b"@")
    pid, slash, thread = writer.partition(b"/")
    if not at or not pid.isdigit() or len(pid) > 8 or not lineage or (slash and not (
            thread.isdigit() and len(thread) <= 8)):
        return None, None
    try:
        return lineage.decode("ascii"), int(pid)
    except UnicodeDecodeError:
        return None, None
