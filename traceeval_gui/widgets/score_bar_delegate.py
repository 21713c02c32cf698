"""Paints a score cell as a faint bar behind its percentage, so a column can be scanned at a glance."""
from __future__ import annotations

from PySide6.QtCore import QModelIndex, QRect
from PySide6.QtGui import QPainter
from PySide6.QtWidgets import QStyle, QStyledItemDelegate, QStyleOptionViewItem

from traceeval_gui.theme.style import score_bar_colour


class ScoreBarDelegate(QStyledItemDelegate):
    def __init__(self, score_role: int, parent=None) -> None:
        super().__init__(parent)
        self.score_role = score_role

    def paint(self, painter: QPainter, option: QStyleOptionViewItem, index: QModelIndex) -> None:
        score = index.data(self.score_role)
        selected = bool(option.state & QStyle.StateFlag.State_Selected)
        if score is not None and not selected:
            rect = option.rect.adjusted(2, 3, -2, -3)
            width = round(rect.width() * max(0.0, min(1.0, score)))
            painter.fillRect(QRect(rect.left(), rect.top(), width, rect.height()), score_bar_colour(option.palette))
        super().paint(painter, option, index)
