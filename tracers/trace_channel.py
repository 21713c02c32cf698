"""Where a run's trace records go: a pipe the supervisor reads while the program runs, never a file.

Nothing the program writes to its trace log reaches the host's disk, and nothing it can unlink or
truncate holds it. `TraceChannel` makes, in the run's folder, a folder `log` holding
- `records`, a FIFO every traced process of the run writes its lines to (`python_runtime/log.py`):
  shown read-only at `SANDBOX_FOLDER/records`, mode write-only, so the program can neither read it
  (and take records off it), nor truncate, seek, replace or remove it;
- `keys`, a unix socket where a traced child trades its one-time ticket for its key;
and a pipe holding the run's key, inherited by the program's process, which reads it before the
program's code runs. A thread (`serve`) reads the FIFO and answers the socket for the whole run,
charging every byte to the run's budget (`Limits.log_mb`); each line is checked and decoded at once
(`trace_streams.StreamReader`), so the host holds only the decoded records, themselves bounded. Past
the budget, MAX_LINES lines, MAX_SITES call sites or `Limits.decode_s` seconds of decoding, the run
is stopped (`limited`, then status `limit`). After the process tree is gone, `finish` drains what
is left and gives the `TraceLog`.
"""
from __future__ import annotations

import os
import select
import socket
import threading
import time
from collections.abc import Callable
from pathlib import Path

from tracers.python_runtime.log import KEY_ENV, KEYS, LOG_ENV, RECORDS
from tracers.sandbox_view import Identity
from tracers.trace_records import TraceLog
from tracers.trace_streams import StreamReader

SANDBOX_FOLDER = "/traceeval-log"
READ_BYTES = 65536
MAX_REQUESTS = 1024  # key requests a run may make (one per traced child)
REQUEST_BYTES = 256
REQUEST_WAIT_S = 5.0  # a connection that sends no request in this time is closed


