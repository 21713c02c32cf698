"""How trace runs are put into words and colours: status titles and badge colours, run list
entries, times, durations and counts."""
from __future__ import annotations

from datetime import datetime

from core import traces
from core.dataset.workspace import RunRow
from core.wording import count

GREEN, AMBER, RED, GREY = "#2e7d32", "#b26a00", "#c62828", "#607d8b"
STATUS_COLOURS = {traces.OK: GREEN, traces.EXIT_CODE: AMBER, traces.EXCEPTION: AMBER, traces.TIMEOUT: RED,
                  traces.LIMIT: RED, traces.KILLED: RED, traces.UNTRUSTED: RED, traces.COMPILE_ERROR: RED,
                  traces.NO_ENTRY_POINT: RED, traces.TRACER_ERROR: RED, traces.TOOLCHAIN_MISSING: GREY}
STATUS_TITLES = {traces.OK: "OK", traces.EXIT_CODE: "Exit code", traces.EXCEPTION: "Exception",
                 traces.TIMEOUT: "Timeout", traces.LIMIT: "Limit", traces.KILLED: "Killed",
                 traces.UNTRUSTED: "Untrusted",
                 traces.COMPILE_ERROR: "Compile error", traces.NO_ENTRY_POINT: "No entry point",
                 traces.TOOLCHAIN_MISSING: "Toolchain missing", traces.TRACER_ERROR: "Tracer error"}
STATUS_DESCRIPTIONS = {
    traces.OK: "the program ran to completion and exited 0",
    traces.EXIT_CODE: "the program exited with a non-zero code",
    traces.EXCEPTION: "an uncaught exception ended the program",
    traces.TIMEOUT: "the wall-clock or CPU time limit was reached; the process tree was killed",
    traces.LIMIT: "a memory, file size, process or output limit was reached; the program was killed",
    traces.KILLED: "ended by a signal (or cancelled); the edges seen before are kept",
    traces.UNTRUSTED: "the trace log shows tampering (forged, missing or replayed records, or cut short): "
                      "its edges are not evidence",
    traces.COMPILE_ERROR: "syntax or compile errors: the program never ran",
    traces.NO_ENTRY_POINT: "nothing to run",
    traces.TOOLCHAIN_MISSING: "the language's toolchain (Node, a JDK) is not available here",
    traces.TRACER_ERROR: "the tracer itself failed (a bug: please report it)",
}


def status_title(status: str) -> str:
    return STATUS_TITLES.get(status, status)


def run_row_text(row: RunRow) -> str:
    """How a stored run is listed: `#id  time  status  N edges  duration`."""
    batch = "  (retrace)" if row.batch else ""
    return (f"#{row.id}  {local_time(row.started_at)}  {row.status}  {count(row.edges, 'edge')}  "
            f"{seconds(row.duration_s)}{batch}")


def local_time(iso: str) -> str:
    """An ISO timestamp in local time: the time alone when it is today."""
    try:
        moment = datetime.fromisoformat(iso).astimezone()
    except ValueError:
        return iso
    if moment.date() == datetime.now().astimezone().date():
        return moment.strftime("%H:%M:%S")
    return moment.strftime("%Y-%m-%d %H:%M")


def seconds(duration_s: float) -> str:
    if duration_s < 0.001:
        return "<1 ms"
    if duration_s < 1:
        return f"{duration_s * 1000:.0f} ms"
    return f"{duration_s:.2f} s"
