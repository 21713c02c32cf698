"""An endpoint that never stops answering (issue #18, item 5): the real `traceeval predict` as a child
process against a server on 127.0.0.1 that floods one program's request (an endless JSON body, endless
SSE chunks, a slow trickle) and answers the others properly. The run ends near `--timeout`, the flooded
program is a recorded failure with its reason, every other program is answered, and the child's
peak memory stays modest."""
import os
import signal
import subprocess
import sys
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest

from core.llm.response_limits import RESPONSE_BYTES_CAP
from tests.llm_server import ok, request_prompt_hash

ROOT = Path(__file__).resolve().parents[2]
PEAK_RSS_LIMIT_MB = 400  # the CLI itself takes ~100 MB; a flood read into memory takes gigabytes
HARD_LIMIT_S = 120  # the test kills the child after this: a hang fails the test instead of blocking it


class FloodServer:
    """Answers each prompt from `answers` (prompt hash -> text); the prompt `flooded` gets `flood` instead:
    "json" (a chat completion that never ends, as fast as the socket takes it), "sse" (endless chunked
    `data:` events), "error" (a 500 whose error body never ends), "declared" (a Content-Length of 1 TB)
    or "trickle" (a space every 0.2 s: every read succeeds, the answer never ends)."""

    def __init__(self, answers: dict[str, str], flooded: str, flood: str):
        self.answers, self.flooded, self.flood = answers, flooded, flood
        self.stopping = threading.Event()
        self.sent = 0  # flood bytes written
        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), self._handler())
        self.httpd.daemon_threads = True
        threading.Thread(target=self.httpd.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True).start()

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.httpd.server_address[1]}/v1"

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.stopping.set()
        self.httpd.shutdown()
        self.httpd.server_close()

    def _handler(self):
        server = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, *args):
                pass

            def do_POST(self):
                import json
                body = json.loads(self.rfile.read(int(self.headers.get("Content-Length") or 0)) or b"{}")
                prompt = request_prompt_hash(body)
                try:
                    if prompt == server.flooded:
                        {"json": self._json, "error": self._error, "declared": self._declared, "sse": self._sse,
                         "trickle": self._trickle}[server.flood]()
                    else:
                        reply = ok(server.answers[prompt])
                        self.send_response(200)
                        self.send_header("Content-Type", "application/json")
                        self.send_header("Content-Length", str(len(reply.body)))
                        self.end_headers()
                        self.wfile.write(reply.body)
                except (BrokenPipeError, ConnectionResetError):
                    pass  # the client stopped reading: what the test wants

            def _json(self):
                self.send_response(200)
                self.send_header("Content-Type", "application/json")
                self.send_header("Connection", "close")  # no length: the body ends when the socket closes
                self.end_headers()
                self.wfile.write(b'{"choices": [{"index": 0, "message": {"role": "assistant", "content": "1. ')
                chunk = b"main.f, " * 8192
                while not server.stopping.is_set():
                    self.wfile.write(chunk)
                    server.sent += len(chunk)

            def _error(self):
                self.send_response(500)
                self.send_header("Content-Type", "application/json")
                self.send_header("Connection", "close")
                self.end_headers()
                self.wfile.write(b'{"error": {"message": "')
                while not server.stopping.is_set():
                    self.wfile.write(b"x" * 65536)
                    server.sent += 65536

            def _declared(self):
                self.send_response(200)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(10 ** 12))
                self.end_headers()
                server.sent = 10 ** 12  # as the server claims; it sends nothing until the client hangs up
                server.stopping.wait(60)

            def _sse(self):
                self.send_response(200)
                self.send_header("Content-Type", "text/event-stream")
                self.send_header("Transfer-Encoding", "chunked")
                self.end_headers()
                event = b'data: {"choices": [{"index": 0, "delta": {"content": "main.f, "}}]}\n\n' * 512
                frame = f"{len(event):x}\r\n".encode() + event + b"\r\n"
                while not server.stopping.is_set():
                    self.wfile.write(frame)
                    server.sent += len(event)

            def _trickle(self):
                self.send_response(200)
                self.send_header("Content-Type", "application/json")
                self.send_header("Connection", "close")  # no length (a declared one above the cap is refused)
                self.end_headers()
                while not server.stopping.wait(0.2):
                    self.wfile.write(b" ")
                    self.wfile.flush()
                    server.sent += 1

        return Handler


