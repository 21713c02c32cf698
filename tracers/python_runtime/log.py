"""The trace log's lines: how every traced process writes its records, and how each line is authenticated.

Standard library only and self-contained: the traced Python process loads it (`recorder`), the
supervisor checks lines with the same code (`tracers.trace_streams`), and a runtime of another
language written in Python can load it from this folder. The JavaScript and Java runtimes write the
same lines (`js_runtime/runtime.js`, `java_agent/.../TraceLog.java`).

Every traced process of a run writes to one pipe the supervisor reads while the run goes on: the FIFO
`records` in the folder named by `$TRACEEVAL_LOG` (`tracers.trace_channel`). A record is one line,
written with one `write` of at most PIPE_BUF bytes, so the lines of concurrent writers never mix:

    TAG STREAM SEQ RECORD\\n

- RECORD: a JSON array, one of the kinds of `tracers.trace_records`;
- STREAM: `LINEAGE@PID`. LINEAGE is `0` for the program's own process and `PARENT.C` for a traced child
  a process of lineage PARENT started (C is `<its pid>_<count>`); PID is the writer's process id (a
  forked process has a stream of its own in its parent's lineage, a JavaScript worker thread
  `LINEAGE@PID/THREAD`);
- SEQ: 0, 1, 2 ... per stream, so a line dropped, replayed or diverted from the pipe shows (lines of one
  process's threads may arrive out of order);
- TAG: the first 16 bytes, in hex, of HMAC-SHA256(key(LINEAGE), "STREAM SEQ RECORD"), or `-` when the
  writer has no key. key(`0`) is the run's 32-byte key, which the supervisor hands the program's process
  on a pipe read (and closed) before the program's code runs (`$TRACEEVAL_KEY=fd:N`);
  key(P.C) = HMAC-SHA256(key(P), "child C"). A child asks the supervisor's socket `keys`, in the same
  folder, for its key with a one-time ticket, HMAC-SHA256(key(P), "ticket C") cut to 16 bytes, which its
  parent put in the child's environment (`$TRACEEVAL_KEY=ticket:T`, `$TRACEEVAL_STREAM=P.C`).
The last line of a process that ends normally is the record `["Z"]`.
"""
import os

try:  # hashlib would cost every traced program a few milliseconds
    from _sha256 import sha256  # type: ignore[import-not-found]  # Python 3.11
except ImportError:
    try:
        from _sha2 import sha256  # type: ignore[import-not-found]  # 3.12+
    except ImportError:
        from hashlib import sha256

LOG_ENV = "TRACEEVAL_LOG"  # the folder holding `records` and `keys`
KEY_ENV = "TRACEEVAL_KEY"  # fd:N or ticket:T
STREAM_ENV = "TRACEEVAL_STREAM"  # this process's lineage ("0" when unset)
RECORDS = "records"
KEYS = "keys"
PIPE_BUF = 4096  # the longest line, newline included (Linux writes up to PIPE_BUF to a pipe at once)
TAG_BYTES = 16
NO_TAG = b"-"
CLOSING = b'["Z"]'


class Mac:
    """HMAC-SHA256 with one key (RFC 2104), the key's two pads hashed once."""

    def __init__(self, key: bytes):
        padded = key.ljust(64, b"\0") if len(key) <= 64 else sha256(key).digest().ljust(64, b"\0")
        self._inner = sha256(bytes(byte ^ 0x36 for byte in padded))
        self._outer = sha256(bytes(byte ^ 0x5C for byte in padded))

    def digest(self, message: bytes) -> bytes:
        inner = self._inner.copy()
        inner.update(message)
        outer = self._outer.copy()
        outer.update(inner.digest())
        return outer.digest()

    def tag(self, message: bytes) -> bytes:
        return self.digest(message)[:TAG_BYTES].hex().encode()


def child_key(key: bytes, component: bytes) -> bytes:
    return Mac(key).digest(b"child " + component)


def ticket(key: bytes, component: bytes) -> str:
    return Mac(key).digest(b"ticket " + component)[:TAG_BYTES].hex()


