"""A model's raw response, line by line as the answer parser reads it.

Read-only and monospace, with line numbers on the left and, on the right, the question key each
answer line answers ("→ main.Parser.parse_expr"). Lines are styled by their kind
(`core.scoring.answers.answer_lines`): answers plain, superseded answers struck through and dimmed,
ignored lines (prose, fences, blank) dimmed, out-of-range answers and lines with problems on a
warning tint. A line's tooltip says what the parser made of it and its problems.

An absurd response (a line naming 10^6 callees, a million lines) is shown in part (`core.report.shown_response`): so
many lines, each cut after a callee at so many characters, and a summary of what is left out. Scores and the
stored parse problems come from the whole response.
"""
from __future__ import annotations

import html
import re
from collections.abc import Sequence
from dataclasses import dataclass

from PySide6.QtCore import QEvent, QPoint, QRect, QSize, Qt, Signal
from PySide6.QtGui import (
    QColor,
    QFont,
    QFontMetrics,
    QPainter,
    QPaintEvent,
    QSyntaxHighlighter,
    QTextCharFormat,
    QTextCursor,
    QTextDocument,
)
from PySide6.QtWidgets import QApplication, QPlainTextEdit, QToolTip, QWidget

from core.scoring.answers import ANSWER, IGNORED, OUT_OF_RANGE, SUPERSEDED, AnswerLine
from traceeval_gui.theme.style import MUTED_TEXT, is_dark, monospace_font
from traceeval_gui.widgets.code_view import line_tints

WARNING_TEXT = "#8a5a00"  # problems, as the source view's notice says them
WARNING_TINT = QColor("#fff1d6")
FOCUS_TINT = QColor("#dbe8fb")  # the line of the question picked in the table
DIM_TEXT = QColor("#9aa0a6")


@dataclass(frozen=True)
class AnswerColours:
    """What the answer view paints with, in a light or a dark theme."""
    page: str
    text: str
    selection: str
    warning_text: QColor
    warning_tint: QColor
    focus_tint: QColor
    dim_text: QColor
    key_text: QColor
    number: QColor
    gutter: QColor
    gutter_border: QColor
    line_number: QColor


LIGHT_COLOURS = AnswerColours("#ffffff", "#1f2328", "#b6d7ff", QColor(WARNING_TEXT), WARNING_TINT, FOCUS_TINT,
                              DIM_TEXT, QColor("#3c4043"), QColor("#1a73e8"), QColor("#f6f7f9"), QColor("#e3e5e8"),
                              QColor("#9aa0a6"))
DARK_COLOURS = AnswerColours("#1f2124", "#e3e3e3", "#2d4f7c", QColor("#ffcc80"), QColor("#3a3120"),
                             QColor("#22344d"), QColor("#8d9298"), QColor("#d0d3d6"), QColor("#8ab4f8"),
                             QColor("#26292d"), QColor("#3a3d42"), QColor("#8d9298"))


def answer_colours() -> AnswerColours:
    return DARK_COLOURS if is_dark() else LIGHT_COLOURS
WARNING_BAR = 3  # px: the gutter's mark of a line with a problem
KEY_COLUMN_MIN, KEY_COLUMN_MAX, KEY_COLUMN_SHARE = 110, 280, 0.32  # px, px, share of the view's width
KIND_TITLES = {ANSWER: "answer", SUPERSEDED: "superseded answer", OUT_OF_RANGE: "answer to no question",
               IGNORED: "ignored"}


def compact_key(key: str) -> str:
    """A shorter form of a key for narrow places: Java's package prefixes dropped
    (`com.demo.bank.Ledger:open(com.demo.bank.Account)` -> `Ledger:open(Account)`); others unchanged."""
    head, colon, rest = key.partition(":")
    if not colon:
        return key
    name, paren, params = rest.partition("(")
    if paren:
        params = re.sub(r"[\w$]+\.(?=[\w$])", "", params)
    return f"{head.rsplit('.', 1)[-1]}:{name}{paren}{params}"


