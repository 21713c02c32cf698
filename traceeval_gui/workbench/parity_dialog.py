"""Help ▸ Check Paper Parity: the open workspace's table, prompts and answer readings against the user's
TraceEval release (`core.release.parity`), run in the background, with the verdict cell by cell.

The release is the window's (Model ▸ TraceEval Release…, else found by itself, which is asked about first:
`traceeval_gui.runs.release_confirmation`); without one the dialog says where to set it. The check runs the
release's own scripts in the tracer sandbox (`tracers.release_sandbox`), so it takes seconds on a large dataset;
the dialog stays responsive and can be closed meanwhile.
"""
from __future__ import annotations

import html
from pathlib import Path

from PySide6.QtCore import Qt
from PySide6.QtGui import QGuiApplication
from PySide6.QtWidgets import QDialog, QDialogButtonBox, QLabel, QPushButton, QTextBrowser, QVBoxLayout, QWidget

from core.dataset.workspace import Workspace
from core.errors import ReleaseError, UnconfirmedRelease
from core.languages import registry
from core.release.checkout import Release
from core.release.parity import AVERAGE, ParityReport, check_parity, render_parity
from core.scoring.scores import Selection
from traceeval_gui.runs.release_confirmation import confirm_in_dialog
from traceeval_gui.state.app_state import AppState
from traceeval_gui.state.jobs import Job, Progress
from traceeval_gui.theme.style import MUTED_TEXT
from traceeval_gui.theme.trace_text import GREEN
from traceeval_gui.widgets.answer_text import WARNING_TEXT
from traceeval_gui.widgets.window_layout import fit_on_screen
from tracers.release_sandbox import run_release

ERROR_COLOUR = "#c62828"
NO_RELEASE = ("No TraceEval release to check against. Set your checkout of it in Model ▸ TraceEval Release… "
              "(or open the dataset inside the checkout), then check again.")


class ParityJob(Job):
    title = "checking paper parity"

    def __init__(self, workspace_path: str | Path, release: Release, selection: Selection) -> None:
        super().__init__()
        self.workspace_path, self.release, self.selection = workspace_path, release, selection

    def work(self, progress: Progress) -> ParityReport:
        with Workspace(self.workspace_path) as ws:
            return check_parity(ws, self.release, self.selection, progress=progress, runner=run_release)


class ParityDialog(QDialog):
    def __init__(self, state: AppState, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setWindowTitle("Paper Parity")
        self.state = state
        self.report: ParityReport | None = None
        self.job: ParityJob | None = None
        intro = QLabel("Runs your TraceEval release's own scripts (compute_metrics, run_llm) in the sandbox on this "
                       "workspace's results and a sample of its programs, and compares them with this tool under the "
                       "paper's rules: the table cell by cell, prompts byte for byte, answers as parsed.")
        intro.setWordWrap(True)
        intro.setStyleSheet(f"color: {MUTED_TEXT};")
        self.status = QLabel()
        self.status.setTextFormat(Qt.TextFormat.RichText)
        self.status.setWordWrap(True)
        self.browser = QTextBrowser()
        self.browser.setOpenLinks(False)
        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Close)
        self.check_button = buttons.addButton("Check Again", QDialogButtonBox.ButtonRole.ActionRole)
        self.copy_button = QPushButton("Copy Report")
        buttons.addButton(self.copy_button, QDialogButtonBox.ButtonRole.ActionRole)
        self.check_button.clicked.connect(self.check)
        self.copy_button.clicked.connect(self._on_copy_clicked)
        buttons.rejected.connect(self.reject)
        layout = QVBoxLayout(self)
        layout.addWidget(intro)
        layout.addWidget(self.status)
        layout.addWidget(self.browser, 1)
        layout.addWidget(buttons)
        fit_on_screen(self, 880, 620)
        self.check()

    def check(self) -> None:
        """Start the check in the background (the dialog shows why when it cannot)."""
        self.report, self.job = None, None
        self.copy_button.setEnabled(False)
        self.browser.clear()
        opened = self.state.opened
        if opened is None:
            self._say("Open a dataset first.", ERROR_COLOUR)
            return
        try:
            release = self.state.confirmed_release(self.state.release_path,
                                                   confirm_in_dialog(self.parentWidget() or self))
        except UnconfirmedRelease as declined:
            self._say(f"Not checked: the release found next to the dataset ({html.escape(declined.checkout)}) is not "
                      "confirmed. Check Again asks again; or name it in Model ▸ TraceEval Release…", WARNING_TEXT)
            return
        except ReleaseError as error:
            self._say(html.escape(str(error)), ERROR_COLOUR)
            return
        if release is None:
            self._say(NO_RELEASE, WARNING_TEXT)
            return
        job = ParityJob(opened.workspace_path, release, Selection(split=opened.default_split))
        job.signals.progressed.connect(self._on_job_progressed)
        job.signals.finished.connect(self._on_job_finished)
        job.signals.failed.connect(self._on_job_failed)
        self.job = job
        self.check_button.setEnabled(False)
        self._say(f"Checking against {html.escape(str(release.script))} in the sandbox…", MUTED_TEXT)
        self.state.jobs.start(job)

    def _say(self, text: str, colour: str) -> None:
        self.status.setText(f"<span style='color:{colour}'>{text}</span>")
        self.check_button.setEnabled(self.job is None)

    def _on_job_progressed(self, _done: int, _total: int, message: str) -> None:
        if self.sender() is getattr(self.job, "signals", None):
            self._say(f"{html.escape(message)}…", MUTED_TEXT)

    def _on_job_finished(self, report: ParityReport) -> None:
        if self.sender() is not getattr(self.job, "signals", None):
            return
        self.job, self.report = None, report
        if report.agrees:
            self._say(f"<b>Full agreement</b> with the release ({report.counts_text}).", GREEN)
        else:
            self._say(f"<b>{report.differences} difference{'s' if report.differences != 1 else ''}</b> from the "
                      f"release ({report.counts_text}).", ERROR_COLOUR)
        self.browser.setHtml(report_html(report))
        self.copy_button.setEnabled(True)

    def _on_job_failed(self, message: str) -> None:
        if self.sender() is getattr(self.job, "signals", None):
            self.job = None
            self._say(f"⚠ {html.escape(message)}", ERROR_COLOUR)

    def _on_copy_clicked(self) -> None:
        if self.report is not None:
            QGuiApplication.clipboard().setText(render_parity(self.report))


