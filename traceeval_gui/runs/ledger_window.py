"""Model > Runs and Costs: the bill after the runs, one row per model run, stored model and language, with what
was asked, what failed, the tokens, the cost, the requests' time and the run's wall time (`core.llm.ledger`, the
same rows as `traceeval runs --ledger`). Read in the background (`LedgerJob`); the window never edits anything."""
from __future__ import annotations

from pathlib import Path

from PySide6.QtCore import Qt
from PySide6.QtWidgets import (
    QAbstractItemView,
    QDialog,
    QDialogButtonBox,
    QHeaderView,
    QLabel,
    QTableWidget,
    QTableWidgetItem,
    QVBoxLayout,
    QWidget,
)

from core.dataset.workspace import Workspace
from core.languages import registry
from core.llm.ledger import LedgerRow, ledger, money, totals
from traceeval_gui.state.jobs import Job, JobRunner, Progress
from traceeval_gui.widgets.form_parts import muted

COLUMNS = ("Run", "Model", "Language", "Seed", "Temp.", "Requests", "Failed", "Cached", "Tokens in", "Tokens out",
           "Cost", "Request s", "Wall s")
ROW_ROLE = Qt.ItemDataRole.UserRole  # every cell of a row carries its LedgerRow


class LedgerJob(Job):
    title = "reading the runs' ledger"

    def __init__(self, workspace_path: str | Path) -> None:
        super().__init__()
        self.workspace_path = Path(workspace_path)

    def work(self, progress: Progress) -> list[LedgerRow]:
        with Workspace(self.workspace_path) as ws:
            return ledger(ws)


class RunsLedgerWindow(QDialog):
    """The ledger of every model run in the workspace, with its totals."""

    def __init__(self, workspace_path: str | Path, jobs: JobRunner, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setWindowTitle("Runs and Costs")
        self.rows: list[LedgerRow] | None = None  # None while reading
        self.table = QTableWidget(0, len(COLUMNS))
        self.table.setHorizontalHeaderLabels(COLUMNS)
        self.table.verticalHeader().hide()
        self.table.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.table.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        self.table.setAlternatingRowColors(True)
        self.table.setShowGrid(False)
        header = self.table.horizontalHeader()
        header.setSectionResizeMode(QHeaderView.ResizeMode.ResizeToContents)
        header.setDefaultAlignment(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
        header.setSectionResizeMode(1, QHeaderView.ResizeMode.Stretch)  # the model names take the room left
        for column in range(3):
            self.table.horizontalHeaderItem(column).setTextAlignment(
                Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignVCenter)
        for column, tip in ((7, "Answers taken from the answer cache: not sent, not paid this time"),
                            (8, "Input tokens of fresh answers, as the endpoint reported them"),
                            (10, "From the price file given to the run (empty: no price known)"),
                            (11, "The answered requests' latencies, summed"),
                            (12, "The run's own wall time, shared by its languages")):
            self.table.horizontalHeaderItem(column).setToolTip(tip)
        self.summary = QLabel("Reading the runs…")
        self.summary.setTextFormat(Qt.TextFormat.RichText)
        note = muted("Tokens and cost are those of fresh answers; answers from the cache cost nothing. "
                     "The same rows: traceeval runs --ledger (--format json, jsonl, csv).")
        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Close)
        buttons.rejected.connect(self.reject)
        layout = QVBoxLayout(self)
        layout.addWidget(self.summary)
        layout.addWidget(self.table, 1)
        layout.addWidget(note)
        layout.addWidget(buttons)
        self.resize(1100, 480)
        self.job = LedgerJob(workspace_path)
        self.job.signals.finished.connect(self._on_job_finished)
        self.job.signals.failed.connect(self._on_job_failed)
        jobs.start(self.job)

    def _on_job_finished(self, rows: list[LedgerRow]) -> None:
        self.rows = rows
        self.table.setRowCount(len(rows))
        for index, row in enumerate(rows):
            language = registry.title(row.language) if registry.is_known(row.language) else row.language
            cells = (row.run_label, row.model, language, "" if row.seed is None else str(row.seed),
                     "" if row.temperature is None else f"{row.temperature:g}", f"{row.requests:,}",
                     f"{row.failed:,}", f"{row.cached:,}", f"{row.tokens_in:,}", f"{row.tokens_out:,}",
                     money(row.cost_usd), f"{row.request_s:.1f}", "" if row.wall_s is None else f"{row.wall_s:.1f}")
            for column, text in enumerate(cells):
                item = QTableWidgetItem(text)
                item.setData(ROW_ROLE, row)
                if column >= 3:
                    item.setTextAlignment(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
                if column == 6 and row.failed:
                    item.setForeground(Qt.GlobalColor.darkRed)
                self.table.setItem(index, column, item)
        self.summary.setText(summary_text(rows))

    def _on_job_failed(self, message: str) -> None:
        self.summary.setText(f"⚠ The ledger could not be read: {message}")


def summary_text(rows: list[LedgerRow]) -> str:
    if not rows:
        return "No model runs yet: Model > Run Model… asks a model and its requests are listed here."
    total = totals(rows)
    runs = len({row.run for row in rows})
    return (f"<b>{runs:,} run(s)</b>: {total['requests']:,} requests, {total['failed']:,} failed, "
            f"{total['tokens_in']:,} tokens in, {total['tokens_out']:,} out, <b>{money(total['cost_usd'])}</b>, "
            f"{total['wall_s']:.1f} s of wall time")

