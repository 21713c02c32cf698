"""Model > Run Static Analyzer: the dialog, the background run, its progress in the status bar, and the new model
`static:<tool>` showing up in the window as programs are analysed.

As with Run Model (`model_runs`), each analysed program is handed to `AppState` in small batches (`handover`), so
the Programs table grows the model's F1 column while the run goes on; when it ends the Metrics, Plots and Compare
tabs re-score once in the background (`AppState.model_run_ended`).
"""
from __future__ import annotations

from typing import TYPE_CHECKING

from PySide6.QtCore import QObject, Signal
from PySide6.QtWidgets import QMenu, QMessageBox

from core.baselines import static_model_name
from traceeval_gui.runs.handover import StoredKeysHandover
from traceeval_gui.runs.model_runs import ModelRunStatus
from traceeval_gui.runs.static_dialog import RunStaticAnalyzerDialog, StaticRunRequest
from traceeval_gui.runs.static_jobs import StaticRunJob
from traceeval_gui.widgets.keyboard_dialog import action
from tracers.static.runner import BaselineReport

if TYPE_CHECKING:
    from traceeval_gui.state.workbench import Workbench

VERB = "analysed"
PROBLEMS_SHOWN = 10


class StaticRunActions(QObject):
    message = Signal(str)  # for the status bar

    def __init__(self, window: Workbench) -> None:
        super().__init__(window)
        self.window = window
        self.state = window.state
        self.job: StaticRunJob | None = None
        self.status = ModelRunStatus()
        self.status.cancel_button.setToolTip("Stop the analyzer; programs already analysed stay, a new run resumes")
        self.status.cancel_clicked.connect(self.cancel)
        self.handover = StoredKeysHandover(self.state, self)
        self.run_action = action(window, "Run &Static Analyzer…", self.ask, None,
                                 "Run PyCG, pyan3 or code2flow on the programs and store its graphs as model "
                                 "static:TOOL")
        self.cancel_action = action(window, "Cancel Static &Analyzer", self.cancel, None,
                                    "Stop the running analyzer; programs already analysed stay")
        self.cancel_action.setEnabled(False)

    def add_to(self, menu: QMenu) -> None:
        menu.addSeparator()
        menu.addAction(self.run_action)
        menu.addAction(self.cancel_action)

    @property
    def running(self) -> bool:
        return self.job is not None

    @property
    def model(self) -> str:
        return static_model_name(self.job.tool) if self.job is not None else ""

    # -- starting -------------------------------------------------------------------------
    def ask(self) -> None:
        if self.state.opened is None:
            self.message.emit("Open a dataset first, then run a static analyzer on it")
            return
        if self.running:
            self.message.emit("A static analyzer is already running (Model > Cancel Static Analyzer stops it)")
            return
        dialog = RunStaticAnalyzerDialog(self.state, self.window.browser.shown_keys(), self.window)
        if dialog.exec() and dialog.request is not None:
            self.start(dialog.request)

    def start(self, request: StaticRunRequest) -> StaticRunJob | None:
        if self.running or self.state.opened is None:
            return None
        job = StaticRunJob(self.state.opened.workspace_path, request.tool, request.keys, jobs=request.jobs,
                           timeout_s=request.timeout_s)
        job.signals.progressed.connect(self._on_job_progressed)
        job.signals.finished.connect(self._on_job_finished)
        job.signals.failed.connect(self._on_job_failed)
        self.job = job
        self.handover.begin(self.model)
        self.run_action.setEnabled(False)
        self.cancel_action.setEnabled(True)
        self.status.show_progress(self.model, 0, request.to_analyse, 0, False, VERB)
        self.message.emit(f"Running {request.tool} on {request.to_analyse:,} programs in the sandbox…")
        self.state.jobs.start(job)
        return job

    def cancel(self) -> None:
        if self.job is not None:
            self.job.cancel()
            self.status.show_progress(self.model, self.status.bar.value(), self.status.bar.maximum(), 0, True, VERB)

    # -- while it runs --------------------------------------------------------------------
    def _on_job_progressed(self, done: int, total: int, key: str) -> None:
        if self.job is None:
            return
        self.status.show_progress(self.model, done, total, 0, self.job.stopping, VERB)
        if key:
            self.handover.add(key)

    # -- the end --------------------------------------------------------------------------
    def _on_job_finished(self, report: BaselineReport) -> None:
        self.handover.finish()
        self._end()
        summary = report.summary()
        if self.window.interactive and (report.failed or report.cancelled):
            details = "\n".join(report.problems[:PROBLEMS_SHOWN])
            QMessageBox.warning(self.window, "Static analyzer", summary + (f"\n\n{details}" if details else ""))
        if report.analysed:
            self.state.model_run_ended(report.model)  # Metrics, Plots and Compare count the new model too
        self.message.emit(summary)

    def _on_job_failed(self, message: str) -> None:
        self.handover.finish()
        self._end()
        self.message.emit(f"Static analyzer failed: {message}")
        if self.window.interactive:
            QMessageBox.warning(self.window, "Static analyzer", message)

    def _end(self) -> None:
        self.job = None
        self.status.hide()
        self.run_action.setEnabled(True)
        self.cancel_action.setEnabled(False)
