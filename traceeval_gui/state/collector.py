"""Garbage collection on the window's schedule, not the allocator's.

CPython's full (generation 2) collection walks every tracked object with the GIL held. While a job
indexes or re-scores a 10,583-program dataset that is millions of objects: one pass takes 0.3-0.9 s,
and the window, which needs the GIL for every repaint and every slot, freezes that long. So, once
per process, the objects alive at start (modules, classes, functions: about 170,000) are frozen, no
pass walks them again, and automatic full passes are off. `IdleCollector` runs the full pass itself
when no job has run for a moment (the job's objects are gone by then: a pass over an open dataset
takes about 10 ms), and at the latest every `LONGEST_WAIT_S` while jobs keep running, so cyclic
garbage never piles up. Young generations are still collected automatically (short passes).
"""
from __future__ import annotations

import gc
import time
import weakref

from PySide6.QtCore import QObject, QTimer

IDLE_MS = 1000  # after the last job ended
PERIOD_MS = 60_000
LONGEST_WAIT_S = 300.0
NO_AUTOMATIC_FULL_PASS = 2**31 - 1  # generation 2's threshold: never reached

_installed = False


def install_policy() -> None:
    """Freeze what exists now and turn automatic full passes off (once per process)."""
    global _installed
    if _installed:
        return
    _installed = True
    gc.freeze()
    young, middle, _ = gc.get_threshold()
    gc.set_threshold(young, middle, NO_AUTOMATIC_FULL_PASS)


def collect_young_garbage() -> None:
    """Collect the young generations on this (the GUI) thread; call it before starting another thread's work.

    Qt objects that became garbage (a closed dialog, a window) must be destroyed on the GUI thread. A
    young-generation pass that another thread's allocations trigger would destroy them there, and PySide
    deadlocks: the destructor waits for the GIL while it holds a Qt lock the GUI thread waits for (seen in
    CI: a window of the previous test collected during the next test's dataset job). Old objects are safe:
    only `IdleCollector`, on this thread, collects generation 2."""
    gc.collect(1)


class IdleCollector(QObject):
    """Runs the full collection when no watched `JobRunner` is busy (see the module's docstring).

    One per process, owned by this module: a pass may free a window and everything it owns, so the
    timer that starts it must not belong to anything a pass can free."""

    _instance: IdleCollector | None = None

    @classmethod
    def watch(cls, jobs) -> IdleCollector:
        """The process's collector, now also waiting for `jobs` (a `JobRunner`) to be idle."""
        if cls._instance is None:
            cls._instance = cls()
        cls._instance._runners.add(jobs)
        jobs.busy_changed.connect(cls._instance._on_jobs_busy_changed)
        return cls._instance

    def __init__(self) -> None:
        super().__init__()
        install_policy()
        self.passes = 0
        self.last_pass = time.monotonic()
        self._runners: weakref.WeakSet = weakref.WeakSet()
        self._after_jobs = QTimer(self)
        self._after_jobs.setSingleShot(True)
        self._after_jobs.setInterval(IDLE_MS)
        self._after_jobs.timeout.connect(self._on_after_jobs_timeout)
        self._period = QTimer(self)
        self._period.setInterval(PERIOD_MS)
        self._period.timeout.connect(self._on_period_timeout)
        self._period.start()

    @property
    def busy(self) -> bool:
        return any(runner.busy for runner in list(self._runners))

    def collect(self) -> int:
        """One full pass now; returns the number of unreachable objects found."""
        found = gc.collect()
        self.passes += 1
        self.last_pass = time.monotonic()
        return found

    def _on_jobs_busy_changed(self, busy: bool) -> None:
        if busy:
            self._after_jobs.stop()
        elif not self.busy:
            self._after_jobs.start()

    def _on_after_jobs_timeout(self) -> None:
        if not self.busy:
            self.collect()

    def _on_period_timeout(self) -> None:
        if not self.busy or time.monotonic() - self.last_pass > LONGEST_WAIT_S:
            self.collect()
