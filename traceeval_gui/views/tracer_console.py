"""The tracer console: trace the current instance in the background and inspect what was recorded.

The top bar starts a `TraceJob` (runs, time limit), cancels it, shows its progress and elapsed
time, and picks one of the instance's stored runs (newest first). The body shows that run: a
status badge with the tracer's one-line message above four tabs: Summary (exit code, timings,
sandbox, warnings, and the exact diff against the stored ground truth, whose edges select the
edge in the app and switch the graph to "Latest trace vs truth"), Edges (what the tracer
recorded, with counts and call-site lines), Output (stdout / stderr tails) and Unresolved
(frames the tracer could not name). A job that fails shows its message in a bar with the
traceback under "Details"; it never only goes to a terminal.

Only the GUI thread's workspace is read here (stored runs, the instance's ground truth); the
tracing itself and the storing of runs happen in the job.
"""
from __future__ import annotations

import html
from datetime import datetime
from pathlib import Path

from PySide6.QtCore import QAbstractTableModel, QElapsedTimer, QModelIndex, QSortFilterProxyModel, Qt, QTimer, Signal
from PySide6.QtGui import QBrush, QColor
from PySide6.QtWidgets import (
    QAbstractItemView,
    QComboBox,
    QFormLayout,
    QFrame,
    QGridLayout,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QListWidget,
    QListWidgetItem,
    QPlainTextEdit,
    QProgressBar,
    QPushButton,
    QScrollArea,
    QSpinBox,
    QSplitter,
    QStackedWidget,
    QTableView,
    QTabWidget,
    QToolButton,
    QVBoxLayout,
    QWidget,
)

from core import traces
from core.model import Edge
from core.normalise import normalise_name
from core.palette import EDGE_STYLES
from core.replay import ReplayDiff, compare_run, key_notes
from core.traces import EdgeEvidence, TraceRun, UnresolvedFrame
from core.workspace import RunRow
from traceeval_gui.app_state import AppState
from traceeval_gui.trace_jobs import MAX_RUNS, TraceJob
from traceeval_gui.views.style import MUTED_TEXT, monospace_font

DEFAULT_TIMEOUT_S = 30
MAX_TIMEOUT_S = 3600
TICK_MS = 100  # elapsed-time refresh while tracing
WARNINGS_SHOWN = 8

RECORD_ROLE = Qt.ItemDataRole.UserRole  # the core object of a row (EdgeEvidence, UnresolvedFrame)
SORT_ROLE = Qt.ItemDataRole.UserRole + 1
DIFF_ROLE = Qt.ItemDataRole.UserRole  # diff list items: (side, caller, callee)

GREEN, AMBER, RED, GREY = "#2e7d32", "#b26a00", "#c62828", "#607d8b"
STATUS_COLOURS = {traces.OK: GREEN, traces.EXIT_CODE: AMBER, traces.EXCEPTION: AMBER, traces.TIMEOUT: RED,
                  traces.LIMIT: RED, traces.KILLED: RED, traces.COMPILE_ERROR: RED, traces.NO_ENTRY_POINT: RED,
                  traces.TRACER_ERROR: RED, traces.TOOLCHAIN_MISSING: GREY}
STATUS_TITLES = {traces.OK: "OK", traces.EXIT_CODE: "Exit code", traces.EXCEPTION: "Exception",
                 traces.TIMEOUT: "Timeout", traces.LIMIT: "Limit", traces.KILLED: "Killed",
                 traces.COMPILE_ERROR: "Compile error", traces.NO_ENTRY_POINT: "No entry point",
                 traces.TOOLCHAIN_MISSING: "Toolchain missing", traces.TRACER_ERROR: "Tracer error"}
