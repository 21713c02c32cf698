"""The "Run Static Analyzer" dialog: which analyzer (PyCG, pyan3, code2flow), which programs, and how many at once.

It only gathers a `StaticRunRequest`; the window starts the job. Whether each analyzer can run here is asked in
the background (`ToolStatusJob`: each check starts the interpreter); until it answers the analyzers are greyed
out, and one that cannot run stays so, with the reason beside it and as its tooltip. The counts line says how
many programs will really be analysed: programs in languages the analyzer does not read, and programs it already
analysed in this version, are left out.
"""
from __future__ import annotations

import os
from dataclasses import dataclass

from PySide6.QtWidgets import (
    QButtonGroup,
    QDialog,
    QDialogButtonBox,
    QGridLayout,
    QGroupBox,
    QHBoxLayout,
    QLabel,
    QRadioButton,
    QVBoxLayout,
    QWidget,
)

from core.baselines import static_model_name
from core.baselines.predictions import tool_source
from core.languages import registry
from traceeval_gui.runs.program_scope import ProgramScope
from traceeval_gui.runs.static_jobs import ToolStatusJob
from traceeval_gui.state.app_state import AppState
from traceeval_gui.widgets.form_parts import layout_widget, muted, spin_box
from traceeval_gui.widgets.window_layout import fit_on_screen
from tracers.static import TOOLS, ToolStatus
from tracers.static.runner import LIMITS

CHECKING = "checking whether it can run here…"


@dataclass(frozen=True)
class StaticRunRequest:
    tool: str
    keys: tuple[str, ...]  # the programs selected (the run leaves out other languages and those already done)
    to_analyse: int
    jobs: int
    timeout_s: float


