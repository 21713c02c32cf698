"""The tracer console: trace the current instance in the background and inspect what was recorded.

The top bar starts a `TraceJob` (runs, time limit), cancels it, shows its progress and elapsed
time. The body is a placeholder saying why there is nothing to show, or a `TraceRunView` of one of
the instance's stored runs, picked in its header (newest first). Clicking an edge there selects it
in the app and switches the graph to "Latest trace vs truth". A job that fails shows its message
in a bar with the traceback under "Details"; it never only goes to a terminal.

Only the GUI thread's workspace is read here (stored runs, the instance's ground truth); the
tracing itself and the storing of runs happen in the job.
"""
from __future__ import annotations

import html
from pathlib import Path

from PySide6.QtCore import QElapsedTimer, Qt, QTimer, Signal
from PySide6.QtWidgets import (
    QComboBox,
    QFrame,
    QGridLayout,
    QHBoxLayout,
    QLabel,
    QProgressBar,
    QPushButton,
    QSpinBox,
    QStackedWidget,
    QToolButton,
    QVBoxLayout,
    QWidget,
)

from core.dataset.workspace import StoredRun
from core.scoring.replay import ReplayDiff
from core.traces import TraceRun
from core.wording import count
from traceeval_gui.item_models.trace_tables import RECORD_ROLE
from traceeval_gui.state.app_state import AppState
from traceeval_gui.theme.style import MUTED_TEXT
from traceeval_gui.theme.trace_text import STATUS_COLOURS, run_row_text, status_title
from traceeval_gui.trace.trace_jobs import MAX_RUNS, TraceJob
from traceeval_gui.trace.trace_run_view import TraceRunView, text_view

DEFAULT_TIMEOUT_S = 30
MAX_TIMEOUT_S = 3600
TICK_MS = 100  # elapsed-time refresh while tracing
TRACE_TOOLTIP = "Run the selected program under its tracer in the sandbox (F5)"
NOT_TRACED = "Not traced yet in this workspace — press Trace (F5)"

# RECORD_ROLE and STATUS_COLOURS are re-exported: callers read the shown run's tables and badge with them.
__all__ = ["NOT_TRACED", "RECORD_ROLE", "STATUS_COLOURS", "TracerConsolePanel"]


