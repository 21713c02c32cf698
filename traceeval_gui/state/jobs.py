"""Background jobs: core work in a QThreadPool, results and progress back to the GUI by signals.

A `Job` runs `work(progress)` on a pool thread. It never touches widgets: it reports through
its `signals` object, whose signals reach slots in the GUI thread as queued calls. SQLite
connections belong to one thread, so a job that needs the workspace opens its own
`Workspace` from the path and closes it before returning.
"""
from __future__ import annotations

import logging
import sys
import threading
import traceback
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from PySide6.QtCore import QObject, QRunnable, QThreadPool, Signal

from core.dataset.indexing import IndexReport, open_dataset
from core.dataset.layout import not_a_dataset
from core.dataset.workspace import InstanceRow, ModelRow, Workspace
from core.errors import DatasetError, TraceEvalError, WorkspaceError
from core.release.archive import dataset_folder
from core.results.importing import ImportReport, import_results
from core.scoring.metrics import Counts
from core.scoring.normalise import MODES
from core.scoring.scores import NormalisedTruths, ScoreTable, Selection, default_split, instance_counts, score_table
from traceeval_gui.state.collector import collect_young_garbage

log = logging.getLogger(__name__)

Progress = Callable[[int, int, str], None]
# How long a thread may hold the GIL while another waits for it (CPython's default: 5 ms). A repaint
# takes the GIL once per Python paint override, so with a job computing beside it each took its own
# 5 ms wait: 30-60 ms to repaint a window that needs 1 ms of CPU.
GIL_SWITCH_S = 0.001


class JobCancelled(Exception):
    """Raised inside a job's work when `cancel()` was called; the job then emits `cancelled`."""


class JobSignals(QObject):
    progressed = Signal(int, int, str)  # done, total, message
    finished = Signal(object)  # the result of `work`
    failed = Signal(str)  # a one-line message
    cancelled = Signal()


class Job(QRunnable):
    """One piece of background work. Subclasses implement `work(progress)`."""

    title = "working"
    # False: the job's own window shows its expected failures (a TraceEvalError), so the error log
    # takes only its bugs
    logs_expected_failures = True

    def __init__(self) -> None:
        super().__init__()
        self.setAutoDelete(True)
        self.signals = JobSignals()
        self.failure_detail = ""  # the traceback of a failure that is a bug (for the window's error log)
        self._cancel = threading.Event()

    def cancel(self) -> None:
        self._cancel.set()

    def work(self, progress: Progress) -> object:
        raise NotImplementedError

    def check_cancelled(self) -> None:
        if self._cancel.is_set():
            raise JobCancelled()

    def run(self) -> None:  # runs on a pool thread
        def progress(done: int, total: int, message: str) -> None:
            self.check_cancelled()
            self.signals.progressed.emit(done, total, message)

        try:
            result = self.work(progress)
            self.check_cancelled()
        except JobCancelled:
            self.signals.cancelled.emit()
        except TraceEvalError as error:
            self.signals.failed.emit(str(error))
        except Exception as error:  # a bug: keep the traceback in the log, show one line
            self.failure_detail = traceback.format_exc()
            log.exception("%s failed", self.title, extra={"shown_in_window": True})  # the runner reports it
            self.signals.failed.emit(f"{self.title} failed: {type(error).__name__}: {error}")
        else:
            self.signals.finished.emit(result)


class StoppableJob(Job):
    """A job whose cancel asks its work to stop and still report what it did (a model run, a static analyzer, a
    batch wait): `stop` is handed to core as its cancel event, not the base class's, which would end the job
    as cancelled with no result."""

    def __init__(self) -> None:
        super().__init__()
        self.stop = threading.Event()

    def cancel(self) -> None:
        self.stop.set()

    @property
    def stopping(self) -> bool:
        return self.stop.is_set()


