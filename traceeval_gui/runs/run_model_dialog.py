"""The "Run Model" dialog: endpoint, model, which programs, and the request parameters.

It only gathers a `ModelRunRequest`; the window starts the job. The prompts take their words from
the TraceEval release named here (the window's setting, which this field updates; one found next to the
dataset is asked about first), else this project's wording, and the dialog says which. The API key typed here
is used for this run and, only when asked, saved in the user's credentials file (mode 0600), never in
the workspace. The counts line says how many programs will really be asked (answered ones are
skipped unless "ask again" is ticked), so nobody sends 2,000 prompts by accident, and the estimate
below it what they would cost (prompts, tokens and, with prices, dollars: `RunEstimateView`).
"""
from __future__ import annotations

import os
from collections.abc import Sequence
from dataclasses import dataclass

from PySide6.QtCore import QSettings
from PySide6.QtGui import QFontDatabase
from PySide6.QtWidgets import (
    QCheckBox,
    QComboBox,
    QDialog,
    QDialogButtonBox,
    QDoubleSpinBox,
    QFormLayout,
    QGroupBox,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QPlainTextEdit,
    QVBoxLayout,
    QWidget,
)

from core.errors import TraceEvalError
from core.llm.endpoints import KEY_ENV_VARS, RunSettings, credentials_path, load_recent_endpoints, resolve_api_key
from core.llm.prices import PriceTable
from core.llm.prompt_wording import STUDIO_WORDING, PromptWording
from core.llm.prompts import approximate_tokens, build_prompt
from traceeval_gui.runs.program_scope import ProgramScope
from traceeval_gui.runs.release_confirmation import confirm_in_dialog
from traceeval_gui.runs.release_field import ReleaseField
from traceeval_gui.runs.run_estimate import RunEstimateView
from traceeval_gui.state.app_state import AppState, release_problem_text
from traceeval_gui.widgets.form_parts import layout_widget, muted, spin_box
from traceeval_gui.widgets.window_layout import fit_on_screen

DEFAULT_BASE_URL = "http://localhost:8000/v1"
ENDPOINT_TITLE = "Endpoint (OpenAI-compatible chat completions)"
SEND_CHOICES = (("One request per program (chat completions, answers as they come)", None),
                ("As a batch: OpenAI Batch API (half the price, within 24 hours)", "openai"),
                ("As a batch: Anthropic Message Batches (half the price, within 24 hours)", "anthropic"))
BATCH_TITLES = {"openai": "Endpoint (OpenAI Batch API: files and batches)",
                "anthropic": "Endpoint (Anthropic Message Batches)"}
SEND_NOTES = {
    None: "Each program is one request; its answer is stored the moment it arrives.",
    "batch": "Answers are collected while the window stays open; after Cancel or a restart, run the model as a "
             "batch again (or <code>traceeval batch collect</code>). The cost below is the batch price.",
}
TOKEN_LIMIT_CHOICES = (("both fields (the paper's), one alone if refused", ""),
                       ("both fields, always", "both"), ("max_tokens only", "max_tokens"),
                       ("max_completion_tokens only", "max_completion_tokens"))
ERROR_COLOUR = "#c62828"


@dataclass(frozen=True)
class ModelRunRequest:
    settings: RunSettings
    keys: tuple[str, ...]
    api_key: str | None
    remember_key: bool
    redo: bool
    wording: PromptWording = STUDIO_WORDING
    prices: PriceTable | None = None  # what the run records each answer's cost with
    batch_provider: str | None = None  # "openai" or "anthropic": sent as a provider batch (core.llm.batches)


