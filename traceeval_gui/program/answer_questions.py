"""The Answer tab's question list: every question (ground-truth key, in prompt order) with what the
model's response answered for it, or "no answer line" on a warning tint."""
from __future__ import annotations

import html

from PySide6.QtCore import QAbstractTableModel, QModelIndex, QPersistentModelIndex, Qt
from PySide6.QtGui import QBrush, QColor, QFont
from PySide6.QtWidgets import QAbstractItemView, QHeaderView, QStyledItemDelegate, QTableView, QWidget

from core.scoring.answers import QuestionAnswer
from traceeval_gui.theme.style import MUTED_TEXT
from traceeval_gui.widgets.answer_text import WARNING_TEXT, WARNING_TINT, fit_key

QUESTION_ROLE = Qt.ItemDataRole.UserRole  # the core QuestionAnswer of a row
QUESTION_COLUMNS = ("#", "Question key", "Read", "Line")
NO_ANSWER_LINE = "no answer line"
KEY_COLUMN_WIDTH = 160
CELL_PADDING = 10  # px a cell keeps around its text


class QuestionTableModel(QAbstractTableModel):
    """One row per question: its number, key, what was read (callees, "none") and the answer line."""

    def __init__(self, parent=None) -> None:
        super().__init__(parent)
        self.questions: list[QuestionAnswer] = []

    def set_questions(self, questions: list[QuestionAnswer]) -> None:
        self.beginResetModel()
        self.questions = list(questions)
        self.endResetModel()

    def row_of(self, number: int) -> int:
        return number - 1 if 1 <= number <= len(self.questions) else -1

    def rowCount(self, parent: QModelIndex | QPersistentModelIndex = QModelIndex()) -> int:
        return 0 if parent.isValid() else len(self.questions)

    def columnCount(self, parent: QModelIndex | QPersistentModelIndex = QModelIndex()) -> int:
        return 0 if parent.isValid() else len(QUESTION_COLUMNS)

    def headerData(self, section: int, orientation: Qt.Orientation, role: int = Qt.ItemDataRole.DisplayRole):
        if orientation == Qt.Orientation.Horizontal and role == Qt.ItemDataRole.DisplayRole:
            return QUESTION_COLUMNS[section]
        return None

    def data(self, index: QModelIndex | QPersistentModelIndex, role: int = Qt.ItemDataRole.DisplayRole):
        if not index.isValid():
            return None
        question, column = self.questions[index.row()], index.column()
        line = question.line
        if role == QUESTION_ROLE:
            return question
        if role == Qt.ItemDataRole.DisplayRole:
            if column == 0:
                return str(question.number)
            if column == 1:
                return question.key
            if column == 2:
                return NO_ANSWER_LINE if line is None else ", ".join(line.callees) or "none"
            return str(line.line) if line is not None else "—"
        if role == Qt.ItemDataRole.ForegroundRole:
            if line is None and column == 2:
                return QBrush(QColor(WARNING_TEXT))
            if column in (0, 3) or (column == 2 and not line.callees):
                return QBrush(QColor(MUTED_TEXT))
        if role == Qt.ItemDataRole.BackgroundRole and (line is None or line.problems):
            return QBrush(WARNING_TINT)
        if role == Qt.ItemDataRole.FontRole and column == 2 and (line is None or not line.callees):
            font = QFont()
            font.setItalic(True)
            return font
        if role == Qt.ItemDataRole.TextAlignmentRole and column in (0, 3):
            return int(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
        if role == Qt.ItemDataRole.ToolTipRole:
            return question_tooltip(question)
        return None


def question_tooltip(question: QuestionAnswer) -> str:
    rows = [f"<b>Question {question.number}</b>: <code>{html.escape(question.key)}</code>"]
    line = question.line
    if line is None:
        rows.append(f"<span style='color:{WARNING_TEXT}'>No line answers it: scored as no calls.</span>")
    else:
        read = ", ".join(line.callees)
        rows.append(f"line {line.line}: " + (f"<code>{html.escape(read)}</code>" if read else "no calls"))
        rows += [f"<span style='color:{WARNING_TEXT}'>⚠ {html.escape(p)}</span>" for p in line.problems]
    return "<br>".join(rows)


class _KeyDelegate(QStyledItemDelegate):
    """Long keys lose their package prefixes, then their start: the function name stays readable."""

    def initStyleOption(self, option, index) -> None:
        super().initStyleOption(option, index)
        option.text = fit_key(option.text, option.fontMetrics, option.rect.width() - CELL_PADDING)
        option.textElideMode = Qt.TextElideMode.ElideLeft


class QuestionTableView(QTableView):
    def __init__(self, model: QuestionTableModel, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setModel(model)
        self.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        self.setSelectionMode(QAbstractItemView.SelectionMode.SingleSelection)
        self.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.setWordWrap(False)
        self.setShowGrid(False)
        self.setAlternatingRowColors(True)
        self.setItemDelegateForColumn(1, _KeyDelegate(self))
        self.setToolTip("Pick a question to show its answer line")
        vertical = self.verticalHeader()
        vertical.hide()
        vertical.setSectionResizeMode(QHeaderView.ResizeMode.Fixed)
        vertical.setDefaultSectionSize(self.fontMetrics().height() + 8)
        header = self.horizontalHeader()
        header.setDefaultAlignment(Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignVCenter)
        for column, mode in enumerate((QHeaderView.ResizeMode.ResizeToContents, QHeaderView.ResizeMode.Interactive,
                                       QHeaderView.ResizeMode.Stretch, QHeaderView.ResizeMode.ResizeToContents)):
            header.setSectionResizeMode(column, mode)
        header.resizeSection(1, KEY_COLUMN_WIDTH)
