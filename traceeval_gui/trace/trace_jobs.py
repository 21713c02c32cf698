"""Tracing one instance in the background: `TraceJob` runs the tracer, keeps the run, reports it.

The job opens its own `Workspace` from the path (SQLite connections belong to one thread),
loads the instance, runs `tracers.trace_instance` once per requested run (so progress can say
"run 2 of 3" and a cancel stops between runs too), combines the runs and stores the result.
Every run is kept, a failed or cancelled one included: runs are never overwritten (the workspace keeps the
newest `runs_kept()` of a program, and the job's result says when it removed older ones).

Cancelling sets the tracer's cancel event, so the sandboxed program tree is killed at once; the
partial run (status killed, the edges seen before) is stored and announced by `stored` before
the job ends with `cancelled`.
"""
from __future__ import annotations

import traceback
from pathlib import Path

from PySide6.QtCore import Signal

from core.dataset.workspace import StoredRun, Workspace
from core.errors import DatasetError, UsageError
from core.traces import TraceRun, combine_runs
from traceeval_gui.state.jobs import Job, JobCancelled, JobSignals, Progress
from tracers import trace_instance
from tracers.base import TraceOptions
from tracers.sandbox import Limits

MAX_RUNS = 5


class TraceJobSignals(JobSignals):
    stored = Signal(str, int, object)  # instance key, run id, TraceRun: the run is in the workspace (cancelled too)
    failure_described = Signal(str)  # the detail (traceback) of a failure, sent just before `failed`


class TraceJob(Job):
    """Trace `key` of the workspace at `workspace_path`; the result is `(StoredRun, TraceRun)`."""

    title = "tracing"

    def __init__(self, workspace_path: str | Path, key: str, runs: int = 1, timeout_s: float = 30.0) -> None:
        super().__init__()
        self.signals = TraceJobSignals()
        self.workspace_path = Path(workspace_path)
        self.key = key
        self.runs = runs
        self.timeout_s = timeout_s

    def work(self, progress: Progress) -> tuple[StoredRun, TraceRun]:
        try:
            return self._trace(progress)
        except JobCancelled:
            raise
        except Exception:
            self.signals.failure_described.emit(traceback.format_exc())
            raise

    def _trace(self, progress: Progress) -> tuple[StoredRun, TraceRun]:
        if not 1 <= self.runs <= MAX_RUNS:
            raise UsageError(f"runs must be between 1 and {MAX_RUNS}, got {self.runs}")
        if self.timeout_s <= 0:
            raise UsageError(f"the time limit must be positive, got {self.timeout_s:g} s")
        with Workspace(self.workspace_path) as ws:
            instance = ws.instance(self.key)
            if instance is None:
                raise DatasetError(f"{self.key}: not in the workspace {self.workspace_path}")
            options = TraceOptions(limits=Limits(wall_s=self.timeout_s), cancel=self._cancel)
            done: list[TraceRun] = []
            for index in range(self.runs):
                of = f" (run {index + 1} of {self.runs})" if self.runs > 1 else ""
                progress(index, self.runs, f"tracing {instance.id}…{of}")  # raises JobCancelled when cancelled
                done.append(trace_instance(instance, options))
                if self._cancel.is_set():
                    break
            run = combine_runs(done)  # a cancelled run says so in its message (tracers.tracelog.classify)
            stored = ws.store_run(run)
        self.signals.stored.emit(self.key, stored.id, run)
        return stored, run
