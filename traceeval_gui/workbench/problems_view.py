"""View > Problems: what indexing the dataset found wrong, one row per problem (severity, program, file,
problem). A row's full reason shows below the list, copyable; Enter or a double-click opens its file:
in the source view when its program was read, else as plain text in `FileTextDialog` (a broken program
is not in the Programs list, but its files can still be read)."""
from __future__ import annotations

from pathlib import Path

from PySide6.QtCore import QModelIndex, Qt, Signal
from PySide6.QtGui import QKeyEvent
from PySide6.QtWidgets import (
    QAbstractItemView,
    QDialog,
    QDialogButtonBox,
    QHeaderView,
    QLabel,
    QPlainTextEdit,
    QPushButton,
    QSplitter,
    QTableView,
    QVBoxLayout,
    QWidget,
)

from core.problems import Problem
from core.safe_files import read_bytes, why_unreadable
from core.wording import count
from traceeval_gui.item_models.problem_table import PROBLEM_ROLE, ProblemTableModel
from traceeval_gui.theme.style import MUTED_TEXT, monospace_font

MAX_SHOWN_BYTES = 8 * 1024 * 1024  # a bigger file is not shown (the note says why)
EMPTY_TEXT = "No problems: every program of the dataset was read."


class ProblemTableView(QTableView):
    """Enter opens the current row's file, as a double-click does."""

    open_requested = Signal(QModelIndex)

    def keyPressEvent(self, event: QKeyEvent) -> None:
        if event.key() in (Qt.Key.Key_Return, Qt.Key.Key_Enter) and self.currentIndex().isValid():
            self.open_requested.emit(self.currentIndex())
            return
        super().keyPressEvent(event)


class ProblemsPanel(QWidget):
    open_requested = Signal(object)  # Problem: open its file

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.model = ProblemTableModel(self)
        self.root: Path | None = None  # the dataset folder problem paths are relative to
        self.summary = QLabel(EMPTY_TEXT)
        self.summary.setWordWrap(True)
        self.summary.setContentsMargins(6, 4, 6, 2)
        self.table = ProblemTableView()
        self.table.setModel(self.model)
        self.table.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        self.table.setSelectionMode(QAbstractItemView.SelectionMode.SingleSelection)
        self.table.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.table.setWordWrap(False)
        self.table.verticalHeader().hide()
        header = self.table.horizontalHeader()
        header.setStretchLastSection(True)
        for column in range(3):
            header.setSectionResizeMode(column, QHeaderView.ResizeMode.Interactive)
        self.detail = QPlainTextEdit()
        self.detail.setReadOnly(True)
        self.detail.setPlaceholderText("Click a problem to see its full reason here (select it to copy it).")
        self.open_button = QPushButton("&Open File")
        self.open_button.setToolTip("Open the problem's file (Enter or a double-click on its row)")
        self.open_button.setEnabled(False)
        detail_pane = QWidget()
        detail_layout = QVBoxLayout(detail_pane)
        detail_layout.setContentsMargins(0, 0, 0, 0)
        detail_layout.addWidget(self.detail, 1)
        detail_layout.addWidget(self.open_button, 0, Qt.AlignmentFlag.AlignLeft)
        splitter = QSplitter(Qt.Orientation.Horizontal)
        splitter.addWidget(self.table)
        splitter.addWidget(detail_pane)
        splitter.setStretchFactor(0, 3)
        splitter.setStretchFactor(1, 2)
        splitter.setChildrenCollapsible(False)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.setSpacing(2)
        layout.addWidget(self.summary)
        layout.addWidget(splitter, 1)
        self.table.selectionModel().currentRowChanged.connect(self._on_table_current_changed)
        self.table.doubleClicked.connect(self._on_table_open_requested)
        self.table.open_requested.connect(self._on_table_open_requested)
        self.open_button.clicked.connect(self._on_open_button_clicked)

    def set_problems(self, problems: list[Problem], root: Path | None) -> None:
        self.root = root
        self.model.set_problems(problems)
        self.detail.clear()
        self.open_button.setEnabled(False)
        errors = sum(p.severity == "error" for p in problems)
        if not problems:
            self.summary.setText(EMPTY_TEXT)
        else:
            self.summary.setText(f"{count(errors, 'error')} (the program is left out of the Programs list), "
                                 f"{count(len(problems) - errors, 'warning')} (the program is used). Enter or a "
                                 "double-click opens the file.")
        self.table.resizeColumnsToContents()
        for column, widest in ((1, 200), (2, 360)):
            self.table.setColumnWidth(column, min(self.table.columnWidth(column), widest))

    @property
    def current_problem(self) -> Problem | None:
        index = self.table.currentIndex()
        return index.data(PROBLEM_ROLE) if index.isValid() else None

    def _on_table_current_changed(self, current: QModelIndex, _previous: QModelIndex) -> None:
        problem = current.data(PROBLEM_ROLE) if current.isValid() else None
        self.open_button.setEnabled(problem is not None)
        self.detail.setPlainText(problem_detail(problem, self.root) if problem else "")

    def _on_table_open_requested(self, index: QModelIndex) -> None:
        problem = index.data(PROBLEM_ROLE)
        if problem is not None:
            self.open_requested.emit(problem)

    def _on_open_button_clicked(self) -> None:
        if self.current_problem is not None:
            self.open_requested.emit(self.current_problem)