STATUS_DESCRIPTIONS = {
    traces.OK: "the program ran to completion and exited 0",
    traces.EXIT_CODE: "the program exited with a non-zero code",
    traces.EXCEPTION: "an uncaught exception ended the program",
    traces.TIMEOUT: "the wall-clock or CPU time limit was reached; the process tree was killed",
    traces.LIMIT: "a memory, file size, process or output limit was reached; the program was killed",
    traces.KILLED: "ended by a signal (or cancelled); the edges seen before are kept",
    traces.COMPILE_ERROR: "syntax or compile errors: the program never ran",
    traces.NO_ENTRY_POINT: "nothing to run",
    traces.TOOLCHAIN_MISSING: "the language's toolchain (Node, a JDK) is not available here",
    traces.TRACER_ERROR: "the tracer itself failed (a bug: please report it)",
}
TRACE_ONLY, TRUTH_ONLY = "trace_only", "truth_only"
SIDE_MARKS = {TRACE_ONLY: "+", TRUTH_ONLY: "−"}
SIDE_LABELS = {TRACE_ONLY: "only in the trace", TRUTH_ONLY: "only in the ground truth"}
_ROOT = QModelIndex()  # the invisible root: table rows have no children
NOT_TRACED = "Not traced yet in this workspace — press Trace (F5)"


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
        self.shown_run_id: int | None = None
        self.shown_run: TraceRun | None = None
        self.diff: ReplayDiff | None = None
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
        self.trace_button.setToolTip("Run the selected program under its tracer in the sandbox (F5)")
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
        self.activity_label = QLabel()
        self.activity_label.setStyleSheet(f"color: {MUTED_TEXT};")
        self.activity_label.setMinimumWidth(80)
        self.activity_label.setText("F5 traces the selected program")
        self.runs_combo = QComboBox()
        self.runs_combo.setMinimumContentsLength(34)
        self.runs_combo.setSizeAdjustPolicy(QComboBox.SizeAdjustPolicy.AdjustToMinimumContentsLengthWithIcon)
        self.runs_combo.setToolTip("The stored runs of this program, newest first")
        self.runs_combo.currentIndexChanged.connect(self._on_runs_combo_changed)
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
        self.details_view = _text_view()
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
        """A placeholder, or the shown run: status badge, message and run picker above the tabs."""
        self.status_badge = QLabel()
        self.message_label = QLabel()
        self.message_label.setWordWrap(True)
        self.message_label.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        header = QHBoxLayout()
        header.setContentsMargins(8, 2, 8, 6)
        header.setSpacing(10)
        header.addWidget(self.status_badge)
        header.addWidget(self.message_label, 1)
        header.addWidget(QLabel("Run"))
        header.addWidget(self.runs_combo)
        self.tabs = QTabWidget()
        self.tabs.setDocumentMode(True)
        self.tabs.addTab(self._build_summary(), "Summary")
        self.tabs.addTab(self._build_edges(), "Edges")
        self.tabs.addTab(self._build_output(), "Output")
        self.tabs.addTab(self._build_unresolved(), "Unresolved")
        run_page = QWidget()
        run_layout = QVBoxLayout(run_page)
        run_layout.setContentsMargins(0, 0, 0, 0)
        run_layout.setSpacing(0)
        run_layout.addLayout(header)
        run_layout.addWidget(self.tabs, 1)
        self.placeholder = QLabel()
        self.placeholder.setAlignment(Qt.AlignmentFlag.AlignCenter)
        self.placeholder.setWordWrap(True)
        self.placeholder.setStyleSheet(f"color: {MUTED_TEXT}; font-size: 11pt;")
        self.body = QStackedWidget()
        self.body.addWidget(self.placeholder)
        self.body.addWidget(run_page)
        return self.body

    def _build_summary(self) -> QWidget:
        """The run's facts on the left, its diff against the stored ground truth on the right."""
        self.facts: dict[str, QLabel] = {}
        facts = QFormLayout()
        facts.setContentsMargins(8, 6, 8, 6)
        facts.setLabelAlignment(Qt.AlignmentFlag.AlignRight)
        facts.setHorizontalSpacing(12)
        facts.setVerticalSpacing(5)
        for name in ("Run", "Exit code", "Duration", "Phases", "Edges", "Sandbox", "Warnings"):
            value = QLabel()
            value.setWordWrap(True)
            value.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
            self.facts[name] = value
            caption = QLabel(name)
            caption.setStyleSheet(f"color: {MUTED_TEXT};")
            facts.addRow(caption, value)
        facts_widget = QWidget()
        facts_widget.setLayout(facts)
        facts_scroll = QScrollArea()
        facts_scroll.setWidget(facts_widget)
        facts_scroll.setWidgetResizable(True)
        facts_scroll.setFrameShape(QFrame.Shape.NoFrame)
        facts_scroll.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        facts_scroll.setMinimumWidth(300)

        truth_title = QLabel("<b>Against the stored ground truth</b>")
        self.overlay_button = QToolButton()
        self.overlay_button.setText("Show in graph")
        self.overlay_button.setToolTip("Switch the graph to “Latest trace vs truth”: the newest run as an overlay")
        self.overlay_button.clicked.connect(self._on_overlay_button_clicked)
        truth_top = QHBoxLayout()
        truth_top.addWidget(truth_title, 1)
        truth_top.addWidget(self.overlay_button)
        self.diff_label = QLabel()
        self.diff_label.setWordWrap(True)
        self.diff_label.setTextFormat(Qt.TextFormat.RichText)
        self.diff_list = QListWidget()
        self.diff_list.setFont(monospace_font(9))
        self.diff_list.setToolTip("Click an edge to select it in the graph, the source and the edge table")
        self.diff_list.itemClicked.connect(self._on_diff_list_item_clicked)
        self.diff_list.itemActivated.connect(self._on_diff_list_item_clicked)
        truth = QVBoxLayout()
        truth.setContentsMargins(8, 6, 8, 6)
        truth.setSpacing(4)
        truth.addLayout(truth_top)
        truth.addWidget(self.diff_label)
        truth.addWidget(self.diff_list, 1)
        truth.addStretch(0)  # keeps the counts at the top when there is no list
        truth_widget = QWidget()
        truth_widget.setLayout(truth)
        summary = QSplitter(Qt.Orientation.Horizontal)
        summary.addWidget(facts_scroll)
        summary.addWidget(truth_widget)
        summary.setStretchFactor(0, 1)
        summary.setStretchFactor(1, 1)
        summary.setSizes([450, 450])
        summary.setChildrenCollapsible(False)
        return summary

    def _build_edges(self) -> QTableView:
        self.edge_model = TraceEdgeModel(self)
        self.edge_proxy = QSortFilterProxyModel(self)
        self.edge_proxy.setSourceModel(self.edge_model)
        self.edge_proxy.setSortRole(SORT_ROLE)
        self.edges_view = _table_view(self.edge_proxy)
        self.edges_view.setToolTip("Click an edge to select it in the app")
        self.edges_view.clicked.connect(self._on_edges_view_clicked)
        self.edges_view.activated.connect(self._on_edges_view_clicked)
        return self.edges_view

    def _build_output(self) -> QSplitter:
        self.stdout_view = _text_view("(nothing on stdout)")
        self.stderr_view = _text_view("(nothing on stderr)")
        output = QSplitter(Qt.Orientation.Horizontal)
        output.addWidget(_titled("stdout", self.stdout_view))
        output.addWidget(_titled("stderr", self.stderr_view))
        output.setChildrenCollapsible(False)
        return output

    def _build_unresolved(self) -> QWidget:
        self.unresolved_model = UnresolvedFrameModel(self)
        self.unresolved_proxy = QSortFilterProxyModel(self)
        self.unresolved_proxy.setSourceModel(self.unresolved_model)
        self.unresolved_proxy.setSortRole(SORT_ROLE)
        self.unresolved_view = _table_view(self.unresolved_proxy)
        self.unresolved_note = QLabel()
        self.unresolved_note.setWordWrap(True)
        self.unresolved_note.setStyleSheet(f"color: {MUTED_TEXT}; padding: 4px 8px;")
        return _stacked_with(self.unresolved_note, self.unresolved_view)

    # -- public ---------------------------------------------------------------------------
    @property
    def running(self) -> bool:
        return self.job is not None

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

    def diff_items(self) -> list[tuple[str, str, str]]:
        """(side, caller, callee) of each edge in the diff list, as shown."""
        return [self.diff_list.item(i).data(DIFF_ROLE) for i in range(self.diff_list.count())]

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

    def _on_diff_list_item_clicked(self, item: QListWidgetItem) -> None:
        _side, caller, callee = item.data(DIFF_ROLE)
        self._select_edge(caller, callee)

    def _on_edges_view_clicked(self, index: QModelIndex) -> None:
        evidence = index.data(RECORD_ROLE)
        if evidence is not None:
            self._select_edge(evidence.caller, evidence.callee)

    def _on_overlay_button_clicked(self) -> None:
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

    def _on_trace_job_finished(self, result: tuple[int, TraceRun]) -> None:
        run_id, run = result
        where = "" if run.instance_key == self.state.instance_key else f"{run.instance_key}: "
        self._end_job(f"{where}Run #{run_id} stored · {STATUS_TITLES.get(run.status, run.status)} · "
                      f"{_count(len(run.edges), 'edge')}")

    def _on_trace_job_cancelled(self) -> None:
        if self._stored is None:
            self._end_job("Cancelled before the program started: nothing stored")
            return
        key, run_id, run = self._stored
        where = "" if key == self.state.instance_key else f" of {key}"
        self._end_job(f"Cancelled · run #{run_id}{where} kept ({run.status}, {_count(len(run.edges), 'edge')})")

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
        if self.running:
            self.trace_button.setToolTip(f"A trace of {self.job.key} is running: wait or cancel it")
        else:
            self.trace_button.setToolTip("Run the selected program under its tracer in the sandbox (F5)")

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
        rows: list[RunRow] = ws.run_rows(key) if ws is not None and key is not None else []
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
        self.shown_run_id = self.shown_run = self.diff = None
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
        self.shown_run_id, self.shown_run = run_id, run
        self.diff = compare_run(run, truth) if truth is not None else None
        self._fill(run_id, run, truth.edge_set if truth is not None else frozenset())
        self.body.setCurrentIndex(1)

    def _fill(self, run_id: int, run: TraceRun, truth_edges: frozenset[Edge]) -> None:
        colour = STATUS_COLOURS.get(run.status, GREY)
        self.status_badge.setText(STATUS_TITLES.get(run.status, run.status))
        self.status_badge.setToolTip(STATUS_DESCRIPTIONS.get(run.status, run.status))
        self.status_badge.setStyleSheet(f"background: {colour}; color: white; font-weight: bold; "
                                        f"border-radius: 9px; padding: 2px 10px;")
        self.message_label.setText(run.message)
        newest = self.runs_combo.itemData(0)
        facts = {
            "Run": f"#{run_id} of {run.instance_key} · {run.tracer} {run.tracer_version} · started "
                   f"{_local_time(run.started_at)}" + (f" · {run.runs} runs merged" if run.runs > 1 else "")
                   + ("" if run_id == newest else f" · an older run (newest: #{newest})"),
            "Exit code": "—" if run.exit_code is None else str(run.exit_code),
            "Duration": _seconds(run.duration_s),
            "Phases": " · ".join(f"{phase} {_seconds(s)}" for phase, s in run.timings.items()) or "—",
            "Edges": _edges_fact(run),
            "Sandbox": run.sandbox or ("the program did not run" if not run.ran else "—"),
            "Warnings": _warnings_fact(run.warnings),
        }
        for name, text in facts.items():
            label = self.facts[name]
            label.setTextFormat(Qt.TextFormat.RichText if name == "Warnings" else Qt.TextFormat.PlainText)
            label.setText(text)
        self._fill_diff(run)
        self.edge_model.set_run(run, frozenset(truth_edges))
        self.edges_view.sortByColumn(-1, Qt.SortOrder.AscendingOrder)  # the order the tracer first saw them
        _fit_columns(self.edges_view, stretch=(0, 1))
        self.tabs.setTabText(1, f"Edges ({len(run.edges)})")
        self.stdout_view.setPlainText(run.stdout_tail)
        self.stderr_view.setPlainText(run.stderr_tail)
        self.tabs.setTabText(2, "Output" + (" ⚠" if run.stderr_tail.strip() else ""))
        self.unresolved_model.set_frames(run.unresolved)
        self.unresolved_view.sortByColumn(-1, Qt.SortOrder.AscendingOrder)
        self.unresolved_view.setVisible(bool(run.unresolved))
        _fit_columns(self.unresolved_view, stretch=(0, 1))
        self.unresolved_note.setText(
            "Frames the tracer saw but could not name: edges through them are missing from the run."
            if run.unresolved else "Every frame the tracer saw was named.")
        self.tabs.setTabText(3, f"Unresolved ({len(run.unresolved)})")

    def _fill_diff(self, run: TraceRun) -> None:
        self.diff_list.clear()
        diff = self.diff
        latest = self.shown_run_id == self.runs_combo.itemData(0)
        self.overlay_button.setEnabled(latest and diff is not None)
        self.overlay_button.setToolTip(
            "Switch the graph to “Latest trace vs truth”: this run as an overlay" if latest else
            "The graph overlays the newest run only: pick it in the Run list to compare it in the graph")
        if diff is None:
            self.diff_label.setText(f"<span style='color:{MUTED_TEXT}'>No stored ground truth for this program.</span>")
            self.diff_list.hide()
            return
        counts = (f"<b>{diff.agreed}</b> agree · "
                  f"<span style='color:{EDGE_STYLES[TRACE_ONLY].colour}'><b>{len(diff.only_in_trace)}</b> only in "
                  f"the trace</span> · <span style='color:{EDGE_STYLES[TRUTH_ONLY].colour}'>"
                  f"<b>{len(diff.only_in_truth)}</b> only in the ground truth</span>")
        if not run.ran:
            self.diff_label.setText(f"<span style='color:{MUTED_TEXT}'>The program did not run "
                                    f"({html.escape(STATUS_TITLES.get(run.status, run.status).lower())}): "
                                    f"there is nothing to compare.</span>")
            self.diff_list.hide()
            return
        if diff.agrees:
            verdict = f"<span style='color:{GREEN}'>✓ Full agreement: the trace sees exactly the stored edges.</span><br>"
        elif run.status != traces.OK:
            title = STATUS_TITLES.get(run.status, run.status).lower()
            verdict = (f"<span style='color:{AMBER}'>Partial run ({html.escape(title)}): calls after the program "
                       f"stopped were not traced.</span><br>")
        else:
            verdict = ""
        keys = _keys_note_html(diff)
        self.diff_label.setText(verdict + counts + (f"<br><span style='color:{MUTED_TEXT}'>{keys}</span>" if keys
                                                    else ""))
        for side, edges in ((TRACE_ONLY, diff.only_in_trace), (TRUTH_ONLY, diff.only_in_truth)):
            for caller, callee in edges:
                item = QListWidgetItem(f"{SIDE_MARKS[side]} {caller} → {callee}")
                item.setData(DIFF_ROLE, (side, caller, callee))
                item.setForeground(QBrush(QColor(EDGE_STYLES[side].colour)))
                item.setToolTip(f"{caller} → {callee}: {SIDE_LABELS[side]} (click to select it in the app)")
                self.diff_list.addItem(item)
        self.diff_list.setVisible(self.diff_list.count() > 0)

    def _select_edge(self, caller: str, callee: str) -> None:
        """Select a traced edge everywhere (the app names edges after normalisation) with the trace overlay."""
        detail = self.state.detail()
        if detail is None:
            return
        language, modes = detail.instance.language, detail.overlay.modes
        names = normalise_name(caller, language, modes), normalise_name(callee, language, modes)
        if None in names:
            self.activity_label.setText(f"{caller} → {callee} is dropped by normalisation: not in the graph")
            return
        self.state.set_view_mode("trace")
        self.state.select_edge_named(*names)