class JobRunner(QObject):
    """Starts jobs on a private pool and keeps their signal objects alive until they end."""

    busy_changed = Signal(bool)
    job_failed = Signal(str, str, str)  # the job's title, its one-line message, the detail (a traceback or "")

    def __init__(self, parent: QObject | None = None) -> None:
        super().__init__(parent)
        sys.setswitchinterval(GIL_SWITCH_S)
        self.pool = QThreadPool(self)
        self._running: dict[JobSignals, Job] = {}

    def start(self, job: Job) -> Job:
        collect_young_garbage()
        signals = job.signals
        signals.failed.connect(lambda message, title=job.title: self._on_job_failed(signals, title, message))
        for signal in (signals.finished, signals.failed, signals.cancelled):
            signal.connect(self._on_job_ended)
        was_busy = bool(self._running)
        self._running[signals] = job
        self.pool.start(job)
        if not was_busy:
            self.busy_changed.emit(True)
        return job

    @property
    def busy(self) -> bool:
        return bool(self._running)

    def cancel_all(self) -> None:
        for job in list(self._running.values()):
            job.cancel()

    def wait(self, msecs: int = -1) -> bool:
        """Block until every started job has returned (used on close and in tests)."""
        return self.pool.waitForDone(msecs)

    def _on_job_failed(self, signals: JobSignals, title: str, message: str) -> None:
        job = self._running.get(signals)
        detail = job.failure_detail if job is not None else ""
        if job is None or detail or job.logs_expected_failures:
            self.job_failed.emit(title, message, detail)

    def _on_job_ended(self, *_args) -> None:
        signals = self.sender()
        if self._running.pop(signals, None) is not None and not self._running:
            self.busy_changed.emit(False)


# -- the jobs ---------------------------------------------------------------------------------

@dataclass(frozen=True)
class OpenedDataset:
    """Everything the window shows right after opening a dataset, computed off the GUI thread."""

    root: Path
    workspace_path: Path
    report: IndexReport
    rows: tuple[InstanceRow, ...]
    models: tuple[ModelRow, ...]
    counts: dict[str, dict[str, Counts]]  # model -> instance key -> counts (instances with a result)
    table: ScoreTable  # the paper table for `default_split`
    default_split: str | None  # "test" when the dataset has split files, else None (all)

    @property
    def name(self) -> str:
        return self.root.name


class OpenDatasetJob(Job):
    """Index the dataset into its workspace and score every model per instance (cached in the
    workspace, so the GUI thread's own connection finds the counts ready)."""

    title = "opening the dataset"

    def __init__(self, root: str | Path | None, workspace: str | Path | None = None,
                 splits: str | Path | None = None) -> None:
        """`root=None` opens the dataset a `workspace` file was made for."""
        super().__init__()
        self.root = Path(root).expanduser().resolve() if root is not None else None
        self.workspace = workspace
        self.splits = splits

    def work(self, progress: Progress) -> OpenedDataset:
        if self.root is None:
            self.root = workspace_dataset(self.workspace)
        self.root = dataset_folder(self.root, progress)  # a TraceEval release checkout: its corpus
        progress(0, 0, f"indexing {self.root.name}")
        ws, report = open_dataset(self.root, self.workspace, self.splits, progress)
        with ws:
            if not report.instances:  # failing here keeps the folder out of the recent list and the session
                raise DatasetError(not_a_dataset(self.root, report.problems))
            rows = tuple(ws.instance_rows())
            models = tuple(ws.models())
            modes = frozenset(MODES)
            truths = NormalisedTruths(ws, modes)
            counts = {}
            for done, model in enumerate(models):
                progress(done, len(models), f"scoring {model.name}")
                counts[model.name] = instance_counts(ws, model.name, rows, modes, truths)
            split = default_split(ws)
            table = score_table(ws, selection=Selection(split=split), modes=modes)
            truths.release()  # freed a piece at a time, so the window is not frozen meanwhile
            return OpenedDataset(self.root, ws.path, report, rows, models, counts, table, split)


def workspace_dataset(path: str | Path | None) -> Path:
    """The dataset folder a workspace file belongs to."""
    if path is None or not Path(path).is_file():
        raise WorkspaceError(f"{path}: no such workspace file")
    with Workspace(path) as ws:
        root = ws.setting("dataset_root")
    if not root:
        raise WorkspaceError(f"{path}: this workspace has no dataset yet (open a dataset with it instead)")
    return Path(root)


class ImportResultsJob(Job):
    """Import results files, and every results file in folders given, into a workspace (the window reopens
    the dataset afterwards)."""

    title = "importing results"

    def __init__(self, workspace_path: str | Path, paths: list[str | Path], model: str | None = None) -> None:
        super().__init__()
        self.workspace_path, self.paths, self.model = workspace_path, paths, model

    def work(self, progress: Progress) -> ImportReport:
        progress(0, 0, "importing results")
        with Workspace(self.workspace_path) as ws:  # every results file below a folder, a file at a time
            return import_results(ws, self.paths, self.model,
                                  lambda done, files, name: progress(done, files, f"importing {name}"))


