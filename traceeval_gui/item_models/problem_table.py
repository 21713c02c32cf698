"""The Problems list's rows: one per problem found while indexing a dataset (a broken program, an
unreadable file, a warning), errors first. The core `Problem` is behind `PROBLEM_ROLE`."""
from __future__ import annotations

from collections.abc import Sequence

from PySide6.QtCore import QAbstractTableModel, QModelIndex, QPersistentModelIndex, Qt

from core.problems import Problem

PROBLEM_ROLE = Qt.ItemDataRole.UserRole
COLUMNS = ("Severity", "Program", "File", "Problem")
SEVERITY_TITLES = {"error": "Error", "warning": "Warning"}
SEVERITY_ORDER = {"error": 0, "warning": 1}


class ProblemTableModel(QAbstractTableModel):
    def __init__(self, parent=None) -> None:
        super().__init__(parent)
        self.problems: list[Problem] = []

    def set_problems(self, problems: Sequence[Problem]) -> None:
        self.beginResetModel()
        self.problems = sorted(problems, key=lambda p: (SEVERITY_ORDER.get(p.severity, 2), p.instance_id, p.path))
        self.endResetModel()

    def rowCount(self, parent: QModelIndex | QPersistentModelIndex = QModelIndex()) -> int:
        return 0 if parent.isValid() else len(self.problems)

    def columnCount(self, parent: QModelIndex | QPersistentModelIndex = QModelIndex()) -> int:
        return 0 if parent.isValid() else len(COLUMNS)

    def headerData(self, section: int, orientation: Qt.Orientation, role: int = Qt.ItemDataRole.DisplayRole):
        if orientation == Qt.Orientation.Horizontal and role == Qt.ItemDataRole.DisplayRole:
            return COLUMNS[section]
        return None

    def data(self, index: QModelIndex | QPersistentModelIndex, role: int = Qt.ItemDataRole.DisplayRole):
        if not index.isValid():
            return None
        problem = self.problems[index.row()]
        if role == PROBLEM_ROLE:
            return problem
        if role in (Qt.ItemDataRole.DisplayRole, Qt.ItemDataRole.ToolTipRole):
            cells = (SEVERITY_TITLES.get(problem.severity, problem.severity), problem.instance_id or "—",
                     problem.path, problem.message)
            return cells[index.column()]
        return None

    def problem_at(self, row: int) -> Problem:
        return self.problems[row]
