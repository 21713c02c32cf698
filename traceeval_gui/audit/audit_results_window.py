"""What an audit found, in one window: the report, agreement, the disputes to settle, and F1 with the audited
truth corrected; exports (Markdown, JSON, CSV) and merging another annotator's workspace.

The report (`core.audit.reports.audit_report`) scores every model twice, so it is computed by `AuditReportJob`
off the GUI thread; one job at a time, and a request made while one runs starts a fresh job when it ends (its
result is not shown: it may miss what was just settled or merged). Settling a dispute refreshes the report the
same way, so the corrected F1 follows the adjudications.

The tabs' contents live in their own modules: `audit_report_view` (the Report tab's look and the merge result
pane), `agreement_panel`, `disagreements_panel` and `corrected_scores`.
"""
from __future__ import annotations

import html
from pathlib import Path

from PySide6.QtCore import QSettings, Qt, Signal
from PySide6.QtGui import QKeySequence
from PySide6.QtWidgets import (
    QComboBox,
    QHBoxLayout,
    QLabel,
    QMainWindow,
    QMenu,
    QPushButton,
    QTabWidget,
    QTextBrowser,
    QToolButton,
    QVBoxLayout,
    QWidget,
)

from core.audit.audits import BASELINE_AUDIT, Audit
from core.audit.export import report_markdown, write_report
from core.audit.merge import MergeReport
from core.audit.reports import AuditReport
from core.audit.store import AuditStore
from core.errors import TraceEvalError, UsageError
from traceeval_gui.audit.agreement_panel import AgreementPanel
from traceeval_gui.audit.audit_jobs import AuditReportJob, MergeWorkspaceJob
from traceeval_gui.audit.audit_report_view import MergeResultPane, polish_markdown
from traceeval_gui.audit.corrected_scores import corrections_html
from traceeval_gui.audit.disagreements_panel import DisagreementsPanel
from traceeval_gui.audit.merge_progress import CANCELLED, MergeProgressDialog
from traceeval_gui.state.app_state import AppState
from traceeval_gui.theme.style import MUTED_TEXT
from traceeval_gui.widgets.file_dialogs import open_file_name, save_file_name
from traceeval_gui.widgets.keyboard_dialog import KeyboardDialog, action
from traceeval_gui.widgets.window_layout import fit_on_screen

TABS = ("Report", "Agreement", "Disagreements", "Corrected F1")
EXPORT_FORMATS = (("md", "Markdown", "md"), ("json", "JSON", "json"), ("csv", "CSV (one row per item)", "csv"))
ERROR_COLOUR = "#c62828"
PANEL_KEYS = [("Disagreements", "Pick the final verdict: correct, wrong, real not exercised, unsure", "1, 2, 3, 4"),
              ("Disagreements", "Go on to the reason, the adjudicator, Settle", "Tab"),
              ("Disagreements", "Settle the selected disagreement (Enter in the reason)", "Ctrl+Enter")]


