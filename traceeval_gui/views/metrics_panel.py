"""The paper table for the open workspace: P / R / F1 per language (micro) and their average."""
from __future__ import annotations

import html

from PySide6.QtCore import Signal
from PySide6.QtGui import QGuiApplication
from PySide6.QtWidgets import QComboBox, QHBoxLayout, QLabel, QMenu, QTextBrowser, QToolButton, QVBoxLayout, \
    QWidget

from core.model import LANGUAGE_TITLES
from core.scoring import ScoreTable, Selection
from core.tables import DAGGER, METRIC_LABELS, describe_selection, footnotes, render_table
from traceeval_gui.app_state import AppState
from traceeval_gui.jobs import ScoreTableJob
from traceeval_gui.views.style import MUTED_TEXT

SPLIT_CHOICES = (("test", "Test split"), ("train", "Train split"), (None, "All splits"))
COPY_FORMATS = (("md", "Markdown"), ("latex", "LaTeX"), ("csv", "CSV"), ("text", "Plain text"))
HEADER_BACKGROUND = "#f1f3f4"


class MetricsPanel(QWidget):
    table_changed = Signal()  # a new table is shown
    copied = Signal(str)  # what was put on the clipboard, for the status bar

    def __init__(self, state: AppState, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.state = state
        self.table: ScoreTable | None = None
        self._pending: ScoreTableJob | None = None  # the latest request; older results are dropped
        self.split_combo = QComboBox()
        self.split_combo.setToolTip("Which programs are scored")
        self.split_combo.currentIndexChanged.connect(self._on_split_combo_changed)
        self.copy_button = QToolButton()
        self.copy_button.setText("Copy table as")
        self.copy_button.setPopupMode(QToolButton.ToolButtonPopupMode.InstantPopup)
        menu = QMenu(self.copy_button)
        for fmt, title in COPY_FORMATS:
            menu.addAction(title).setData(fmt)
        menu.triggered.connect(self._on_copy_menu_triggered)
        self.copy_button.setMenu(menu)
        self.status = QLabel()
        self.status.setStyleSheet(f"color: {MUTED_TEXT};")
        top = QHBoxLayout()
        top.setContentsMargins(8, 6, 8, 6)
        top.addWidget(QLabel("Programs:"))
        top.addWidget(self.split_combo)
        top.addWidget(self.status, 1)
        top.addWidget(self.copy_button)
        self.browser = QTextBrowser()
        self.browser.setOpenLinks(False)
        self.browser.setFrameShape(QTextBrowser.Shape.NoFrame)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.setSpacing(0)
        layout.addLayout(top)
        layout.addWidget(self.browser, 1)
        state.dataset_opened.connect(self._on_state_dataset_opened)
        self._show(None)

    # -- slots ----------------------------------------------------------------------------
    def _on_state_dataset_opened(self) -> None:
        opened = self.state.opened
        splits = self.state.workspace.split_names() if self.state.workspace else set()
        self.split_combo.blockSignals(True)
        self.split_combo.clear()
        for split, title in SPLIT_CHOICES:
            if split is None or split in splits:
                self.split_combo.addItem(title, split)
        self.split_combo.setCurrentIndex(max(0, self.split_combo.findData(opened.default_split)))
        self.split_combo.blockSignals(False)
        self._show(opened.table)

    def _on_split_combo_changed(self, _index: int) -> None:
        if self.state.opened is None:
            return
        selection = Selection(split=self.split_combo.currentData())
        if self._pending is not None:
            self._pending.cancel()
        job = ScoreTableJob(self.state.opened.workspace_path, selection)
        job.signals.finished.connect(self._on_score_job_finished)
        job.signals.failed.connect(self._on_score_job_failed)
        self._pending = job
        self.status.setText("scoring…")
        self.state.jobs.start(job)

    def _on_score_job_finished(self, table: ScoreTable) -> None:
        if table.selection.split != self.split_combo.currentData():
            return  # an older request
        self._pending = None
        self._show(table)

    def _on_score_job_failed(self, message: str) -> None:
        self._pending = None
        self.status.setText(f"⚠ {message}")

    def _on_copy_menu_triggered(self, action) -> None:
        if self.table is None:
            return
        fmt = action.data()
        QGuiApplication.clipboard().setText(render_table(self.table, fmt))
        self.copied.emit(f"Copied the metrics table as {action.text()}")

    # -- rendering ------------------------------------------------------------------------
    def _show(self, table: ScoreTable | None) -> None:
        self.table = table
        self.copy_button.setEnabled(table is not None and bool(table.rows))
        self.status.setText("")
        self.browser.setHtml(table_html(table) if table is not None else
                             f"<p style='color:{MUTED_TEXT}'>Open a dataset to see its scores.</p>")
        self.table_changed.emit()


def table_html(table: ScoreTable) -> str:
    """The paper's layout as rich text: languages spanning P / R / F1, best value per column in bold."""
    columns = [*table.languages, "average"]
    values = [[_cell(row, column, metric) for column in columns for metric, _ in METRIC_LABELS]
              for row in table.rows]
    best = [max((v for v in column if v is not None), default=None) for column in zip(*values)] if values else []
    head1 = "".join(f"<th colspan='3' align='center'>{LANGUAGE_TITLES.get(c, 'Average')}</th>" for c in columns)
    head2 = "".join(f"<th align='right'>{label}</th>" for _ in columns for _, label in METRIC_LABELS)
    body = []
    for row, row_values in zip(table.rows, values):
        label = html.escape(row.model) + (f" {DAGGER}" if row.illustrative else "")
        cells = []
        for index, value in enumerate(row_values):
            text = "–" if value is None else f"{value * 100:.1f}"
            bold = value is not None and len(table.rows) > 1 and value == best[index]
            shade = " bgcolor='#fafbfc'" if index // 3 == len(columns) - 1 else ""
            cells.append(f"<td align='right'{shade}>{'<b>' + text + '</b>' if bold else text}</td>")
        body.append(f"<tr><td>{label}</td>{''.join(cells)}</tr>")
    if not body:
        body.append(f"<tr><td colspan='{1 + 3 * len(columns)}' style='color:{MUTED_TEXT}'>"
                    "No models: import results first (traceeval import-results).</td></tr>")
    notes = "".join(f"<p style='margin:2px 0; color:{MUTED_TEXT}'>{html.escape(note)}</p>"
                    for note in footnotes(table))
    return (f"<p style='margin:4px 0 8px 0'>{html.escape(describe_selection(table))}</p>"
            f"<table cellspacing='0' cellpadding='5' width='100%'>"
            f"<tr bgcolor='{HEADER_BACKGROUND}'><th rowspan='2' align='left'>Model</th>{head1}</tr>"
            f"<tr bgcolor='{HEADER_BACKGROUND}'>{head2}</tr>{''.join(body)}</table>"
            f"<div style='margin-top:8px'>{notes}</div>")


def _cell(row, column: str, metric: str) -> float | None:
    if column == "average":
        scored = any(result.programs for result in row.languages.values())
        return getattr(row.average, metric) if scored else None
    result = row.languages[column]
    return getattr(result.scores, metric) if result.programs else None
