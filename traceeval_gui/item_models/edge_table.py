"""The edge table: every edge of the instance (truth, each model, the latest trace) in one row each.

The class column is the current model's (model A) TP / FP / FN; "" marks an edge only model B
or the trace has. The other columns say what each source says about the edge.
"""
from __future__ import annotations

from collections.abc import Container, Sequence
from dataclasses import dataclass

from PySide6.QtCore import QAbstractTableModel, QModelIndex, QPersistentModelIndex, QSortFilterProxyModel, Qt
from PySide6.QtGui import QBrush, QColor, QFont

from core.report.overlay import OverlayEdge
from core.report.palette import VERDICT_COLOURS
from core.traces import EdgeEvidence
from core.verdicts import LABEL_TITLES, Verdict
from traceeval_gui.item_models.filtering import change_row_filter
from traceeval_gui.item_models.instance_detail import ClassifiedEdge
from traceeval_gui.theme.style import EDGE_DESCRIPTIONS, EDGE_LABELS, MUTED_TEXT, edge_colour, edge_tint

EDGE_ROLE = Qt.ItemDataRole.UserRole  # the ClassifiedEdge
SORT_ROLE = Qt.ItemDataRole.UserRole + 1
COLUMNS = ("Class", "Caller", "Callee", "Truth", "Model A", "Model B", "Trace", "Verdict")
CLASS_COLUMN, CALLER_COLUMN, CALLEE_COLUMN, TRUTH_COLUMN, A_COLUMN, B_COLUMN, TRACE_COLUMN, VERDICT_COLUMN = \
    range(len(COLUMNS))
KINDS = ("TP", "FP", "FN", "")
CLASS_SORT_ORDER = ("FN", "FP", "TP", "")  # ascending by class = mistakes first
UNPLACED_NOTE = "not defined in this program's source"
YES, NO = "✓", "·"


def class_text(kind: str) -> str:
    """The class column's text for an edge of class `kind`."""
    return f"{kind}  {EDGE_LABELS[kind]}" if kind else "—"


@dataclass(frozen=True)
class EdgeRow:
    edge: ClassifiedEdge
    overlay: OverlayEdge
    evidence: EdgeEvidence | None  # the latest trace's record of this edge (raw names), when it saw it
    verdict: Verdict | None


@dataclass(frozen=True)
class EdgeSources:
    """Which sources exist for the instance (a column is empty when its source is absent)."""

    model_a: str | None = None  # with a prediction for this instance
    model_b: str | None = None
    traced: bool = False


