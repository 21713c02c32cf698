"""A read-only, highlighted code view with a line-number gutter: the base of the source view's files
(`SourceFileView`) and of the audit's code spans (`CodeSpanView`). Subclasses paint each gutter line.

Every colour comes from the widget's palette (text on Base, the gutter on AlternateBase, line numbers
between the two), and the syntax colours from a pygments style that reads on that Base: code reads in
a dark theme as in a light one, and follows a palette change."""
from __future__ import annotations

from collections.abc import Mapping

from PySide6.QtCore import QEvent, QPoint, QRect, QSize, Qt
from PySide6.QtGui import QColor, QPainter, QPaintEvent, QPalette, QTextCursor, QTextDocument, QTextFormat
from PySide6.QtWidgets import QPlainTextEdit, QTextEdit, QWidget

from traceeval_gui.theme.style import monospace_font
from traceeval_gui.widgets.code_highlighter import PygmentsHighlighter

GUTTER_BORDER_SHARE = 0.12  # of the text colour in the gutter's border (the rest: the base colour)
LINE_NUMBER_SHARE = 0.45  # of the text colour in a plain line number


def mixed(colour: QColor, other: QColor, share: float) -> QColor:
    """`share` of `colour` over `other`: a tone between two palette colours that keeps to the theme."""
    return QColor.fromRgbF(*(share * a + (1 - share) * b for a, b in
                             zip(colour.getRgbF()[:3], other.getRgbF()[:3])))


def gutter_colours(palette: QPalette) -> tuple[QColor, QColor, QColor, QColor]:
    """(background, border, line number, strong line number) of the gutter, from the palette."""
    base, text = palette.color(QPalette.ColorRole.Base), palette.color(QPalette.ColorRole.Text)
    return (palette.color(QPalette.ColorRole.AlternateBase), mixed(text, base, GUTTER_BORDER_SHARE),
            mixed(text, base, LINE_NUMBER_SHARE), text)


def line_tints(document: QTextDocument, tints: Mapping[int, QColor], first_line: int = 1,
               wrapped: bool = False) -> list[QTextEdit.ExtraSelection]:
    """Extra selections tinting whole lines (numbered from `first_line`) across the view's width; lines
    outside the document are skipped. `wrapped`: select each whole block, so a wrapped line is tinted on
    every row (without wrapping a bare cursor is enough, and a selection would paint over the text's own
    tints)."""
    selections = []
    for line, colour in sorted(tints.items()):
        block = document.findBlockByNumber(line - first_line)
        if not block.isValid():
            continue
        selection = QTextEdit.ExtraSelection()
        selection.format.setBackground(colour)
        selection.format.setProperty(QTextFormat.Property.FullWidthSelection, True)
        cursor = QTextCursor(block)
        if wrapped:
            cursor.movePosition(QTextCursor.MoveOperation.EndOfBlock, QTextCursor.MoveMode.KeepAnchor)
        selection.cursor = cursor
        selections.append(selection)
    return selections


class GutterView(QWidget):
    """The strip left of the text: sized, painted and explained (tooltips) by its editor."""

    def __init__(self, editor: NumberedCodeView) -> None:
        super().__init__(editor)
        self.editor = editor
        self.setMouseTracking(True)

    def sizeHint(self) -> QSize:
        return QSize(self.editor.gutter_width(), 0)

    def paintEvent(self, event: QPaintEvent) -> None:
        self.editor.paint_gutter(event)

    def event(self, event: QEvent) -> bool:
        if event.type() == QEvent.Type.ToolTip and self.editor.show_line_tooltip(event.pos().y(), event.globalPos()):
            return True
        return super().event(event)


