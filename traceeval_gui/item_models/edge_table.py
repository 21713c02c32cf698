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
    def __init__(self, parent=None) -> None:
        super().__init__(parent)
        self._rows: list[EdgeRow] = []
        self._placed: Container[str] = ()
        self._sources = EdgeSources()
        self.generation = 0  # counts `set_rows` calls: the proxy's sort keys are this generation's

    def set_rows(self, rows: Sequence[EdgeRow], sources: EdgeSources, placed: Container[str] = ()) -> None:
        """`placed` holds the names found in the source; others are shown in muted italics."""
        self.beginResetModel()
        self._rows = list(rows)
        self._sources = sources
        self._placed = placed
        self.generation += 1
        self.endResetModel()

    def sort_keys(self, column: int) -> list:
        """Every row's sort value in `column` (SORT_ROLE), in row order."""
        return [self.data(self.index(row, column), SORT_ROLE) for row in range(len(self._rows))]

    def edge_at(self, row: int) -> ClassifiedEdge:
        return self._rows[row].edge

    def row_of(self, edge: ClassifiedEdge) -> int | None:
        return next((i for i, r in enumerate(self._rows) if r.edge[1:] == edge[1:]), None)

    def rowCount(self, parent: QModelIndex = QModelIndex()) -> int:
        return 0 if parent.isValid() else len(self._rows)

    def columnCount(self, parent: QModelIndex = QModelIndex()) -> int:
        return 0 if parent.isValid() else len(COLUMNS)

    def data(self, index: QModelIndex, role: int = Qt.ItemDataRole.DisplayRole):
        if not index.isValid():
            return None
        row = self._rows[index.row()]
        column = index.column()
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
            return f"{kind}  {EDGE_LABELS[kind]}" if kind else "—"
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
    """Shows only the chosen classes and edges whose names contain the filter text. Sorting is
    stable, so within a class edges keep their order (by caller, then callee)."""

    def __init__(self, parent=None) -> None:
        super().__init__(parent)
        self._shown = set(KINDS)
        self._text = ""
        self._keys: tuple[tuple[int, int], list] | None = None  # ((model generation, column), sort values)
        self.setSortRole(SORT_ROLE)

    def set_shown(self, kind: str, shown: bool) -> None:
        change_row_filter(self, lambda: (self._shown.add if shown else self._shown.discard)(kind))

    def set_text(self, text: str) -> None:
        change_row_filter(self, lambda: setattr(self, "_text", text.strip().lower()))

    def shown(self, kind: str) -> bool:
        return kind in self._shown

    def lessThan(self, left: QModelIndex, right: QModelIndex) -> bool:
        """Compares values read once per row and column, not two `data()` calls per comparison
        (sorting 200 edges made about 3,000 of them on every program shown)."""
        source = self.sourceModel()
        stamp = (source.generation, left.column())
        if self._keys is None or self._keys[0] != stamp:
            self._keys = (stamp, source.sort_keys(left.column()))
        keys = self._keys[1]
        return keys[left.row()] < keys[right.row()]

    def filterAcceptsRow(self, source_row: int, _source_parent: QModelIndex | QPersistentModelIndex) -> bool:
        edge = self.sourceModel().edge_at(source_row)
        if edge.kind not in self._shown:
            return False
        return not self._text or self._text in edge.caller.lower() or self._text in edge.callee.lower()