def problem_path(problem: Problem, root: Path | None) -> Path:
    """Where the problem's file or folder is (its path is shown relative to the dataset folder)."""
    path = Path(problem.path)
    return path if path.is_absolute() or root is None else root / path


def problem_detail(problem: Problem, root: Path | None) -> str:
    """Everything known about one problem, as plain text to read and copy."""
    kind = "Error: the program is not in the Programs list" if problem.severity == "error" else \
        "Warning: the program is used"
    lines = [kind, "", problem.message, "", f"Program: {problem.instance_id or '—'}",
             f"File: {problem_path(problem, root)}"]
    if problem.severity == "error":
        lines += ["", "Fix the file, then open the dataset again (File > Open Recent): only what changed is read "
                      "again. 'traceeval validate DATASET' lists the same problems."]
    return "\n".join(lines)


class FileTextDialog(QDialog):
    """A file's text, read-only, for a program that could not be read (the source view shows only programs
    that were): read within the dataset folder and its size bound; bytes that are not UTF-8 show as \ufffd,
    and the note above the text says so."""

    def __init__(self, path: Path, root: Path | None, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.path = path
        self.setWindowTitle(f"{path.name} (read-only)")
        self.note = QLabel()
        self.note.setWordWrap(True)
        self.note.setStyleSheet(f"color: {MUTED_TEXT};")
        self.text = QPlainTextEdit()
        self.text.setReadOnly(True)
        self.text.setFont(monospace_font())
        self.text.setLineWrapMode(QPlainTextEdit.LineWrapMode.NoWrap)
        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Close)
        buttons.rejected.connect(self.reject)
        layout = QVBoxLayout(self)
        layout.addWidget(self.note)
        layout.addWidget(self.text, 1)
        layout.addWidget(buttons)
        self.resize(760, 520)
        self.text.setPlainText(self._read(root))

    def _read(self, root: Path | None) -> str:
        notes = [str(self.path)]
        try:
            data = read_bytes(self.path, MAX_SHOWN_BYTES, root)
        except OSError as error:
            self.note.setText(f"{self.path}: {why_unreadable(error)}")
            return ""
        try:
            text = data.decode("utf-8")
        except UnicodeDecodeError as error:
            text = data.decode("utf-8", "replace")
            notes.append(f"not valid UTF-8 (byte {error.start}): such bytes show as \ufffd")
        self.note.setText(" · ".join(notes))
        return text