def report_html(report: ParityReport) -> str:
    head = "".join(f"<th align='right'>{h}</th>" for h in ("Programs", "TP", "FP", "FN", "P", "R", "F1"))
    rows = []
    for cell in report.cells:
        mark = f"<span style='color:{GREEN}'>✓</span>" if cell.agrees else \
            f"<span style='color:{ERROR_COLOUR}'>✗</span>"
        values = []
        for quantity in ("programs", "tp", "fp", "fn", "precision", "recall", "f1"):
            ours, theirs = cell.ours.get(quantity), cell.theirs.get(quantity)
            text = "" if ours is None else _value(ours)
            if quantity in cell.differs:
                text = f"<span style='color:{ERROR_COLOUR}'>{text} ≠ {_value(theirs)}</span>"
            values.append(f"<td align='right'>{text}</td>")
        language = registry.title(cell.language, "Average" if cell.language == AVERAGE else cell.language)
        rows.append(f"<tr><td>{mark}</td><td>{html.escape(cell.model)}</td><td>{language}</td>{''.join(values)}</tr>")
    items = []
    for title, checks in (("Prompts", report.prompts), ("Answers read", report.answers)):
        wrong = [c for c in checks if not c.agrees]
        items.append(f"<p><b>{title}</b>: {len(checks) - len(wrong)} of {len(checks)} agree</p>")
        items += [f"<p style='margin-left:12px; color:{ERROR_COLOUR}'>✗ {html.escape(c.key)}"
                  f"{' (' + html.escape(c.model) + ')' if c.model else ''}: {html.escape(c.detail)}</p>" for c in wrong]
    notes = "".join(f"<p style='color:{WARNING_TEXT}'>Note: {html.escape(note)}</p>" for note in report.notes)
    return (f"<p style='color:{MUTED_TEXT}'>Release {html.escape(report.release)} (sha256 {report.sha256[:12]}, "
            f"scripts sha256 {report.scripts_sha256[:12]}), run with {html.escape(report.python)} (Python "
            f"{html.escape(report.python_version)}) in the sandbox ({html.escape(report.sandbox)}); "
            f"{html.escape(report.selection.split or 'all splits')}, paper rules, all normalisation modes. "
            "Where a value differs it reads: this tool ≠ the release.</p>"
            f"<table cellspacing='0' cellpadding='4'><tr><th></th><th align='left'>Model</th>"
            f"<th align='left'>Language</th>{head}</tr>{''.join(rows)}</table>{''.join(items)}{notes}")


def _value(value) -> str:
    return "—" if value is None else f"{value * 100:.2f}" if isinstance(value, float) else f"{value:,}"