class NumberedCodeView(QPlainTextEdit):
    """Lines are numbered from `first_line` (1 for a whole file, the span's start for a span)."""

    first_line = 1

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setReadOnly(True)
        self.setLineWrapMode(QPlainTextEdit.LineWrapMode.NoWrap)
        self.setFont(monospace_font())
        self.setTabStopDistance(4 * self.fontMetrics().horizontalAdvance(" "))
        self.setFrameShape(QPlainTextEdit.Shape.NoFrame)
        self.gutter = GutterView(self)
        self.blockCountChanged.connect(self._on_document_block_count_changed)
        self.updateRequest.connect(self._on_editor_update_requested)
        self._on_document_block_count_changed()

    def tint_lines(self, tints: Mapping[int, QColor]) -> None:
        """Tint these lines (file line numbers), replacing earlier tints, and repaint the gutter."""
        self.setExtraSelections(line_tints(self.document(), tints, self.first_line))
        self.gutter.update()

    def gutter_width(self) -> int:
        digits = max(3, len(str(self.first_line + max(1, self.blockCount()))))
        return 14 + self.fontMetrics().horizontalAdvance("9") * digits

    def show_line_tooltip(self, y: int, global_pos: QPoint) -> bool:
        """Show a tooltip for the gutter line at `y`; False when there is nothing to say."""
        return False

    def paint_line(self, painter: QPainter, line: int, top: int, line_height: int, width: int) -> None:
        """Paint gutter line `line` (its number and any marks) in the row starting at `top`."""
        raise NotImplementedError

    def changeEvent(self, event: QEvent) -> None:
        super().changeEvent(event)
        if event.type() == QEvent.Type.PaletteChange:
            self.follow_palette()

    def showEvent(self, event) -> None:
        super().showEvent(event)
        self.follow_palette()  # a highlighter made after the palette was set took the application's

    def follow_palette(self) -> None:
        """Syntax colours for the palette's base colour, and the gutter painted again."""
        base = self.palette().color(QPalette.ColorRole.Base)
        for highlighter in self.document().findChildren(PygmentsHighlighter):
            highlighter.set_background(base)
        self.gutter.update()

    def resizeEvent(self, event) -> None:
        super().resizeEvent(event)
        self._place_gutter()

    def _place_gutter(self) -> None:
        rect = self.contentsRect()
        self.gutter.setGeometry(QRect(rect.left(), rect.top(), self.gutter_width(), rect.height()))

    def _on_document_block_count_changed(self, _count: int = 0) -> None:
        self.setViewportMargins(self.gutter_width(), 0, 0, 0)
        self._place_gutter()

    def _on_editor_update_requested(self, rect: QRect, dy: int) -> None:
        if dy:
            self.gutter.scroll(0, dy)
        else:
            self.gutter.update(0, rect.y(), self.gutter.width(), rect.height())

    def paint_gutter(self, event: QPaintEvent) -> None:
        painter = QPainter(self.gutter)
        painter.setRenderHint(QPainter.RenderHint.Antialiasing)
        background, border, _, _ = gutter_colours(self.palette())
        painter.fillRect(event.rect(), background)
        width = self.gutter.width()
        painter.setPen(border)
        painter.drawLine(width - 1, event.rect().top(), width - 1, event.rect().bottom())
        block = self.firstVisibleBlock()
        top = round(self.blockBoundingGeometry(block).translated(self.contentOffset()).top())
        line_height = self.fontMetrics().height()
        while block.isValid() and top <= event.rect().bottom():
            height = round(self.blockBoundingRect(block).height())
            if block.isVisible() and top + height >= event.rect().top():
                self.paint_line(painter, self.first_line + block.blockNumber(), top, line_height, width)
            block = block.next()
            top += height
        painter.end()

    def paint_number(self, painter: QPainter, line: int, top: int, line_height: int, right: int,
                     strong: bool) -> None:
        font = painter.font()
        font.setBold(strong)
        painter.setFont(font)
        _, _, plain, strong_colour = gutter_colours(self.palette())
        painter.setPen(strong_colour if strong else plain)
        painter.drawText(0, top, right, line_height, Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter,
                         str(line))
