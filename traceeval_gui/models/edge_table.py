"""The edge table: one model's TP / FP / FN edges on one instance."""
from __future__ import annotations

from typing import Container, Sequence

from PySide6.QtCore import QAbstractTableModel, QModelIndex, QPersistentModelIndex, QSortFilterProxyModel, Qt
from PySide6.QtGui import QBrush, QColor, QFont

from traceeval_gui.models.filtering import change_row_filter
from traceeval_gui.models.instance_detail import EDGE_CLASSES, ClassifiedEdge
from traceeval_gui.views.style import EDGE_DESCRIPTIONS, EDGE_LABELS, MUTED_TEXT, edge_colour, edge_tint

EDGE_ROLE = Qt.ItemDataRole.UserRole  # the ClassifiedEdge
SORT_ROLE = Qt.ItemDataRole.UserRole + 1
COLUMNS = ("Class", "Caller", "Callee")
CLASS_SORT_ORDER = ("FN", "FP", "TP")  # ascending by class = mistakes first
UNPLACED_NOTE = "not defined in this program's source"


class EdgeTableModel(QAbstractTableModel):
    def __init__(self, parent=None) -> None:
        super().__init__(parent)
        self._edges: list[ClassifiedEdge] = []
        self._placed: Container[str] = ()

    def set_edges(self, edges: Sequence[ClassifiedEdge], placed: Container[str] = ()) -> None:
        """`placed` holds the names found in the source; others are shown in muted italics."""
        self.beginResetModel()
        self._edges = list(edges)
        self._placed = placed
        self.endResetModel()

    def edge_at(self, row: int) -> ClassifiedEdge:
        return self._edges[row]

    def row_of(self, edge: ClassifiedEdge) -> int | None:
        try:
            return self._edges.index(edge)
        except ValueError:
            return None

    def rowCount(self, parent: QModelIndex = QModelIndex()) -> int:
        return 0 if parent.isValid() else len(self._edges)

    def columnCount(self, parent: QModelIndex = QModelIndex()) -> int:
        return 0 if parent.isValid() else len(COLUMNS)

    def data(self, index: QModelIndex, role: int = Qt.ItemDataRole.DisplayRole):
        if not index.isValid():
            return None
        edge = self._edges[index.row()]
        column = index.column()
        if role == EDGE_ROLE:
            return edge
        if column == 0:
            return self._class_data(edge.kind, role)
        name = edge.caller if column == 1 else edge.callee
        placed = name in self._placed
        if role in (Qt.ItemDataRole.DisplayRole, SORT_ROLE):
            return name
        if role == Qt.ItemDataRole.ToolTipRole:
            return name if placed else f"{name}\n({UNPLACED_NOTE})"
        if role == Qt.ItemDataRole.ForegroundRole and not placed:
            return QBrush(QColor(MUTED_TEXT))
        if role == Qt.ItemDataRole.FontRole and not placed:
            font = QFont()
            font.setItalic(True)
            return font
        return None

    @staticmethod
    def _class_data(kind: str, role: int):
        if role == Qt.ItemDataRole.DisplayRole:
            return f"{kind}  {EDGE_LABELS[kind]}"
        if role == SORT_ROLE:
            return CLASS_SORT_ORDER.index(kind)
        if role == Qt.ItemDataRole.ForegroundRole:
            return QBrush(edge_colour(kind))
        if role == Qt.ItemDataRole.BackgroundRole:
            return QBrush(edge_tint(kind))
        if role == Qt.ItemDataRole.FontRole:
            font = QFont()
            font.setBold(True)
            return font
        if role == Qt.ItemDataRole.ToolTipRole:
            return EDGE_DESCRIPTIONS[kind]
        return None

    def headerData(self, section: int, orientation: Qt.Orientation, role: int = Qt.ItemDataRole.DisplayRole):
        if orientation == Qt.Orientation.Horizontal and role == Qt.ItemDataRole.DisplayRole:
            return COLUMNS[section]
        return None


class EdgeFilterProxyModel(QSortFilterProxyModel):
    """Shows only the chosen edge classes. Sorting is stable, so within a class edges keep
    the diff's order (by caller, then callee)."""

    def __init__(self, parent=None) -> None:
        super().__init__(parent)
        self._shown = set(EDGE_CLASSES)
        self.setSortRole(SORT_ROLE)

    def set_shown(self, kind: str, shown: bool) -> None:
        change_row_filter(self, lambda: (self._shown.add if shown else self._shown.discard)(kind))

    def shown(self, kind: str) -> bool:
        return kind in self._shown

    def filterAcceptsRow(self, source_row: int, source_parent: QModelIndex | QPersistentModelIndex) -> bool:
        return self.sourceModel().edge_at(source_row).kind in self._shown
