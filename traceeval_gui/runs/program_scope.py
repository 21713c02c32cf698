"""Which programs a run covers: this program, the ones listed in the Programs panel, or a split and languages,
and at most the first N. One form group, shared by Run Model and Run Static Analyzer."""
from __future__ import annotations

from collections.abc import Sequence

from PySide6.QtCore import Signal
from PySide6.QtWidgets import QCheckBox, QComboBox, QFormLayout, QGroupBox, QHBoxLayout, QLabel, QRadioButton, QSpinBox

from core.languages import registry
from traceeval_gui.state.app_state import AppState
from traceeval_gui.widgets.form_parts import layout_widget


class ProgramScope(QGroupBox):
    changed = Signal()  # the selection changed: counts need recomputing

    def __init__(self, state: AppState, listed_keys: Sequence[str], languages: Sequence[str] = ()) -> None:
        """`languages`: the ones offered (default: every registered language)."""
        super().__init__("Programs")
        self.state = state
        self.listed_keys = tuple(listed_keys)
        form = QFormLayout(self)
        current = state.instance_key
        self.scope_buttons = {
            "current": QRadioButton(f"This program ({current.split('/', 1)[1]})" if current else "This program"),
            "listed": QRadioButton(f"Programs listed in the Programs panel ({len(self.listed_keys):,})"),
            "split": QRadioButton("By split and language:"),
        }
        self.scope_buttons["current"].setEnabled(current is not None)
        self.scope_buttons["split"].setChecked(True)
        for button in self.scope_buttons.values():
            form.addRow(button)
        self.split_combo = QComboBox()
        splits = sorted({row.split for row in state.opened.rows if row.split}) if state.opened else []
        for split in splits + ["all"]:
            self.split_combo.addItem(split if split != "all" else "all programs", split)
        if state.opened and state.opened.default_split:
            self.split_combo.setCurrentIndex(self.split_combo.findData(state.opened.default_split))
        self.language_boxes = {language: QCheckBox(registry.title(language))
                               for language in (languages or registry.names())}
        row = QHBoxLayout()
        row.addWidget(self.split_combo)
        for box in self.language_boxes.values():
            box.setChecked(True)
            row.addWidget(box)
        row.addStretch(1)
        form.addRow("   ", layout_widget(row))
        self.limit_spin = QSpinBox()
        self.limit_spin.setRange(0, 1_000_000)
        self.limit_spin.setSpecialValueText("no limit")
        self.limit_spin.setToolTip("Only the first N programs (language, id order): a cheap first look")
        self.limit_spin.setMinimumWidth(110)
        limit_row = QHBoxLayout()
        limit_row.addWidget(self.limit_spin)
        limit_row.addWidget(QLabel("programs (0 = no limit)"))
        limit_row.addStretch(1)
        form.addRow("First:", layout_widget(limit_row))
        for signal in (self.limit_spin.valueChanged, self.split_combo.currentIndexChanged,
                       *(box.toggled for box in self.language_boxes.values()),
                       *(button.toggled for button in self.scope_buttons.values())):
            signal.connect(self.changed)

    def selected_keys(self) -> list[str]:
        if self.scope_buttons["current"].isChecked():
            keys = [self.state.instance_key] if self.state.instance_key else []
        elif self.scope_buttons["listed"].isChecked():
            keys = list(self.listed_keys)
        else:
            split = self.split_combo.currentData()
            languages = {language for language, box in self.language_boxes.items() if box.isChecked()}
            rows = self.state.opened.rows if self.state.opened else ()
            keys = [r.key for r in rows if r.language in languages and (split == "all" or r.split == split)]
        limit = self.limit_spin.value()
        return keys[:limit] if limit else keys
