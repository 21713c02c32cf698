"""Audit > New Audit: what to sample (edges to check, or programs for a human baseline), how many, how,
and who annotates. A live line says how large the population is and what the sample will be; the
population is cached per (population, model, split, languages), so changing the size is free.
Creating samples and stores the audit in the GUI thread (milliseconds on the demo; population
building is linear in the dataset's edges). Errors show in the dialog, in one red line.
"""
from __future__ import annotations

import html

from PySide6.QtCore import Qt
from PySide6.QtWidgets import (
    QButtonGroup,
    QCheckBox,
    QComboBox,
    QDialog,
    QDialogButtonBox,
    QDoubleSpinBox,
    QFormLayout,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QRadioButton,
    QSpinBox,
    QVBoxLayout,
    QWidget,
)

from core.audit.audits import (
    BASELINE_AUDIT,
    EDGE_AUDIT,
    POPULATION_TITLES,
    POPULATIONS,
    STRATA,
    Audit,
    blind_by_default,
    population_phrase,
)
from core.audit.sampling import PROGRAM_STRATA
from core.audit.store import AuditStore
from core.languages import registry
from core.scoring.stats import sample_size_for_margin
from traceeval_gui.audit.audit_jobs import CreateAuditJob, PopulationJob
from traceeval_gui.state.app_state import AppState

KIND_TITLES = {EDGE_AUDIT: "Edges to check (is each sampled edge a real call?)",
               BASELINE_AUDIT: "Human baseline (annotators answer the model's questions)"}
STRATUM_TITLES = {"language": "language", "repo": "repo", "edge_class": "edge class"}
NO_MODEL = "no model (every program)"
ALL_SPLITS = "all splits"
CONFIDENCE = 0.95
DEFAULT_SIZE, DEFAULT_PROGRAMS, DEFAULT_MARGIN_PERCENT, DEFAULT_SEED = 100, 10, 5.0, 1
ERROR_COLOUR = "#c62828"


def parse_names(text: str) -> tuple[str, ...]:
    """Comma-separated names, trimmed, empty ones dropped, each once."""
    return tuple(dict.fromkeys(name.strip() for name in text.split(",") if name.strip()))


def _and(words: list[str]) -> str:
    return ", ".join(words[:-1]) + f" and {words[-1]}" if len(words) > 1 else "".join(words)


