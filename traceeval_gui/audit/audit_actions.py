"""The Audit menu: start a new audit, continue one (as which annotator), and see an audit's results.

Edge audits open in `AuditWindow`, baseline audits in `BaselineWindow` and results in
`AuditResultsWindow` (imported when first needed). Merge Workspace brings in another annotator's file
and shows the merged audit's results. One window per (audit, annotator): asking again brings it to the front. The
annotator's name is remembered in the window's settings, when it has any.
"""
from __future__ import annotations

import logging
import sqlite3
import traceback
from pathlib import Path
from typing import TYPE_CHECKING

from PySide6.QtCore import QObject, Qt
from PySide6.QtWidgets import (
    QComboBox,
    QDialog,
    QDialogButtonBox,
    QFormLayout,
    QLabel,
    QMenu,
    QMessageBox,
    QVBoxLayout,
    QWidget,
)

from core.audit.audits import BASELINE_AUDIT, Audit, check_person_name
from core.audit.merge import MergeReport
from core.audit.store import AuditStore
from core.errors import TraceEvalError
from traceeval_gui.audit.audit_jobs import MergeWorkspaceJob
from traceeval_gui.audit.audit_results_window import AuditResultsWindow
from traceeval_gui.audit.audit_window import AuditWindow
from traceeval_gui.audit.baseline_window import BaselineWindow
from traceeval_gui.audit.merge_progress import CANCELLED, MergeProgressDialog
from traceeval_gui.audit.new_audit_dialog import NewAuditDialog
from traceeval_gui.theme.style import MUTED_TEXT
from traceeval_gui.widgets.file_dialogs import open_file_name
from traceeval_gui.widgets.keyboard_dialog import action

if TYPE_CHECKING:
    from traceeval_gui.state.app_state import AppState
    from traceeval_gui.state.workbench import Workbench

log = logging.getLogger(__name__)
ANNOTATOR_SETTING, AUDIT_SETTING = "audit/annotator", "audit/last"
NO_AUDITS = "No audits in this workspace yet: Audit ▸ New Audit (Ctrl+Shift+N) starts one"


def audit_title(audit: Audit, progress: dict[str, int]) -> str:
    unit = "questions" if audit.kind == BASELINE_AUDIT else "edges"
    kind = "baseline" if audit.kind == BASELINE_AUDIT else audit.population
    done = ", ".join(f"{name} {n}/{audit.size}" for name, n in progress.items()) or "not started"
    return f"{audit.name}  ({kind}, {audit.size:,} {unit}; {done})"


class AuditChooserDialog(QDialog):
    """Pick an audit (with everyone's progress) and, unless only the audit is asked for, who you are."""

    def __init__(self, store: AuditStore, audit_name: str = "", annotator: str = "", ask_annotator: bool = True,
                 parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.store = store
        self.audits = store.audits()
        self.audit_name, self.annotator = "", ""
        self.setWindowTitle("Continue audit" if ask_annotator else "Audit results")
        self.setMinimumWidth(520)
        self._progress = {audit.name: store.progress(audit.name) for audit in self.audits}
        self.audit_combo = QComboBox()
        for audit in self.audits:
            self.audit_combo.addItem(audit_title(audit, self._progress[audit.name]), audit.name)
        index = self.audit_combo.findData(audit_name)
        self.audit_combo.setCurrentIndex(index if index >= 0 else self.audit_combo.count() - 1)
        self.annotator_combo = QComboBox()
        self.annotator_combo.setEditable(True)
        self.annotator_combo.setInsertPolicy(QComboBox.InsertPolicy.NoInsert)
        self.annotator_combo.lineEdit().setPlaceholderText("your name")
        self.progress_label = QLabel()
        self.progress_label.setStyleSheet(f"QLabel {{ color: {MUTED_TEXT}; }}")
        self.error_label = QLabel()
        self.error_label.setStyleSheet("QLabel { color: #c62828; }")
        self.error_label.hide()
        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Cancel)
        self.open_button = buttons.addButton("Open", QDialogButtonBox.ButtonRole.AcceptRole)
        buttons.accepted.connect(self._on_buttons_accepted)
        buttons.rejected.connect(self.reject)
        form = QFormLayout()
        form.setFieldGrowthPolicy(QFormLayout.FieldGrowthPolicy.AllNonFixedFieldsGrow)
        form.addRow("&Audit:", self.audit_combo)
        if ask_annotator:
            form.addRow("&Your name:", self.annotator_combo)
            form.addRow("", self.progress_label)
        else:
            self.annotator_combo.hide()
            self.progress_label.hide()
        layout = QVBoxLayout(self)
        layout.setContentsMargins(16, 14, 16, 12)
        layout.addLayout(form)
        layout.addWidget(self.error_label)
        layout.addWidget(buttons)
        self.ask_annotator = ask_annotator
        self.open_button.setDefault(True)  # once in the dialog: Enter opens
        self.audit_combo.currentIndexChanged.connect(self._on_audit_combo_changed)
        self.annotator_combo.editTextChanged.connect(self._on_annotator_combo_edited)
        self._on_audit_combo_changed()
        self.annotator_combo.setEditText(annotator)
        self._on_annotator_combo_edited(annotator)
        (self.annotator_combo if ask_annotator and not annotator else self.audit_combo).setFocus()

    @property
    def audit(self) -> Audit | None:
        name = self.audit_combo.currentData()
        return next((audit for audit in self.audits if audit.name == name), None)

    def _on_audit_combo_changed(self, _index: int = 0) -> None:
        text = self.annotator_combo.currentText()
        self.annotator_combo.blockSignals(True)
        self.annotator_combo.clear()
        audit = self.audit
        if audit is not None:
            self.annotator_combo.addItems(list(self.store.annotators(audit.name)))
        self.annotator_combo.setEditText(text)
        self.annotator_combo.blockSignals(False)
        self._on_annotator_combo_edited(text)

    def _on_annotator_combo_edited(self, text: str) -> None:
        self.error_label.hide()
        audit, name = self.audit, text.strip()
        if audit is None or not name:
            self.progress_label.setText("")
            return
        done = self._progress[audit.name].get(name)
        unit = "questions" if audit.kind == BASELINE_AUDIT else "edges"
        self.progress_label.setText(f"{name} has done {done:,} of {audit.size:,} {unit}" if done is not None
                                    else f"{name} is new to this audit: starts at the first {unit[:-1]}")

    def _on_buttons_accepted(self) -> None:
        audit = self.audit
        if audit is None:
            return
        name = self.annotator_combo.currentText().strip()
        if self.ask_annotator:
            try:
                check_person_name(name)
            except ValueError:
                self.error_label.setText("Type your name (one line, at most 64 characters)")
                self.error_label.show()
                return
        self.audit_name, self.annotator = audit.name, name
        self.accept()