class LogWriter:
    """The log of one traced process: `write` one record (JSON bytes) per line, `close` with ["Z"].

    Thread-safe: a reentrant lock guards the sequence numbers and the lines made with them, not the
    writes (a signal handler may trace a call while its thread is writing), so lines may reach the pipe
    out of order, which the supervisor allows. After `os.fork` the child writes a stream of its own.
    Write errors are swallowed: the supervisor sees what is missing."""

    def __init__(self, folder: str | None, key: bytes | None, lineage: str = "0"):
        self.fd = -1
        self.folder = folder or ""
        if folder:
            try:
                self.fd = os.open(os.path.join(folder, RECORDS), os.O_WRONLY | os.O_CLOEXEC)
            except OSError:
                self.fd = -1
        self.key = key
        self.lineage = lineage
        self.mac = Mac(key) if key is not None else None
        self.children = 0
        self.closed = False
        self._started()
        if hasattr(os, "register_at_fork"):
            os.register_at_fork(after_in_child=self._started)

    def _started(self) -> None:
        import _thread

        self.pid = os.getpid()
        self.stream = f"{self.lineage}@{self.pid}".encode()
        self.seq = 0
        self.lock = _thread.RLock()

    def _line(self, record: bytes) -> bytes:
        body = b"%s %d %s" % (self.stream, self.seq, record)
        self.seq += 1
        line = (self.mac.tag(body) if self.mac is not None else NO_TAG) + b" " + body + b"\n"
        if len(line) > PIPE_BUF:  # (never a record we write, but a frame id can be long): said, not cut
            self.seq -= 1
            return self._line(b'["W","a trace record of %d bytes was left out (over %d bytes a line)"]'
                              % (len(record), PIPE_BUF))
        return line

    def write(self, record: bytes) -> None:
        self.write_all((record,))

    def write_all(self, records) -> None:
        """Records in order, as few writes as fit PIPE_BUF (each write holds whole lines)."""
        with self.lock:
            if self.fd < 0 or self.closed:
                return
            lines = [self._line(record) for record in records]
        chunk = b""
        for line in lines:
            if len(chunk) + len(line) > PIPE_BUF:
                self._send(chunk)
                chunk = b""
            chunk += line
        self._send(chunk)

    def _send(self, data: bytes) -> None:
        if not data:
            return
        try:
            os.write(self.fd, data)
        except OSError:
            pass

    def close(self) -> None:
        """The closing record: nothing is written after it. The descriptor stays open for a thread still
        sending lines it made before (it closes on exec, or with the process)."""
        with self.lock:
            if self.fd < 0 or self.closed:
                return
            line = self._line(CLOSING)
            self.closed = True
        self._send(line)

    def child_environment(self) -> dict[str, str]:
        """What a traced child's environment needs: the log, its lineage and a ticket for its key."""
        self.children += 1
        component = f"{os.getpid()}_{self.children}"
        env = {LOG_ENV: self.folder, STREAM_ENV: f"{self.lineage}.{component}"}
        if self.key is not None:
            env[KEY_ENV] = "ticket:" + ticket(self.key, component.encode())
        return env


def open_log(environ) -> LogWriter:
    """This process's log, its key and lineage taken (and removed) from `environ` before the program runs."""
    folder = environ.pop(LOG_ENV, None)
    lineage = environ.pop(STREAM_ENV, "0")
    key = _key(environ.pop(KEY_ENV, ""), folder, lineage)
    return LogWriter(folder, key, lineage)


def _key(spec: str, folder: str | None, lineage: str) -> bytes | None:
    """fd:N: read the key off the supervisor's pipe and close it; ticket:T: ask the supervisor's socket."""
    kind, _, value = spec.partition(":")
    try:
        if kind == "fd":
            fd = int(value)
            try:
                return bytes.fromhex(os.read(fd, 128).decode("ascii").strip())
            finally:
                os.close(fd)
        if kind == "ticket" and folder:
            return bytes.fromhex(_ask(os.path.join(folder, KEYS), f"{lineage} {value}\n".encode()))
    except (OSError, ValueError, UnicodeDecodeError):
        pass
    return None


def _ask(path: str, request: bytes) -> str:
    import _socket

    connection = _socket.socket(_socket.AF_UNIX, _socket.SOCK_STREAM)
    try:
        connection.settimeout(10)
        connection.connect(path)
        connection.sendall(request)
        answer = b""
        while not answer.endswith(b"\n") and len(answer) < 256:
            part = connection.recv(256)
            if not part:
                break
            answer += part
    finally:
        connection.close()
    return answer.decode("ascii").strip()
