"""One stored trace run: a status badge with the tracer's one-line message above four tabs.

Summary (facts and the diff against the stored ground truth, see `trace_summary`), Edges (what the
tracer recorded, with counts and call-site lines), Output (stdout / stderr tails) and Unresolved
(frames the tracer could not name). A click on an edge, in the diff or the edge table, emits
`edge_clicked` with the tracer's raw names; the run picker is the caller's widget, shown in the header.
"""
from __future__ import annotations

from PySide6.QtCore import QModelIndex, QSortFilterProxyModel, Qt, Signal
from PySide6.QtWidgets import (
    QAbstractItemView,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QPlainTextEdit,
    QSplitter,
    QTableView,
    QTabWidget,
    QVBoxLayout,
    QWidget,
)

from core.records import CallGraph
from core.scoring.replay import ReplayDiff, compare_run
from core.traces import TraceRun
from traceeval_gui.item_models.trace_tables import RECORD_ROLE, SORT_ROLE, TraceEdgeModel, UnresolvedFrameModel
from traceeval_gui.theme.style import MUTED_TEXT, monospace_font
from traceeval_gui.theme.trace_text import GREY, STATUS_COLOURS, STATUS_DESCRIPTIONS, status_title
from traceeval_gui.trace.trace_summary import TraceSummaryView

EDGES_TAB, OUTPUT_TAB, UNRESOLVED_TAB = range(1, 4)  # tab 0 is the summary


class TraceRunView(QWidget):
    edge_clicked = Signal(str, str)  # caller, callee as the tracer named them
    overlay_clicked = Signal()  # "Show in graph"

    def __init__(self, run_picker: QWidget, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.run_id: int | None = None
        self.run: TraceRun | None = None
        self.diff: ReplayDiff | None = None  # None: no stored ground truth (or no run)
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
        header.addWidget(run_picker)
        self.summary = TraceSummaryView()
        self.summary.edge_clicked.connect(self.edge_clicked)
        self.summary.overlay_clicked.connect(self.overlay_clicked)
        self.tabs = QTabWidget()
        self.tabs.setDocumentMode(True)
        self.tabs.addTab(self.summary, "Summary")
        self.tabs.addTab(self._build_edges(), "Edges")
        self.tabs.addTab(self._build_output(), "Output")
        self.tabs.addTab(self._build_unresolved(), "Unresolved")
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.setSpacing(0)
        layout.addLayout(header)
        layout.addWidget(self.tabs, 1)

    def _build_edges(self) -> QTableView:
        self.edge_model = TraceEdgeModel(self)
        self.edges_view = _table_view(_sorted_by_sort_role(self.edge_model))
        self.edges_view.setToolTip("Click an edge to select it in the app")
        self.edges_view.clicked.connect(self._on_edges_view_clicked)
        self.edges_view.activated.connect(self._on_edges_view_clicked)
        return self.edges_view

    def _build_output(self) -> QSplitter:
        self.stdout_view = text_view("(nothing on stdout)")
        self.stderr_view = text_view("(nothing on stderr)")
        output = QSplitter(Qt.Orientation.Horizontal)
        output.addWidget(_titled("stdout", self.stdout_view))
        output.addWidget(_titled("stderr", self.stderr_view))
        output.setChildrenCollapsible(False)
        return output

    def _build_unresolved(self) -> QWidget:
        self.unresolved_model = UnresolvedFrameModel(self)
        self.unresolved_view = _table_view(_sorted_by_sort_role(self.unresolved_model))
        self.unresolved_note = QLabel()
        self.unresolved_note.setWordWrap(True)
        self.unresolved_note.setStyleSheet(f"color: {MUTED_TEXT}; padding: 4px 8px;")
        box = QWidget()
        layout = QVBoxLayout(box)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.setSpacing(0)
        layout.addWidget(self.unresolved_note)
        layout.addWidget(self.unresolved_view, 1)
        return box

    # -- public ---------------------------------------------------------------------------
    def show_run(self, run_id: int, run: TraceRun, truth: CallGraph | None, newest_id: int) -> None:
        """Show a run against the instance's ground truth (None: none stored); `newest_id` is its newest run."""
        self.run_id, self.run = run_id, run
        self.diff = compare_run(run, truth) if truth is not None else None
        self.status_badge.setText(status_title(run.status))
        self.status_badge.setToolTip(STATUS_DESCRIPTIONS.get(run.status, run.status))
        self.status_badge.setStyleSheet(f"background: {STATUS_COLOURS.get(run.status, GREY)}; color: white; "
                                        f"font-weight: bold; border-radius: 9px; padding: 2px 10px;")
        self.message_label.setText(run.message)
        self.summary.show_run(run_id, run, self.diff, newest_id)
        self.edge_model.set_run(run, truth.edge_set if truth is not None else frozenset())
        self.edges_view.sortByColumn(-1, Qt.SortOrder.AscendingOrder)  # the order the tracer first saw them
        _fit_columns(self.edges_view, stretch=(0, 1))
        self.tabs.setTabText(EDGES_TAB, f"Edges ({len(run.edges)})")
        self.stdout_view.setPlainText(run.stdout_tail)
        self.stderr_view.setPlainText(run.stderr_tail)
        self.tabs.setTabText(OUTPUT_TAB, "Output" + (" ⚠" if run.stderr_tail.strip() else ""))
        self.unresolved_model.set_frames(run.unresolved)
        self.unresolved_view.sortByColumn(-1, Qt.SortOrder.AscendingOrder)
        self.unresolved_view.setVisible(bool(run.unresolved))
        _fit_columns(self.unresolved_view, stretch=(0, 1))
        self.unresolved_note.setText(
            "Frames the tracer saw but could not name: edges through them are missing from the run."
            if run.unresolved else "Every frame the tracer saw was named.")
        self.tabs.setTabText(UNRESOLVED_TAB, f"Unresolved ({len(run.unresolved)})")

    def clear(self) -> None:
        """Forget the shown run (its widgets stay as they are, out of sight)."""
        self.run_id = self.run = self.diff = None

    # -- slots ----------------------------------------------------------------------------
    def _on_edges_view_clicked(self, index: QModelIndex) -> None:
        evidence = index.data(RECORD_ROLE)
        if evidence is not None:
            self.edge_clicked.emit(evidence.caller, evidence.callee)


def text_view(placeholder: str = "") -> QPlainTextEdit:
    """A read-only monospace view for program output and tracebacks."""
    view = QPlainTextEdit()
    view.setReadOnly(True)
    view.setFont(monospace_font(9))
    view.setLineWrapMode(QPlainTextEdit.LineWrapMode.NoWrap)
    view.setPlaceholderText(placeholder)
    return view


def _sorted_by_sort_role(model) -> QSortFilterProxyModel:
    proxy = QSortFilterProxyModel(model)
    proxy.setSourceModel(model)
    proxy.setSortRole(SORT_ROLE)
    return proxy


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
