"""What an audit found, in one window: the report, agreement, the disputes to settle, and F1 with the audited
truth corrected; exports (Markdown, JSON, CSV) and merging another annotator's workspace.

The report (`core.audit_reports.audit_report`) scores every model twice, so it is computed by `AuditReportJob`
off the GUI thread; one job at a time, and a request made while one runs starts a fresh job when it ends (its
result is not shown: it may miss what was just settled or merged). Settling a dispute refreshes the report the
same way, so the corrected F1 follows the adjudications.
"""
from __future__ import annotations

import html
from pathlib import Path

from PySide6.QtCore import QSettings, Qt, Signal
from PySide6.QtGui import QBrush, QColor, QFont, QKeySequence, QTextCursor, QTextTableFormat
from PySide6.QtWidgets import (
    QAbstractItemView,
    QComboBox,
    QFileDialog,
    QFrame,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QListWidget,
    QMainWindow,
    QMenu,
    QPushButton,
    QTableWidget,
    QTableWidgetItem,
    QTabWidget,
    QTextBrowser,
    QToolButton,
    QVBoxLayout,
    QWidget,
)

from core.agreement import Agreement
from core.audit_export import NONE, format_proportion, report_markdown, write_report
from core.audit_reports import FP_OUTCOME_TITLES, FP_OUTCOMES, AuditReport, Corrections, ModelCorrection
from core.audit_store import AuditStore
from core.audits import BASELINE_AUDIT, Audit
from core.errors import TraceEvalError, UsageError
from core.model import LANGUAGE_TITLES
from core.palette import EDGE_STYLES
from core.scoring import TableRow
from core.tables import DAGGER, METRIC_LABELS
from core.workspace_merge import MergeReport
from traceeval_gui.app_state import AppState
from traceeval_gui.audit_jobs import AuditReportJob, MergeWorkspaceJob
from traceeval_gui.views.disagreements_panel import DisagreementsPanel
from traceeval_gui.views.keyboard_dialog import KeyboardDialog, action
from traceeval_gui.views.metrics_panel import HEADER_BACKGROUND
from traceeval_gui.views.style import ILLUSTRATIVE_NOTE, MUTED_TEXT

TABS = ("Report", "Agreement", "Disagreements", "Corrected F1")
EXPORT_FORMATS = (("md", "Markdown", "md"), ("json", "JSON", "json"), ("csv", "CSV (one row per item)", "csv"))
AGREEMENT_COLUMNS = ("Group", "Annotators", "Items", "Percent", "Cohen κ", "Fleiss κ", "Krippendorff α")
AGREEMENT_ROLE = Qt.ItemDataRole.UserRole  # every cell of a row carries its Agreement
GROUP_ROLE = Qt.ItemDataRole.UserRole + 1  # ... and its group: ("overall", ""), ("language", "java"), ...
AGREEMENT_TIPS = (
    "Overall, then per language and per edge class of the sampled edges",
    "Annotators who rated at least one of the group's items",
    "Edges with verdicts from at least two annotators (what agreement is computed on)",
    "Percent agreement: per edge, the share of annotator pairs who gave the same label, averaged over edges",
    "Cohen's κ (1960): chance-corrected agreement of exactly two annotators, on the edges both rated. "
    "Defined only with two annotators who share an edge, and not when every rating is the same label",
    "Fleiss' κ (1971): chance-corrected agreement of any number of annotators, on the edges every one of them "
    "rated. Not defined without such an edge, or when every rating is the same label",
    "Krippendorff's α (nominal): chance-corrected agreement of any number of annotators; missing ratings are "
    "fine. Not defined without an edge rated twice, or when every rating is the same label",
)
ERROR_COLOUR = "#c62828"
PANEL_KEYS = [("Disagreements", "Pick the final verdict: correct, wrong, real not exercised, unsure", "1, 2, 3, 4"),
              ("Disagreements", "Settle the selected disagreement", "Ctrl+Enter")]
UP_COLOUR, DOWN_COLOUR = "#2e7d32", "#c62828"
CLASS_TIPS = {name: EDGE_STYLES[name].description for name in ("TP", "FP", "FN", "truth")}