class TraceChannel:
    """The log pipe, key socket and key of one run (see the module's docstring)."""

    def __init__(self, base: Path, identity: Identity, log_bytes: int, decode_s: float):
        self.folder = base / "log"
        self.folder.mkdir(mode=0o700)
        self._budget = log_bytes
        self._decode_s = decode_s
        key = os.urandom(32)
        self._reader = StreamReader(key)
        self._records = self._fifo(identity)
        self._listener = self._socket(identity)
        self._key_read, key_write = os.pipe()
        os.write(key_write, key.hex().encode() + b"\n")
        os.close(key_write)
        os.fchmod(self._key_read, 0o444)  # the JVM reads it through /proc/self/fd (the program is not running yet)
        if identity.switches:
            self.folder.chmod(0o711)  # bubblewrap, as the sandbox's user, binds it; nobody lists it
        self.received = 0
        self.limited = ""
        self._requests = 0
        self._pending: dict[socket.socket, tuple[bytes, float]] = {}
        self._stop, self._stopping = os.pipe()  # (written to by `finish`: the thread's select returns at once)
        self._thread: threading.Thread | None = None
        self._decoding = 0.0
        self._open = True

    def _fifo(self, identity: Identity) -> int:
        path = self.folder / RECORDS
        os.mkfifo(path, 0o600)
        fd = os.open(path, os.O_RDWR | os.O_NONBLOCK | os.O_CLOEXEC)  # a writer too: no end-of-file between writers
        os.chmod(path, 0o202 if identity.switches else 0o200)  # write only: nobody may take records off it
        return fd

    def _socket(self, identity: Identity) -> socket.socket:
        listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        path = self.folder / KEYS
        listener.bind(str(path))
        os.chmod(path, 0o666 if identity.switches else 0o600)
        listener.listen(16)
        listener.setblocking(False)
        return listener

    @property
    def key_fd(self) -> int:
        """The key pipe's read end, for the program's process to inherit (`environment` names it)."""
        return self._key_read

    def environment(self, isolated: bool) -> dict[str, str]:
        folder = SANDBOX_FOLDER if isolated else str(self.folder)
        return {LOG_ENV: folder, KEY_ENV: f"fd:{self._key_read}"}

    def shown(self) -> tuple[Path, str]:
        """(host folder, place): what the sandbox shows read-only."""
        return self.folder, SANDBOX_FOLDER

    def started(self, wake: Callable[[], None]) -> None:
        """The program started: serve the pipe and the socket until `finish` (`wake` is called on a limit)."""
        os.close(self._key_read)
        self._thread = threading.Thread(target=self._serve, args=(wake,), daemon=True, name="trace-log")
        self._thread.start()

    def _serve(self, wake: Callable[[], None]) -> None:
        watched = select.poll()  # (not select: the app may hold descriptors past FD_SETSIZE)
        for fd in (self._records, self._listener.fileno(), self._stop):
            watched.register(fd, select.POLLIN)
        while not self.limited:
            for connection in self._pending:
                watched.register(connection, select.POLLIN)  # (registering again changes nothing)
            ready = {fd for fd, _ in watched.poll(REQUEST_WAIT_S * 1000)}
            if self._stop in ready:
                break
            if self._records in ready:
                self._read()
            if self._listener.fileno() in ready:
                self._accept()
            for connection in [c for c in self._pending if c.fileno() in ready]:
                watched.unregister(connection)
                self._request(connection)
            for connection in self._expired():
                watched.unregister(connection)
                connection.close()
            if self.limited:
                wake()

    def _read(self) -> bool:
        """Read what the pipe holds now (False when it held nothing), within the budget."""
        try:
            data = os.read(self._records, READ_BYTES)
        except BlockingIOError:
            return False
        self.received += len(data)
        if self.received > self._budget:
            self.limited = f"wrote over {self._budget // 2**20} MiB to the trace log"
            return False
        started = time.thread_time()
        self._reader.feed(data)
        self._decoding += time.thread_time() - started
        if self._decoding > self._decode_s:
            self.limited = f"decoding its trace log took over {self._decode_s:g} s"
        self.limited = self.limited or self._reader.limited
        return bool(data)

    def _accept(self) -> None:
        try:
            connection, _ = self._listener.accept()
        except OSError:
            return
        self._requests += 1
        if self._requests > MAX_REQUESTS:
            connection.close()
            self.limited = f"asked for over {MAX_REQUESTS} trace keys"
            return
        connection.setblocking(False)
        self._pending[connection] = (b"", time.monotonic() + REQUEST_WAIT_S)

    def _request(self, connection: socket.socket) -> None:
        so_far, deadline = self._pending[connection]
        try:
            part = connection.recv(REQUEST_BYTES)
        except BlockingIOError:
            return
        except OSError:
            part = b""
        so_far += part
        if part and not so_far.endswith(b"\n") and len(so_far) < REQUEST_BYTES:
            self._pending[connection] = (so_far, deadline)
            return
        del self._pending[connection]
        try:
            if so_far.endswith(b"\n"):
                connection.sendall(self._reader.answer(so_far[:-1]))
        except OSError:
            pass
        connection.close()

    def _expired(self) -> list[socket.socket]:
        """The connections that sent no request in time (no longer pending; the caller closes them)."""
        now = time.monotonic()
        expired = [connection for connection, (_, deadline) in self._pending.items() if deadline < now]
        for connection in expired:
            del self._pending[connection]
        return expired

    def finish(self) -> TraceLog:
        """After the run's processes are gone: what is left in the pipe, then the log; everything closed."""
        os.write(self._stopping, b"x")
        if self._thread is not None:
            self._thread.join(timeout=30)
        while not self.limited and self._read():
            pass
        self.close()
        log = self._reader.result()
        if self.limited and not log.limited:
            log.limited = self.limited
        return log

    def close(self) -> None:
        """Close the pipe, the socket and the key's pipe (when the run never started); again, nothing."""
        if not self._open:
            return
        self._open = False
        if self._thread is None:
            os.close(self._key_read)
        for connection in self._pending:
            connection.close()
        self._listener.close()
        for fd in (self._records, self._stop, self._stopping):
            os.close(fd)

