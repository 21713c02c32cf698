"""Re-trace many instances of a workspace in parallel, keeping every run, resumable.

Tracers run in worker threads (each trace is a sandboxed child process, so threads are enough);
only the calling thread touches the workspace, storing each run the moment it finishes, so an
interrupted retrace loses nothing and a second call with the same batch skips what is done.
"""
from __future__ import annotations

import logging
import threading
from collections.abc import Callable, Sequence
from concurrent.futures import FIRST_COMPLETED, Future, ThreadPoolExecutor, wait
from dataclasses import dataclass, field
from time import monotonic

from core.dataset.workspace import Workspace
from tracers import trace_instance
from tracers.base import TraceOptions

log = logging.getLogger(__name__)
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

    @property
    def per_second(self) -> float:
        return self.traced / self.seconds if self.seconds else 0.0


def retrace(ws: Workspace, keys: Sequence[str], *, batch: str, jobs: int = 2, runs: int = 1,
            options: TraceOptions | None = None, progress: Progress | None = None,
            cancel: threading.Event | None = None) -> RetraceReport:
    """Trace every key not yet traced in `batch`; store each run in `ws` as it finishes."""
    done = ws.traced_keys(batch)
    todo = [key for key in keys if key not in done]
    report = RetraceReport(batch=batch, selected=len(keys), skipped=len(keys) - len(todo))
    started = monotonic()
    total = len(todo)
    if progress:
        progress(0, total, "")
    pending: dict[Future, str] = {}
    queue = iter(todo)
    with ThreadPoolExecutor(max_workers=max(1, jobs), thread_name_prefix="retrace") as pool:
        while True:
            while len(pending) < max(1, jobs) * 2 and not (cancel and cancel.is_set()):
                key = next(queue, None)
                if key is None:
                    break
                instance = ws.instance(key)
                if instance is None:
                    log.warning("%s: not in the workspace index, skipped", key)
                    continue
                pending[pool.submit(trace_instance, instance, options, runs)] = key
            if not pending:
                break
            finished, _ = wait(pending, return_when=FIRST_COMPLETED)
            for future in finished:
                pending.pop(future)
                run = future.result()
                ws.store_run(run, batch=batch)
                report.traced += 1
                report.statuses[run.status] = report.statuses.get(run.status, 0) + 1
                if progress:
                    progress(report.traced, total, run.instance_key)
    report.cancelled = bool(cancel and cancel.is_set()) and report.traced < total
    report.seconds = monotonic() - started
    return report

