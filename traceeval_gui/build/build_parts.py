"""The build wizard's small parts: a table model over rows of core objects, the reason codes in words,
the editable harness editor (highlighted as one types) and the traced graph drawing."""
from __future__ import annotations

import html
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
from PySide6.QtCore import QAbstractTableModel, QModelIndex, QPersistentModelIndex, Qt, QTimer
from PySide6.QtGui import QColor, QPainter, QTextCursor, QTextDocument
from PySide6.QtWidgets import QLabel, QStackedWidget, QVBoxLayout, QWidget

from core.instances import records as build_model
from core.report.graph_layout import layered_layout
from core.report.palette import EDGE_STYLES, FILE_COLOURS
from traceeval_gui.graph.graph_canvas import GraphCanvasView  # pyqtgraph, after PySide6 (imported above)
from traceeval_gui.item_models.graph_scene import EdgeGeometry, short_names
from traceeval_gui.theme.style import MUTED_TEXT
from traceeval_gui.widgets.code_highlighter import PygmentsHighlighter, token_runs
from traceeval_gui.widgets.code_view import NumberedCodeView

PAYLOAD_ROLE = Qt.ItemDataRole.UserRole  # the core object a row stands for
SORT_ROLE = Qt.ItemDataRole.UserRole + 1
GREEN, RED, AMBER = "#2e7d32", "#c62828", "#8a5a00"
_ROOT = QModelIndex()
INTERNAL_CLASS, HARNESS_CLASS = "truth", "trace_only"  # palette entries the graph draws the two kinds with

REASON_WORDS = {
    build_model.EXTRACTION_FAILED: "its files could not be gathered",
    build_model.THIRD_PARTY: "it needs a third-party package",
    build_model.ENTRY_NAME_TAKEN: "the entry file's place is taken",
    build_model.MODEL_FAILED: "the model could not be asked",
    build_model.NO_HARNESS: "the answer held no code",
    build_model.DID_NOT_RUN: "the harness did not run",
    build_model.CRASHED: "the harness crashed",
    build_model.TIMED_OUT: "the harness timed out",
    build_model.OVER_LIMIT: "the harness went over a limit",
    build_model.UNTRUSTED_LOG: "a run's trace log showed tampering",
    build_model.UNSTABLE: "the runs saw different edges",
    build_model.TOO_FEW_EDGES: "too few internal edges",
    build_model.TARGET_NOT_REACHED: "the harness never reached the target",
    build_model.NEAR_DUPLICATE: "a near-duplicate of a program kept before it",
    build_model.BY_A_PERSON: "rejected by a person",
}


def reason_words(reason: str) -> str:
    return REASON_WORDS.get(reason, reason.replace("_", " "))


# -- a table over plain rows ------------------------------------------------------------------

@dataclass(frozen=True)
class Row:
    cells: tuple[str, ...]  # what each column shows
    payload: Any = None  # the core object (PAYLOAD_ROLE)
    sort: tuple = ()  # per column, the value to sort by (default: the text)
    colours: dict[int, str] | None = None  # column -> text colour
    tips: dict[int, str] | None = None  # column -> tooltip


