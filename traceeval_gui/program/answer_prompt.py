"""The Answer tab's prompt view: the full prompt of the selected program, its hash and size, and Copy.

`prompt_status` words whether a stored answer came from the prompt built now (same hash), from
another one (older prompt format, changed files or keys), or carries no hash (imported results).
"""
from __future__ import annotations

import html

from PySide6.QtCore import Qt, QTimer
from PySide6.QtGui import QGuiApplication
from PySide6.QtWidgets import QHBoxLayout, QLabel, QPlainTextEdit, QPushButton, QVBoxLayout, QWidget

from core.llm.prompts import CHARS_PER_TOKEN, PROMPT_FORMAT, Prompt, approximate_tokens
from traceeval_gui.theme.style import MUTED_TEXT, monospace_font
from traceeval_gui.theme.trace_text import GREEN
from traceeval_gui.widgets.answer_text import WARNING_TEXT

COPIED_MS = 1500
COPY_TEXT = "Copy prompt"
NO_HASH = "no prompt hash recorded"
SAME_PROMPT = "answered from this prompt"
OTHER_PROMPT = "answered from a different prompt (older prompt format or changed files)"
NOT_BUILT = "prompt cannot be built now"


def prompt_status(stored_hash: str, prompt: Prompt | None, why_not: str = "") -> tuple[str, str, str]:
    """(text, colour, tooltip): did the answer stored with `stored_hash` come from `prompt`?"""
    if not stored_hash:
        return NO_HASH, MUTED_TEXT, ("The answer was stored without the hash of its prompt (imported released "
                                     "results have none): whether it came from this prompt is unknown.")
    if prompt is None:
        return NOT_BUILT, WARNING_TEXT, why_not
    if prompt.hash == stored_hash:
        return SAME_PROMPT, GREEN, f"The stored prompt hash is the hash of the prompt built now ({prompt.hash})."
    return OTHER_PROMPT, WARNING_TEXT, (f"Stored prompt hash {stored_hash}, prompt built now {prompt.hash}: an "
                                        "older prompt format, or the program's files or ground-truth keys "
                                        "changed since the answer was stored.")




class PromptView(QWidget):
    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.prompt: Prompt | None = None
        self.info_label = QLabel()
        self.info_label.setTextFormat(Qt.TextFormat.RichText)
        self.info_label.setWordWrap(True)
        self.info_label.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.copy_button = QPushButton(COPY_TEXT)
        self.copy_button.setToolTip("Copy the whole prompt (system and user message) to the clipboard")
        self.copy_button.clicked.connect(self._on_copy_button_clicked)
        self.text_view = QPlainTextEdit()
        self.text_view.setReadOnly(True)
        self.text_view.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse
                                               | Qt.TextInteractionFlag.TextSelectableByKeyboard)
        self.text_view.setLineWrapMode(QPlainTextEdit.LineWrapMode.WidgetWidth)  # the instructions are long lines
        self.text_view.setFont(monospace_font())
        self.text_view.setFrameShape(QPlainTextEdit.Shape.NoFrame)
        self.text_view.setStyleSheet("QPlainTextEdit { background: #ffffff; color: #1f2328; }")
        self._copied_timer = QTimer(self)
        self._copied_timer.setSingleShot(True)
        self._copied_timer.setInterval(COPIED_MS)
        self._copied_timer.timeout.connect(self._on_copied_timer_timeout)
        row = QHBoxLayout()
        row.setContentsMargins(8, 0, 8, 4)
        row.addWidget(self.info_label, 1)
        row.addWidget(self.copy_button, 0, Qt.AlignmentFlag.AlignTop)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.setSpacing(0)
        layout.addLayout(row)
        layout.addWidget(self.text_view, 1)

    def show_prompt(self, prompt: Prompt, stored_hash: str = "", release_problem: str = "") -> None:
        """Show a prompt; `stored_hash`: the prompt hash stored with the shown answer ("" when none);
        `release_problem`: why the release set for the window could not give the words ("" when none)."""
        self.prompt = prompt
        text = prompt.render()
        if self.text_view.toPlainText() != text:
            self.text_view.setPlainText(text)
        dot = f"<span style='color:{MUTED_TEXT}'> · </span>"
        words = MUTED_TEXT if prompt.release_sha256 else WARNING_TEXT
        facts = [f"<b>Prompt</b> <span style='color:{MUTED_TEXT}'>({PROMPT_FORMAT})</span>",
                 f"<span style='color:{words}'>{html.escape(prompt.wording_label)}</span>",
                 f"sha256 <code>{prompt.hash[:12]}</code>", f"{len(text):,} characters",
                 f"≈{approximate_tokens(len(text)):,} tokens (characters / {CHARS_PER_TOKEN})"]
        if stored_hash:
            facts.append(f"<span style='color:{GREEN}'>the stored answer was given this prompt</span>"
                         if stored_hash == prompt.hash else
                         f"<span style='color:{WARNING_TEXT}'>the stored answer was given another prompt "
                         f"(sha256 <code>{html.escape(stored_hash[:12])}</code>)</span>")
        if release_problem:
            facts.append(f"<span style='color:{WARNING_TEXT}'>⚠ {html.escape(release_problem)}</span>")
        self.info_label.setText(dot.join(facts))
        self.info_label.setToolTip(f"sha256 {prompt.hash}")
        self.copy_button.setEnabled(True)

    def show_error(self, why: str) -> None:
        self.prompt = None
        self.text_view.setPlainText("")
        self.info_label.setText(f"<span style='color:{WARNING_TEXT}'>⚠ The prompt cannot be built: "
                                f"{html.escape(why)}</span>")
        self.info_label.setToolTip("")
        self.copy_button.setEnabled(False)

    def copy(self) -> None:
        if self.prompt is not None:
            QGuiApplication.clipboard().setText(self.prompt.render())
            self.copy_button.setText("Copied ✓")
            self._copied_timer.start()

    def _on_copy_button_clicked(self) -> None:
        self.copy()

    def _on_copied_timer_timeout(self) -> None:
        self.copy_button.setText(COPY_TEXT)