class TracerConsolePanel(QWidget):
    trace_started = Signal(str)  # instance key
    trace_ended = Signal(str)  # instance key; the panel is idle again (finished, cancelled or failed)

    def __init__(self, state: AppState, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.state = state
        self.job: TraceJob | None = None  # the running trace (one at a time)
        self._job_workspace: Path | None = None
        self._failure_detail = ""
        self._stored: tuple[str, int, TraceRun] | None = None  # what the running job has kept so far
        self._clock = QElapsedTimer()
        self._phase = ""
        self._timer = QTimer(self)
        self._timer.setInterval(TICK_MS)
        self._timer.timeout.connect(self._on_timer_timeout)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.setSpacing(0)
        layout.addLayout(self._build_top_bar())
        alert_row = QHBoxLayout()
        alert_row.setContentsMargins(8, 0, 8, 6)
        alert_row.addWidget(self._build_alert())
        layout.addLayout(alert_row)
        layout.addWidget(self._build_body(), 1)
        state.dataset_opened.connect(self._on_state_dataset_opened)
        state.instance_selected.connect(self._on_state_instance_selected)
        state.runs_changed.connect(self._on_state_runs_changed)
        self._reload_runs()

    # -- building -------------------------------------------------------------------------
    def _build_top_bar(self) -> QHBoxLayout:
        """Trace, runs, time limit, cancel, progress and what the panel is doing."""
        self.trace_button = QPushButton("▶  Trace")
        self.trace_button.setToolTip(TRACE_TOOLTIP)
        self.trace_button.clicked.connect(self._on_trace_button_clicked)
        self.runs_spin = QSpinBox()
        self.runs_spin.setRange(1, MAX_RUNS)
        self.runs_spin.setToolTip("Run the program this many times and merge the runs (traceeval trace --runs N): "
                                  "edges seen in only some runs show non-determinism")
        self.timeout_spin = QSpinBox()
        self.timeout_spin.setRange(1, MAX_TIMEOUT_S)
        self.timeout_spin.setValue(DEFAULT_TIMEOUT_S)
        self.timeout_spin.setSuffix(" s")
        self.timeout_spin.setToolTip("Wall-clock time limit per run; then the program's process tree is killed "
                                     "(traceeval trace --timeout)")
        self.cancel_button = QPushButton("Cancel")
        self.cancel_button.setToolTip("Stop the running trace: the program is killed at once and the edges seen "
                                      "so far are kept as a run")
        self.cancel_button.setEnabled(False)
        self.cancel_button.clicked.connect(self._on_cancel_button_clicked)
        self.progress_bar = QProgressBar()
        self.progress_bar.setFixedWidth(110)
        self.progress_bar.setTextVisible(False)
        self.progress_bar.setMaximumHeight(14)
        self.progress_bar.hide()
        self.activity_label = QLabel("F5 traces the selected program")
        self.activity_label.setStyleSheet(f"color: {MUTED_TEXT};")
        self.activity_label.setMinimumWidth(80)
        top = QHBoxLayout()
        top.setContentsMargins(8, 6, 8, 6)
        top.addWidget(self.trace_button)
        top.addSpacing(6)
        top.addWidget(QLabel("Runs"))
        top.addWidget(self.runs_spin)
        top.addSpacing(8)
        top.addWidget(QLabel("Time limit"))
        top.addWidget(self.timeout_spin)
        top.addSpacing(8)
        top.addWidget(self.cancel_button)
        top.addSpacing(6)
        top.addWidget(self.progress_bar)
        top.addWidget(self.activity_label, 1)
        return top

    def _build_alert(self) -> QFrame:
        """The bar that reports a failed job, with its traceback under "Details"."""
        self.alert = QFrame()
        self.alert.setObjectName("traceAlert")
        self.alert.setStyleSheet("#traceAlert { background: #fdecea; border: 1px solid #f3c1bd; border-radius: 4px; }")
        self.alert_label = QLabel()
        self.alert_label.setWordWrap(True)
        self.alert_label.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.details_button = QToolButton()
        self.details_button.setText("Details")
        self.details_button.setCheckable(True)
        self.details_button.setToolButtonStyle(Qt.ToolButtonStyle.ToolButtonTextBesideIcon)
        self.details_button.setArrowType(Qt.ArrowType.RightArrow)
        self.details_button.toggled.connect(self._on_details_button_toggled)
        dismiss = QToolButton()
        dismiss.setText("✕")
        dismiss.setAutoRaise(True)
        dismiss.setToolTip("Hide this message")
        dismiss.clicked.connect(self._on_dismiss_button_clicked)
        self.details_view = text_view()
        self.details_view.setMaximumHeight(160)
        self.details_view.hide()
        alert_layout = QGridLayout(self.alert)
        alert_layout.setContentsMargins(8, 4, 4, 4)
        alert_layout.addWidget(self.alert_label, 0, 0)
        alert_layout.addWidget(self.details_button, 0, 1, Qt.AlignmentFlag.AlignTop)
        alert_layout.addWidget(dismiss, 0, 2, Qt.AlignmentFlag.AlignTop)
        alert_layout.addWidget(self.details_view, 1, 0, 1, 3)
        alert_layout.setColumnStretch(0, 1)
        self.alert.hide()
        return self.alert

    def _build_body(self) -> QStackedWidget:
        """A placeholder, or the shown run with the run picker in its header."""
        self.runs_combo = QComboBox()
        self.runs_combo.setMinimumContentsLength(34)
        self.runs_combo.setSizeAdjustPolicy(QComboBox.SizeAdjustPolicy.AdjustToMinimumContentsLengthWithIcon)
        self.runs_combo.setToolTip("The stored runs of this program, newest first")
        self.runs_combo.currentIndexChanged.connect(self._on_runs_combo_changed)
        self.run_view = TraceRunView(self.runs_combo)
        self.run_view.edge_clicked.connect(self._on_run_view_edge_clicked)
        self.run_view.overlay_clicked.connect(self._on_run_view_overlay_clicked)
        self.placeholder = QLabel()
        self.placeholder.setAlignment(Qt.AlignmentFlag.AlignCenter)
        self.placeholder.setWordWrap(True)
        self.placeholder.setStyleSheet(f"color: {MUTED_TEXT}; font-size: 11pt;")
        self.body = QStackedWidget()
        self.body.addWidget(self.placeholder)
        self.body.addWidget(self.run_view)
        return self.body

    # -- public ---------------------------------------------------------------------------
    @property
    def running(self) -> bool:
        return self.job is not None

    @property
    def shown_run_id(self) -> int | None:
        return self.run_view.run_id

    @property
    def shown_run(self) -> TraceRun | None:
        return self.run_view.run

    @property
    def diff(self) -> ReplayDiff | None:
        """The shown run's diff against the stored ground truth (None: no run or no truth)."""
        return self.run_view.diff

    # The shown run's widgets, reachable from the panel as before the run view was split out.
    status_badge = property(lambda self: self.run_view.status_badge)
    message_label = property(lambda self: self.run_view.message_label)
    tabs = property(lambda self: self.run_view.tabs)
    edge_model = property(lambda self: self.run_view.edge_model)
    edges_view = property(lambda self: self.run_view.edges_view)
    stdout_view = property(lambda self: self.run_view.stdout_view)
    facts = property(lambda self: self.run_view.summary.facts)
    diff_label = property(lambda self: self.run_view.summary.diff_label)
    diff_list = property(lambda self: self.run_view.summary.diff_list)
    overlay_button = property(lambda self: self.run_view.summary.overlay_button)

    def diff_items(self) -> list[tuple[str, str, str]]:
        """(side, caller, callee) of each edge in the diff list, as shown."""
        return self.run_view.summary.diff_items()

    def start_trace(self) -> TraceJob | None:
        """Trace the current instance in the background (F5); None when nothing can be traced now."""
        key = self.state.instance_key
        if self.running or key is None or self.state.opened is None:
            return None
        job = TraceJob(self.state.opened.workspace_path, key, self.runs_spin.value(), float(self.timeout_spin.value()))
        job.signals.progressed.connect(self._on_trace_job_progressed)
        job.signals.stored.connect(self._on_trace_job_stored)
        job.signals.failure_described.connect(self._on_trace_job_failure_described)
        job.signals.finished.connect(self._on_trace_job_finished)
        job.signals.failed.connect(self._on_trace_job_failed)
        job.signals.cancelled.connect(self._on_trace_job_cancelled)
        self.job, self._job_workspace = job, Path(self.state.opened.workspace_path)
        self._failure_detail = ""
        self._stored = None
        self._hide_alert()
        self._phase = f"Tracing {key}…"
        self.progress_bar.setRange(0, 0)  # busy until the first phase is reported
        self.progress_bar.show()
        self._clock.start()
        self._timer.start()
        self._update_controls()
        self._show_activity()
        if self.shown_run is None:
            self._show_placeholder(self._not_traced_text())
        self.state.jobs.start(job)
        self.trace_started.emit(key)
        return job

    def cancel_trace(self) -> None:
        if self.job is not None:
            self.job.cancel()
            self._phase = "Cancelling…"
            self.cancel_button.setEnabled(False)
            self._show_activity()

    def show_run(self, run_id: int | None) -> None:
        """Show one stored run of the current instance (None: the newest)."""
        index = 0 if run_id is None else self.runs_combo.findData(run_id)
        if index >= 0 and self.runs_combo.count():
            self.runs_combo.setCurrentIndex(index)

    # -- slots: app state -----------------------------------------------------------------
    def _on_state_dataset_opened(self) -> None:
        self._reload_runs()

    def _on_state_instance_selected(self, _key: str) -> None:
        self._reload_runs()

    def _on_state_runs_changed(self, key: str) -> None:
        if key == self.state.instance_key:
            self._reload_runs()

    # -- slots: widgets -------------------------------------------------------------------
    def _on_trace_button_clicked(self) -> None:
        self.start_trace()

    def _on_cancel_button_clicked(self) -> None:
        self.cancel_trace()

    def _on_runs_combo_changed(self, index: int) -> None:
        self._show_stored(self.runs_combo.itemData(index) if index >= 0 else None)

    def _on_run_view_edge_clicked(self, caller: str, callee: str) -> None:
        """Select a traced edge everywhere (the app names edges after normalisation) with the trace overlay."""
        detail = self.state.detail()
        if detail is None:
            return
        names = detail.overlay.normalise_edge(caller, callee)
        if names is None:
            self.activity_label.setText(f"{caller} → {callee} is dropped by normalisation: not in the graph")
            return
        self.state.set_view_mode("trace")
        self.state.select_edge_named(*names)

    def _on_run_view_overlay_clicked(self) -> None:
        self.state.set_view_mode("trace")

    def _on_details_button_toggled(self, shown: bool) -> None:
        self.details_view.setVisible(shown)
        self.details_button.setArrowType(Qt.ArrowType.DownArrow if shown else Qt.ArrowType.RightArrow)

    def _on_dismiss_button_clicked(self) -> None:
        self._hide_alert()

    def _on_timer_timeout(self) -> None:
        self._show_activity()

    # -- slots: the job -------------------------------------------------------------------
    def _on_trace_job_progressed(self, done: int, total: int, message: str) -> None:
        if total > 1:
            self.progress_bar.setRange(0, total)
            self.progress_bar.setValue(done)
        self._phase = message[:1].upper() + message[1:]
        self._show_activity()

    def _on_trace_job_stored(self, key: str, run_id: int, run: TraceRun) -> None:
        self._stored = (key, run_id, run)
        opened = self.state.opened
        if opened is not None and Path(opened.workspace_path) == self._job_workspace:
            self.state.run_stored(key)  # every view showing this instance's trace reloads (this panel too)

    def _on_trace_job_failure_described(self, detail: str) -> None:
        self._failure_detail = detail

    def _on_trace_job_finished(self, result: tuple[StoredRun, TraceRun]) -> None:
        stored, run = result
        where = "" if run.instance_key == self.state.instance_key else f"{run.instance_key}: "
        pruned = f" · {count(stored.pruned, 'older run')} removed (keeping {stored.kept})" if stored.pruned else ""
        self._end_job(f"{where}Run #{stored.id} stored · {status_title(run.status)} · "
                      f"{count(len(run.edges), 'edge')}{pruned}")

    def _on_trace_job_cancelled(self) -> None:
        if self._stored is None:
            self._end_job("Cancelled before the program started: nothing stored")
            return
        key, run_id, run = self._stored
        where = "" if key == self.state.instance_key else f" of {key}"
        self._end_job(f"Cancelled · run #{run_id}{where} kept ({run.status}, {count(len(run.edges), 'edge')})")

    def _on_trace_job_failed(self, message: str) -> None:
        key = self.job.key if self.job is not None else "?"
        self._end_job("Tracing failed")
        self._show_alert(f"<b>Tracing {html.escape(key)} failed:</b> {html.escape(message)}", self._failure_detail)

    # -- showing --------------------------------------------------------------------------
    def _end_job(self, outcome: str) -> None:
        key = self.job.key if self.job is not None else ""
        self.job = self._job_workspace = None
        self._timer.stop()
        self.progress_bar.hide()
        self.activity_label.setText(outcome)
        self.activity_label.setToolTip(outcome)
        self._update_controls()
        if self.shown_run is None:
            self._reload_runs()  # the placeholder no longer says "tracing…"
        self.trace_ended.emit(key)

    def _show_activity(self) -> None:
        seconds = self._clock.elapsed() / 1000 if self._clock.isValid() else 0.0
        text = f"{self._phase}  {seconds:.1f} s"
        self.activity_label.setText(text)
        self.activity_label.setToolTip(text)

    def _update_controls(self) -> None:
        can_trace = self.state.instance_key is not None and self.state.opened is not None
        self.trace_button.setEnabled(can_trace and not self.running)
        self.cancel_button.setEnabled(self.running)
        self.runs_spin.setEnabled(not self.running)
        self.timeout_spin.setEnabled(not self.running)
        self.trace_button.setToolTip(f"A trace of {self.job.key} is running: wait or cancel it" if self.running
                                     else TRACE_TOOLTIP)

    def _show_alert(self, text: str, detail: str) -> None:
        self.alert_label.setText(text)
        self.details_view.setPlainText(detail)
        self.details_button.setVisible(bool(detail))
        self.details_button.setChecked(False)
        self.alert_label.setToolTip(detail[-2000:] if detail else "")
        self.alert.show()

    def _hide_alert(self) -> None:
        self.alert.hide()
        self.details_button.setChecked(False)

    def _reload_runs(self) -> None:
        """Fill the runs combo for the current instance and show its newest run (or say why not)."""
        self._update_controls()
        ws, key = self.state.workspace, self.state.instance_key
        rows = ws.run_rows(key) if ws is not None and key is not None else []
        self.runs_combo.blockSignals(True)
        self.runs_combo.clear()
        for row in rows:
            self.runs_combo.addItem(run_row_text(row), row.id)
            self.runs_combo.setItemData(self.runs_combo.count() - 1, f"{row.status}: {row.message}",
                                        Qt.ItemDataRole.ToolTipRole)
        self.runs_combo.setEnabled(bool(rows))
        self.runs_combo.blockSignals(False)
        if ws is None:
            self._show_placeholder("Open a dataset to trace its programs.")
        elif key is None:
            self._show_placeholder("Select a program to trace it.")
        elif not rows:
            self._show_placeholder(self._not_traced_text())
        else:
            self.runs_combo.setCurrentIndex(0)
            self._show_stored(rows[0].id)

    def _not_traced_text(self) -> str:
        if self.job is not None and self.job.key == self.state.instance_key:
            return "Tracing this program… its run will show here."
        return NOT_TRACED

    def _show_placeholder(self, text: str) -> None:
        self.run_view.clear()
        self.placeholder.setText(text)
        self.body.setCurrentWidget(self.placeholder)

    def _show_stored(self, run_id: int | None) -> None:
        ws = self.state.workspace
        run = ws.run(run_id) if ws is not None and run_id is not None else None
        if run is None:
            self._show_placeholder(self._not_traced_text())
            return
        detail = self.state.detail()
        truth = detail.instance.ground_truth if detail is not None else None
        self.run_view.show_run(run_id, run, truth, newest_id=self.runs_combo.itemData(0))
        self.body.setCurrentWidget(self.run_view)