class _PeakMemory:
    """The child's own peak RSS (VmHWM), sampled while it runs. Not ru_maxrss: that counts the pages of the
    forking process too (a child forked from a large pytest starts with pytest's resident set)."""

    def __init__(self, pid: int):
        self.kib = 0
        self._status = Path(f"/proc/{pid}/status")
        self._done = threading.Event()
        self._thread = threading.Thread(target=self._sample, daemon=True)
        self._thread.start()

    def _sample(self) -> None:
        while not self._done.wait(0.02):
            try:
                line = next(line for line in self._status.read_text().splitlines() if line.startswith("VmHWM:"))
                self.kib = max(self.kib, int(line.split()[1]))
            except (OSError, StopIteration, ValueError):
                continue

    def stop(self) -> None:
        self._done.set()
        self._thread.join()


def run_predict(workspace: Path, base_url: str, *options: str) -> tuple[int, str, float, float]:
    """`traceeval predict` in a child process: exit status, stderr, wall seconds and the child's peak RSS (MB)."""
    err_path = workspace.with_suffix(".err")
    argv = [sys.executable, "-m", "traceeval_gui.cli.main", "predict", "--workspace", str(workspace), "--model", "m",
            "--base-url", base_url, "--split", "all", "--no-results-files", "--no-cache", *options]
    started = time.monotonic()
    with open(err_path, "wb") as err:
        child = subprocess.Popen(argv, cwd=ROOT, stdout=subprocess.DEVNULL, stderr=err)
        killer = threading.Timer(HARD_LIMIT_S, os.kill, (child.pid, signal.SIGKILL))
        killer.start()
        peak = _PeakMemory(child.pid)
        try:
            child.wait()
        finally:
            killer.cancel()
            peak.stop()
    wall = time.monotonic() - started
    assert peak.kib, "the child's memory was never sampled"
    peak_mb = peak.kib / 1024
    print(f"predict: exit {child.returncode}, {wall:.1f} s, peak RSS {peak_mb:.0f} MB")
    return child.returncode, err_path.read_text(), wall, peak_mb



def _failure_recorded(path: Path, key: str) -> str:
    from core.dataset.workspace import Workspace
    with Workspace(path) as ws:
        rows = ws.request_rows("m", key)
        assert key not in ws.predicted_keys("m")  # not stored as an answer: a rerun asks again
    assert rows and rows[0].status == "failed"
    return rows[0].error


@pytest.mark.parametrize("flood", ["json", "sse", "error", "declared"])
def test_an_endless_answer_stops_at_the_size_cap_and_the_other_programs_are_answered(demo, flood):
    path, answers, victim, victim_hash, count = demo
    with FloodServer(answers, victim_hash, flood) as server:
        code, err, wall, peak_mb = run_predict(path, server.base_url, "--timeout", "60")
    assert code == 1, err
    assert f"m: finished: {count - 1} answered, 1 failed" in err
    assert f"failed: {victim}: the answer is larger than {RESPONSE_BYTES_CAP / 1024 / 1024:g} MiB" in err
    assert "Traceback" not in err
    assert wall < 30  # the cap ends it, not the 60 s deadline
    assert peak_mb < PEAK_RSS_LIMIT_MB
    assert server.sent >= RESPONSE_BYTES_CAP  # the server really did keep sending
    assert "larger than" in _failure_recorded(path, victim)


def test_a_trickling_answer_ends_at_the_timeout_however_often_a_byte_arrives(demo):
    path, answers, victim, victim_hash, count = demo
    timeout = 3.0
    with FloodServer(answers, victim_hash, "trickle") as server:
        code, err, wall, peak_mb = run_predict(path, server.base_url, "--timeout", str(timeout), "--retries", "0")
    assert code == 1, err
    assert f"m: finished: {count - 1} answered, 1 failed" in err
    assert f"failed: {victim}: no complete answer within {timeout:g} s" in err or \
           f"failed: {victim}: no answer within {timeout:g} s" in err
    assert "Traceback" not in err
    assert server.sent >= 5  # each 0.2 s read succeeded: only an overall deadline ends this
    assert wall < timeout + 15  # start-up and indexing of the demo take a few seconds
    assert peak_mb < PEAK_RSS_LIMIT_MB
    assert f"within {timeout:g} s" in _failure_recorded(path, victim)


def test_a_retried_trickle_is_bounded_by_timeout_times_attempts(demo):
    path, answers, _victim, victim_hash, count = demo
    with FloodServer(answers, victim_hash, "trickle") as server:
        code, err, wall, _ = run_predict(path, server.base_url, "--timeout", "2", "--retries", "1")
    assert code == 1 and "(gave up after 2 attempts)" in err, err
    assert f"{count - 1} answered" in err
    assert wall < 2 * 2 + 2 * 1.0 + 15