class AuditActions(QObject):
    def __init__(self, window: Workbench) -> None:
        super().__init__(window)
        self.window = window
        self.state: AppState = window.state
        self.windows: dict[tuple[str, str], QWidget] = {}  # (audit, annotator or "results") -> its window
        self.new_action = action(window, "&New Audit…", self.new_audit, "Ctrl+Shift+N",
                                 "Sample edges to spot-check (or programs for a human baseline) and start judging")
        self.continue_action = action(window, "&Continue Audit…", self.continue_audit, "Ctrl+Shift+A",
                                      "Go on with an audit where you left it, under your name")
        self.results_action = action(window, "Audit &Results…", self.ask_results, "Ctrl+Shift+R",
                                     "Agreement, disputes and corrected scores of an audit")
        self.merge_action = action(window, "&Merge Workspace…", self.ask_merge, "Ctrl+Shift+M",
                                   "Bring in another annotator's audits, verdicts and answers from their workspace")
        for item in self.actions:
            item.setEnabled(False)
        self.state.dataset_opened.connect(self._on_state_dataset_opened)

    @property
    def actions(self) -> tuple:
        return self.new_action, self.continue_action, self.results_action, self.merge_action

    def add_to(self, menu: QMenu) -> None:
        menu.addAction(self.new_action)
        menu.addAction(self.continue_action)
        menu.addSeparator()
        menu.addAction(self.results_action)
        menu.addAction(self.merge_action)

    def _on_state_dataset_opened(self) -> None:
        for item in self.actions:
            item.setEnabled(self.state.workspace is not None)

    # -- menu entries ---------------------------------------------------------------------
    def new_audit(self) -> QWidget | None:
        if self.state.workspace is None:
            return self._say("Open a dataset first, then audit it")
        dialog = NewAuditDialog(self.state, self._remembered(ANNOTATOR_SETTING), self.window)
        if not dialog.exec() or dialog.audit is None:
            return None
        return self.open_audit(dialog.audit.name, dialog.annotators[0])

    def continue_audit(self) -> QWidget | None:
        if self.state.workspace is None:
            return self._say("Open a dataset first, then audit it")
        store = AuditStore(self.state.workspace)
        if not store.audits():
            return self._say(NO_AUDITS)
        dialog = AuditChooserDialog(store, self._remembered(AUDIT_SETTING), self._remembered(ANNOTATOR_SETTING),
                                    parent=self.window)
        if not dialog.exec():
            return None
        return self.open_audit(dialog.audit_name, dialog.annotator)

    def ask_results(self) -> QWidget | None:
        if self.state.workspace is None:
            return self._say("Open a dataset first")
        store = AuditStore(self.state.workspace)
        if not store.audits():
            return self._say(NO_AUDITS)
        dialog = AuditChooserDialog(store, self._remembered(AUDIT_SETTING), ask_annotator=False, parent=self.window)
        if not dialog.exec():
            return None
        return self.open_results(dialog.audit_name)

    def ask_merge(self) -> MergeWorkspaceJob | None:
        """Ask for another annotator's workspace file and merge it (`merge_workspace`)."""
        if self.state.workspace is None:
            return self._say("Open a dataset first")
        path = open_file_name(self.window, "Merge another annotator's workspace",
                              str(self.state.workspace.path.parent), "Workspaces (*.sqlite *.db);;All files (*)")
        return self.merge_workspace(path) if path else None

    def merge_workspace(self, path: str | Path) -> MergeWorkspaceJob | None:
        """Merge the workspace file `path` in the background; then the results of the merged audit open with
        what the merge did, so agreement and disagreements are one look away."""
        if self.state.workspace is None:
            return self._say("Open a dataset first")
        if not isinstance(path, (str, Path)) or not str(path):  # never a signal's `checked` flag taken for a path
            raise TypeError(f"merge_workspace needs a workspace file, got {path!r}")
        job = MergeWorkspaceJob(self.state.workspace.path, path)
        job.signals.finished.connect(self._on_merge_job_finished)
        job.signals.failed.connect(lambda message: self._fail("Merge failed", message))
        job.signals.cancelled.connect(lambda: self._say(CANCELLED))
        self._say(f"Merging {Path(path).name}…")
        MergeProgressDialog(job, self.window)
        self.state.jobs.start(job)
        return job

    def _on_merge_job_finished(self, report: MergeReport) -> None:
        self._say(report.summary())
        if report.models_refreshed:  # human baselines changed: the model menus and F1 columns count them
            self.window.reopen(report.summary())
        names = [*report.audits_added, *report.audits_updated]
        audits = [a.name for a in AuditStore(self.state.workspace).audits()]
        name = next((n for n in [*names, self._remembered(AUDIT_SETTING), *audits] if n in audits), None)
        if name is None:
            return
        results = self.open_results(name)
        if results is not None:
            results.merge_pane.show_report(report)
            results.refresh()

    # -- windows --------------------------------------------------------------------------
    def open_audit(self, audit_name: str, annotator: str) -> QWidget | None:
        """The window where `annotator` works on the audit (brought to the front when already open)."""
        try:
            audit = AuditStore(self.state.workspace).get(audit_name)
            check_person_name(annotator)
        except (TraceEvalError, ValueError) as error:
            return self._say(str(error))
        self._remember(AUDIT_SETTING, audit_name)
        self._remember(ANNOTATOR_SETTING, annotator)
        key = (audit_name, annotator)
        if key in self.windows:
            return self._raise(self.windows[key])
        kind = BaselineWindow if audit.kind == BASELINE_AUDIT else AuditWindow
        try:
            window = kind(self.state, audit_name, annotator, self.window)
        except Exception as error:  # whatever stops the window, the user is told, with the detail
            log.exception("the audit window for %s (%s) did not open", audit_name, annotator)
            expected = isinstance(error, (TraceEvalError, sqlite3.Error, OSError))
            return self._fail(f"Audit {audit_name} did not open", str(error) or type(error).__name__,
                              "" if expected else traceback.format_exc())
        return self._keep(key, window)

    # -- the results window ---------------------------------------------------------------
    def open_results(self, audit_name: str) -> QWidget | None:
        """The results of an audit: agreement, disputes and corrected scores."""
        key = (audit_name, "results")
        if key in self.windows:
            return self._raise(self.windows[key])
        self._remember(AUDIT_SETTING, audit_name)
        return self._keep(key, AuditResultsWindow(self.state, audit_name, self.window))

    def _keep(self, key: tuple[str, str], window: QWidget) -> QWidget:
        window.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
        self.windows[key] = window
        window.destroyed.connect(lambda _=None, k=key: self.windows.pop(k, None))
        window.show()
        return self._raise(window)

    @staticmethod
    def _raise(window: QWidget) -> QWidget:
        window.show()
        window.raise_()
        window.activateWindow()
        return window

    def _say(self, message: str) -> None:
        self.window.statusBar().showMessage(message, 6000)

    def _fail(self, title: str, message: str, detail: str = "") -> None:
        """A failure, said in the status bar and in a (non-blocking) message box whose text can be copied."""
        self.window.statusBar().showMessage(f"{title}: {message.splitlines()[0] if message else ''}", 0)
        box = QMessageBox(QMessageBox.Icon.Warning, title, f"{title}.", QMessageBox.StandardButton.Close, self.window)
        box.setInformativeText(message)
        if detail:
            box.setDetailedText(detail)
        box.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        box.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
        box.setObjectName("audit_failure")
        box.open()

    # -- settings -------------------------------------------------------------------------
    def _remembered(self, key: str) -> str:
        settings = self.window.settings
        value = settings.value(key) if settings is not None else None
        return value if isinstance(value, str) else ""

    def _remember(self, key: str, value: str) -> None:
        if self.window.settings is not None:
            self.window.settings.setValue(key, value)
