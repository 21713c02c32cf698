"""The amber line above a view that is not showing the whole story (a fallback, a bounded part)."""
from __future__ import annotations

from PySide6.QtWidgets import QApplication, QLabel, QWidget

from traceeval_gui.theme.style import is_dark

NOTE_COLOURS = {False: ("#8a5a00", "#fff8e1"), True: ("#ffcc80", "#3a3120")}  # text, background; by is_dark()


class NoteLabel(QLabel):
    """A wrapped label in the note colours of the application palette (hidden until given a text).

    A widget with a style sheet hears of no change of the application palette (its own palette comes
    from the sheet), so the label follows the application's `paletteChanged` instead."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setWordWrap(True)
        self.setContentsMargins(8, 3, 8, 3)
        self._restyle()
        QApplication.instance().paletteChanged.connect(self._restyle)  # ends with this label
        self.hide()

    def _restyle(self, *_palette) -> None:
        text, background = NOTE_COLOURS[is_dark()]
        self.setStyleSheet(f"color: {text}; background: {background};")