class NewAuditDialog(QDialog):
    def __init__(self, state: AppState, annotator: str = "", parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.state = state
        self.ws = state.workspace
        self.audit: Audit | None = None  # set when created
        self.annotators: tuple[str, ...] = ()
        self._populations: dict[tuple, tuple[int, int] | str] = {}  # key -> (edges, programs), or why none
        self._counting: set[tuple] = set()  # population keys being counted in the background
        self._creating = False
        self._programs: dict[tuple, int] = {}
        self._sizes = {EDGE_AUDIT: DEFAULT_SIZE, BASELINE_AUDIT: DEFAULT_PROGRAMS}  # per kind
        self._shown_kind = EDGE_AUDIT
        self.setWindowTitle("New audit")
        self.setMinimumWidth(620)

        self.name_edit = QLineEdit(self._free_name())
        self.name_edit.setToolTip("A name for the audit, unique in this workspace")
        self.kind_combo = QComboBox()
        for kind in (EDGE_AUDIT, BASELINE_AUDIT):
            self.kind_combo.addItem(KIND_TITLES[kind], kind)
        self.population_combo = QComboBox()
        for population in POPULATIONS:
            title = POPULATION_TITLES[population]
            self.population_combo.addItem(title[:1].upper() + title[1:], population)
        self.model_combo = QComboBox()
        self.model_combo.addItem(NO_MODEL, "")
        for model in state.models:
            self.model_combo.addItem(model.name, model.name)
        self.model_combo.setToolTip("The model whose false positives / negatives are sampled; with the ground "
                                    "truth, a model restricts the sample to the programs it answered")
        self.split_combo = QComboBox()
        self.split_combo.addItem(ALL_SPLITS, None)
        for split in sorted(self.ws.split_names()):
            self.split_combo.addItem(split, split)
        present = {row.language for row in state.opened.rows} if state.opened else set(registry.names())
        self.language_boxes = {lang: QCheckBox(registry.title(lang)) for lang in registry.names() if lang in present}
        for box in self.language_boxes.values():
            box.setChecked(True)

        self.size_radio = QRadioButton("Sample")
        self.size_spin = QSpinBox()
        self.size_spin.setRange(1, 1_000_000)
        self.size_spin.setValue(DEFAULT_SIZE)
        self.size_spin.setGroupSeparatorShown(True)
        self.size_unit = QLabel("edges")
        self.margin_radio = QRadioButton("Margin of error ±")
        self.margin_spin = QDoubleSpinBox()
        self.margin_spin.setRange(0.5, 50.0)
        self.margin_spin.setDecimals(1)
        self.margin_spin.setSingleStep(0.5)
        self.margin_spin.setSuffix(" %")
        self.margin_spin.setValue(DEFAULT_MARGIN_PERCENT)
        self.margin_unit = QLabel(f"at {CONFIDENCE:.0%} confidence")
        self.size_radio.setChecked(True)
        self._size_group = QButtonGroup(self)
        self._size_group.addButton(self.size_radio)
        self._size_group.addButton(self.margin_radio)
        self.seed_spin = QSpinBox()
        self.seed_spin.setRange(0, 2_147_483_647)
        self.seed_spin.setValue(DEFAULT_SEED)
        self.seed_spin.setToolTip("The same data, options and seed always draw the same sample")
        self.strata_boxes = {stratum: QCheckBox(STRATUM_TITLES[stratum]) for stratum in STRATA}
        for box in self.strata_boxes.values():
            box.setChecked(True)
        self.blind_box = QCheckBox("&Blind: hide each edge's class, the models and their scores from annotators "
                                   "until they judge it")
        self.blind_box.setToolTip("On by default for ground-truth audits: an annotator told that a model missed "
                                  "an edge leans towards the model")
        self.blind_box.setChecked(blind_by_default(EDGE_AUDIT, "truth"))
        self._blind_chosen = False  # the user set it: changing the population no longer does
        self.annotators_edit = QLineEdit(annotator)
        self.annotators_edit.setPlaceholderText("e.g. ana, bo (you first: the audit opens for the first name)")
        self.annotators_edit.setToolTip("Comma-separated names; others can join later under their own name")

        self.summary_label = QLabel()
        self.summary_label.setTextFormat(Qt.TextFormat.RichText)
        self.summary_label.setWordWrap(True)
        self.summary_label.setMinimumHeight(self.fontMetrics().height() * 2 + 12)
        self.summary_label.setStyleSheet("QLabel { background: #f3f5f8; border: 1px solid #dfe3e8; "
                                         "border-radius: 4px; padding: 6px 8px; }")
        self.error_label = QLabel()
        self.error_label.setStyleSheet(f"QLabel {{ color: {ERROR_COLOUR}; }}")
        self.error_label.setWordWrap(True)
        self.error_label.hide()
        self.buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Cancel)
        self.create_button = self.buttons.addButton("Create", QDialogButtonBox.ButtonRole.AcceptRole)
        self.buttons.accepted.connect(self._on_buttons_accepted)
        self.buttons.rejected.connect(self.reject)
        self._build_layout()
        self.create_button.setDefault(True)  # once in the dialog: Enter creates

        for combo in (self.kind_combo, self.population_combo, self.model_combo, self.split_combo):
            combo.currentIndexChanged.connect(self._on_option_changed)
        for box in (*self.language_boxes.values(), *self.strata_boxes.values(), self.size_radio, self.margin_radio):
            box.toggled.connect(self._on_option_changed)
        self.size_spin.valueChanged.connect(self._on_option_changed)
        self.blind_box.clicked.connect(self._on_blind_box_clicked)
        self.margin_spin.valueChanged.connect(self._on_option_changed)
        self.name_edit.textChanged.connect(self._on_text_edited)
        self.annotators_edit.textChanged.connect(self._on_text_edited)
        self._on_option_changed()
        self.name_edit.selectAll()
        self.name_edit.setFocus()

    def _build_layout(self) -> None:
        form = QFormLayout()
        form.setFieldGrowthPolicy(QFormLayout.FieldGrowthPolicy.ExpandingFieldsGrow)
        form.setHorizontalSpacing(12)
        form.setVerticalSpacing(8)
        form.addRow("&Name:", self.name_edit)
        form.addRow("&Kind:", self.kind_combo)
        form.addRow("&Population:", self.population_combo)
        form.addRow("&Model:", self.model_combo)
        form.addRow("&Split:", self.split_combo)
        form.addRow("Languages:", _row(*self.language_boxes.values()))
        size_row = _row(self.size_radio, self.size_spin, self.size_unit)
        margin_row = _row(self.margin_radio, self.margin_spin, self.margin_unit)
        sample = QWidget()
        sample_layout = QVBoxLayout(sample)
        sample_layout.setContentsMargins(0, 0, 0, 0)
        sample_layout.setSpacing(4)
        sample_layout.addWidget(size_row)
        sample_layout.addWidget(margin_row)
        form.addRow("Sample size:", sample)
        form.addRow("S&eed:", self.seed_spin)
        form.addRow("Stratify by:", _row(*self.strata_boxes.values()))
        form.addRow("Annotators see:", self.blind_box)
        form.addRow("&Annotators:", self.annotators_edit)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(16, 14, 16, 12)
        layout.setSpacing(10)
        layout.addLayout(form)
        layout.addWidget(self.summary_label)
        layout.addWidget(self.error_label)
        layout.addWidget(self.buttons)

    # -- options --------------------------------------------------------------------------
    @property
    def kind(self) -> str:
        return self.kind_combo.currentData()

    @property
    def population(self) -> str:
        return self.population_combo.currentData()

    @property
    def model(self) -> str:
        return self.model_combo.currentData() or ""

    @property
    def split(self) -> str | None:
        return self.split_combo.currentData()

    @property
    def languages(self) -> tuple[str, ...]:
        """The chosen languages; () when all are chosen (no restriction)."""
        chosen = tuple(lang for lang, box in self.language_boxes.items() if box.isChecked())
        return () if len(chosen) == len(self.language_boxes) else chosen

    @property
    def strata(self) -> tuple[str, ...]:
        allowed = PROGRAM_STRATA if self.kind == BASELINE_AUDIT else STRATA
        return tuple(s for s, box in self.strata_boxes.items() if box.isChecked() and s in allowed)

    @property
    def margin(self) -> float | None:
        return self.margin_spin.value() / 100 if self.margin_radio.isChecked() and self.kind == EDGE_AUDIT else None

    @property
    def size(self) -> int | None:
        return None if self.margin is not None else self.size_spin.value()

    def options(self) -> dict:
        """Keyword arguments for `create_audit`."""
        options = {"kind": self.kind, "size": self.size, "margin": self.margin, "confidence": CONFIDENCE,
                   "seed": self.seed_spin.value(), "strata": self.strata, "split": self.split,
                   "languages": self.languages, "annotators": parse_names(self.annotators_edit.text())}
        if self.kind == EDGE_AUDIT:
            options |= {"population": self.population, "model": self.model, "blind": self.blind_box.isChecked()}
        return options

    # -- slots ------------------------------------------------------------------------------
    def _on_option_changed(self, *_args) -> None:
        edges = self.kind == EDGE_AUDIT
        if self.kind != self._shown_kind:  # edges and programs keep their own sizes
            self._sizes[self._shown_kind] = self.size_spin.value()
            self._shown_kind = self.kind
            self.size_spin.blockSignals(True)
            self.size_spin.setValue(self._sizes[self.kind])
            self.size_spin.blockSignals(False)
        if edges and self.population != "truth" and not self.model and self.model_combo.count() > 1:
            self.model_combo.blockSignals(True)
            index = self.model_combo.findData(self.state.model or "")
            self.model_combo.setCurrentIndex(index if index > 0 else 1)
            self.model_combo.blockSignals(False)
        for widget in (self.population_combo, self.model_combo, self.margin_radio, self.margin_spin,
                       self.margin_unit, self.strata_boxes["edge_class"], self.blind_box):
            widget.setEnabled(edges)  # a baseline audit never shows the truth: blind by nature
        if not self._blind_chosen:
            self.blind_box.setChecked(blind_by_default(self.kind, self.population))
        if not edges and self.margin_radio.isChecked():
            self.size_radio.setChecked(True)
        self.size_spin.setEnabled(self.size_radio.isChecked())
        self.margin_spin.setEnabled(edges and self.margin_radio.isChecked())
        self.size_unit.setText("edges" if edges else "programs (every question of each)")
        self._hide_error()
        self.summary_label.setText(self.summary())

    def _on_blind_box_clicked(self, _checked: bool) -> None:
        self._blind_chosen = True

    def _on_text_edited(self, _text: str) -> None:
        self._hide_error()

    def _on_buttons_accepted(self) -> None:
        name = self.name_edit.text().strip()
        options = self.options()
        if not any(box.isChecked() for box in self.language_boxes.values()):
            self._show_error("Choose at least one language")
            return
        if not options["annotators"]:
            self._show_error("Name at least one annotator (you first: the audit opens for the first name)")
            self.annotators_edit.setFocus()
            return
        if self._creating:
            return
        job = CreateAuditJob(self.ws.path, name, options)
        job.signals.finished.connect(lambda audit: self._on_create_job_finished(audit, options["annotators"]))
        job.signals.failed.connect(self._on_create_job_failed)
        self._set_creating(True)
        self.state.jobs.start(job)

    def _on_create_job_finished(self, audit: Audit, annotators: tuple[str, ...]) -> None:
        self._set_creating(False)
        self.audit, self.annotators = audit, annotators
        self.accept()

    def _on_create_job_failed(self, message: str) -> None:
        self._set_creating(False)
        self._show_error(message.splitlines()[0] if message else "the audit could not be created")

    def _set_creating(self, creating: bool) -> None:
        self._creating = creating
        self.create_button.setEnabled(not creating)
        self.create_button.setText("Sampling…" if creating else "Create")

    def _show_error(self, message: str) -> None:
        self.error_label.setText(message)
        self.error_label.show()

    def _hide_error(self) -> None:
        self.error_label.hide()

    # -- the live summary -----------------------------------------------------------------
    def population_counts(self) -> tuple[int, int] | str | None:
        """(edges, programs) of the current options' population, why there is none, or None while it is
        being counted in the background (the summary updates when the count arrives)."""
        key = (self.population, self.model, self.split, self.languages)
        if key not in self._populations and key not in self._counting:
            self._counting.add(key)
            job = PopulationJob(self.ws.path, *key)
            job.signals.finished.connect(lambda counts: self._on_population_counted(key, counts))
            job.signals.failed.connect(lambda message: self._on_population_counted(key, message))
            self.state.jobs.start(job)
        return self._populations.get(key)

    def _on_population_counted(self, key: tuple, counts: tuple[int, int] | str) -> None:
        self._counting.discard(key)
        self._populations[key] = counts
        self.summary_label.setText(self.summary())

    def summary(self) -> str:
        if not any(box.isChecked() for box in self.language_boxes.values()):
            return _warn("Choose at least one language.")
        strata = [STRATUM_TITLES[s] for s in self.strata]
        stratified = f"stratified by {_and(strata)}" if strata else "not stratified"
        if self.kind == BASELINE_AUDIT:
            key = (self.split, self.languages)
            if key not in self._programs:
                self._programs[key] = len(self.ws.instance_rows(list(self.languages) or None, self.split))
            programs = self._programs[key]
            if not programs:
                return _warn("No programs in this split and these languages.")
            wanted = min(self.size_spin.value(), programs)
            return (f"Population: <b>{programs:,}</b> programs → sample <b>{wanted:,}</b> "
                    f"program{'s' if wanted != 1 else ''} and ask every question of each ({stratified})")
        counts = self.population_counts()
        if counts is None:
            return f"Population: counting {html.escape(population_phrase(self.population, self.model))}…"
        if isinstance(counts, str):
            return _warn(counts[:1].upper() + counts[1:])
        edges, programs = counts
        if self.margin is not None:
            wanted = sample_size_for_margin(self.margin, edges, CONFIDENCE)
            why = f" for ±{self.margin_spin.value():g} % at {CONFIDENCE:.0%}"
        else:
            wanted, why = min(self.size_spin.value(), edges), ""
        whole = " — the whole population" if wanted >= edges else ""
        return (f"Population: <b>{edges:,}</b> {html.escape(population_phrase(self.population, self.model))} in "
                f"{programs:,} program{'s' if programs != 1 else ''} → sample <b>{wanted:,}</b>{why}{whole} "
                f"({stratified})")

    def _free_name(self) -> str:
        taken = {audit.name for audit in AuditStore(self.ws).audits()}
        return next(f"audit-{n}" for n in range(1, len(taken) + 2) if f"audit-{n}" not in taken)


def _warn(text: str) -> str:
    return f"<span style='color:#b26a00'>{html.escape(text)}</span>"


def _row(*widgets: QWidget) -> QWidget:
    row = QWidget()
    layout = QHBoxLayout(row)
    layout.setContentsMargins(0, 0, 0, 0)
    layout.setSpacing(10)
    for widget in widgets:
        layout.addWidget(widget)
    layout.addStretch(1)
    return row