class RunModelDialog(QDialog):
    def __init__(self, state: AppState, listed_keys: Sequence[str], parent: QWidget | None = None,
                 settings: QSettings | None = None) -> None:
        super().__init__(parent)
        self.setWindowTitle("Run Model")
        self.state = state
        self.request: ModelRunRequest | None = None
        layout = QVBoxLayout(self)
        layout.addWidget(self._endpoint_group())
        self.programs = ProgramScope(state, listed_keys)
        self.scope_buttons, self.split_combo = self.programs.scope_buttons, self.programs.split_combo
        self.language_boxes, self.limit_spin = self.programs.language_boxes, self.programs.limit_spin
        layout.addWidget(self.programs)
        layout.addWidget(self._prompt_group())
        layout.addWidget(self._parameters_group())
        self.counts_label = QLabel()
        self.estimate_view = RunEstimateView(state.jobs, settings)
        layout.addWidget(self._estimate_group())
        self.error_label = QLabel()
        self.error_label.setStyleSheet(f"color: {ERROR_COLOUR};")
        self.error_label.setWordWrap(True)
        self.error_label.hide()
        layout.addWidget(self.error_label)
        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Cancel)
        self.run_button = buttons.addButton("Run", QDialogButtonBox.ButtonRole.AcceptRole)
        self.run_button.setDefault(True)
        self.preview_button = buttons.addButton("Preview Prompt…", QDialogButtonBox.ButtonRole.HelpRole)
        buttons.accepted.connect(self._on_run_clicked)
        buttons.rejected.connect(self.reject)
        self.preview_button.clicked.connect(self._on_preview_clicked)
        layout.addWidget(buttons)
        self.model_edit.textChanged.connect(self.estimate_view.set_model)
        for signal in (self.model_edit.textChanged, self.name_edit.textChanged, self.redo_box.toggled,
                       self.programs.changed, self.max_tokens_spin.valueChanged, self.release_field.changed):
            signal.connect(self._update_counts)
        self.url_combo.currentTextChanged.connect(self._update_key_hint)
        self.send_combo.currentIndexChanged.connect(self._on_send_changed)
        self._restore_last_settings()
        self.estimate_view.set_model(self.model_edit.text())
        self._update_key_hint()
        self._update_counts()
        fit_on_screen(self, 560, self.sizeHint().height())
        self.send_note.setText(SEND_NOTES[None])

    # -- building -------------------------------------------------------------------------
    def _endpoint_group(self) -> QGroupBox:
        group = self.endpoint_group = QGroupBox(ENDPOINT_TITLE)
        form = QFormLayout(group)
        recent = load_recent_endpoints()
        self.url_combo = QComboBox()
        self.url_combo.setEditable(True)
        urls = list(dict.fromkeys([r.get("base_url", "") for r in recent if r.get("base_url")] + [DEFAULT_BASE_URL]))
        self.url_combo.addItems(urls)
        self.url_combo.setToolTip("e.g. https://api.openai.com/v1, a vLLM server (http://host:8000/v1) or Ollama "
                                  "(http://localhost:11434/v1)")
        self.model_edit = QLineEdit(recent[0].get("model", "") if recent else "")
        self.model_edit.setPlaceholderText("model id, e.g. gpt-4o-mini or Qwen/Qwen2.5-Coder-7B-Instruct")
        self.name_edit = QLineEdit()
        self.name_edit.setPlaceholderText("name in the workspace (default: the model id)")
        self.key_edit = QLineEdit()
        self.key_edit.setEchoMode(QLineEdit.EchoMode.Password)
        self.remember_box = QCheckBox(f"Remember the key for this endpoint (in {credentials_path()}, "
                                      "readable only by you)")
        self.remember_box.setToolTip("Keys are never written to the workspace or the logs")
        self.send_combo = QComboBox()
        for text, provider in SEND_CHOICES:
            self.send_combo.addItem(text, provider)
        self.send_combo.setToolTip("A batch API answers within 24 hours at half the price, without rate limits")
        self.send_note = muted(SEND_NOTES["batch"])  # the longer text sizes the dialog; set to the choice below
        self.send_note.setMinimumHeight(3 * self.send_note.fontMetrics().lineSpacing())  # a form clips wrapped text
        form.addRow("Send:", self.send_combo)
        form.addRow("", self.send_note)
        form.addRow("Base URL:", self.url_combo)
        form.addRow("Model:", self.model_edit)
        form.addRow("Name:", self.name_edit)
        form.addRow("API key:", self.key_edit)
        form.addRow("", self.remember_box)
        return group

    def _prompt_group(self) -> QGroupBox:
        group = QGroupBox("Prompt wording: your TraceEval release")
        self.release_field = ReleaseField(self.state.release_path,
                                          self.state.opened.root if self.state.opened else None)
        layout = QVBoxLayout(group)
        layout.addWidget(self.release_field)
        return group

    def _parameters_group(self) -> QGroupBox:
        group = QGroupBox("Requests")
        form = QFormLayout(group)
        self.concurrency_spin = spin_box(1, 64, 4, "requests in flight at once")
        self.temperature_spin = QDoubleSpinBox()
        self.temperature_spin.setRange(0.0, 2.0)
        self.temperature_spin.setSingleStep(0.1)
        self.temperature_spin.setToolTip("The paper decodes at temperature 0")
        self.max_tokens_spin = spin_box(1, 262_144, 4096, "output token limit (the paper's is 4,096)")
        self.timeout_spin = spin_box(1, 3600, 300, "seconds per request")
        self.retries_spin = spin_box(0, 20, 5, "retries on 429, 5xx and timeouts, with backoff")
        self.cache_box = QCheckBox("Use cached answers (same prompt, model and parameters)")
        self.cache_box.setChecked(True)
        self.redo_box = QCheckBox("Ask again for programs this model already answered")
        numbers = QHBoxLayout()
        for label, widget in (("Concurrency", self.concurrency_spin), ("Temperature", self.temperature_spin),
                              ("Max tokens", self.max_tokens_spin), ("Timeout (s)", self.timeout_spin),
                              ("Retries", self.retries_spin)):
            numbers.addWidget(QLabel(label))
            numbers.addWidget(widget)
        numbers.addStretch(1)
        boxes = QHBoxLayout()
        boxes.addWidget(self.cache_box)
        boxes.addWidget(self.redo_box)
        boxes.addStretch(1)
        self.limit_field_combo = QComboBox()
        for title, field in TOKEN_LIMIT_CHOICES:
            self.limit_field_combo.addItem(title, field)
        self.limit_field_combo.setToolTip("The request field(s) naming the output token limit. The paper sends "
                                          "max_tokens and max_completion_tokens; OpenAI's o-series and GPT-5 refuse "
                                          "max_tokens, and some providers refuse the pair.")
        limit = QHBoxLayout()
        limit.addWidget(QLabel("Token limit sent as"))
        limit.addWidget(self.limit_field_combo)
        limit.addStretch(1)
        form.addRow(layout_widget(numbers))
        form.addRow(layout_widget(limit))
        form.addRow(layout_widget(boxes))
        return group

    def _estimate_group(self) -> QGroupBox:
        group = QGroupBox("To send")
        layout = QVBoxLayout(group)
        layout.addWidget(self.counts_label)
        layout.addWidget(self.estimate_view)
        return group

    def _restore_last_settings(self) -> None:
        """Start from the endpoint used last (its URL and model are already first in their fields)."""
        recent = load_recent_endpoints()
        try:
            last = RunSettings.from_params(recent[0]) if recent else None
        except (TraceEvalError, TypeError):  # an entry written by hand or by another version
            last = None
        if last is None:
            return
        self.name_edit.setText(last.name)
        self.concurrency_spin.setValue(last.concurrency)
        self.temperature_spin.setValue(last.temperature)
        self.max_tokens_spin.setValue(last.max_tokens)
        self.timeout_spin.setValue(round(last.timeout_s))
        self.retries_spin.setValue(last.retries)
        self.cache_box.setChecked(last.use_cache)
        self.limit_field_combo.setCurrentIndex(max(0, self.limit_field_combo.findData(last.token_limit_field)))

    # -- what would run -------------------------------------------------------------------
    def selected_keys(self) -> list[str]:
        return self.programs.selected_keys()

    def stored_name(self) -> str:
        return self.name_edit.text().strip() or self.model_edit.text().strip()

    def keys_to_ask(self, keys: Sequence[str]) -> list[str]:
        name = self.stored_name()
        if self.redo_box.isChecked() or not name or self.state.workspace is None:
            return list(keys)
        answered = self.state.workspace.predicted_keys(name)
        return [key for key in keys if key not in answered]

    def _update_counts(self) -> None:
        keys = self.selected_keys()
        todo = self.keys_to_ask(keys)
        skipped = len(keys) - len(todo)
        text = f"{len(keys):,} program{'s' if len(keys) != 1 else ''} selected"
        if skipped:
            text += f", {skipped:,} already answered by {self.stored_name()} (skipped)"
        text += f": <b>{len(todo):,} to ask</b>"
        self.counts_label.setText(text)
        self.run_button.setEnabled(bool(todo) and bool(self.model_edit.text().strip()))
        self.preview_button.setEnabled(bool(keys))
        self._request_estimate(keys)

    def _request_estimate(self, keys: Sequence[str]) -> None:
        if self.state.opened is None:
            return
        try:
            settings = self._settings(estimate=True)
            wording = self.release_field.wording()
        except TraceEvalError as error:  # (a found release not confirmed yet: Run and Preview ask first)
            self.estimate_view.show_problem(release_problem_text(error))
            return
        self.estimate_view.request(self.state.opened.workspace_path, keys, settings, wording,
                                   self.redo_box.isChecked())

    def _update_key_hint(self) -> None:
        for variable in KEY_ENV_VARS:
            if os.environ.get(variable):
                self.key_edit.setPlaceholderText(f"leave empty to use ${variable}")
                return
        self.key_edit.setPlaceholderText("leave empty for a saved key, or none (local servers need none)")

    def _settings(self, estimate: bool = False) -> RunSettings:
        """The run's settings; `estimate`: any URL will do (the estimate sends nothing)."""
        url = self.url_combo.currentText().strip()
        return RunSettings(base_url=DEFAULT_BASE_URL if estimate else url, model=self.model_edit.text().strip(),
                           name=self.name_edit.text().strip(), temperature=self.temperature_spin.value(),
                           max_tokens=self.max_tokens_spin.value(), timeout_s=float(self.timeout_spin.value()),
                           concurrency=self.concurrency_spin.value(), retries=self.retries_spin.value(),
                           use_cache=self.cache_box.isChecked(),
                           token_limit_field=self.limit_field_combo.currentData() or "")

    def done(self, result: int) -> None:
        self.estimate_view.cancel()  # closed: its estimate is of no use any more
        super().done(result)

    # -- slots ----------------------------------------------------------------------------
    def batch_provider(self) -> str | None:
        provider = self.send_combo.currentData()
        return provider if isinstance(provider, str) else None

    def _on_send_changed(self) -> None:
        """A batch: the provider's own API (its URL unless one was typed), and no live-request options."""
        from core.llm.batches.request_lines import DEFAULT_URLS

        provider = self.batch_provider()
        self.endpoint_group.setTitle(BATCH_TITLES.get(provider, ENDPOINT_TITLE))
        self.send_note.setText(SEND_NOTES[None if provider is None else "batch"])
        self.estimate_view.set_batch(provider is not None)
        for widget in (self.concurrency_spin, self.timeout_spin, self.retries_spin, self.cache_box):
            widget.setEnabled(provider is None)
        url = self.url_combo.currentText().strip()
        if provider is not None and url in (DEFAULT_BASE_URL, *DEFAULT_URLS.values()):
            self.url_combo.setEditText(DEFAULT_URLS[provider])
        self.run_button.setText("Run" if provider is None else "Submit Batch")

    def _on_run_clicked(self) -> None:
        try:
            settings = self._settings()
            wording = self._confirmed_wording()
            typed = self.key_edit.text().strip()
            provider = self.batch_provider()
            api_key = typed or (resolve_api_key(settings) if provider is None else None)  # a batch: its provider's
        except TraceEvalError as error:
            self._show_error(error)
            return
        self.state.set_release_path(self.release_field.path())
        keys = tuple(self.selected_keys())
        self.request = ModelRunRequest(settings, keys, api_key, self.remember_box.isChecked() and bool(typed),
                                       self.redo_box.isChecked(), wording, self.estimate_view.prices(),
                                       batch_provider=provider)
        self.accept()

    def _on_preview_clicked(self) -> None:
        keys = self.keys_to_ask(self.selected_keys()) or self.selected_keys()
        instance = self.state.workspace.instance(keys[0]) if keys and self.state.workspace else None
        if instance is None:
            return
        try:
            prompt = build_prompt(instance, wording=self._confirmed_wording())
        except TraceEvalError as error:
            self._show_error(error)
            return
        self._update_counts()  # the estimate too takes the words of a release confirmed just now
        PromptPreviewDialog(prompt, self).exec()

    def _confirmed_wording(self) -> PromptWording:
        """The field's wording, a release found next to the dataset asked about first (UnconfirmedRelease if
        declined)."""
        self.state.confirmed_release(self.release_field.path(), confirm_in_dialog(self))
        self.release_field.refresh()
        return self.release_field.wording()

    def _show_error(self, error: TraceEvalError) -> None:
        self.error_label.setText(release_problem_text(error))
        self.error_label.show()


class PromptPreviewDialog(QDialog):
    def __init__(self, prompt, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setWindowTitle(f"Prompt for {prompt.instance_key}")
        layout = QVBoxLayout(self)
        chars = len(prompt.system) + len(prompt.user)
        facts = muted(f"{prompt.wording_label} · {len(prompt.keys):,} questions · {chars:,} characters "
                      f"(≈{approximate_tokens(chars):,} tokens) · hash {prompt.hash[:12]}", wrap=False)
        text = QPlainTextEdit(prompt.render())
        text.setReadOnly(True)
        text.setFont(QFontDatabase.systemFont(QFontDatabase.SystemFont.FixedFont))
        layout.addWidget(facts)
        layout.addWidget(text)
        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Close)
        buttons.rejected.connect(self.reject)
        layout.addWidget(buttons)
        fit_on_screen(self, 900, 700)
