"""One source file: read-only, highlighted, with a gutter of line numbers and edge-class markers."""
from __future__ import annotations

from dataclasses import dataclass

from PySide6.QtCore import QEvent, QPoint, Qt, Signal
from PySide6.QtGui import QMouseEvent, QPainter, QPaintEvent, QPolygon, QTextCursor
from PySide6.QtWidgets import QToolTip, QWidget

from traceeval_gui.item_models.instance_detail import EDGE_CLASSES
from traceeval_gui.theme.style import EDGE_LABELS, edge_colour, edge_focus_tint, edge_tint
from traceeval_gui.widgets.code_highlighter import PygmentsHighlighter
from traceeval_gui.widgets.code_view import NumberedCodeView

MARKER_BAR = 3  # px per edge class in the marker strip
MARKER_STRIP = 3 * MARKER_BAR + 2 * 1 + 6  # three bars, gaps, padding


@dataclass(frozen=True)
class LineMark:
    """What the gutter and the line background say about one line."""

    kinds: tuple[str, ...]  # edge classes present, in TP, FP, FN order
    tint: str  # the class whose tint colours the line
    tooltip: str = ""  # rich text
    counts: tuple[tuple[str, int], ...] = ()  # (class, edges) shown after the line's text


class SourceFileView(NumberedCodeView):
    position_clicked = Signal(int, int)  # a click (not a drag): line 1-based, column 0-based in UTF-8 bytes

    def __init__(self, path: str, text: str, language: str, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.path = path
        self.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse
                                     | Qt.TextInteractionFlag.TextSelectableByKeyboard)
        self.setPlainText(text)
        self.highlighter = PygmentsHighlighter(self.document(), language)
        self.marks: dict[int, LineMark] = {}
        self.focused_line: int | None = None
        self._focus: tuple[int, str, tuple[int, ...]] | None = None  # line, class, call-site lines
        self.callee_line: int | None = None  # the selected edge's callee definition, when in this file
        self._callee_kind = ""

    # -- markers --------------------------------------------------------------------------
    def set_marks(self, marks: dict[int, LineMark]) -> None:
        """Replace the per-line marks (1-based lines) and drop the focus."""
        self.marks = dict(marks)
        self._focus = None
        self.focused_line = None
        self._apply_selections()

    def focus_line(self, line: int, kind: str, call_sites: tuple[int, ...] = (), move: bool = True) -> None:
        """Put the cursor on `line` (the caller's definition), centre it and highlight it and the
        candidate call-site lines in the class's stronger tint; `move=False` only highlights (the user
        clicked somewhere in that definition: the code stays where it is)."""
        self._focus = (line, kind, tuple(call_sites))
        self.focused_line = line
        if not move:
            self._apply_selections()
            return
        block = self.document().findBlockByNumber(max(line - 1, 0))
        cursor = QTextCursor(block)
        self.setTextCursor(cursor)
        self.centerCursor()
        self._apply_selections()

    def mark_callee(self, line: int, kind: str) -> None:
        """Mark the selected edge's callee definition (a hollow diamond in the gutter, the class tint)."""
        self.callee_line, self._callee_kind = line, kind
        self._apply_selections()

    def clear_focus(self) -> None:
        if self._focus is not None or self.callee_line is not None:
            self._focus = None
            self.focused_line = None
            self.callee_line = None
            self._apply_selections()

    def current_line(self) -> int:
        return self.textCursor().blockNumber() + 1

    def changeEvent(self, event: QEvent) -> None:
        super().changeEvent(event)
        if event.type() == QEvent.Type.PaletteChange:
            self._apply_selections()  # the line tints follow the theme

    def _apply_selections(self) -> None:
        lines = {line: edge_tint(mark.tint, self.palette()) for line, mark in self.marks.items()}
        if self.callee_line is not None:
            lines[self.callee_line] = edge_focus_tint(self._callee_kind, self.palette())
        if self._focus is not None:
            line, kind, call_sites = self._focus
            for focused in (line, *call_sites):
                lines[focused] = edge_focus_tint(kind, self.palette())
        self.tint_lines(lines)

    def mouseReleaseEvent(self, event: QMouseEvent) -> None:
        super().mouseReleaseEvent(event)
        cursor = self.textCursor()
        if event.button() == Qt.MouseButton.LeftButton and not cursor.hasSelection():
            column = len(cursor.block().text()[:cursor.positionInBlock()].encode())
            self.position_clicked.emit(cursor.blockNumber() + 1, column)

    # -- inline annotations ---------------------------------------------------------------
    def paintEvent(self, event: QPaintEvent) -> None:
        super().paintEvent(event)
        if not self.marks:
            return
        painter = QPainter(self.viewport())
        font = self.font()
        font.setItalic(True)
        painter.setFont(font)
        metrics = painter.fontMetrics()
        gap = metrics.horizontalAdvance("    ")
        block = self.firstVisibleBlock()
        offset = self.contentOffset()
        while block.isValid():
            geometry = self.blockBoundingGeometry(block).translated(offset)
            if geometry.top() > event.rect().bottom():
                break
            mark = self.marks.get(block.blockNumber() + 1)
            if mark is not None and mark.counts and geometry.bottom() >= event.rect().top():
                cursor = QTextCursor(block)
                cursor.movePosition(QTextCursor.MoveOperation.EndOfBlock)
                end = self.cursorRect(cursor)
                x = end.right() + gap
                baseline = end.top() + self.fontMetrics().ascent()
                for index, (kind, count) in enumerate(mark.counts):
                    text = ("  ·  " if index else "") + f"{count} {EDGE_LABELS[kind]}"
                    painter.setPen(edge_colour(kind))
                    painter.drawText(x, baseline, text)
                    x += metrics.horizontalAdvance(text)
            block = block.next()
        painter.end()

    # -- tooltips -------------------------------------------------------------------------
    def viewportEvent(self, event: QEvent) -> bool:
        if event.type() == QEvent.Type.ToolTip:
            self.show_line_tooltip(event.pos().y(), event.globalPos())
            return True
        return super().viewportEvent(event)

    def show_line_tooltip(self, y: int, global_pos: QPoint) -> bool:
        line = self.cursorForPosition(QPoint(0, y)).blockNumber() + 1
        mark = self.marks.get(line)
        if mark is not None and mark.tooltip:
            QToolTip.showText(global_pos, mark.tooltip, self)
        else:
            QToolTip.hideText()
        return True

    # -- gutter ---------------------------------------------------------------------------
    def gutter_width(self) -> int:
        return super().gutter_width() + MARKER_STRIP

    def paint_line(self, painter: QPainter, line: int, top: int, line_height: int, width: int) -> None:
        number_right = width - MARKER_STRIP - 2
        focused = line == self.focused_line
        self.paint_number(painter, line, top, line_height, number_right, focused)
        call_site = self._focus is not None and line in self._focus[2]
        self._paint_marker(painter, line, number_right + 4, top, line_height, focused, call_site)

    def _paint_marker(self, painter: QPainter, line: int, left: int, top: int, height: int,
                      focused: bool, call_site: bool) -> None:
        mark = self.marks.get(line)
        if mark is not None:
            for kind in mark.kinds:
                x = left + EDGE_CLASSES.index(kind) * (MARKER_BAR + 1)
                painter.fillRect(x, top + 2, MARKER_BAR, height - 4, edge_colour(kind))
        if line == self.callee_line and not focused:  # a hollow diamond: "the callee is defined here"
            painter.setPen(edge_colour(self._callee_kind))
            painter.setBrush(Qt.BrushStyle.NoBrush)
            middle = top + height // 2
            painter.drawPolygon(QPolygon([QPoint(5, middle - 4), QPoint(9, middle), QPoint(5, middle + 4),
                                          QPoint(1, middle)]))
        if (focused or call_site) and self._focus is not None:  # left of the line number
            painter.setPen(Qt.PenStyle.NoPen)
            painter.setBrush(edge_colour(self._focus[1]))
            middle = top + height // 2
            if focused:  # a small arrow: "this is the caller"
                painter.drawPolygon(QPolygon([QPoint(2, middle - 4), QPoint(8, middle), QPoint(2, middle + 4)]))
            else:  # a dot: "the call may happen here"
                painter.drawEllipse(QPoint(5, middle), 3, 3)
