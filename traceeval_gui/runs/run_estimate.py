"""The Run Model dialog's estimate: prompts to send, input and output tokens and, with a price per
million tokens for the model (remembered per model in the settings), the cost; it follows the
dialog's options, computed in the background (`DryRunJob`) a moment after they stop changing; a price
change only prices the estimate again."""
from __future__ import annotations

import dataclasses
import html
from collections.abc import Sequence
from pathlib import Path
from urllib.parse import quote

from PySide6.QtCore import QLocale, QSettings, Qt, QTimer, Signal
from PySide6.QtGui import QDoubleValidator
from PySide6.QtWidgets import QHBoxLayout, QLabel, QLineEdit, QVBoxLayout, QWidget

from core.llm.dry_run import DryRun
from core.llm.endpoints import RunSettings
from core.llm.prices import Price, PriceTable
from core.llm.prompt_wording import PromptWording
from core.wording import count
from traceeval_gui.runs.dry_run_job import DryRunJob
from traceeval_gui.state.jobs import JobRunner
from traceeval_gui.widgets.form_parts import layout_widget

DELAY_MS = 150  # after the last change of an option
PRICE_FIELDS = ("input_per_mtok", "output_per_mtok")


class RunEstimateView(QWidget):
    estimated = Signal(object)  # DryRun
    failed = Signal(str)

    def __init__(self, jobs: JobRunner, settings: QSettings | None = None, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.jobs = jobs
        self.settings = settings
        self.estimate: DryRun | None = None
        self.batch = False  # priced as a provider batch (the price's batch discount off)
        self._job: DryRunJob | None = None
        self._model = ""
        self._pending: tuple | None = None
        self._timer = QTimer(self)
        self._timer.setSingleShot(True)
        self._timer.setInterval(DELAY_MS)
        self._timer.timeout.connect(self._start)
        self.label = QLabel()  # prompts and tokens
        self.label.setWordWrap(True)
        self.label.setMinimumHeight(2 * self.label.fontMetrics().lineSpacing())
        self.cost_label = QLabel()
        self.cost_label.setWordWrap(True)
        self.price_edits = {name: _price_edit() for name in PRICE_FIELDS}
        row = QHBoxLayout()
        for text, name in (("Price per million tokens: input $", "input_per_mtok"), ("output $", "output_per_mtok")):
            row.addWidget(QLabel(text))
            row.addWidget(self.price_edits[name])
        row.addSpacing(12)
        row.addWidget(self.cost_label, 1)
        for label in (self.label, self.cost_label):
            label.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(self.label)
        layout.addWidget(layout_widget(row))
        for edit in self.price_edits.values():
            edit.textEdited.connect(self._on_price_edited)

    # -- prices ---------------------------------------------------------------------------
    def price(self) -> Price | None:
        """The typed prices; None unless both are given."""
        values = [_number(edit.text()) for edit in self.price_edits.values()]
        return Price(*values) if all(value is not None for value in values) else None

    def prices(self) -> PriceTable | None:
        """The typed prices as a table for the model (what the run records its cost with)."""
        price = self.price()
        return PriceTable({self._model: price}) if price is not None and self._model else None

    def set_model(self, model: str) -> None:
        """The endpoint's model id changed: its remembered prices, if any, fill the fields."""
        self._model = model.strip()
        if self.settings is None or not self._model:
            return
        stored = [self.settings.value(_price_key(self._model, name)) for name in PRICE_FIELDS]
        if any(value not in (None, "") for value in stored):
            for edit, value in zip(self.price_edits.values(), stored):
                edit.setText(str(value or ""))
            self._show_priced()

    def _on_price_edited(self) -> None:
        if self.settings is not None and self._model:
            for name, edit in self.price_edits.items():
                self.settings.setValue(_price_key(self._model, name), edit.text().strip())
        self._show_priced()

    def _show_priced(self) -> None:
        if self.estimate is not None:
            self.estimate = dataclasses.replace(self.estimate, price=self.price(), batch=self.batch)
            self.label.setText(estimate_text(self.estimate))
            self.cost_label.setText(cost_text(self.estimate))
            self.estimated.emit(self.estimate)

    def set_batch(self, batch: bool) -> None:
        """Price the estimate as a provider batch, or not (what is sent stays the same)."""
        self.batch = batch
        self._show_priced()

    # -- the estimate ---------------------------------------------------------------------
    def request(self, workspace_path: str | Path, keys: Sequence[str], settings: RunSettings,
                wording: PromptWording, redo: bool) -> None:
        """Estimate for these options a moment from now (a newer request replaces it)."""
        self._pending = (workspace_path, tuple(keys), settings, wording, redo)
        self.label.setText("Estimating…")
        self.cost_label.clear()
        self._timer.start()

    def show_problem(self, message: str) -> None:
        """No estimate can be made (no model id, a bad option): say why instead."""
        self._timer.stop()
        self._pending = None
        self.cancel()
        self.estimate = None
        self.label.setText(f"No estimate: {html.escape(message)}")
        self.cost_label.clear()

    def cancel(self) -> None:
        if self._job is not None:
            self._job.cancel()
            self._job = None

    def _start(self) -> None:
        if self._pending is None:
            return
        self.cancel()
        self._job = DryRunJob(*self._pending)
        self._job.signals.finished.connect(self._on_job_finished)
        self._job.signals.failed.connect(self._on_job_failed)
        self.jobs.start(self._job)

    def _is_current(self) -> bool:
        return self._job is not None and self.sender() is self._job.signals

    def _on_job_finished(self, estimate: DryRun) -> None:
        if not self._is_current():
            return
        self._job = None
        self.estimate = estimate
        self._show_priced()

    def _on_job_failed(self, message: str) -> None:
        if not self._is_current():
            return
        self._job = None
        self.estimate = None
        self.label.setText(f"No estimate: {html.escape(message)}")
        self.cost_label.clear()
        self.failed.emit(message)


def estimate_text(estimate: DryRun) -> str:
    """What is sent and what comes back (rich text)."""
    if not estimate.prompts:
        return "<b>Nothing to send</b>: every selected program is answered already."
    output = estimate.output
    return (f"<b>{count(estimate.prompts, 'prompt')} to send</b> ({count(estimate.questions, 'question')}): "
            f"≈{estimate.input_tokens:,} input tokens ({estimate.characters:,} characters; counted: "
            f"{html.escape(estimate.tokenizer)}), "
            f"≈{estimate.output_tokens:,} output tokens ({output.tokens_per_question:.1f} per question, "
            f"{html.escape(output.basis)})")


def cost_text(estimate: DryRun) -> str:
    if estimate.cost is None:
        return "Cost: unknown (give both prices)" if estimate.prompts else ""
    batch = f"; batch price, {estimate.price_factor:.0%} of the list price" if estimate.batch else ""
    return (f"Cost: <b>≈{dollars(estimate.cost)}</b> (input {dollars(estimate.input_cost)} + output "
            f"{dollars(estimate.output_cost)}{batch})")


def dollars(amount: float) -> str:
    """Cents for a dollar or more, else two significant digits: $0.0059 says more than $0.00."""
    return f"${amount:,.2f}" if amount >= 1 or amount == 0 else f"${amount:.2g}"


def _price_edit() -> QLineEdit:
    edit = QLineEdit()
    validator = QDoubleValidator(0.0, 1_000_000.0, 4, edit)
    validator.setNotation(QDoubleValidator.Notation.StandardNotation)
    validator.setLocale(QLocale.c())
    edit.setValidator(validator)
    edit.setPlaceholderText("unknown")
    edit.setMaximumWidth(64)
    edit.setToolTip("US dollars per million tokens, remembered for this model id")
    return edit


def _number(text: str) -> float | None:
    try:
        value = float(text.strip())
    except ValueError:
        return None
    return value if value >= 0 else None


def _price_key(model: str, field: str) -> str:
    return f"prices/{quote(model, safe='')}/{field}"
