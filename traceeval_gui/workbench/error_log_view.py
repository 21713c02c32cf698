"""View > Error Log: the window's failures with their time, source and full detail, copyable; and the
status-bar button that says how many arrived since the log was last opened."""
from __future__ import annotations

from PySide6.QtCore import QObject, Qt, Signal
from PySide6.QtGui import QGuiApplication
from PySide6.QtWidgets import (
    QDialog,
    QDialogButtonBox,
    QLabel,
    QListWidget,
    QListWidgetItem,
    QMainWindow,
    QPlainTextEdit,
    QSplitter,
    QToolButton,
    QVBoxLayout,
    QWidget,
)

from core.wording import count
from traceeval_gui.state.error_log import ErrorEntry, ErrorLog
from traceeval_gui.state.jobs import JobRunner
from traceeval_gui.theme.style import error_text_colour, monospace_font

EMPTY_TEXT = "No errors since the window opened."
ERROR_LOG_HINT = "  (details: View ▸ Error Log)"


class ErrorLogDialog(QDialog):
    """Non-modal: the window stays usable while the log is open; new entries appear as they come."""

    def __init__(self, log: ErrorLog, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.log = log
        self.setWindowTitle("Error log")
        self.resize(760, 480)
        self.entry_list = QListWidget()
        self.entry_list.setUniformItemSizes(True)
        self.detail = QPlainTextEdit()
        self.detail.setReadOnly(True)
        self.detail.setFont(monospace_font())
        self.detail.setLineWrapMode(QPlainTextEdit.LineWrapMode.NoWrap)
        self.empty_label = QLabel(EMPTY_TEXT)
        splitter = QSplitter(Qt.Orientation.Vertical)
        splitter.addWidget(self.entry_list)
        splitter.addWidget(self.detail)
        splitter.setSizes([180, 300])
        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Close)
        self.copy_button = buttons.addButton("&Copy", QDialogButtonBox.ButtonRole.ActionRole)
        self.copy_all_button = buttons.addButton("Copy &All", QDialogButtonBox.ButtonRole.ActionRole)
        self.clear_button = buttons.addButton("C&lear", QDialogButtonBox.ButtonRole.ResetRole)
        self.copy_button.setToolTip("Copy the selected entry with its detail")
        buttons.rejected.connect(self.close)
        self.copy_button.clicked.connect(self._on_copy_clicked)
        self.copy_all_button.clicked.connect(self._on_copy_all_clicked)
        self.clear_button.clicked.connect(self._on_clear_clicked)
        layout = QVBoxLayout(self)
        layout.addWidget(self.empty_label)
        layout.addWidget(splitter)
        layout.addWidget(buttons)
        self.entry_list.currentRowChanged.connect(self._on_entry_list_row_changed)
        log.added.connect(self._on_log_added)
        for entry in log.entries:
            self._add_item(entry)
        self.entry_list.setCurrentRow(self.entry_list.count() - 1)
        self._update_empty()

    @property
    def current_entry(self) -> ErrorEntry | None:
        item = self.entry_list.currentItem()
        return item.data(Qt.ItemDataRole.UserRole) if item is not None else None

    def _add_item(self, entry: ErrorEntry) -> None:
        item = QListWidgetItem(f"{entry.time:%H:%M:%S}   {entry.source}: {entry.message}")
        item.setData(Qt.ItemDataRole.UserRole, entry)
        item.setToolTip(entry.message)
        self.entry_list.addItem(item)

    def _on_log_added(self, entry: ErrorEntry) -> None:
        self._add_item(entry)
        self.entry_list.setCurrentRow(self.entry_list.count() - 1)
        self._update_empty()
        if self.isVisible():
            self.log.mark_seen()

    def _on_entry_list_row_changed(self, _row: int) -> None:
        entry = self.current_entry
        self.detail.setPlainText(entry.text() if entry is not None else "")

    def _on_copy_clicked(self) -> None:
        entry = self.current_entry
        if entry is not None:
            QGuiApplication.clipboard().setText(entry.text())

    def _on_copy_all_clicked(self) -> None:
        QGuiApplication.clipboard().setText("\n\n".join(entry.text() for entry in self.log.entries))

    def _on_clear_clicked(self) -> None:
        self.log.clear()
        self.entry_list.clear()
        self.detail.clear()
        self._update_empty()

    def _update_empty(self) -> None:
        empty = self.entry_list.count() == 0
        self.empty_label.setVisible(empty)
        for button in (self.copy_button, self.copy_all_button, self.clear_button):
            button.setEnabled(not empty)

    def showEvent(self, event) -> None:
        super().showEvent(event)
        self.log.mark_seen()


class ErrorIndicator(QToolButton):
    """"⚠ 2 errors" in the status bar while there are unseen errors; a click opens the log."""

    open_requested = Signal()

    def __init__(self, log: ErrorLog, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setAutoRaise(True)
        self.setToolTip("Errors since the error log was last opened: click to see them (View ▸ Error Log)")
        self.clicked.connect(self.open_requested)
        log.unseen_changed.connect(self._on_log_unseen_changed)
        self._on_log_unseen_changed(log.unseen)

    def _on_log_unseen_changed(self, unseen: int) -> None:
        self.setText(f"⚠ {count(unseen, 'error')}")
        self.setStyleSheet(f"QToolButton {{ color: {error_text_colour(self.palette()).name()}; font-weight: bold; }}")
        self.setVisible(unseen > 0)


class WindowErrors(QObject):
    """A window's side of the error log: its jobs' failures go in, each new entry is named in the window's
    status bar, and the log opens on demand (View > Error Log, or the indicator)."""

    def __init__(self, window: QMainWindow, jobs: JobRunner) -> None:
        super().__init__(window)
        self.window = window
        self.log = ErrorLog(self)
        self.indicator = ErrorIndicator(self.log)
        self.indicator.open_requested.connect(self.show_log)
        self.dialog: ErrorLogDialog | None = None
        self.log.added.connect(self._on_log_added)
        jobs.job_failed.connect(self._on_jobs_job_failed)

    def show_log(self) -> ErrorLogDialog:
        if self.dialog is None:
            self.dialog = ErrorLogDialog(self.log, self.window)
        self.dialog.show()
        self.dialog.raise_()
        self.dialog.activateWindow()
        return self.dialog

    def _on_jobs_job_failed(self, title: str, message: str, detail: str) -> None:
        self.log.report(title[:1].upper() + title[1:], message, detail)

    def _on_log_added(self, entry: ErrorEntry) -> None:
        """The status bar names the failure, unless the part that failed already said it there in its words."""
        bar = self.window.statusBar()
        shown = bar.currentMessage()
        said = entry.message in shown and ERROR_LOG_HINT not in shown
        bar.showMessage(f"{shown if said else f'{entry.source}: {entry.message}'}{ERROR_LOG_HINT}", 15000)