class AuditResultsWindow(QMainWindow):
    report_shown = Signal(object)  # the AuditReport now shown
    merged = Signal(object)  # the MergeReport of a finished merge (the report is being refreshed)
    failed = Signal(str)  # a report or merge failed: the one-line message shown

    def __init__(self, state: AppState, audit_name: str, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.state = state
        self.audit_name = audit_name
        self.report: AuditReport | None = None
        self.settings: QSettings | None = getattr(parent, "settings", None)
        self._job: AuditReportJob | None = None
        self._again = False  # a refresh was asked for while the job ran
        self._merge_job: MergeWorkspaceJob | None = None
        self._export_folder = Path.home()
        fit_on_screen(self, 1400, 900)
        self._build_actions()
        self.setCentralWidget(self._build_content())
        self._build_menus()
        state.dataset_opened.connect(self._on_state_dataset_opened)
        state.runs_changed.connect(self.disagreements.forget_program)  # a new trace: new evidence
        self._fill_audit_combo()
        self._show_title()
        self.refresh()

    # -- building -------------------------------------------------------------------------
    def _build_actions(self) -> None:
        self.refresh_action = action(self, "&Refresh", self.refresh, "F5", "Compute the report again")
        self.export_actions = {fmt: action(self, f"As {title}…", lambda _=False, f=fmt: self._ask_export(f))
                               for fmt, title, _suffix in EXPORT_FORMATS}
        self.merge_action = action(self, "&Merge Workspace…", self._ask_merge, "Ctrl+Shift+M",
                                   "Merge another annotator's workspace file: their audits, verdicts and "
                                   "adjudications join this one")
        self.close_action = action(self, "&Close", self.close, QKeySequence.StandardKey.Close)
        self.keyboard_action = action(self, "&Keyboard Shortcuts", lambda: self.keyboard_dialog().exec(), "F1")
        self.tab_actions = [action(self, f"&{index + 1} {title}", lambda _=False, i=index: self.show_tab(i),
                                   f"Ctrl+{index + 1}") for index, title in enumerate(TABS)]

    def _build_menus(self) -> None:
        menu = self.menuBar().addMenu("&Results")
        menu.addAction(self.refresh_action)
        menu.addMenu(self.export_menu)
        menu.addAction(self.merge_action)
        menu.addSeparator()
        menu.addAction(self.close_action)
        view = self.menuBar().addMenu("&View")
        for item in self.tab_actions:
            view.addAction(item)
        self.menuBar().addMenu("&Help").addAction(self.keyboard_action)

    def keyboard_dialog(self) -> KeyboardDialog:
        menus = [item.menu() for item in self.menuBar().actions() if item.menu() is not None]
        return KeyboardDialog(menus, PANEL_KEYS, self)

    def _build_content(self) -> QWidget:
        self.audit_combo = QComboBox()
        self.audit_combo.setMinimumWidth(260)
        self.audit_combo.setToolTip("The audit shown")
        self.audit_combo.currentIndexChanged.connect(self._on_audit_combo_changed)
        audit_label = QLabel("&Audit:")
        audit_label.setBuddy(self.audit_combo)
        refresh = QPushButton("Refresh")
        refresh.setToolTip("Compute the report again (F5)")
        refresh.clicked.connect(self.refresh)
        self.status_label = QLabel()
        self.status_label.setTextFormat(Qt.TextFormat.RichText)
        self.export_menu = QMenu("&Export", self)
        for fmt, _title, _suffix in EXPORT_FORMATS:
            self.export_menu.addAction(self.export_actions[fmt])
        self.export_button = QToolButton()
        self.export_button.setText("Export")
        self.export_button.setToolTip("Save the report as Markdown or JSON, or its items as CSV")
        self.export_button.setPopupMode(QToolButton.ToolButtonPopupMode.InstantPopup)
        self.export_button.setMenu(self.export_menu)
        merge = QPushButton("Merge Workspace…")
        merge.setToolTip(self.merge_action.toolTip() + " (Ctrl+Shift+M)")
        merge.clicked.connect(self._ask_merge)
        self.merge_button = merge
        top = QHBoxLayout()
        top.setContentsMargins(12, 8, 12, 8)
        top.setSpacing(8)
        top.addWidget(audit_label)
        top.addWidget(self.audit_combo)
        top.addWidget(refresh)
        top.addSpacing(12)
        top.addWidget(self.status_label, 1)
        top.addWidget(self.export_button)
        top.addWidget(merge)

        self.merge_pane = MergeResultPane()
        self.report_browser = _browser()
        self.agreement = AgreementPanel()
        self.disagreements = DisagreementsPanel(self.state, self.settings)
        self.disagreements.settled.connect(self._on_disagreements_settled)
        self.corrections_browser = _browser()
        self.tabs = QTabWidget()
        self.tabs.setDocumentMode(True)
        for widget, title in zip((self.report_browser, self.agreement, self.disagreements, self.corrections_browser),
                                 TABS):
            self.tabs.addTab(widget, title)

        content = QWidget()
        layout = QVBoxLayout(content)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.setSpacing(0)
        layout.addLayout(top)
        layout.addWidget(self.merge_pane)
        layout.addWidget(self.tabs, 1)
        return content

    # -- public ---------------------------------------------------------------------------
    def show_tab(self, index: int) -> None:
        if self.tabs.isTabEnabled(index):
            self.tabs.setCurrentIndex(index)

    def is_computing(self) -> bool:
        return self._job is not None

    def refresh(self) -> AuditReportJob | None:
        """Compute the report of the current audit again, in the background."""
        if self.state.workspace is None:
            self._show_error("No workspace is open: open a dataset first")
            return None
        if self._job is not None:
            self._again = True
            return self._job
        job = AuditReportJob(self.state.workspace.path, self.audit_name)
        job.signals.finished.connect(self._on_report_job_finished)
        job.signals.failed.connect(self._on_report_job_failed)
        self._job, self._again = job, False
        self._show_status("computing…")
        if self.report is None or self.report.audit.name != self.audit_name:
            self._show_waiting("computing…")
        self.state.jobs.start(job)
        return job

    def export_to(self, path: str | Path, fmt: str | None = None) -> Path:
        """Write the report shown as `fmt` (md, json or csv; by default from the suffix). UsageError while no
        report is shown, AuditError when the format is unknown or the file cannot be written."""
        if self.report is None:
            raise UsageError("no audit report yet: export it when it is shown")
        if self.is_computing():
            raise UsageError("the audit report is being updated: export it when the new one is shown")
        written = write_report(self.report, path, fmt)
        self.statusBar().showMessage(f"Saved the audit report to {written}", 6000)
        return written

    def merge_from(self, path: str | Path) -> MergeWorkspaceJob | None:
        """Merge another workspace file into this one (in the background), then show what it did and
        refresh the report."""
        if self.state.workspace is None:
            self._show_error("No workspace is open: open a dataset first")
            return None
        if self._merge_job is not None:
            self.statusBar().showMessage("A merge is already running", 4000)
            return None
        job = MergeWorkspaceJob(self.state.workspace.path, path)
        job.signals.finished.connect(self._on_merge_job_finished)
        job.signals.failed.connect(self._on_merge_job_failed)
        job.signals.cancelled.connect(self._on_merge_job_cancelled)
        self._merge_job = job
        self._set_merging(True)
        self._show_status(f"merging {html.escape(Path(path).name)}…")
        MergeProgressDialog(job, self)
        self.state.jobs.start(job)
        return job

    # -- slots ----------------------------------------------------------------------------
    def _on_report_job_finished(self, report: AuditReport) -> None:
        self._job = None
        if self._again or report.audit.name != self.audit_name:
            self.refresh()  # what was asked for since: this result may already be out of date
            return
        self._show_report(report)
        self._show_status("")

    def _on_report_job_failed(self, message: str) -> None:
        self._job = None
        if self._again:
            self.refresh()
            return
        self._show_error(message)
        if self.report is None or self.report.audit.name != self.audit_name:
            self._show_waiting("The report could not be computed (see the message above).")

    def _on_merge_job_finished(self, report: MergeReport) -> None:
        self._merge_job = None
        self._set_merging(False)
        self._show_status("")
        self.merge_pane.show_report(report)
        self._fill_audit_combo()
        self.refresh()
        self.merged.emit(report)

    def _on_merge_job_failed(self, message: str) -> None:
        self._merge_job = None
        self._set_merging(False)
        self._show_error(f"Merge failed: {message}")

    def _on_merge_job_cancelled(self) -> None:
        self._merge_job = None
        self._set_merging(False)
        self._show_status(CANCELLED)

    def _on_audit_combo_changed(self, index: int) -> None:
        name = self.audit_combo.itemData(index)
        if name and name != self.audit_name:
            self.audit_name = name
            self._show_title()
            self.refresh()

    def _on_disagreements_settled(self, _adjudication) -> None:
        self.refresh()  # final verdicts changed: the estimates and the corrected F1 follow

    def _on_state_dataset_opened(self) -> None:
        self.disagreements.evidence.forget()
        self.report = None
        self._fill_audit_combo()
        self.refresh()

    # -- dialogs --------------------------------------------------------------------------
    def _ask_export(self, fmt: str) -> None:
        if self.report is None or self.is_computing():
            self._show_error("The audit report is being computed: export it when it is shown")
            return
        suffix = next(s for f, _t, s in EXPORT_FORMATS if f == fmt)
        start = self._export_folder / f"{self.audit_name}-audit.{suffix}"
        path = save_file_name(self, "Export the audit report", str(start), f"{fmt.upper()} (*.{suffix})")
        if not path:
            return
        self._export_folder = Path(path).parent
        try:
            self.export_to(path, fmt)
        except (OSError, TraceEvalError) as error:
            self._show_error(f"Export failed: {error}")

    def _ask_merge(self) -> None:
        start = str(self.state.workspace.path.parent) if self.state.workspace is not None else str(Path.home())
        path = open_file_name(self, "Merge another workspace into this one", start,
                              "Workspaces (*.sqlite *.db);;All files (*)")
        if path:
            self.merge_from(path)

    # -- rendering ------------------------------------------------------------------------
    def _fill_audit_combo(self) -> None:
        audits: list[Audit] = AuditStore(self.state.workspace).audits() if self.state.workspace else []
        combo = self.audit_combo
        combo.blockSignals(True)
        combo.clear()
        for audit in audits:
            kind = "baseline" if audit.kind == BASELINE_AUDIT else audit.population
            combo.addItem(f"{audit.name}  ({kind}, {audit.size:,} items)", audit.name)
        if combo.findData(self.audit_name) < 0:
            combo.addItem(self.audit_name, self.audit_name)
        combo.setCurrentIndex(combo.findData(self.audit_name))
        combo.blockSignals(False)

    def _show_title(self) -> None:
        self.setWindowTitle(f"Audit results — {self.audit_name}")

    def _show_status(self, text: str) -> None:
        self.status_label.setText(f"<span style='color:{MUTED_TEXT}'>{text}</span>" if text else "")
        self.status_label.setToolTip("")
        self.export_button.setEnabled(self.report is not None and not self.is_computing())

    def _show_error(self, message: str) -> None:
        line = " ".join(message.split())
        self.status_label.setText(f"<span style='color:{ERROR_COLOUR}'>⚠ {html.escape(line)}</span>")
        self.status_label.setToolTip(html.escape(message))
        self.failed.emit(line)

    def _set_merging(self, running: bool) -> None:
        self.merge_action.setEnabled(not running)
        self.merge_button.setEnabled(not running)

    def _show_waiting(self, text: str) -> None:
        self.report = None
        note = f"<p style='color:{MUTED_TEXT}'>{html.escape(text)}</p>"
        self.report_browser.setHtml(note)
        self.corrections_browser.setHtml(note)
        self.agreement.set_report(None, text)
        self.disagreements.set_report(None, text)
        self.tabs.setTabText(2, TABS[2])

    def _show_report(self, report: AuditReport) -> None:
        self.report = report
        edge_audit = report.audit.kind != BASELINE_AUDIT
        self._show_markdown(report)
        self.agreement.set_report(report)
        self.disagreements.set_report(report if edge_audit else None,
                                      "A baseline audit: annotators answer questions, nothing to settle.")
        self.corrections_browser.setHtml(corrections_html(report))
        for index in (1, 2):
            self.tabs.setTabEnabled(index, edge_audit)
            self.tabs.setTabToolTip(index, "" if edge_audit else "A baseline audit has no verdicts to agree on")
        if not edge_audit and self.tabs.currentIndex() in (1, 2):
            self.tabs.setCurrentIndex(0)
        still = self.disagreements.open_count()
        self.tabs.setTabText(2, f"{TABS[2]} ({still} open)" if still else TABS[2])
        self.report_shown.emit(report)

    def _show_markdown(self, report: AuditReport) -> None:
        bar = self.report_browser.verticalScrollBar()
        position = bar.value()
        self.report_browser.setMarkdown(report_markdown(report))
        polish_markdown(self.report_browser)
        bar.setValue(position)


def _browser() -> QTextBrowser:
    browser = QTextBrowser()
    browser.setOpenLinks(False)
    browser.setFrameShape(QTextBrowser.Shape.NoFrame)
    browser.document().setDocumentMargin(12)
    return browser