class EdgeTableModel(QAbstractTableModel):
    """Sorts itself (the proxy hands it `sort`): Python's sort over values read once per row costs well
    under a millisecond, where the proxy's sort called back into Python five times per comparison
    (about 15,000 calls for a 500-edge program)."""

    def __init__(self, parent=None) -> None:
        super().__init__(parent)
        self._given: list[EdgeRow] = []  # in the order given (by caller, then callee)
        self._rows: list[EdgeRow] = []  # as sorted
        self._order: tuple[int, Qt.SortOrder] = (-1, Qt.SortOrder.AscendingOrder)
        self._placed: Container[str] = ()
        self._sources = EdgeSources()

    def set_rows(self, rows: Sequence[EdgeRow], sources: EdgeSources, placed: Container[str] = ()) -> None:
        """`placed` holds the names found in the source; others are shown in muted italics."""
        self.beginResetModel()
        self._given = list(rows)
        self._sources = sources
        self._placed = placed
        self._rows = self._sorted()
        self.endResetModel()

    def sort(self, column: int, order: Qt.SortOrder = Qt.SortOrder.AscendingOrder) -> None:
        """Stable: rows with equal values keep the given order, whichever the direction."""
        self.layoutAboutToBeChanged.emit()
        self._order = (column, order)
        before = self.persistentIndexList()
        held = [(self._rows[index.row()], index.column()) for index in before]
        self._rows = self._sorted()
        position = {id(row): number for number, row in enumerate(self._rows)}
        self.changePersistentIndexList(before, [self.index(position[id(row)], column) for row, column in held])
        self.layoutChanged.emit()

    def _sorted(self) -> list[EdgeRow]:
        column, order = self._order
        if column < 0:
            return list(self._given)
        values = [self._cell(row, column, SORT_ROLE) for row in self._given]
        numbers = sorted(range(len(values)), key=values.__getitem__, reverse=order == Qt.SortOrder.DescendingOrder)
        return [self._given[number] for number in numbers]

    def edge_at(self, row: int) -> ClassifiedEdge:
        return self._rows[row].edge

    def row_of(self, edge: ClassifiedEdge) -> int | None:
        return next((i for i, r in enumerate(self._rows) if r.edge[1:] == edge[1:]), None)

    def rowCount(self, parent: QModelIndex = QModelIndex()) -> int:
        return 0 if parent.isValid() else len(self._rows)

    def columnCount(self, parent: QModelIndex = QModelIndex()) -> int:
        return 0 if parent.isValid() else len(COLUMNS)

    def data(self, index: QModelIndex, role: int = Qt.ItemDataRole.DisplayRole):
        return self._cell(self._rows[index.row()], index.column(), role) if index.isValid() else None

    def _cell(self, row: EdgeRow, column: int, role: int):
        if role == EDGE_ROLE:
            return row.edge
        if column == CLASS_COLUMN:
            return self._class_data(row.edge.kind, role)
        if column in (CALLER_COLUMN, CALLEE_COLUMN):
            return self._name_data(row.edge.caller if column == CALLER_COLUMN else row.edge.callee, role)
        if column == VERDICT_COLUMN:
            return self._verdict_data(row.verdict, role)
        text, tooltip = self._source_cell(row, column)
        if role in (Qt.ItemDataRole.DisplayRole, SORT_ROLE):
            return text
        if role == Qt.ItemDataRole.ToolTipRole:
            return tooltip
        if role == Qt.ItemDataRole.TextAlignmentRole:
            return int(Qt.AlignmentFlag.AlignCenter)
        if role == Qt.ItemDataRole.ForegroundRole and text in (NO, ""):
            return QBrush(QColor(MUTED_TEXT))
        return None

    def _source_cell(self, row: EdgeRow, column: int) -> tuple[str, str]:
        edge = row.overlay
        if column == TRUTH_COLUMN:
            return (YES, "in the ground truth") if edge.truth else (NO, "not in the ground truth")
        if column in (A_COLUMN, B_COLUMN):
            model = self._sources.model_a if column == A_COLUMN else self._sources.model_b
            if model is None:
                return "", "no model" if column == B_COLUMN else "no result for this program"
            return (YES, f"{model} predicts it") if model in edge.models else (NO, f"{model} does not predict it")
        if not self._sources.traced:
            return "", "not traced in this workspace (Tracer tab)"
        if not edge.traced:
            return NO, "the latest trace did not see this call"
        evidence = row.evidence
        if evidence is None:
            return YES, "seen by the latest trace"
        count = f"{evidence.count}{'' if evidence.count_known else '+'}"
        lines = ", ".join(map(str, evidence.lines)) or "unknown"
        return f"{YES} {count}×", f"seen {count} times by the latest trace; call-site lines {lines}"

    def _name_data(self, name: str, role: int):
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
    def _verdict_data(verdict: Verdict | None, role: int):
        if verdict is None:
            return "" if role in (Qt.ItemDataRole.DisplayRole, SORT_ROLE) else None
        if role in (Qt.ItemDataRole.DisplayRole, SORT_ROLE):
            return LABEL_TITLES[verdict.label]
        if role == Qt.ItemDataRole.ForegroundRole:
            return QBrush(QColor(VERDICT_COLOURS[verdict.label]))
        if role == Qt.ItemDataRole.ToolTipRole:
            note = f"\n{verdict.note}" if verdict.note else ""
            return f"{LABEL_TITLES[verdict.label]} — {verdict.auditor}, {verdict.created_at}{note}"
        return None

    @staticmethod
    def _class_data(kind: str, role: int):
        if role == Qt.ItemDataRole.DisplayRole:
            return class_text(kind)
        if role == SORT_ROLE:
            return CLASS_SORT_ORDER.index(kind)
        if role == Qt.ItemDataRole.ForegroundRole:
            return QBrush(edge_colour(kind))
        if role == Qt.ItemDataRole.BackgroundRole:
            return QBrush(edge_tint(kind))
        if role == Qt.ItemDataRole.FontRole:
            font = QFont()
            font.setBold(bool(kind))
            return font
        if role == Qt.ItemDataRole.ToolTipRole:
            return EDGE_DESCRIPTIONS[kind]
        return None

    def headerData(self, section: int, orientation: Qt.Orientation, role: int = Qt.ItemDataRole.DisplayRole):
        if orientation != Qt.Orientation.Horizontal:
            return None
        if role == Qt.ItemDataRole.DisplayRole:
            return COLUMNS[section]
        if role == Qt.ItemDataRole.ToolTipRole:
            return {CLASS_COLUMN: "The class of the edge for model A (TP found, FP hallucinated, FN missed)",
                    A_COLUMN: f"Model A: {self._sources.model_a or 'none'}",
                    B_COLUMN: f"Model B: {self._sources.model_b or 'none'} (choose it in the Compare tab)",
                    TRACE_COLUMN: "The latest trace run of this program in the workspace (Tracer tab)",
                    VERDICT_COLUMN: "The newest audit verdict on the edge"}.get(section)
        return None


class EdgeFilterProxyModel(QSortFilterProxyModel):
    """Shows only the chosen classes and edges whose names contain the filter text."""

    def __init__(self, parent=None) -> None:
        super().__init__(parent)
        self._shown = set(KINDS)
        self._text = ""

    def set_shown(self, kind: str, shown: bool) -> None:
        change_row_filter(self, lambda: (self._shown.add if shown else self._shown.discard)(kind))

    def set_text(self, text: str) -> None:
        change_row_filter(self, lambda: setattr(self, "_text", text.strip().lower()))

    def shown(self, kind: str) -> bool:
        return kind in self._shown

    def sort(self, column: int, order: Qt.SortOrder = Qt.SortOrder.AscendingOrder) -> None:
        """The source model sorts (see `EdgeTableModel`); this proxy only filters, in its order."""
        self.sourceModel().sort(column, order)

    def filterAcceptsRow(self, source_row: int, _source_parent: QModelIndex | QPersistentModelIndex) -> bool:
        edge = self.sourceModel().edge_at(source_row)
        if edge.kind not in self._shown:
            return False
        return not self._text or self._text in edge.caller.lower() or self._text in edge.callee.lower()