class RowsModel(QAbstractTableModel):
    """Read-only rows; views never change the core objects behind them."""

    def __init__(self, headers: Sequence[str], parent=None, numeric: Sequence[int] = ()) -> None:
        super().__init__(parent)
        self.headers = tuple(headers)
        self.numeric = set(numeric)  # right-aligned columns
        self.rows: list[Row] = []

    def set_rows(self, rows: Sequence[Row]) -> None:
        self.beginResetModel()
        self.rows = list(rows)
        self.endResetModel()

    def update_row(self, row: int, new: Row) -> None:
        self.rows[row] = new
        self.dataChanged.emit(self.index(row, 0), self.index(row, len(self.headers) - 1))

    def payload(self, row: int) -> Any:
        return self.rows[row].payload if 0 <= row < len(self.rows) else None

    def rowCount(self, parent: QModelIndex | QPersistentModelIndex = _ROOT) -> int:
        return 0 if parent.isValid() else len(self.rows)

    def columnCount(self, parent: QModelIndex | QPersistentModelIndex = _ROOT) -> int:
        return 0 if parent.isValid() else len(self.headers)

    def headerData(self, section: int, orientation: Qt.Orientation, role: int = Qt.ItemDataRole.DisplayRole):
        if orientation == Qt.Orientation.Horizontal and role == Qt.ItemDataRole.DisplayRole:
            return self.headers[section]
        return None

    def data(self, index: QModelIndex | QPersistentModelIndex, role: int = Qt.ItemDataRole.DisplayRole):
        if not index.isValid():
            return None
        row, column = self.rows[index.row()], index.column()
        if role in (Qt.ItemDataRole.DisplayRole, Qt.ItemDataRole.AccessibleTextRole):
            return row.cells[column]
        if role == PAYLOAD_ROLE:
            return row.payload
        if role == SORT_ROLE:
            return row.sort[column] if column < len(row.sort) else row.cells[column]
        if role == Qt.ItemDataRole.ForegroundRole and row.colours and column in row.colours:
            return QColor(row.colours[column])
        if role == Qt.ItemDataRole.ToolTipRole:
            return (row.tips or {}).get(column) or (row.cells[column] if len(row.cells[column]) > 30 else None)
        if role == Qt.ItemDataRole.TextAlignmentRole and column in self.numeric:
            return int(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
        return None


# -- the harness editor -----------------------------------------------------------------------

class LiveHighlighter(PygmentsHighlighter):
    """Pygments colours that follow the text as it is edited (the whole file is lexed again a moment
    after typing stops; harnesses are short)."""

    DELAY_MS = 150

    def __init__(self, document: QTextDocument, language: str) -> None:
        super().__init__(document, language)
        self._timer = QTimer(self)
        self._timer.setSingleShot(True)
        self._timer.setInterval(self.DELAY_MS)
        self._timer.timeout.connect(self.relex)
        document.contentsChanged.connect(self._timer.start)

    def relex(self) -> None:
        document = self.document()
        if document is None:
            return
        text = document.toPlainText()
        if text != self._text:
            self._text = text
            self._apply(token_runs(text, self.language))


class HarnessEditor(NumberedCodeView):
    """An editable, monospace, highlighted editor with line numbers."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setReadOnly(False)
        self.highlighter: LiveHighlighter | None = None
        self.language = ""

    def keyPressEvent(self, event) -> None:
        """Tab indents with four spaces (Ctrl+Tab moves the focus on, as in every Qt text editor)."""
        if event.key() == Qt.Key.Key_Tab and event.modifiers() == Qt.KeyboardModifier.NoModifier \
                and not self.isReadOnly():
            cursor = self.textCursor()
            cursor.insertText(" " * (4 - cursor.positionInBlock() % 4))
            return
        super().keyPressEvent(event)

    def set_language(self, language: str) -> None:
        if language == self.language and self.highlighter is not None:
            return
        if self.highlighter is not None:
            self.highlighter.setDocument(None)
        self.language = language
        self.highlighter = LiveHighlighter(self.document(), language)

    def replace_text(self, text: str) -> None:
        """Put `text` in as one undoable edit (Ctrl+Z brings the earlier text back)."""
        cursor = self.textCursor()
        cursor.select(QTextCursor.SelectionType.Document)
        cursor.insertText(text)
        cursor.movePosition(QTextCursor.MoveOperation.Start)
        self.setTextCursor(cursor)
        self.relex()

    def relex(self) -> None:
        if self.highlighter is not None:
            self.highlighter.relex()

    def paint_line(self, painter: QPainter, line: int, top: int, line_height: int, width: int) -> None:
        self.paint_number(painter, line, top, line_height, width - 6, False)


class SourceView(NumberedCodeView):
    """A read-only highlighted file (the program's files, the prompt)."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self._highlighter: PygmentsHighlighter | None = None

    def show_text(self, text: str, language: str = "") -> None:
        if self._highlighter is not None:
            self._highlighter.setDocument(None)
            self._highlighter = None
        self.setPlainText(text)
        if language:
            self._highlighter = PygmentsHighlighter(self.document(), language)

    def paint_line(self, painter: QPainter, line: int, top: int, line_height: int, width: int) -> None:
        self.paint_number(painter, line, top, line_height, width - 6, False)


# -- the traced graph -------------------------------------------------------------------------

class TracedGraphView(QWidget):
    """The traced edges drawn left to right (callers left), nodes coloured by file; edges from or to the
    harness drawn dashed in the trace-only colour, internal edges solid."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.canvas = GraphCanvasView()
        self.placeholder = QLabel("Trace the harness to see its graph.")
        self.placeholder.setAlignment(Qt.AlignmentFlag.AlignCenter)
        self.placeholder.setStyleSheet(f"color: {MUTED_TEXT};")
        self.stack = QStackedWidget()
        self.stack.addWidget(self.placeholder)
        self.stack.addWidget(self.canvas)
        self.legend = QLabel()
        self.legend.setStyleSheet(f"color: {MUTED_TEXT};")
        self.legend.setContentsMargins(6, 2, 6, 2)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.setSpacing(2)
        layout.addWidget(self.stack, 1)
        layout.addWidget(self.legend)
        self.edges: dict[tuple[str, str], str] = {}
        self._fit_pending = False

    def show_graph(self, edges: dict[tuple[str, str], str], files: dict[str, str], harness_file: str) -> None:
        """`edges`: (caller, callee) -> "internal" | "harness"; `files`: node -> its file."""
        self.edges = dict(edges)
        if not edges:
            self.clear("No edges were traced.")
            return
        nodes = sorted({name for edge in edges for name in edge})
        layout = layered_layout(nodes, list(edges), {name: files.get(name, "") for name in nodes})
        order = sorted({files.get(name, "") for name in nodes} - {harness_file})
        colour_of = {file: FILE_COLOURS[i % len(FILE_COLOURS)] for i, file in enumerate(order)}
        colour_of[harness_file] = "#90a4ae"
        fills = [colour_of.get(files.get(name, ""), "#b0b4ba") for name in layout.nodes]
        self.canvas.set_graph(layout, EdgeGeometry.build(layout, list(edges)), short_names(layout.nodes), fills)
        self.canvas.draw({edge: HARNESS_CLASS if kind == "harness" else INTERNAL_CLASS
                          for edge, kind in edges.items()}, np.ones(len(layout.nodes), dtype=bool))
        self.stack.setCurrentWidget(self.canvas)
        keys = "".join(f"<span style='color:{colour_of[file]}'>●</span>&nbsp;{html.escape(file or '?')}&nbsp;&nbsp; "
                       for file in [*order, harness_file])
        internal, harness = EDGE_STYLES[INTERNAL_CLASS].colour, EDGE_STYLES[HARNESS_CLASS].colour
        self.legend.setText(f"<span style='color:{internal}'>━━</span> internal edge &nbsp; "
                            f"<span style='color:{harness}'>╺ ╸</span> harness edge&nbsp;&nbsp;&nbsp; {keys}")
        self._fit_pending = True
        self.canvas.fit()

    def clear(self, message: str = "Trace the harness to see its graph.") -> None:
        self.edges = {}
        self.canvas.clear()
        self.placeholder.setText(message)
        self.stack.setCurrentWidget(self.placeholder)
        self.legend.setText("")

    def showEvent(self, event) -> None:
        super().showEvent(event)
        if self._fit_pending:  # fitted when first visible: the view's size is known only then
            self._fit_pending = False
            QTimer.singleShot(0, self.canvas.fit)

    def resizeEvent(self, event) -> None:
        super().resizeEvent(event)
        if self.edges:
            self.canvas.fit()