class RunStaticAnalyzerDialog(QDialog):
    def __init__(self, state: AppState, listed_keys: list[str], parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setWindowTitle("Run Static Analyzer")
        self.state = state
        self.request: StaticRunRequest | None = None
        self.statuses: dict[str, ToolStatus] = {}
        self._analysed: dict[str, set[str]] = {}  # per tool: what its version did, read once
        layout = QVBoxLayout(self)
        intro = QLabel("A static call-graph analyzer reads each program's source in the sandbox, without running "
                       "it. Its graph is named with TraceEval's names and stored as model <b>static:TOOL</b>, "
                       "scored, compared and audited like any model.")
        intro.setWordWrap(True)
        layout.addWidget(intro)
        layout.addWidget(self._tools_group())
        self.programs = ProgramScope(state, listed_keys)
        layout.addWidget(self.programs)
        layout.addWidget(self._run_group())
        self.counts_label = QLabel()
        self.counts_label.setWordWrap(True)
        layout.addWidget(self.counts_label)
        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Cancel)
        self.run_button = buttons.addButton("Run", QDialogButtonBox.ButtonRole.AcceptRole)
        self.run_button.setDefault(True)
        buttons.accepted.connect(self._on_run_clicked)
        buttons.rejected.connect(self.reject)
        layout.addWidget(buttons)
        self.programs.changed.connect(self._update_counts)
        self.tool_group.buttonToggled.connect(self._update_counts)
        self._update_counts()
        fit_on_screen(self, 640, self.sizeHint().height())
        job = ToolStatusJob()
        job.signals.finished.connect(self._on_status_job_finished)
        job.signals.failed.connect(self._on_status_job_failed)
        state.jobs.start(job)

    # -- building -------------------------------------------------------------------------
    def _tools_group(self) -> QGroupBox:
        group = QGroupBox("Analyzer")
        grid = QGridLayout(group)
        grid.setColumnStretch(2, 1)
        self.tool_group = QButtonGroup(self)
        self.tool_buttons: dict[str, QRadioButton] = {}
        self.tool_notes: dict[str, QLabel] = {}
        self._language_labels: dict[str, QLabel] = {}
        for row, (name, tool) in enumerate(TOOLS.items()):
            button = QRadioButton(tool.title)
            button.setEnabled(False)
            languages = QLabel(", ".join(registry.title(language) for language in tool.languages))
            note = muted(CHECKING)
            self.tool_group.addButton(button)
            self.tool_buttons[name], self.tool_notes[name] = button, note
            self._language_labels[name] = languages
            grid.addWidget(button, row, 0)
            grid.addWidget(languages, row, 1)
            grid.addWidget(note, row, 2)
        return group

    def _run_group(self) -> QGroupBox:
        group = QGroupBox("Run")
        self.jobs_spin = spin_box(1, max(1, os.cpu_count() or 1), min(2, os.cpu_count() or 1),
                                  "programs analysed at once, each in its own sandboxed process")
        self.timeout_spin = spin_box(1, 3600, round(LIMITS.wall_s), "wall-clock limit per program, in seconds")
        row = QHBoxLayout()
        for label, widget in (("At once:", self.jobs_spin), ("Time limit per program (s):", self.timeout_spin)):
            row.addWidget(QLabel(label))
            row.addWidget(widget)
        row.addStretch(1)
        layout = QVBoxLayout(group)
        layout.addWidget(layout_widget(row))
        return group

    # -- what would run -------------------------------------------------------------------
    def chosen_tool(self) -> str | None:
        return next((name for name, button in self.tool_buttons.items() if button.isChecked()), None)

    def choose(self, tool: str) -> None:
        self.tool_buttons[tool].setChecked(True)

    def keys_to_analyse(self, tool: str, keys: list[str] | None = None) -> tuple[list[str], int, int]:
        """(the programs of `keys` (default: the selected ones) to analyse, how many are not in its languages, how
        many it already analysed in this version)."""
        keys = self.programs.selected_keys() if keys is None else keys
        supported = [key for key in keys if key.split("/", 1)[0] in TOOLS[tool].languages]
        done = self._analysed_by(tool)
        todo = [key for key in supported if key not in done]
        return todo, len(keys) - len(supported), len(supported) - len(todo)

    def _analysed_by(self, tool: str) -> set[str]:
        """The programs this version of `tool` has analysed (what a run skips), asked once per tool."""
        status, ws = self.statuses.get(tool), self.state.workspace
        if status is None or ws is None:
            return set()
        if tool not in self._analysed:
            self._analysed[tool] = ws.predicted_keys_from(static_model_name(tool), tool_source(tool, status.version))
        return self._analysed[tool]

    def _update_counts(self, *_args) -> None:
        tool = self.chosen_tool()
        keys = self.programs.selected_keys()
        text = f"{len(keys):,} program{'s' if len(keys) != 1 else ''} selected"
        if tool is None:
            self.counts_label.setText(text + ": choose an analyzer")
            self.run_button.setEnabled(False)
            return
        todo, unsupported, done = self.keys_to_analyse(tool, keys)
        if unsupported:
            text += f", {unsupported:,} in languages {TOOLS[tool].title} does not read"
        if done:
            text += f", {done:,} already analysed by {tool_source(tool, self.statuses[tool].version)} (skipped)"
        text += f": <b>{len(todo):,} to analyse</b> as model {static_model_name(tool)}"
        self.counts_label.setText(text)
        self.run_button.setEnabled(bool(todo))

    # -- slots ----------------------------------------------------------------------------
    def _on_status_job_finished(self, statuses: dict[str, ToolStatus]) -> None:
        self.statuses = statuses
        for name, status in statuses.items():
            button, note = self.tool_buttons[name], self.tool_notes[name]
            usable = [registry.title(language) for language, why in status.languages.items() if not why]
            if status.available:
                missing = [f"not {registry.title(language)}: {why}" for language, why in status.languages.items()
                           if why]
                note.setText("; ".join([f"version {status.version}", *missing]))
                button.setToolTip(f"{TOOLS[name].title} {status.version} analyses {', '.join(usable)}")
            else:
                why = status.problem or "; ".join(status.languages.values())
                note.setText(f"cannot run here: {why}")
                button.setToolTip(why)
                note.setToolTip(why)
            button.setEnabled(status.available)
            self._language_labels[name].setEnabled(status.available)
        if self.chosen_tool() is None:
            first = next((name for name, status in statuses.items() if status.available), None)
            if first is not None:
                self.choose(first)
        self._update_counts()

    def _on_status_job_failed(self, message: str) -> None:
        for note in self.tool_notes.values():
            note.setText(f"cannot check: {message}")

    def _on_run_clicked(self) -> None:
        tool = self.chosen_tool()
        if tool is None:
            return
        keys = self.programs.selected_keys()
        todo, _, _ = self.keys_to_analyse(tool, keys)
        self.request = StaticRunRequest(tool, tuple(keys), len(todo), self.jobs_spin.value(),
                                        float(self.timeout_spin.value()))
        self.accept()
