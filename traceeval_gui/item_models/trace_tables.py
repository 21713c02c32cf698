"""Table models for one stored trace run: the edges it recorded and the frames it could not name.

RECORD_ROLE gives a row's core object (EdgeEvidence, UnresolvedFrame); SORT_ROLE its raw value,
for a QSortFilterProxyModel.
"""
from __future__ import annotations

from PySide6.QtCore import QAbstractTableModel, QModelIndex, Qt
from PySide6.QtGui import QBrush, QColor

from core.records import Edge
from core.report.overlay import TRACE_AGREES, TRACE_ONLY
from core.report.palette import EDGE_STYLES
from core.traces import EdgeEvidence, TraceRun, UnresolvedFrame
from traceeval_gui.theme.trace_text import AMBER

RECORD_ROLE = Qt.ItemDataRole.UserRole  # the core object of a row (EdgeEvidence, UnresolvedFrame)
SORT_ROLE = Qt.ItemDataRole.UserRole + 1
_ROOT = QModelIndex()  # the invisible root: table rows have no children
_RIGHT = int(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)


class TraceEdgeModel(QAbstractTableModel):
    """The edges of one run: caller, callee, calls, call-site lines, what the ground truth says and,
    for a merged `--runs N` run, in how many runs each was seen. RECORD_ROLE gives the EdgeEvidence."""

    BASE_COLUMNS = ("Caller", "Callee", "Calls", "Call-site lines", "Ground truth")

    def __init__(self, parent=None) -> None:
        super().__init__(parent)
        self._edges: tuple[EdgeEvidence, ...] = ()
        self._truth: frozenset[Edge] = frozenset()
        self._runs = 1

    def set_run(self, run: TraceRun, truth: frozenset[Edge]) -> None:
        self.beginResetModel()
        self._edges, self._truth, self._runs = run.edges, truth, run.runs
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
            return _RIGHT
        if role == Qt.ItemDataRole.ForegroundRole:
            if column == "Ground truth" and self._truth:
                return QBrush(QColor(EDGE_STYLES[TRACE_AGREES if in_truth else TRACE_ONLY].colour))
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
            return ("✓ agrees" if in_truth else "only in the trace") if self._truth else "—"
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
            return _RIGHT
        if role == Qt.ItemDataRole.ToolTipRole:
            return f"{frame.frame}: {frame.reason} ({frame.count}×)"
        return None
