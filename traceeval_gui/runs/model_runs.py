"""Model > Run Model: the dialog, the background run, its progress in the status bar, and the
answers showing up in the window while it runs.

Answers are stored by the runner as they arrive and handed to `AppState` in small batches
(`handover`). When the run ends the Metrics, Plots and Compare tabs re-score once in the
background (`AppState.model_run_ended`), so they count the new model too; the dataset is not
reopened, which would stall the window.
"""
from __future__ import annotations

from typing import TYPE_CHECKING

from PySide6.QtCore import QObject, Signal
from PySide6.QtWidgets import QHBoxLayout, QLabel, QMenu, QMessageBox, QProgressBar, QToolButton, QWidget

from core.errors import TraceEvalError
from core.llm.endpoints import remember_endpoint, save_api_key
from core.llm.runner import RequestOutcome, RunReport
from traceeval_gui.runs.batch_jobs import POLL_S, BatchRunJob, BatchRunReport
from traceeval_gui.runs.handover import StoredKeysHandover
from traceeval_gui.runs.ledger_window import RunsLedgerWindow
from traceeval_gui.runs.model_jobs import RunModelJob
from traceeval_gui.runs.release_field import ReleaseDialog
from traceeval_gui.runs.run_model_dialog import ModelRunRequest, RunModelDialog
from traceeval_gui.widgets.keyboard_dialog import action

if TYPE_CHECKING:
    from traceeval_gui.state.workbench import Workbench


class ModelRunStatus(QWidget):
    """The status-bar strip of a running model: what it is doing, a bar, and Cancel."""

    cancel_clicked = Signal()

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        layout = QHBoxLayout(self)
        layout.setContentsMargins(8, 0, 8, 0)
        self.label = QLabel()
        self.bar = QProgressBar()
        self.bar.setMaximumWidth(160)
        self.bar.setMaximumHeight(14)
        self.bar.setTextVisible(False)
        self.cancel_button = QToolButton()
        self.cancel_button.setText("Cancel")
        self.cancel_button.setToolTip("Stop the run; answers already stored stay, a new run resumes")
        self.cancel_button.clicked.connect(self.cancel_clicked)
        for widget in (self.label, self.bar, self.cancel_button):
            layout.addWidget(widget)
        self.hide()

    def show_progress(self, name: str, done: int, total: int, failed: int, stopping: bool,
                      verb: str = "answered") -> None:
        self.bar.setRange(0, max(total, 1))
        self.bar.setValue(done)
        failures = f" · {failed:,} failed" if failed else ""
        state = " · stopping…" if stopping else ""
        self.label.setText(f"{name}: {done:,} / {total:,} {verb}{failures}{state}")
        self.cancel_button.setEnabled(not stopping)
        self.show()


