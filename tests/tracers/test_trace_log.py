"""The trace log's pipe, lines and bounds (`trace_channel`, `trace_streams`, `trace_records`, `python_runtime/log.py`).

Each test opens a real channel (FIFO, key pipe, key socket, the serving thread) and writes to it with the
runtime's own writer, as a traced process does, or with lines of its own, as a hostile program does; the
attacks through real traced programs are in tests/security/test_trace_log_attacks.py.
"""
from __future__ import annotations

import json
import os
import socket
import threading

import pytest

from tracers.python_runtime import log as runtime_log
from tracers.sandbox_view import sandbox_identity
from tracers.trace_channel import TraceChannel
from tracers.trace_records import MAX_SITES, RawTrace, RecordTotals, RefusedRecord, apply_record


class OpenChannel:
    """A channel served as during a run; `writer()` opens the program's log as `run.py` does."""

    def __init__(self, tmp_path, log_bytes=64 << 20, decode_s=30.0):
        self.channel = TraceChannel(tmp_path, sandbox_identity(), log_bytes, decode_s)
        self.key_fd = os.dup(self.channel.key_fd)
        self.woken = threading.Event()
        self.channel.started(self.woken.set)

    def writer(self, **environ) -> runtime_log.LogWriter:
        spec = environ.pop("key", f"fd:{self.key_fd}")
        return runtime_log.open_log({runtime_log.LOG_ENV: str(self.channel.folder), runtime_log.KEY_ENV: spec,
                                     **environ})

    def raw(self, data: bytes) -> None:
        fd = os.open(self.channel.folder / runtime_log.RECORDS, os.O_WRONLY)
        try:
            os.write(fd, data)
        finally:
            os.close(fd)

    def finish(self):
        return self.channel.finish()


def test_the_mac_is_hmac_sha256():  # RFC 4231, test case 2
    mac = runtime_log.Mac(b"Jefe")
    assert mac.digest(b"what do ya want for nothing?").hex() == (
        "5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843")


def test_records_of_the_runtime_writer_make_the_log(tmp_path):
    channel = OpenChannel(tmp_path)
    log = channel.writer()
    log.write(b'["P","python",12,["main.py"]]')
    log.write(b'["E","main.py:1:M::<module>","main.py:2:F::f",3]')
    log.write_all([b'["C","main.py:1:M::<module>","main.py:2:F::f",3,%d]' % n for n in (4, 5)])
    log.close()
    result = channel.finish()
    top = result.logs["0"]
    site = ("main.py:1:M::<module>", "main.py:2:F::f", 3)
    assert list(top.seen) == [site] and top.counts[site] == 9 and top.closed
    assert top.process == ("python", 12, ("main.py",)) and result.found == () and not result.limited


def test_lines_the_program_writes_are_never_used_and_show(tmp_path):
    channel = OpenChannel(tmp_path)
    log = channel.writer()
    log.write(b'["E","a","b",1]')
    stream = log.stream.decode()
    channel.raw(b'["E","forged","edge",1]\n')  # the record alone
    channel.raw(f'{"0" * 32} {stream} 1 ["E","forged","edge",2]\n'.encode())  # a tag without the key
    channel.raw(f'- {stream} 1 ["E","unkeyed","edge",3]\n'.encode())  # says it has no key: set aside
    log.seq -= 1  # the next line repeats a sequence number, as a replayed line does
    log.write(b'["E","replayed","edge",4]')
    log.seq += 5  # and here five lines are missing
    log.write(b'["E","c","d",5]')
    log.close()
    result = channel.finish()
    assert {site[0] for site in result.logs["0"].seen} == {"a", "c"}
    assert sorted(result.found) == ["1 records missing from a process's log (a gap in its numbering)",
                                    "1 records written twice (replayed)",
                                    f"2 {'lines that are not the tracer' + chr(39) + 's'} (a wrong tag, or not in "
                                    "the log's format)"]
    assert any("1 trace records of processes without a key" in warning for warning in result.warnings)


def test_nothing_is_used_after_a_closing_record(tmp_path):
    channel = OpenChannel(tmp_path)
    log = channel.writer()
    log.close()
    log.closed = False  # a writer made to go on (the runtime never does)
    log.write(b'["E","late","edge",1]')
    result = channel.finish()
    assert result.logs["0"].seen == {} and result.found == ("1 records after a process's closing record",)


def test_threads_writing_at_once_and_out_of_order_make_one_untouched_log(tmp_path):
    """Lines of one process's threads may reach the pipe out of order (a number is taken, then written, and a
    signal handler may trace a call while its thread is writing): all are used, and nothing shows."""
    channel = OpenChannel(tmp_path)
    log = channel.writer()
    send = log._send
    nested = []

    def send_once_nested(data: bytes) -> None:  # as a signal handler tracing a call in the middle of a write
        if not nested:
            nested.append(True)
            log.write(b'["E","handler","call",1]')
        send(data)

    log._send = send_once_nested
    writers = [threading.Thread(target=lambda n=n: [log.write(b'["E","t%d","f%d",%d]' % (n, k, k))
                                                    for k in range(500)]) for n in range(4)]
    for writer in writers:
        writer.start()
    for writer in writers:
        writer.join()
    log.close()
    result = channel.finish()
    assert len(result.logs["0"].seen) == 4 * 500 + 1 and result.found == () and result.logs["0"].closed


def test_a_gap_never_filled_shows(tmp_path):
    channel = OpenChannel(tmp_path)
    log = channel.writer()
    log.write(b'["E","a","b",1]')
    log.seq += 1  # one number taken, its line never written
    log.write(b'["E","c","d",2]')
    result = channel.finish()
    assert result.found == ("1 records missing from a process's log (a gap in its numbering)",)