def fit_key(key: str, metrics: QFontMetrics, width: int) -> str:
    """The key, or its compact form, elided on the left (the function name stays) to fit `width` px."""
    for text in (key, compact_key(key)):
        if metrics.horizontalAdvance(text) <= width:
            return text
    return metrics.elidedText(compact_key(key), Qt.TextElideMode.ElideLeft, width)


def is_warning(line: AnswerLine) -> bool:
    """Lines shown on the warning tint: out of range, with parse problems, or numbered-looking but not read."""
    return line.kind == OUT_OF_RANGE or (line.kind == ANSWER and bool(line.problems)) or bool(line.note
                                                                                              and line.kind == IGNORED)


def margin_text(line: AnswerLine) -> str:
    """What the right-hand column says about a line ("" for most ignored lines)."""
    if line.kind == ANSWER:
        return f"→ {line.key}"
    if line.kind == SUPERSEDED:
        return f"replaced by line {line.superseded_by}"
    if line.kind == OUT_OF_RANGE:
        return f"no question {line.number}"
    return "not read" if line.note else ""


def line_tooltip(line: AnswerLine) -> str:
    """Rich text: the line's kind, question, what was read and its problems."""
    head = f"<b>Line {line.line}</b> · {KIND_TITLES[line.kind]}"
    rows = [head]
    if line.kind in (ANSWER, SUPERSEDED):
        rows.append(f"question {line.number}: <code>{html.escape(line.key or '')}</code>")
    if line.kind != IGNORED:
        read = ", ".join(line.callees)
        rows.append(f"read: <code>{html.escape(read)}</code>" if read else "read: no calls")
    elif not line.note:
        rows.append("not a numbered answer line: the parser skips it")
    rows += [f"<span style='color:{WARNING_TEXT}'>⚠ {html.escape(problem)}</span>" for problem in line.problems]
    if line.note:
        rows.append(html.escape(line.note))
    return "<br>".join(rows)


class AnswerLineHighlighter(QSyntaxHighlighter):
    """Character formats per line kind: the number of an answer line in bold, superseded lines
    struck through, ignored ones dimmed."""

    def __init__(self, document: QTextDocument) -> None:
        super().__init__(document)
        self.lines: Sequence[AnswerLine] = ()
        self.set_colours(answer_colours())

    def set_colours(self, colours: AnswerColours) -> None:
        self._number = QTextCharFormat()
        self._number.setFontWeight(QFont.Weight.Bold)
        self._number.setForeground(colours.number)
        self._dim = QTextCharFormat()
        self._dim.setForeground(colours.dim_text)
        self._struck = QTextCharFormat(self._dim)
        self._struck.setFontStrikeOut(True)
        self._warning_number = QTextCharFormat(self._number)
        self._warning_number.setForeground(colours.warning_text)

    def highlightBlock(self, text: str) -> None:
        number = self.currentBlock().blockNumber()
        if not 0 <= number < len(self.lines):
            return
        line = self.lines[number]
        if line.kind == IGNORED:
            self.setFormat(0, len(text), self._dim)
        elif line.kind == SUPERSEDED:
            self.setFormat(0, len(text), self._struck)
        else:
            self.setFormat(0, line.answer_start, self._number if line.kind == ANSWER else self._warning_number)


class _MarginView(QWidget):
    """The line-number gutter (left) or the key column (right) of an `AnswerTextView`."""

    def __init__(self, editor: AnswerTextView, side: str) -> None:
        super().__init__(editor)
        self.editor, self.side = editor, side
        self.setMouseTracking(True)

    def sizeHint(self) -> QSize:
        return QSize(self.editor.gutter_width() if self.side == "left" else self.editor.key_width, 0)

    def paintEvent(self, event: QPaintEvent) -> None:
        self.editor.paint_margin(self, event)

    def mousePressEvent(self, event) -> None:
        number = self.editor.line_at(event.position().toPoint().y())
        if self.editor.line(number) is not None:
            self.editor.focus_line(number, centre=False)
            self.editor.line_clicked.emit(number)

    def event(self, event: QEvent) -> bool:
        if event.type() == QEvent.Type.ToolTip:
            self.editor.show_line_tooltip(event.pos().y(), event.globalPos())
            return True
        return super().event(event)


