"""Where the user's TraceEval release is: a path field with Browse…, and what is found there.

Used by Model ▸ Run Model and Model ▸ TraceEval Release… (the setting the Answer tab, the prompt
previews and Help ▸ Check Paper Parity follow). Empty means "find it by itself" (`core.release.checkout`:
`$TRACEEVAL_RELEASE`, else a checkout next to the dataset, used once confirmed). The line under the field says,
as the path is typed, whether prompts will carry the paper's own words or this project's, and when a release
found next to the dataset waits for a confirmation.
"""
from __future__ import annotations

import html
from pathlib import Path

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import (
    QDialog,
    QDialogButtonBox,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QPushButton,
    QVBoxLayout,
    QWidget,
)

from core.errors import ReleaseError, UnconfirmedRelease
from core.llm.prompt_wording import RELEASE, PromptWording
from core.release.checkout import RELEASE_ENV, prompt_wording
from traceeval_gui.state.app_state import AppState, release_problem_text
from traceeval_gui.theme.style import MUTED_TEXT
from traceeval_gui.theme.trace_text import GREEN
from traceeval_gui.widgets.answer_text import WARNING_TEXT
from traceeval_gui.widgets.file_dialogs import existing_directory

ERROR_COLOUR = "#c62828"
PLACEHOLDER = f"found by itself: ${RELEASE_ENV}, else a checkout next to the dataset"


class ReleaseField(QWidget):
    changed = Signal()

    def __init__(self, path: str, dataset_root: Path | None, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.dataset_root = dataset_root
        self.edit = QLineEdit(path)
        self.edit.setPlaceholderText(PLACEHOLDER)
        self.edit.setToolTip("Your checkout of the TraceEval release (the folder holding scripts/run_llm.py), its "
                             "scripts/ folder or run_llm.py itself. Its prompt templates are read, never run.")
        self.browse_button = QPushButton("Browse…")
        self.browse_button.clicked.connect(self._on_browse_clicked)
        self.status = QLabel()
        self.status.setTextFormat(Qt.TextFormat.RichText)
        self.status.setWordWrap(True)
        row = QHBoxLayout()
        row.setContentsMargins(0, 0, 0, 0)
        row.addWidget(self.edit, 1)
        row.addWidget(self.browse_button)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addLayout(row)
        layout.addWidget(self.status)
        self.edit.textChanged.connect(self._on_edit_changed)
        self.refresh()

    def path(self) -> str:
        return self.edit.text().strip()

    def wording(self) -> PromptWording:
        """The wording the path gives; ReleaseError when it names no usable release (UnconfirmedRelease: one found
        next to the dataset, not confirmed yet)."""
        return prompt_wording(self.path() or None, self.dataset_root)

    def refresh(self) -> None:
        """Say again what the path gives (a release may have been confirmed meanwhile)."""
        try:
            wording = self.wording()
        except UnconfirmedRelease as error:
            self.status.setText(f"<span style='color:{WARNING_TEXT}'>⚠ {html.escape(release_problem_text(error))}"
                                "</span>")
            return
        except ReleaseError as error:
            self.status.setText(f"<span style='color:{ERROR_COLOUR}'>⚠ {html.escape(str(error))}</span>")
            return
        if wording.source == RELEASE:
            self.status.setText(f"<span style='color:{GREEN}'>✓ Prompts use the paper's own wording</span> "
                                f"<span style='color:{MUTED_TEXT}'>({html.escape(wording.path)}, sha256 "
                                f"{wording.sha256[:12]})</span>")
        else:
            self.status.setText(f"<span style='color:{WARNING_TEXT}'>No release found: prompts use this project's "
                                "wording, not the paper's.</span>")

    def _on_edit_changed(self, _text: str) -> None:
        self.refresh()
        self.changed.emit()

    def _on_browse_clicked(self) -> None:
        folder = existing_directory(self, "The TraceEval release checkout", self.path())
        if folder:
            self.edit.setText(folder)


class ReleaseDialog(QDialog):
    """Model ▸ TraceEval Release…: the release every prompt of the window takes its words from."""

    def __init__(self, state: AppState, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setWindowTitle("TraceEval Release")
        self.state = state
        intro = QLabel("Prompts take the paper's words (system and user templates, worked examples) from your own "
                       "checkout of the TraceEval release; without one they use this project's wording, and say so. "
                       "Help ▸ Check Paper Parity runs the release's scripts against this tool.")
        intro.setWordWrap(True)
        self.field = ReleaseField(state.release_path, state.opened.root if state.opened else None)
        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Ok | QDialogButtonBox.StandardButton.Cancel)
        buttons.accepted.connect(self._on_ok_clicked)
        buttons.rejected.connect(self.reject)
        layout = QVBoxLayout(self)
        layout.addWidget(intro)
        layout.addWidget(self.field)
        layout.addWidget(buttons)
        self.resize(640, self.sizeHint().height())

    def _on_ok_clicked(self) -> None:
        try:
            self.field.wording()
        except UnconfirmedRelease:
            pass  # found by itself: asked about where it would be used (Run Model, Check Paper Parity)
        except ReleaseError:
            return  # the field says why; nothing is set
        self.state.set_release_path(self.field.path())
        self.accept()
