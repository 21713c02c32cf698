"""Everything that went wrong while the window was open, in one place (View > Error Log).

Failures reach the `ErrorLog` by three routes: background jobs that fail (the job runner's
`job_failed`), exceptions raised in Qt slots (`sys.excepthook`, which Qt's Python bindings call for
them) and error records of `logging` (database errors, Qt's critical messages, windows that failed
to open). The routes keep writing to stderr as before; the log only adds what the window shows.
Reports may come from any thread: they reach the log's own thread as queued calls.
"""
from __future__ import annotations

import logging
import sys
import traceback
from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime

from PySide6.QtCore import QObject, Signal

MAX_ENTRIES = 500  # older entries are dropped: the log is for what happened today, not an archive
QT_LOGGER = "qt"  # app.py routes Qt's own messages to this logger
SHOWN_IN_WINDOW = "shown_in_window"  # a log record with this extra attribute already reached the window


@dataclass(frozen=True)
class ErrorEntry:
    time: datetime
    source: str  # what failed: a job's title, "Unexpected error", a logger's name
    message: str  # one line
    detail: str = ""  # the full text: a traceback, the database's message

    def text(self) -> str:
        """The entry as copied to the clipboard."""
        head = f"{self.time:%Y-%m-%d %H:%M:%S}  {self.source}: {self.message}"
        return f"{head}\n{self.detail.rstrip()}" if self.detail.strip() else head


class ErrorLog(QObject):
    added = Signal(object)  # ErrorEntry
    unseen_changed = Signal(int)  # how many entries were added since the log was last looked at
    _reported = Signal(str, str, str)  # source, message, detail: crosses threads as a queued call

    def __init__(self, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.entries: list[ErrorEntry] = []
        self.unseen = 0
        self._reported.connect(self._append)

    def report(self, source: str, message: str, detail: str = "") -> None:
        """Add an entry (from any thread)."""
        self._reported.emit(source, message, detail)

    def mark_seen(self) -> None:
        if self.unseen:
            self.unseen = 0
            self.unseen_changed.emit(0)

    def clear(self) -> None:
        self.entries.clear()
        self.mark_seen()

    def _append(self, source: str, message: str, detail: str) -> None:
        first_line = message.strip().splitlines()[0] if message.strip() else "(no message)"
        entry = ErrorEntry(datetime.now(), source, first_line, detail if detail.strip() else message)
        self.entries.append(entry)
        del self.entries[:-MAX_ENTRIES]
        self.unseen += 1
        self.added.emit(entry)
        self.unseen_changed.emit(self.unseen)


class ErrorLogHandler(logging.Handler):
    """Error records of any logger, and Qt's warnings, into the error log."""

    def __init__(self, log: ErrorLog) -> None:
        super().__init__(logging.WARNING)
        self.log = log

    def emit(self, record: logging.LogRecord) -> None:
        if getattr(record, SHOWN_IN_WINDOW, False):
            return
        if record.levelno < logging.ERROR and record.name != QT_LOGGER:
            return
        try:
            message = record.getMessage()
            detail = message
            if record.exc_info:
                detail += "\n\n" + "".join(traceback.format_exception(*record.exc_info))
            source = "Qt" if record.name == QT_LOGGER else record.name
            self.log.report(source, message, detail)
        except Exception:  # noqa: BLE001 - a handler never raises (logging's rule)
            self.handleError(record)


def install_error_reporting(log: ErrorLog) -> Callable[[], None]:
    """Send uncaught exceptions (including those in Qt slots) and error records to `log`, keeping the
    previous hook's stderr output; returns the function that undoes it."""
    previous_hook = sys.excepthook
    handler = ErrorLogHandler(log)

    def excepthook(kind, value, tb) -> None:
        previous_hook(kind, value, tb)
        if issubclass(kind, KeyboardInterrupt):
            return
        detail = "".join(traceback.format_exception(kind, value, tb))
        log.report("Unexpected error", f"{kind.__name__}: {value}", detail)

    sys.excepthook = excepthook
    logging.getLogger().addHandler(handler)

    def uninstall() -> None:
        if sys.excepthook is excepthook:
            sys.excepthook = previous_hook
        logging.getLogger().removeHandler(handler)

    return uninstall