class ModelRunActions(QObject):
    message = Signal(str)  # for the status bar

    def __init__(self, window: Workbench) -> None:
        super().__init__(window)
        self.window = window
        self.state = window.state
        self.job: RunModelJob | BatchRunJob | None = None
        self.batch_poll_s = POLL_S  # how often a batch run asks its provider (tests shorten it)
        self.status = ModelRunStatus()
        self.status.cancel_clicked.connect(self.cancel)
        self.handover = StoredKeysHandover(self.state, self)
        self._failed = 0
        self.run_action = action(window, "&Run Model…", self.ask, "Ctrl+R",
                                 "Send TraceEval prompts to an OpenAI-compatible endpoint and store the answers")
        self.cancel_action = action(window, "&Cancel Model Run", self.cancel, None,
                                    "Stop the running model; answers already stored stay")
        self.cancel_action.setEnabled(False)
        self.release_action = action(window, "TraceEval &Release…", self.ask_release, None,
                                     "Your checkout of the TraceEval release: prompts take the paper's words from it")
        self.ledger_action = action(window, "Runs and C&osts…", self.show_ledger, None,
                                    "Every model run's requests, tokens, cost, time and failures per language")

    def add_to(self, menu: QMenu) -> None:
        menu.addAction(self.run_action)
        menu.addAction(self.cancel_action)
        menu.addSeparator()
        menu.addAction(self.ledger_action)
        menu.addAction(self.release_action)

    def show_ledger(self) -> None:
        if self.state.opened is None:
            self.message.emit("Open a dataset first: its workspace keeps the model runs")
            return
        RunsLedgerWindow(self.state.opened.workspace_path, self.state.jobs, self.window).exec()

    def ask_release(self) -> None:
        if ReleaseDialog(self.state, self.window).exec():
            wording = self.state.prompt_wording()
            self.message.emit(f"Prompts: {wording.label}")

    @property
    def running(self) -> bool:
        return self.job is not None

    # -- starting -------------------------------------------------------------------------
    def ask(self) -> None:
        if self.state.opened is None:
            self.message.emit("Open a dataset first, then run a model on it")
            return
        if self.running:
            self.message.emit("A model is already running (Model > Cancel Model Run stops it)")
            return
        dialog = RunModelDialog(self.state, self.window.browser.shown_keys(), self.window, self.window.settings)
        if dialog.exec() and dialog.request is not None:
            self.start(dialog.request)

    def start(self, request: ModelRunRequest) -> RunModelJob | BatchRunJob | None:
        """Start a run (no dialog: tests and scripts call this directly)."""
        if self.running or self.state.opened is None:
            return None
        try:
            if request.remember_key and request.api_key:
                save_api_key(request.settings.base_url, request.api_key)
            remember_endpoint(request.settings)
        except (TraceEvalError, OSError) as error:
            self.message.emit(f"Could not save the endpoint settings: {error}")
        if request.batch_provider is not None:
            return self._start_batch(request)
        job = RunModelJob(self.state.opened.workspace_path, request.settings, request.keys,
                          api_key=request.api_key, redo=request.redo, prices=request.prices,
                          wording=request.wording)
        job.signals.progressed.connect(self._on_job_progressed)
        job.signals.outcome.connect(self._on_job_outcome)
        job.signals.finished.connect(self._on_job_finished)
        job.signals.failed.connect(self._on_job_failed)
        self.handover.begin(request.settings.stored_name)
        settings = request.settings
        return self._begin(job, request, "answered",
                           f"Running {settings.model} at {settings.base_url} ({request.wording.label})…")

    def _start_batch(self, request: ModelRunRequest) -> BatchRunJob | None:
        """Prepare, submit and collect as a provider batch: the bar counts requests in ended batches."""
        assert self.state.opened is not None and request.batch_provider is not None
        job = BatchRunJob(self.state.opened.workspace_path, request.batch_provider, request.settings, request.keys,
                          api_key=request.api_key, redo=request.redo, prices=request.prices, wording=request.wording,
                          poll_s=self.batch_poll_s)
        job.signals.progressed.connect(self._on_batch_progressed)
        job.signals.stored.connect(self._on_batch_stored)
        job.signals.finished.connect(self._on_batch_finished)
        job.signals.failed.connect(self._on_job_failed)
        return self._begin(job, request, "collected", f"Submitting {request.settings.model} as a "
                                                      f"{request.batch_provider} batch ({request.wording.label})…")

    def _begin(self, job: RunModelJob | BatchRunJob, request: ModelRunRequest, verb: str, message: str) \
            -> RunModelJob | BatchRunJob:
        """The run is on: the menu items, the status-bar strip and the message say so, and the job starts."""
        self.job, self._failed = job, 0
        self.run_action.setEnabled(False)
        self.cancel_action.setEnabled(True)
        self.status.show_progress(request.settings.stored_name, 0, len(request.keys), 0, False, verb)
        self.message.emit(message)
        self.state.jobs.start(job)
        return job

    def cancel(self) -> None:
        if self.job is not None:
            self.job.cancel()
            self.status.show_progress(self.job.settings.stored_name, self.status.bar.value(),
                                      self.status.bar.maximum(), self._failed, True,
                                      "collected" if isinstance(self.job, BatchRunJob) else "answered")

    # -- while it runs --------------------------------------------------------------------
    def _on_job_progressed(self, done: int, total: int, _message: str) -> None:
        if self.job is not None:
            self.status.show_progress(self.job.settings.stored_name, done, total, self._failed, self.job.stopping)

    def _on_batch_progressed(self, done: int, total: int, message: str) -> None:
        if self.job is not None:
            self.status.show_progress(self.job.settings.stored_name, done, total, 0, self.job.stopping, "collected")
            self.message.emit(message)

    def _on_batch_stored(self, model: str, keys: set[str]) -> None:
        self.state.predictions_stored(model, keys)

    def _on_job_outcome(self, outcome: RequestOutcome) -> None:
        if outcome.status == "failed":
            self._failed += 1
            return
        self.handover.add(outcome.instance_key)

    # -- the end --------------------------------------------------------------------------
    def _on_job_finished(self, report: RunReport) -> None:
        stored_name = self.job.settings.stored_name if self.job is not None else report.model
        self.handover.finish()
        self._end()
        summary = run_summary(report)
        if self.window.interactive and (report.failed or report.status == "stopped"):
            details = "\n".join(f"{key}: {error}" for key, error in report.failed[:10])
            QMessageBox.warning(self.window, "Model run", summary + (f"\n\n{details}" if details else ""))
        if report.answered or report.cached:
            self.state.model_run_ended(stored_name)  # Metrics, Plots and Compare count the new answers too
        self.message.emit(summary)

    def _on_batch_finished(self, report: BatchRunReport) -> None:
        self._end()
        summary = report.summary()
        if self.window.interactive and (report.failed or report.problems):
            details = "\n".join(report.problems[:10])
            QMessageBox.warning(self.window, "Batch run", summary + (f"\n\n{details}" if details else ""))
        if report.stored:
            self.state.model_run_ended(report.model)
        self.message.emit(summary)

    def _on_job_failed(self, message: str) -> None:
        self.handover.finish()
        self._end()
        self.message.emit(f"Model run failed: {message}")
        if self.window.interactive:
            QMessageBox.warning(self.window, "Model run", message)

    def _end(self) -> None:
        self.job = None
        self.status.hide()
        self.run_action.setEnabled(True)
        self.cancel_action.setEnabled(False)


def run_summary(report: RunReport) -> str:
    text = f"{report.model}: run {report.status}: {report.outcome_text()}"
    if report.rate_text():
        text += f"; {report.rate_text()}"
    if report.message:
        text += f" ({report.message})"
    return text

