"""The thinking of a reasoning model's answer, folded above the response in the Answer tab.

A header button ("▸ Thinking · 1,234 tokens") unfolds a read-only view of the thinking the model sent
beside its answer (`Prediction.reasoning`: from `reasoning`, `reasoning_content` or a leading think block
in the response). It is folded again for every new answer, and hidden when an answer has no thinking.
The paper's parser reads only the response below it; the fold says so.
"""
from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtGui import QFont
from PySide6.QtWidgets import QPlainTextEdit, QToolButton, QVBoxLayout, QWidget

from core.records import Prediction
from traceeval_gui.widgets.form_parts import muted

SHOWN_CHARS = 200_000  # longer thinking is shown in part, with what is left out said
THINKING_HEIGHT = 130


def thinking_title(prediction: Prediction) -> str:
    """`Thinking · 1,234 tokens`, `Thinking · tokens not reported`."""
    tokens = prediction.reasoning_tokens
    return f"Thinking · {tokens:,} tokens" if tokens is not None else "Thinking · tokens not reported"


class ThinkingFold(QWidget):
    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.toggle = QToolButton()
        self.toggle.setCheckable(True)
        self.toggle.setToolButtonStyle(Qt.ToolButtonStyle.ToolButtonTextBesideIcon)
        self.toggle.setArrowType(Qt.ArrowType.RightArrow)
        self.toggle.setAutoRaise(True)
        self.toggle.setToolTip("Show or hide what the model thought before answering")
        self.toggle.toggled.connect(self._on_toggle_toggled)
        self.note = muted("Sent beside the answer. The paper's rules parse the response below as it is (a think "
                          "block inside it included); the paper-nothink rules read it without one.")
        self.text_view = QPlainTextEdit()
        self.text_view.setReadOnly(True)
        self.text_view.setMaximumHeight(THINKING_HEIGHT)
        self.text_view.setFont(QFont("monospace"))
        self.text_view.setLineWrapMode(QPlainTextEdit.LineWrapMode.WidgetWidth)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(4, 2, 8, 4)
        layout.setSpacing(2)
        layout.addWidget(self.toggle, 0, Qt.AlignmentFlag.AlignLeft)
        layout.addWidget(self.note)
        layout.addWidget(self.text_view)
        self.show_thinking(None)

    @property
    def unfolded(self) -> bool:
        return self.toggle.isChecked()

    def show_thinking(self, prediction: Prediction | None) -> None:
        """Fold and show `prediction`'s thinking (hidden when it has none)."""
        text = prediction.reasoning if prediction is not None else None
        self.toggle.setChecked(False)
        self._on_toggle_toggled(False)
        if prediction is None or text is None:
            self.text_view.setPlainText("")
            self.hide()
            return
        self.toggle.setText(thinking_title(prediction))
        shown = text if len(text) <= SHOWN_CHARS else \
            f"{text[:SHOWN_CHARS]}\n… ({len(text) - SHOWN_CHARS:,} more characters not shown)"
        self.text_view.setPlainText(shown)
        self.show()

    def _on_toggle_toggled(self, checked: bool) -> None:
        self.toggle.setArrowType(Qt.ArrowType.DownArrow if checked else Qt.ArrowType.RightArrow)
        self.note.setVisible(checked)
        self.text_view.setVisible(checked)