class TraceEdgeModel(QAbstractTableModel):
    """The edges of one run: caller, callee, calls, call-site lines, what the ground truth says and,
    for a merged `--runs N` run, in how many runs each was seen. RECORD_ROLE gives the EdgeEvidence."""

    BASE_COLUMNS = ("Caller", "Callee", "Calls", "Call-site lines", "Ground truth")

    def __init__(self, parent=None) -> None:
        super().__init__(parent)
        self._edges: tuple[EdgeEvidence, ...] = ()
        self._truth: frozenset[Edge] = frozenset()
        self._runs = 1
        self._has_truth = False

    def set_run(self, run: TraceRun, truth: frozenset[Edge]) -> None:
        self.beginResetModel()
        self._edges, self._truth, self._runs, self._has_truth = run.edges, truth, run.runs, bool(truth)
        self.endResetModel()

    @property
    def columns(self) -> tuple[str, ...]:
        return self.BASE_COLUMNS + (("Seen in",) if self._runs > 1 else ())

    def rowCount(self, parent: QModelIndex = _ROOT) -> int:
        return 0 if parent.isValid() else len(self._edges)

    def columnCount(self, parent: QModelIndex = _ROOT) -> int:
        return 0 if parent.isValid() else len(self.columns)

    def headerData(self, section: int, orientation: Qt.Orientation, role: int = Qt.ItemDataRole.DisplayRole):
        if orientation == Qt.Orientation.Horizontal and role == Qt.ItemDataRole.DisplayRole:
            return self.columns[section]
        return None

    def data(self, index: QModelIndex, role: int = Qt.ItemDataRole.DisplayRole):
        if not index.isValid():
            return None
        edge = self._edges[index.row()]
        column = self.columns[index.column()]
        if role == RECORD_ROLE:
            return edge
        in_truth = edge.edge in self._truth
        if role == Qt.ItemDataRole.DisplayRole:
            return self._text(edge, column, in_truth)
        if role == SORT_ROLE:
            if column == "Calls":
                return edge.count
            if column == "Seen in":
                return edge.runs_seen
            if column == "Call-site lines":
                return edge.lines[0] if edge.lines else 0
            return self._text(edge, column, in_truth)
        if role == Qt.ItemDataRole.TextAlignmentRole and column in ("Calls", "Seen in"):
            return int(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
        if role == Qt.ItemDataRole.ForegroundRole:
            if column == "Ground truth" and self._has_truth:
                return QBrush(QColor(EDGE_STYLES["agrees" if in_truth else TRACE_ONLY].colour))
            if column == "Seen in" and edge.runs_seen < self._runs:
                return QBrush(QColor(AMBER))
        if role == Qt.ItemDataRole.ToolTipRole:
            if column == "Calls" and not edge.count_known:
                return "The program was stopped before it reported counts: a lower bound"
            if column == "Seen in" and edge.runs_seen < self._runs:
                return "Seen in only some of the runs: the program is not deterministic here"
            if column in ("Caller", "Callee"):
                return f"{edge.caller} → {edge.callee}"
        return None

    def _text(self, edge: EdgeEvidence, column: str, in_truth: bool) -> str:
        if column == "Caller":
            return edge.caller
        if column == "Callee":
            return edge.callee
        if column == "Calls":
            return f"{edge.count:,}" if edge.count_known else f"≥ {edge.count:,}"
        if column == "Call-site lines":
            return ", ".join(map(str, edge.lines)) or "—"
        if column == "Ground truth":
            return ("✓ agrees" if in_truth else "only in the trace") if self._has_truth else "—"
        return f"{edge.runs_seen} of {self._runs}"


class UnresolvedFrameModel(QAbstractTableModel):
    """Frames a run could not name: frame, reason, count. RECORD_ROLE gives the UnresolvedFrame."""

    COLUMNS = ("Frame", "Reason", "Count")

    def __init__(self, parent=None) -> None:
        super().__init__(parent)
        self._frames: tuple[UnresolvedFrame, ...] = ()

    def set_frames(self, frames: tuple[UnresolvedFrame, ...]) -> None:
        self.beginResetModel()
        self._frames = tuple(frames)
        self.endResetModel()

    def rowCount(self, parent: QModelIndex = _ROOT) -> int:
        return 0 if parent.isValid() else len(self._frames)

    def columnCount(self, parent: QModelIndex = _ROOT) -> int:
        return 0 if parent.isValid() else len(self.COLUMNS)

    def headerData(self, section: int, orientation: Qt.Orientation, role: int = Qt.ItemDataRole.DisplayRole):
        if orientation == Qt.Orientation.Horizontal and role == Qt.ItemDataRole.DisplayRole:
            return self.COLUMNS[section]
        return None

    def data(self, index: QModelIndex, role: int = Qt.ItemDataRole.DisplayRole):
        if not index.isValid():
            return None
        frame = self._frames[index.row()]
        column = index.column()
        if role == RECORD_ROLE:
            return frame
        if role in (Qt.ItemDataRole.DisplayRole, SORT_ROLE):
            if column == 2:
                return frame.count if role == SORT_ROLE else f"{frame.count:,}"
            return frame.frame if column == 0 else frame.reason
        if role == Qt.ItemDataRole.TextAlignmentRole and column == 2:
            return int(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
        if role == Qt.ItemDataRole.ToolTipRole:
            return f"{frame.frame}: {frame.reason} ({frame.count}×)"
        return None


# -- text helpers -------------------------------------------------------------------------------

def run_row_text(row: RunRow) -> str:
    """How a stored run is listed: `#id  time  status  N edges  duration`."""
    batch = "  (retrace)" if row.batch else ""
    return (f"#{row.id}  {_local_time(row.started_at)}  {row.status}  {_count(row.edges, 'edge')}  "
            f"{_seconds(row.duration_s)}{batch}")


def _local_time(iso: str) -> str:
    try:
        moment = datetime.fromisoformat(iso).astimezone()
    except ValueError:
        return iso
    if moment.date() == datetime.now().astimezone().date():
        return moment.strftime("%H:%M:%S")
    return moment.strftime("%Y-%m-%d %H:%M")


def _count(number: int, noun: str) -> str:
    return f"{number:,} {noun}" + ("" if number == 1 else "s")


def _seconds(seconds: float) -> str:
    if seconds < 0.001:
        return "<1 ms"
    if seconds < 1:
        return f"{seconds * 1000:.0f} ms"
    return f"{seconds:.2f} s"


def _edges_fact(run: TraceRun) -> str:
    parts = [f"{len(run.edges):,} recorded"]
    unknown = sum(not e.count_known for e in run.edges)
    if unknown:
        parts.append(f"{unknown:,} without a final count (stopped early)")
    if run.runs > 1:
        parts.append(f"{len(run.unstable_edges()):,} seen in only some of the {run.runs} runs")
    parts.append(_count(len(run.unresolved), "unresolved frame"))
    return " · ".join(parts)


def _warnings_fact(warnings: tuple[str, ...]) -> str:
    if not warnings:
        return f"<span style='color:{MUTED_TEXT}'>none</span>"
    shown = [f"⚠ {html.escape(w)}" for w in warnings[:WARNINGS_SHOWN]]
    if len(warnings) > WARNINGS_SHOWN:
        shown.append(f"… and {len(warnings) - WARNINGS_SHOWN} more")
    return "<br>".join(shown)


def _keys_note_html(diff: ReplayDiff) -> str:
    return html.escape("; ".join(key_notes(diff)))


# -- widget helpers -----------------------------------------------------------------------------

def _text_view(placeholder: str = "") -> QPlainTextEdit:
    view = QPlainTextEdit()
    view.setReadOnly(True)
    view.setFont(monospace_font(9))
    view.setLineWrapMode(QPlainTextEdit.LineWrapMode.NoWrap)
    view.setPlaceholderText(placeholder)
    return view


def _table_view(model) -> QTableView:
    view = QTableView()
    view.setModel(model)
    view.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
    view.setSelectionMode(QAbstractItemView.SelectionMode.SingleSelection)
    view.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
    view.setSortingEnabled(True)
    view.setShowGrid(False)
    view.setWordWrap(False)
    view.setAlternatingRowColors(True)
    view.setTextElideMode(Qt.TextElideMode.ElideMiddle)
    view.verticalHeader().hide()
    view.verticalHeader().setDefaultSectionSize(view.fontMetrics().height() + 8)
    header = view.horizontalHeader()
    header.setDefaultAlignment(Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignVCenter)
    header.setSectionResizeMode(QHeaderView.ResizeMode.Interactive)
    header.setStretchLastSection(True)
    return view


def _fit_columns(view: QTableView, stretch: tuple[int, ...]) -> None:
    """Names share the width; the short columns (counts, lines, labels) fit their contents."""
    header = view.horizontalHeader()
    header.setStretchLastSection(False)
    for column in range(view.model().columnCount()):
        mode = QHeaderView.ResizeMode.Stretch if column in stretch else QHeaderView.ResizeMode.ResizeToContents
        header.setSectionResizeMode(column, mode)


def _titled(title: str, widget: QWidget) -> QWidget:
    box = QWidget()
    layout = QVBoxLayout(box)
    layout.setContentsMargins(4, 4, 4, 0)
    layout.setSpacing(2)
    caption = QLabel(title)
    caption.setStyleSheet(f"color: {MUTED_TEXT};")
    layout.addWidget(caption)
    layout.addWidget(widget, 1)
    return box


def _stacked_with(note: QLabel, widget: QWidget) -> QWidget:
    box = QWidget()
    layout = QVBoxLayout(box)
    layout.setContentsMargins(0, 0, 0, 0)
    layout.setSpacing(0)
    layout.addWidget(note)
    layout.addWidget(widget, 1)
    return box
