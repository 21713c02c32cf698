"""Re-trace many instances of a workspace in parallel, keeping every run, resumable.

Tracers run a few at a time (tracers.program_pool); each run is stored the moment it finishes, so an
interrupted retrace loses nothing and a second call with the same batch skips what is done.
"""
from __future__ import annotations

import threading
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from time import monotonic

from core.dataset.workspace import Workspace, runs_kept
from tracers import trace_instance
from tracers.base import TraceOptions
from tracers.program_pool import each_result
from tracers.sandbox_launch import prestarting

Progress = Callable[[int, int, str], None]


@dataclass
class RetraceReport:
    batch: str
    selected: int
    skipped: int  # already traced in this batch (resumed)
    traced: int = 0
    cancelled: bool = False
    seconds: float = 0.0
    statuses: dict[str, int] = field(default_factory=dict)
    kept: int = 0  # runs kept per program
    pruned: int = 0  # older runs removed to keep them
    pruned_programs: int = 0

    @property
    def per_second(self) -> float:
        return self.traced / self.seconds if self.seconds else 0.0


def retrace(ws: Workspace, keys: Sequence[str], *, batch: str, jobs: int = 2, runs: int = 1,
            options: TraceOptions | None = None, progress: Progress | None = None,
            cancel: threading.Event | None = None, keep: int | None = None) -> RetraceReport:
    """Trace every key not yet traced in `batch`; store each run in `ws` as it finishes (keeping the newest `keep`
    of each program, `runs_kept()` by default: the report counts what was removed)."""
    done = ws.traced_keys(batch)
    todo = [key for key in keys if key not in done]
    report = RetraceReport(batch=batch, selected=len(keys), skipped=len(keys) - len(todo),
                           kept=runs_kept() if keep is None else keep)
    started = monotonic()
    total = len(todo)
    if progress:
        progress(0, total, "")
    with prestarting():  # each worker's next sandbox launcher joins its cgroups while the current run goes on
        for _key, run in each_result(ws, todo, lambda instance: trace_instance(instance, options, runs), jobs=jobs,
                                     cancel=cancel, name="retrace"):
            stored = ws.store_run(run, batch=batch, keep=report.kept)
            report.pruned += stored.pruned
            report.pruned_programs += stored.pruned > 0
            report.traced += 1
            report.statuses[run.status] = report.statuses.get(run.status, 0) + 1
            if progress:
                progress(report.traced, total, run.instance_key)
    report.cancelled = bool(cancel and cancel.is_set()) and report.traced < total
    report.seconds = monotonic() - started
    return report

