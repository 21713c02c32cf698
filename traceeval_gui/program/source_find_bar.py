"""Find in the shown source file: a bar under the code with the text to find, the match count and
next / previous. Case-insensitive; the current match is the editor's selection."""
from __future__ import annotations

from PySide6.QtCore import Qt, Signal
from PySide6.QtGui import QKeyEvent, QPalette, QTextCursor
from PySide6.QtWidgets import QHBoxLayout, QLabel, QLineEdit, QPlainTextEdit, QToolButton, QWidget

MATCH_LIMIT = 10_000  # counted beyond this as "10,000+"


class FindEdit(QLineEdit):
    """Enter finds the next match, Shift+Enter the previous one, Esc closes the bar."""

    stepped = Signal(int)  # 1 next, -1 previous
    escaped = Signal()

    def keyPressEvent(self, event: QKeyEvent) -> None:
        if event.key() in (Qt.Key.Key_Return, Qt.Key.Key_Enter):
            self.stepped.emit(-1 if event.modifiers() & Qt.KeyboardModifier.ShiftModifier else 1)
        elif event.key() == Qt.Key.Key_Escape:
            self.escaped.emit()
        else:
            super().keyPressEvent(event)


class SourceFindBar(QWidget):
    closed = Signal()  # the user closed the bar (Esc or ×): the code takes the focus back

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.view: QPlainTextEdit | None = None
        self.matches: list[QTextCursor] = []
        self.current = -1  # index into `matches`
        self.edit = FindEdit()
        self.edit.setPlaceholderText("Find in this file")
        self.edit.setClearButtonEnabled(True)
        self.edit.setToolTip("Enter: next match · Shift+Enter: previous · Esc: close")
        self.edit.textChanged.connect(self._on_edit_text_changed)
        self.edit.stepped.connect(self.step)
        self.edit.escaped.connect(self.close_bar)
        self.count_label = QLabel()
        self.count_label.setMinimumWidth(self.fontMetrics().horizontalAdvance("10,000+ of 10,000+") + 8)
        self.previous_button = self._button("↑", "Previous match (Shift+Enter, Shift+F3)", lambda: self.step(-1))
        self.next_button = self._button("↓", "Next match (Enter, F3)", lambda: self.step(1))
        close = self._button("×", "Close (Esc)", self.close_bar)
        layout = QHBoxLayout(self)
        layout.setContentsMargins(6, 3, 6, 3)
        layout.setSpacing(4)
        layout.addWidget(self.edit, 1)
        layout.addWidget(self.count_label)
        layout.addWidget(self.previous_button)
        layout.addWidget(self.next_button)
        layout.addWidget(close)
        self.hide()

    def _button(self, text: str, tip: str, slot) -> QToolButton:
        button = QToolButton()
        button.setText(text)
        button.setToolTip(tip)
        button.setAutoRaise(True)
        button.clicked.connect(slot)
        return button

    # -- use ------------------------------------------------------------------------------
    def open(self) -> None:
        """Show the bar with the focus in it; a selection in the code (one line) becomes the text to find."""
        selected = self.view.textCursor().selectedText() if self.view is not None else ""
        if selected and "\u2029" not in selected:
            self.edit.setText(selected)
        self.show()
        self.edit.setFocus()
        self.edit.selectAll()
        self.search()

    def close_bar(self) -> None:
        self.hide()
        self.closed.emit()

    def attach(self, view: QPlainTextEdit | None) -> None:
        """Search this editor from now on (the shown file changed)."""
        self.view = view
        self.matches, self.current = [], -1
        if self.isVisible():
            self.search()

    def search(self) -> None:
        """Find every match of the text and select the first one at or after the cursor."""
        text = self.edit.text()
        self.matches, self.current = [], -1
        if self.view is not None and text:
            document = self.view.document()
            cursor = document.find(text, 0)
            while not cursor.isNull() and len(self.matches) < MATCH_LIMIT:
                self.matches.append(cursor)
                cursor = document.find(text, cursor)
        if self.matches:
            start = self.view.textCursor().selectionStart()
            self.current = next((i for i, match in enumerate(self.matches) if match.selectionStart() >= start), 0)
            self.view.setTextCursor(self.matches[self.current])
        self._show_count()

    def step(self, step: int) -> None:
        """Select the next (1) or previous (-1) match, wrapping around."""
        if not self.matches:
            self.search()
            return
        self.current = (self.current + step) % len(self.matches)
        self.view.setTextCursor(self.matches[self.current])
        self.view.centerCursor()
        self._show_count()

    # -- showing --------------------------------------------------------------------------
    def _on_edit_text_changed(self, _text: str) -> None:
        if self.view is not None:  # search again from where the current match starts
            cursor = self.view.textCursor()
            cursor.setPosition(cursor.selectionStart())
            self.view.setTextCursor(cursor)
        self.search()

    def _show_count(self) -> None:
        total = f"{len(self.matches):,}" + ("+" if len(self.matches) >= MATCH_LIMIT else "")
        missing = bool(self.edit.text()) and not self.matches
        self.count_label.setText("no match" if missing else f"{self.current + 1:,} of {total}" if self.matches
                                 else "")
        role = QPalette.ColorRole.PlaceholderText if missing else QPalette.ColorRole.WindowText
        self.count_label.setForegroundRole(role)
        self.previous_button.setEnabled(len(self.matches) > 1)
        self.next_button.setEnabled(len(self.matches) > 1)