class AnswerTextView(QPlainTextEdit):
    line_clicked = Signal(int)  # 1-based line the user put the cursor on

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setReadOnly(True)
        self.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse
                                     | Qt.TextInteractionFlag.TextSelectableByKeyboard)
        self.setLineWrapMode(QPlainTextEdit.LineWrapMode.WidgetWidth)  # long answer lists wrap at ", "
        self.setFont(monospace_font())
        self.setFrameShape(QPlainTextEdit.Shape.NoFrame)
        self.colours = LIGHT_COLOURS
        self.lines: list[AnswerLine] = []
        self.focused_line: int | None = None
        self.key_width = KEY_COLUMN_MIN
        self.highlighter = AnswerLineHighlighter(self.document())
        self.follow_theme()
        # A widget with a style sheet hears of no application palette change: follow the application.
        QApplication.instance().paletteChanged.connect(self.follow_theme)
        self.gutter = _MarginView(self, "left")
        self.key_column = _MarginView(self, "right")
        self.updateRequest.connect(self._on_editor_update_requested)
        self.cursorPositionChanged.connect(self._on_editor_cursor_moved)
        self._placing = False  # the cursor is moved by `focus_line`, not by the user

    # -- content --------------------------------------------------------------------------
    def set_lines(self, lines: Sequence[AnswerLine], placeholder: str = "") -> None:
        """Show these lines (one block each) and forget the focused line."""
        self.lines = list(lines)
        self.focused_line = None
        self.highlighter.lines = self.lines
        self.setPlaceholderText(placeholder)
        self._placing = True
        self.setPlainText("\n".join(line.text for line in self.lines))
        self._placing = False
        self._update_margins()
        self._apply_selections()

    def line(self, number: int) -> AnswerLine | None:
        return self.lines[number - 1] if 1 <= number <= len(self.lines) else None

    def focus_line(self, number: int | None, centre: bool = True) -> None:
        """Put the cursor on a line (1-based), tint it and (when `centre`) scroll it to the middle."""
        self.focused_line = number if number is not None and self.line(number) is not None else None
        if self.focused_line is not None:
            self._placing = True
            self.setTextCursor(QTextCursor(self.document().findBlockByNumber(self.focused_line - 1)))
            self._placing = False
            if centre:
                self.centerCursor()
        self._apply_selections()

    def line_at(self, y: int) -> int:
        return self.cursorForPosition(QPoint(0, y)).blockNumber() + 1

    def follow_theme(self, *_palette) -> None:
        """Colours for the application's light or dark palette."""
        colours = self.colours = answer_colours()
        self.setStyleSheet(f"QPlainTextEdit {{ background: {colours.page}; color: {colours.text}; "
                           f"selection-background-color: {colours.selection}; selection-color: {colours.text}; }}")
        self.highlighter.set_colours(colours)
        self.highlighter.rehighlight()
        if hasattr(self, "gutter"):
            self._apply_selections()

    def _apply_selections(self) -> None:
        colours = self.colours
        tints = {line.line: colours.warning_tint for line in self.lines if is_warning(line)}
        if self.focused_line is not None:
            tints[self.focused_line] = colours.focus_tint
        self.setExtraSelections(line_tints(self.document(), tints, wrapped=True))
        self.gutter.update()
        self.key_column.update()

    # -- tooltips -------------------------------------------------------------------------
    def viewportEvent(self, event: QEvent) -> bool:
        if event.type() == QEvent.Type.ToolTip:
            self.show_line_tooltip(event.pos().y(), event.globalPos())
            return True
        return super().viewportEvent(event)

    def show_line_tooltip(self, y: int, global_pos: QPoint) -> None:
        line = self.line(self.line_at(y))
        if line is not None:
            QToolTip.showText(global_pos, line_tooltip(line), self)
        else:
            QToolTip.hideText()

    # -- margins --------------------------------------------------------------------------
    def gutter_width(self) -> int:
        digits = max(2, len(str(max(1, len(self.lines)))))
        return 12 + WARNING_BAR + self.fontMetrics().horizontalAdvance("9") * digits

    def _update_margins(self) -> None:
        metrics = self.fontMetrics()
        widest = max((metrics.horizontalAdvance(margin_text(line)) for line in self.lines), default=0)
        limit = max(KEY_COLUMN_MIN, min(KEY_COLUMN_MAX, int(self.width() * KEY_COLUMN_SHARE)))
        self.key_width = max(KEY_COLUMN_MIN, min(widest + 20, limit))
        self.setViewportMargins(self.gutter_width(), 0, self.key_width, 0)
        self._place_margins()

    def _place_margins(self) -> None:
        viewport = self.viewport().geometry()
        self.gutter.setGeometry(QRect(viewport.left() - self.gutter_width(), viewport.top(), self.gutter_width(),
                                      viewport.height()))
        self.key_column.setGeometry(QRect(viewport.right() + 1, viewport.top(), self.key_width, viewport.height()))

    def resizeEvent(self, event) -> None:
        super().resizeEvent(event)
        self._update_margins()

    def _on_editor_update_requested(self, rect: QRect, dy: int) -> None:
        for margin in (self.gutter, self.key_column):
            if dy:
                margin.scroll(0, dy)
            else:
                margin.update(0, rect.y(), margin.width(), rect.height())

    def _on_editor_cursor_moved(self) -> None:
        if not self._placing and self.lines:
            number = self.textCursor().blockNumber() + 1
            if number != self.focused_line:
                self.focused_line = number
                self._apply_selections()
            self.line_clicked.emit(number)

    def paint_margin(self, margin: _MarginView, event: QPaintEvent) -> None:
        painter = QPainter(margin)
        colours = self.colours
        painter.fillRect(event.rect(), colours.gutter)
        painter.setPen(colours.gutter_border)
        edge = margin.width() - 1 if margin is self.gutter else 0
        painter.drawLine(edge, event.rect().top(), edge, event.rect().bottom())
        metrics = self.fontMetrics()
        line_height = metrics.height()
        block = self.firstVisibleBlock()
        top = round(self.blockBoundingGeometry(block).translated(self.contentOffset()).top())
        while block.isValid() and top <= event.rect().bottom():
            height = round(self.blockBoundingRect(block).height())
            line = self.line(block.blockNumber() + 1)
            if line is not None and block.isVisible() and top + height >= event.rect().top():
                if margin is self.gutter:
                    self._paint_number(painter, line, top, line_height)
                else:
                    self._paint_key(painter, line, top, line_height)
            block = block.next()
            top += height
        painter.end()

    def _paint_number(self, painter: QPainter, line: AnswerLine, top: int, height: int) -> None:
        focused = line.line == self.focused_line
        font = painter.font()
        font.setBold(focused)
        painter.setFont(font)
        colours = self.colours
        painter.setPen(QColor(colours.text) if focused else colours.line_number)
        right = self.gutter.width() - 6
        painter.drawText(0, top, right, height, Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter,
                         str(line.line))
        if is_warning(line) or line.kind == SUPERSEDED:
            colour = colours.warning_text if is_warning(line) else colours.dim_text
            painter.fillRect(2, top + 2, WARNING_BAR, height - 4, colour)

    def _paint_key(self, painter: QPainter, line: AnswerLine, top: int, height: int) -> None:
        text = margin_text(line)
        if not text:
            return
        width = self.key_column.width() - 16
        metrics = self.fontMetrics()
        if line.kind == ANSWER:  # keep the function, drop the module or package
            text = "→ " + fit_key(line.key or "", metrics, width - metrics.horizontalAdvance("→ "))
        else:
            text = metrics.elidedText(text, Qt.TextElideMode.ElideRight, width)
        colours = self.colours
        colour = colours.key_text if line.kind == ANSWER and not line.problems else \
            colours.dim_text if line.kind == SUPERSEDED else colours.warning_text
        if line.kind == IGNORED:
            colour = QColor(MUTED_TEXT)
        painter.setPen(colour)
        painter.setFont(self.font())
        painter.drawText(10, top, width, height, Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignVCenter, text)

