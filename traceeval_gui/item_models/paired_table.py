"""The Compare tab's paired statistics: one row per language and the macro mean (`core.scoring.paired`).

The cells are the CLI's (`core.scoring.paired_tables.row_cells`), so `traceeval compare --stats` and the tab
show the same text; the core `PairedRow` is handed out through `Qt.UserRole`.
"""
from __future__ import annotations

from PySide6.QtCore import QAbstractTableModel, QModelIndex, QPersistentModelIndex, Qt
from PySide6.QtGui import QBrush, QColor, QFont

from core.scoring.paired import MACRO, PairedRow, PairedStats
from core.scoring.paired_tables import column_titles, p_text, row_cells, row_title
from traceeval_gui.theme.style import MUTED_TEXT

PAIRED_ROLE = Qt.ItemDataRole.UserRole  # the core PairedRow
INTERVAL_COLUMN, P_COLUMN = 5, 7
CLEAR = 0.05  # a sign test p below this, or an interval without 0, is shown in bold


class PairedStatsTableModel(QAbstractTableModel):
    def __init__(self, parent=None) -> None:
        super().__init__(parent)
        self._stats: PairedStats | None = None
        self._rows: list[PairedRow] = []
        self._cells: list[list[str]] = []
        self._titles = column_titles_for(None)

    def set_stats(self, stats: PairedStats | None) -> None:
        self.beginResetModel()
        self._stats = stats
        self._rows = list(stats.rows) if stats is not None else []
        self._cells = [[row_title(r.language, short=True)] + row_cells(r) for r in self._rows]
        self._titles = column_titles_for(stats)
        self.endResetModel()
        self.headerDataChanged.emit(Qt.Orientation.Horizontal, 0, len(self._titles) - 1)

    @property
    def stats(self) -> PairedStats | None:
        return self._stats

    def texts(self) -> list[list[str]]:
        """Every row's cells as shown (tests, the status line)."""
        return [list(cells) for cells in self._cells]

    def rowCount(self, parent: QModelIndex | QPersistentModelIndex = QModelIndex()) -> int:
        return 0 if parent.isValid() else len(self._rows)

    def columnCount(self, parent: QModelIndex | QPersistentModelIndex = QModelIndex()) -> int:
        return 0 if parent.isValid() else len(self._titles)

    def headerData(self, section: int, orientation: Qt.Orientation, role: int = Qt.ItemDataRole.DisplayRole):
        if orientation != Qt.Orientation.Horizontal or not 0 <= section < len(self._titles):
            return None
        if role == Qt.ItemDataRole.DisplayRole:
            return self._titles[section]
        if role == Qt.ItemDataRole.ToolTipRole:
            return HEADER_TIPS[section]
        return None

    def data(self, index: QModelIndex | QPersistentModelIndex, role: int = Qt.ItemDataRole.DisplayRole):
        if not index.isValid():
            return None
        row, column = self._rows[index.row()], index.column()
        if role == Qt.ItemDataRole.DisplayRole:
            return self._cells[index.row()][column]
        if role == PAIRED_ROLE:
            return row
        if role == Qt.ItemDataRole.TextAlignmentRole:
            horizontal = Qt.AlignmentFlag.AlignLeft if column == 0 else Qt.AlignmentFlag.AlignRight
            return horizontal | Qt.AlignmentFlag.AlignVCenter
        if role == Qt.ItemDataRole.FontRole and (row.language == MACRO or _clear(row, column)):
            font = QFont()
            font.setBold(True)
            return font
        if role == Qt.ItemDataRole.ForegroundRole and column in (INTERVAL_COLUMN, P_COLUMN) and not _clear(row, column):
            return QBrush(QColor(MUTED_TEXT))
        if role == Qt.ItemDataRole.ToolTipRole:
            return _tip(row)
        return None


def column_titles_for(stats: PairedStats | None) -> list[str]:
    """Short titles (the pane is narrow; each header's tooltip says what it is)."""
    interval = column_titles(stats.confidence if stats is not None else 0.95)[INTERVAL_COLUMN]
    return ["Language", "n", "F1 A", "F1 B", "ΔF1", interval, "W/L/T", "p"]


HEADER_TIPS = (
    "Per language; Average is their mean (macro, as the paper's) and its sign test is over all programs",
    "Programs both models answered (the others are left out)",
    "Model A's F1 on these programs (paper metric, micro per language)",
    "Model B's F1 on these programs",
    "F1(A) − F1(B) in points: positive when A is better (the ranking's sign)",
    "Paired percentile bootstrap interval of ΔF1: the same programs resampled for both models",
    "A's wins / losses / ties: programs where A's per-program F1 is higher / lower / equal",
    "Exact two-sided sign test of wins against losses (ties dropped)",
)


def _clear(row: PairedRow, column: int) -> bool:
    if column == INTERVAL_COLUMN:
        return row.difference.low > 0 or row.difference.high < 0
    if column == P_COLUMN:
        return row.sign.p < CLEAR
    return False


def _tip(row: PairedRow) -> str:
    d = row.difference
    excludes = "excludes 0" if d.low > 0 or d.high < 0 else "includes 0"
    return (f"{row_title(row.language)}: {row.programs:,} paired programs; ΔF1 {d.observed * 100:+.2f} points, "
            f"interval [{d.low * 100:+.2f}, {d.high * 100:+.2f}] ({excludes}); A better on {row.sign.wins:,}, "
            f"B better on {row.sign.losses:,}, tied on {row.sign.ties:,}; sign test p = {p_text(row.sign.p)}")