class MergeResultPane(QFrame):
    """What the last merge did: its summary, the conflicts (both kept, the newer stands) and what was skipped."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("merge_result")
        self.setStyleSheet("#merge_result { background: #eef4fb; border-bottom: 1px solid #c9d8ea; }")
        self.summary_label = QLabel()
        self.summary_label.setTextFormat(Qt.TextFormat.RichText)
        self.summary_label.setWordWrap(True)
        self.conflict_list = QListWidget()
        self.conflict_list.setWordWrap(True)
        self.conflict_list.setAlternatingRowColors(True)
        self.conflict_list.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        self.conflict_list.setVerticalScrollMode(QAbstractItemView.ScrollMode.ScrollPerPixel)
        close = QToolButton()
        close.setText("✕")
        close.setToolTip("Hide the merge result")
        close.setAutoRaise(True)
        close.clicked.connect(self.hide)
        top = QHBoxLayout()
        top.addWidget(self.summary_label, 1)
        top.addWidget(close, 0, Qt.AlignmentFlag.AlignTop)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(12, 8, 8, 8)
        layout.setSpacing(6)
        layout.addLayout(top)
        layout.addWidget(self.conflict_list)
        self.report: MergeReport | None = None
        self.hide()

    def show_report(self, report: MergeReport) -> None:
        self.report = report
        lines = [f"<b>{html.escape(report.summary()[:1].upper() + report.summary()[1:])}</b>"]
        if report.changed:
            lines.append(f"<span style='color:{MUTED_TEXT}'>Verdicts keep their author and time; merging "
                         f"{html.escape(report.source.name)} again adds nothing.</span>")
        if report.conflicts:
            lines.append(f"{len(report.conflicts)} conflict{'s' if len(report.conflicts) != 1 else ''}: the same "
                         "annotator (or, for adjudications, the same edge) differs in the two workspaces; both are "
                         "kept and the newer one stands.")
        self.summary_label.setText("<br>".join(lines))
        self.conflict_list.clear()
        self.conflict_list.addItems([f"conflict: {c.describe()}" for c in report.conflicts])
        self.conflict_list.addItems([f"skipped{' ' + audit if audit else ''}: {reason}"
                                     for audit, reason in report.skipped])
        count = self.conflict_list.count()
        self.conflict_list.setVisible(count > 0)
        lines = min(6, 2 * count)  # a conflict takes about two lines wrapped
        self.conflict_list.setFixedHeight(lines * self.fontMetrics().lineSpacing() + 8 * min(count, 3) + 4)
        self.show()


class AgreementPanel(QWidget):
    """Agreement overall, per language and per edge class, each statistic explained."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.table = _agreement_table()
        self.note = QLabel()
        self.note.setTextFormat(Qt.TextFormat.RichText)
        self.note.setWordWrap(True)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(12, 10, 12, 10)
        layout.setSpacing(8)
        layout.addWidget(self.table)
        layout.addWidget(self.note)
        layout.addStretch(1)

    def set_report(self, report: AuditReport | None, waiting: str = "") -> None:
        """Show the agreement of `report` (None: the `waiting` note instead)."""
        table = self.table
        table.clearSpans()
        summary = report.agreement if report is not None else None
        if summary is None:
            table.setRowCount(0)
            text = waiting if report is None else ("A baseline audit: annotators answer questions instead of "
                                                   "judging edges, so there is no agreement to show.")
            self.note.setText(f"<p style='color:{MUTED_TEXT}'>{html.escape(text)}</p>")
            return
        groups: list[tuple[str, tuple[str, str] | None, str, Agreement | None]] = [
            ("Overall", ("overall", ""), "", summary.overall), ("By language", None, "", None)]
        groups += [(LANGUAGE_TITLES.get(k, k), ("language", k), "", a) for k, a in summary.by_language.items()]
        groups.append(("By edge class", None, "", None))
        groups += [(k or NONE, ("edge_class", k), CLASS_TIPS.get(k, ""), a) for k, a in summary.by_edge_class.items()]
        table.setRowCount(len(groups))
        for row, (name, group, tip, agreement) in enumerate(groups):
            if agreement is None:
                self._add_section(row, name)
            else:
                self._add_row(row, name if row == 0 else f"    {name}", group, tip, agreement)
        _fit_table(table)
        people = len(summary.overall.annotators)
        hint = ("<p><b>Only one annotator has judged this audit so far</b>: merge another annotator's workspace "
                "(Merge Workspace…) to see how far they agree.</p>" if people < 2 else "")
        glossary = "".join(f"<li><b>{html.escape(title)}</b>: {html.escape(tip)}.</li>"
                           for title, tip in zip(AGREEMENT_COLUMNS[2:], AGREEMENT_TIPS[2:]))
        self.note.setText(
            f"{hint}<p style='color:{MUTED_TEXT}'>κ and α: 1 is perfect agreement, 0 what chance alone gives, below "
            f"0 worse than chance. {NONE}: not defined for this group (hover over it for why).</p>"
            f"<ul style='color:{MUTED_TEXT}; margin-left:-24px'>{glossary}</ul>")

    def _add_section(self, row: int, title: str) -> None:
        cell = QTableWidgetItem(title)
        cell.setFlags(Qt.ItemFlag.ItemIsEnabled)
        cell.setForeground(QColor(MUTED_TEXT))
        font = QFont(cell.font())
        font.setBold(True)
        cell.setFont(font)
        self.table.setItem(row, 0, cell)
        self.table.setSpan(row, 0, 1, len(AGREEMENT_COLUMNS))

    def _add_row(self, row: int, name: str, group: tuple[str, str], tip: str, agreement: Agreement) -> None:
        cells = [(name, tip), (", ".join(agreement.annotators) or NONE, ""), (f"{agreement.items:,}", ""),
                 _value(agreement.percent, percent=True), *statistic_cells(agreement)]
        for column, (text, cell_tip) in enumerate(cells):
            cell = QTableWidgetItem(text)
            cell.setData(AGREEMENT_ROLE, agreement)
            cell.setData(GROUP_ROLE, group)
            if column >= 2:
                cell.setTextAlignment(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
            if text == NONE:
                cell.setForeground(QColor(MUTED_TEXT))
            if cell_tip:
                cell.setToolTip(cell_tip)
            if group[0] == "overall":
                font = QFont(cell.font())
                font.setBold(True)
                cell.setFont(font)
            self.table.setItem(row, column, cell)

    def rows(self) -> dict[tuple[str, str], tuple[str, ...]]:
        """(group kind, key) -> the texts of its row, as shown ("overall", "") first."""
        table, rows = self.table, {}
        for row in range(table.rowCount()):
            group = table.item(row, 0).data(GROUP_ROLE) if table.item(row, 0) else None
            if group is not None:
                rows[tuple(group)] = tuple(table.item(row, c).text() for c in range(table.columnCount()))
        return rows


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
        self.resize(1400, 900)
        self._build_actions()
        self.setCentralWidget(self._build_content())
        self._build_menus()
        state.dataset_opened.connect(self._on_state_dataset_opened)
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

    def set_audit(self, name: str) -> None:
        """Show another audit of the workspace."""
        index = self.audit_combo.findData(name)
        if index >= 0 and index != self.audit_combo.currentIndex():
            self.audit_combo.setCurrentIndex(index)
        elif name != self.audit_name:
            self.audit_name = name
            self._show_title()
            self.refresh()

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
        self._merge_job = job
        self._set_merging(True)
        self._show_status(f"merging {html.escape(Path(path).name)}…")
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

    def _on_audit_combo_changed(self, index: int) -> None:
        name = self.audit_combo.itemData(index)
        if name and name != self.audit_name:
            self.audit_name = name
            self._show_title()
            self.refresh()

    def _on_disagreements_settled(self, _adjudication) -> None:
        self.refresh()  # final verdicts changed: the estimates and the corrected F1 follow

    def _on_state_dataset_opened(self) -> None:
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
        path, _ = QFileDialog.getSaveFileName(self, "Export the audit report", str(start),
                                              f"{fmt.upper()} (*.{suffix})")
        if not path:
            return
        self._export_folder = Path(path).parent
        try:
            self.export_to(path, fmt)
        except (OSError, TraceEvalError) as error:
            self._show_error(f"Export failed: {error}")

    def _ask_merge(self) -> None:
        start = str(self.state.workspace.path.parent) if self.state.workspace is not None else str(Path.home())
        path, _ = QFileDialog.getOpenFileName(self, "Merge another workspace into this one", start,
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

# -- agreement cells ------------------------------------------------------------------------
def statistic_cells(agreement: Agreement) -> list[tuple[str, str]]:
    """Cohen, Fleiss, Krippendorff: (text, tooltip saying why when undefined)."""
    same = "every rating in this group is the same label (chance agreement is 1)"
    if len(agreement.annotators) != 2:
        cohen = f"Cohen's κ compares exactly two annotators; this group has {len(agreement.annotators)}"
    else:
        cohen = "the two annotators rated no edge in common" if not agreement.items else same
    if len(agreement.annotators) < 2:
        fleiss = "Fleiss' κ needs at least two annotators"
    else:
        fleiss = "no edge was rated by every annotator of the group" if not agreement.complete_items else same
    alpha = "no edge was rated by two annotators" if not agreement.items else same
    complete = f" (on the {agreement.complete_items:,} edges every annotator rated)"
    return [_value(agreement.cohen_kappa, why=cohen), _value(agreement.fleiss_kappa, why=fleiss, tip=complete),
            _value(agreement.krippendorff_alpha, why=alpha)]


def _value(value: float | None, percent: bool = False, why: str = "", tip: str = "") -> tuple[str, str]:
    if value is None:
        return NONE, f"Not defined: {why}" if why else "Not defined: no edge was rated by two annotators"
    return (f"{value * 100:.1f} %" if percent else f"{value:.3f}"), (f"{value:.4f}{tip}" if tip else "")


def _agreement_table() -> QTableWidget:
    table = QTableWidget(0, len(AGREEMENT_COLUMNS))
    table.setHorizontalHeaderLabels(AGREEMENT_COLUMNS)
    table.verticalHeader().hide()
    table.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
    table.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
    table.setShowGrid(False)
    table.setAlternatingRowColors(True)
    table.setWordWrap(False)
    header = table.horizontalHeader()
    header.setHighlightSections(False)
    header.setSectionResizeMode(QHeaderView.ResizeMode.ResizeToContents)
    header.setMinimumSectionSize(96)
    table.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
    table.setVerticalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
    for column, tip in enumerate(AGREEMENT_TIPS):
        item = table.horizontalHeaderItem(column)
        item.setToolTip(tip)
        item.setTextAlignment((Qt.AlignmentFlag.AlignLeft if column < 2 else Qt.AlignmentFlag.AlignRight)
                              | Qt.AlignmentFlag.AlignVCenter)
    return table


def _fit_table(table: QTableWidget) -> None:
    """Size a short table to its rows and columns, so it reads like a table in a report."""
    table.resizeColumnsToContents()
    height = table.horizontalHeader().height() + sum(table.rowHeight(r) for r in range(table.rowCount()))
    table.setFixedHeight(height + 2 * table.frameWidth())
    table.setFixedWidth(table.horizontalHeader().length() + 2 * table.frameWidth())


def _browser() -> QTextBrowser:
    browser = QTextBrowser()
    browser.setOpenLinks(False)
    browser.setFrameShape(QTextBrowser.Shape.NoFrame)
    browser.document().setDocumentMargin(12)
    return browser


# -- the Markdown report ----------------------------------------------------------------------
def polish_markdown(browser: QTextBrowser) -> None:
    """Qt draws Markdown tables with double borders and no padding, and headings tight on the text:
    give the tables thin collapsed borders, padding and a shaded header, and the headings some air."""
    document = browser.document()
    cursor = QTextCursor(document)
    cursor.beginEditBlock()
    block = document.begin()
    seen = set()
    while block.isValid():
        table = QTextCursor(block).currentTable()
        if table is not None and table.firstPosition() not in seen:
            seen.add(table.firstPosition())
            fmt = table.format()
            fmt.setBorderCollapse(True)
            fmt.setBorder(1)
            fmt.setBorderStyle(QTextTableFormat.BorderStyle.BorderStyle_Solid)
            fmt.setBorderBrush(QBrush(QColor("#d5d9de")))
            fmt.setCellPadding(4)
            fmt.setCellSpacing(0)
            fmt.setHeaderRowCount(1)
            fmt.setTopMargin(4)
            fmt.setBottomMargin(6)
            table.setFormat(fmt)
            for column in range(table.columns()):
                cell = table.cellAt(0, column)
                cell_format = cell.format()
                cell_format.setBackground(QBrush(QColor(HEADER_BACKGROUND)))
                cell.setFormat(cell_format)
        elif table is None and block.blockFormat().headingLevel():
            block_format = block.blockFormat()
            block_format.setTopMargin(16 if block_format.headingLevel() > 1 else 4)
            block_format.setBottomMargin(6)
            QTextCursor(block).setBlockFormat(block_format)
        block = block.next()
    cursor.endEditBlock()


# -- the Corrected F1 tab ---------------------------------------------------------------------
def corrections_html(report: AuditReport) -> str:
    """Per model, the paper row beside the corrected one; then the ground-truth precision and what the
    audited false positives are."""
    if report.audit.kind == BASELINE_AUDIT:
        return (f"<p style='color:{MUTED_TEXT}'>A baseline audit: humans answer the questions a model gets. "
                "Their scores beside the models are in the Report tab.</p>")
    parts = [_corrections_part(report.corrections), _precision_part(report), _fp_part(report)]
    return "".join(parts)


def _corrections_part(corrections: Corrections | None) -> str:
    parts = ["<h3 style='margin:0 0 4px 0'>F1 with the audited truth corrected</h3>"]
    if corrections is None or not corrections.models:
        return parts[0] + f"<p style='color:{MUTED_TEXT}'>No model to score.</p>"
    parts.append(f"<p style='margin:0 0 2px 0'>Applied: <b>{corrections.real_edges:,}</b> audited edge(s) judged "
                 f"real calls, <b>{corrections.wrong_edges:,}</b> judged wrong (final verdicts only).</p>")
    parts.append(f"<p style='margin:0 0 8px 0; color:{MUTED_TEXT}'>Rule: {html.escape(corrections.rule)}.</p>")
    languages = corrections.table.languages
    for model in corrections.models:
        parts.append(_model_table(model, languages))
    if any(m.paper.illustrative for m in corrections.models):
        parts.append(f"<p style='color:{MUTED_TEXT}'>{DAGGER} {html.escape(ILLUSTRATIVE_NOTE)}</p>")
    return "".join(parts)


def _model_table(model: ModelCorrection, languages: tuple[str, ...]) -> str:
    columns = [*languages, "average"]
    head1 = "".join(f"<th colspan='3' align='center'>{LANGUAGE_TITLES.get(c, 'Average')}</th>" for c in columns)
    head2 = "".join(f"<th align='right'>{label}</th>" for _ in columns for _, label in METRIC_LABELS)
    paper = [_score(model.paper, c, m) for c in columns for m, _ in METRIC_LABELS]
    corrected = [_score(model.corrected, c, m) for c in columns for m, _ in METRIC_LABELS]
    rows = [_score_row("Paper", paper, paper), _score_row("<b>Corrected</b>", corrected, paper, mark=True),
            _change_row(paper, corrected)]
    name = html.escape(model.model) + (f" {DAGGER}" if model.paper.illustrative else "")
    missing = [f"{len(r.missing)} {LANGUAGE_TITLES.get(lang, lang)} program(s) without a result, not scored: "
               f"{', '.join(r.missing)}" for lang, r in model.paper.languages.items() if r.missing]
    moves = (f"{model.fp_to_tp:,} FP → TP and {model.truth_added:,} edge(s) added to the truth; "
             f"{model.tp_to_fp:,} TP → FP and {model.truth_removed:,} edge(s) taken out of it")
    notes = "".join(f"<br><span style='color:{MUTED_TEXT}'>{html.escape(line)}</span>" for line in missing)
    return (f"<p style='margin:12px 0 4px 0'><b>{name}</b> &nbsp; <span style='color:{MUTED_TEXT}'>"
            f"{html.escape(moves)}</span>{notes}</p>"
            f"<table cellspacing='0' cellpadding='4' width='100%' style='border-collapse:collapse'>"
            f"<tr bgcolor='{HEADER_BACKGROUND}'><th rowspan='2' align='left' width='120'></th>{head1}</tr>"
            f"<tr bgcolor='{HEADER_BACKGROUND}'>{head2}</tr>{''.join(rows)}</table>")


def _score(row: TableRow, column: str, metric: str) -> float | None:
    if column == "average":
        scored = any(result.programs for result in row.languages.values())
        return getattr(row.average, metric) if scored else None
    result = row.languages[column]
    return getattr(result.scores, metric) if result.programs else None


def _score_row(title: str, values: list, paper: list, mark: bool = False) -> str:
    cells = []
    for index, (value, before) in enumerate(zip(values, paper)):
        text = "–" if value is None else f"{value * 100:.1f}"
        changed = mark and value is not None and before is not None and round(value * 100, 1) != round(before * 100, 1)
        shade = " bgcolor='#fafbfc'" if index >= len(values) - 3 else ""
        cells.append(f"<td align='right'{shade}>{'<b>' + text + '</b>' if changed else text}</td>")
    return f"<tr><td>{title}</td>{''.join(cells)}</tr>"


def _change_row(paper: list, corrected: list) -> str:
    cells = []
    for index, (before, after) in enumerate(zip(paper, corrected)):
        shade = " bgcolor='#fafbfc'" if index >= len(paper) - 3 else ""
        if before is None or after is None:
            cells.append(f"<td align='right'{shade}>–</td>")
            continue
        points = round((after - before) * 100, 1)
        colour = UP_COLOUR if points > 0 else DOWN_COLOUR if points < 0 else MUTED_TEXT
        text = f"{points:+.1f}" if points else "0.0"
        cells.append(f"<td align='right'{shade} style='color:{colour}'>{text}</td>")
    return f"<tr><td style='color:{MUTED_TEXT}'>Change (points)</td>{''.join(cells)}</tr>"


def _precision_part(report: AuditReport) -> str:
    parts = ["<h3 style='margin:20px 0 4px 0'>Ground-truth precision</h3>"]
    estimate = report.gt_precision
    if estimate is None:
        return parts[0] + (f"<p style='color:{MUTED_TEXT}'>No ground-truth edge has a final verdict of correct, "
                           "real but not exercised, or wrong yet.</p>")
    parts.append(f"<p style='margin:0'>Ground-truth edges that are real calls: <b>{format_proportion(estimate)}</b>"
                 "</p>")
    parts.append(f"<p style='margin:2px 0 0 0; color:{MUTED_TEXT}'>Estimated from the sample over "
                 f"{estimate.strata} strata, effective n = {estimate.effective_n:.1f}. Method: "
                 f"{html.escape(estimate.method)}.</p>")
    return "".join(parts)


def _fp_part(report: AuditReport) -> str:
    parts = ["<h3 style='margin:20px 0 4px 0'>What the audited false positives are</h3>"]
    if not report.fp_breakdown:
        return parts[0] + f"<p style='color:{MUTED_TEXT}'>No model has a prediction on an audited program.</p>"
    head = ["Model", "Audited FPs", *(FP_OUTCOME_TITLES[o] for o in FP_OUTCOMES), "Real calls among judged"]
    header = "".join(f"<th align='{'left' if i == 0 else 'right'}'>{html.escape(h)}</th>" for i, h in enumerate(head))
    rows = []
    for breakdown in report.fp_breakdown:
        share = format_proportion(breakdown.real_share) if breakdown.real_share else NONE
        cells = [f"{breakdown.audited:,}", *(f"{breakdown.counts[o]:,}" for o in FP_OUTCOMES), share]
        rows.append(f"<tr><td>{html.escape(breakdown.model)}</td>"
                    + "".join(f"<td align='right'>{html.escape(c)}</td>" for c in cells) + "</tr>")
    parts.append(f"<table cellspacing='0' cellpadding='5'><tr bgcolor='{HEADER_BACKGROUND}'>{header}"
                 f"</tr>{''.join(rows)}</table>")
    parts.append(f"<p style='margin:4px 0 0 0; color:{MUTED_TEXT}'>Hallucinated: judged wrong. Real calls among "
                 "judged: the plain share of the audited FPs with a final verdict of correct, not exercised or "
                 "wrong, with its Wilson score interval (not weighted to the population).</p>")
    return "".join(parts)