def test_a_childs_ticket_gets_its_key_once(tmp_path):
    channel = OpenChannel(tmp_path)
    parent = channel.writer()
    env = parent.child_environment()
    child = channel.writer(key=env[runtime_log.KEY_ENV], **{runtime_log.STREAM_ENV: env[runtime_log.STREAM_ENV]})
    assert child.key is not None and child.key != parent.key
    child.write(b'["P","python",13,["worker.py"]]')
    child.write(b'["E","w","x",1]')
    child.close()
    thief = channel.writer(key=env[runtime_log.KEY_ENV], **{runtime_log.STREAM_ENV: env[runtime_log.STREAM_ENV]})
    forged = channel.writer(key="ticket:" + "0" * 32, **{runtime_log.STREAM_ENV: "0.1_1"})
    assert thief.key is None and forged.key is None
    result = channel.finish()
    assert list(result.logs[env[runtime_log.STREAM_ENV]].seen) == [("w", "x", 1)]
    assert sorted(result.found) == ["1 a child's trace key asked for twice (its ticket was taken)",
                                    "1 requests for a child's trace key with a forged ticket"]


def test_a_connection_that_says_nothing_is_closed_and_the_log_goes_on(tmp_path, monkeypatch):
    monkeypatch.setattr("tracers.trace_channel.REQUEST_WAIT_S", 0.2)
    channel = OpenChannel(tmp_path)
    with socket.socket(socket.AF_UNIX) as silent:
        silent.connect(str(channel.channel.folder / runtime_log.KEYS))
        log = channel.writer()
        log.write(b'["E","a","b",1]')
        silent.settimeout(5)
        assert silent.recv(10) == b""  # closed by the channel
    log.close()
    assert list(channel.finish().logs["0"].seen) == [("a", "b", 1)]


def test_the_byte_budget_stops_the_run(tmp_path):
    channel = OpenChannel(tmp_path, log_bytes=1 << 20)
    log = channel.writer()
    writing = threading.Thread(target=log.write_all, args=([b'["W","%s"]' % (b"x" * 900)] * 2000,))  # 2 MiB
    writing.start()  # (blocked once the pipe is full and no longer read, as the program's process would be)
    assert channel.woken.wait(10)
    assert channel.channel.limited == "wrote over 1 MiB to the trace log"
    assert channel.finish().limited == "wrote over 1 MiB to the trace log"
    writing.join(10)  # the pipe closed: its writes fail
    assert not writing.is_alive()


def test_distinct_call_sites_past_the_bound_stop_the_run():
    raw, totals = RawTrace(), RecordTotals()
    for n in range(MAX_SITES + 5):
        apply_record(raw, ["E", f"a{n}", "b", 1], totals)
    assert len(raw.seen) == MAX_SITES
    assert totals.limited == f"the trace log reports over {MAX_SITES:,} distinct call sites"


@pytest.mark.parametrize(("record", "reason"), [
    (["C", "a", "b", 1, 2**63], "call count 9223372036854775808 is outside 0..9223372036854775807"),
    (["C", "a", "b", 1, -1], "call count -1 is outside"),
    (["E", "a", "b", 2**31], "call-site line 2147483648 is outside"),
    (["Q", 5, 256], "exit code 256 is outside -255..255"),
    (["Q", 2**22 + 1, 0], "pid 4194305 is outside"),
    (["P", "python", 1.5, []], "pid is not a whole number"),
    (["E", "a" * 3000, "b", 1], "frame id is not a string of at most 2,000 characters"),
    (["E", "a", "b"], "too few fields"),
    ({"E": 1}, "not a list"),
    (["T", 1], "unknown kind 'T'"),
])
def test_values_out_of_bounds_refuse_their_record(record, reason):
    raw = RawTrace()
    with pytest.raises(RefusedRecord, match=reason.replace(".", r"\.").replace("(", r"\(")):
        apply_record(raw, record, RecordTotals())
    assert raw == RawTrace()


def test_a_four_thousand_digit_number_is_never_converted(tmp_path):
    channel = OpenChannel(tmp_path)
    log = channel.writer()
    log.write(b'["C","a","b",1,' + b"9" * 4000 + b"]")
    log.write(b'["Q",7,' + b"1" * 4000 + b"]")
    log.write(b'["E","a","b",2]')
    log.close()
    top = channel.finish().logs["0"]
    assert list(top.seen) == [("a", "b", 2)] and top.exits == {}
    assert top.warnings == ["a trace record's call count is a 4,000-digit number: left out",
                            "a trace record's exit code is a 4,000-digit number: left out"]


def test_unresolved_frames_and_warnings_are_bounded():
    raw, totals = RawTrace(), RecordTotals()
    for n in range(1_500):
        apply_record(raw, ["U", f"frame{n}", "why", 2], totals)
        apply_record(raw, ["W", f"warning {n}" + "x" * 5000], totals)
    assert len(raw.unresolved) == 1_000 and totals.unresolved_left_out == 1_000
    assert len(raw.warnings) == 100 and all(len(w) <= 1_000 for w in raw.warnings)
    assert raw.all_warnings()[-1] == "1,400 more warnings of this log were not kept"


def test_a_record_too_long_for_one_line_is_replaced_by_a_warning(tmp_path):
    channel = OpenChannel(tmp_path)
    log = channel.writer()
    log.write(json.dumps(["E", "a" * 5000, "b", 1]).encode())
    log.close()
    top = channel.finish().logs["0"]
    assert top.seen == {} and top.warnings[0].startswith("a trace record of 5") and "over 4096 bytes" in top.warnings[0]
