"""The metrics panel: the paper table (P / R / F1 per language, micro, and their average) for a
split, a rule set (the paper's, or the studio's, opt-in and labelled in the table and the tab's
title) and a choice of normalisation modes, and the selected program's scores under every model.
Below the table, models run more than once (`predict --runs`) get their mean ± sample sd over the runs
and how many programs got the same answer in every run (`core.scoring.over_runs`).

Changing the split, the rules or a mode re-scores in a background job (`ScoreModesJob`); the latest
request wins and the results of older ones are kept for later but not shown. Tables and per-program
counts are remembered per (rules, modes, split), so switching back is instant.
"""
from __future__ import annotations

import html
from pathlib import Path

from PySide6.QtCore import Qt, Signal
from PySide6.QtGui import QColor, QGuiApplication
from PySide6.QtWidgets import (
    QAbstractItemView,
    QCheckBox,
    QComboBox,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QMenu,
    QTableWidget,
    QTableWidgetItem,
    QTextBrowser,
    QToolButton,
    QVBoxLayout,
    QWidget,
)

from core.dataset.workspace import InstanceRow
from core.errors import UsageError
from core.languages import registry
from core.scoring.metrics import INSTANCE_RULE, Counts
from core.scoring.normalise import MODES
from core.scoring.over_runs import AVERAGE, SD_RULE, OverRunsTable, spread_text
from core.scoring.plot_data import ProgramScore, program_scores
from core.scoring.rules import PAPER, RULE_SETS, rules_title
from core.scoring.run_family import families
from core.scoring.scores import ScoreTable, Selection
from core.scoring.tables import DAGGER, FORMATS, METRIC_LABELS, describe_selection, footnotes, render_table
from traceeval_gui.metrics.metrics_jobs import ModeScores, ScoreModesJob
from traceeval_gui.state.app_state import AppState
from traceeval_gui.theme.style import MUTED_TEXT
from traceeval_gui.widgets.split_combo import SplitCombo

COPY_FORMATS = (("md", "Markdown"), ("latex", "LaTeX"), ("csv", "CSV"), ("text", "Plain text"))
# What File > Export offers: format -> (title, file suffix).
EXPORT_FORMATS = {"csv": ("CSV", ".csv"), "md": ("Markdown", ".md"), "latex": ("LaTeX", ".tex"),
                  "text": ("Plain text", ".txt"), "json": ("JSON", ".json")}
HEADER_BACKGROUND = "#f1f3f4"
PAPER_MODES = frozenset(MODES)
MODE_TOOLTIPS = {
    "init": "<b>init</b> (rewrite): strip a constructor suffix so a class and its constructor match: "
            "Python <tt>.__init__</tt> / <tt>.__new__</tt>, JavaScript <tt>.constructor</tt>, Java everything "
            "from <tt>:&lt;init&gt;</tt> or <tt>:&lt;clinit&gt;</tt> on (overloaded constructors become one node).",
    "nested_class": "<b>nested_class</b> (rewrite, Java): <tt>a.b.Outer.Inner:m()</tt> and "
                    "<tt>a.b.Outer$Inner:m()</tt> both become <tt>a.b.Inner:m()</tt>, keeping only the "
                    "innermost capitalised type.",
    "stdlib": "<b>stdlib</b> (drop): drop every edge with a standard-library end: Python builtins, "
              "standard-library modules and built-in type methods (<tt>list.append</tt>); JavaScript globals, "
              "<tt>prototype</tt> members and Node core modules; Java <tt>java.</tt> / <tt>javax.</tt> / "
              "<tt>jdk.</tt> / <tt>sun.</tt> packages and bare JDK classes (<tt>String:length</tt>).",
}
MODES_TOOLTIP = ("Name normalisation, applied the same way to the ground truth and every prediction "
                 "(rewrites first, then drops). All three on is the paper's setting.")
RULES_TOOLTIP = ("<b>paper</b>: the TraceEval release's own rules for names, answers and the table (the default)."
                 "<br><b>studio</b>: this project's own reading, not the paper's: "
                 + "; ".join(html.escape(d) for d in RULE_SETS["studio"].differences) + "."
                 "<br><b>paper-nothink</b>: the paper's rules, not the paper's reading: "
                 + "; ".join(html.escape(d) for d in RULE_SETS["paper-nothink"].differences) + ".")
PROGRAM_COLUMNS = ("Model", "P", "R", "F1", "TP", "FP", "FN")
PROGRAM_ROLE = Qt.ItemDataRole.UserRole  # every cell of a row carries its ProgramScore


class MetricsPanel(QWidget):
    table_changed = Signal()  # a new table is shown
    counts_changed = Signal()  # `counts` holds per-program counts for other modes (or another dataset)
    split_changed = Signal(object)  # the chosen split (None = all splits)
    scoring_changed = Signal(bool)  # a re-score started (True) or its result arrived / failed (False)
    copied = Signal(str)  # what was put on the clipboard, for the status bar

    def __init__(self, state: AppState, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.state = state
        self.table: ScoreTable | None = None
        self.counts: dict[str, dict[str, Counts]] | None = None  # model -> key -> counts, with `counts_reading`
        self.counts_reading: tuple[str, frozenset[str]] | None = None  # (rules, modes) of `counts`
        self.program: tuple[ProgramScore, ...] = ()  # the selected program under every model
        self._tables: dict[tuple[str, frozenset[str], str | None], ScoreTable] = {}
        # per (rules, modes, split): the repeated runs' spread (None: no model was run more than once)
        self._spreads: dict[tuple[str, frozenset[str], str | None], OverRunsTable | None] = {}
        self.over_runs: OverRunsTable | None = None  # shown under the table
        self._counts: dict[tuple[str, frozenset[str]], dict[str, dict[str, Counts]]] = {}
        self._pending: ScoreModesJob | None = None  # the latest request; older results are not shown
        self._rows: dict[str, InstanceRow] = {}
        self._build()
        state.dataset_opened.connect(self._on_state_dataset_opened)
        state.instance_selected.connect(self._on_state_instance_selected)
        state.answers_settled.connect(self._on_state_answers_settled)
        self._show(None)
        self._show_program()

    def _build(self) -> None:
        self.split_combo = SplitCombo(scoring=True, tooltip="Which programs are scored")
        self.split_combo.currentIndexChanged.connect(self._on_split_combo_changed)
        self.rules_combo = QComboBox()
        for name, rule_set in RULE_SETS.items():
            self.rules_combo.addItem(rule_set.title, name)
        self.rules_combo.setToolTip(RULES_TOOLTIP)
        self.rules_combo.currentIndexChanged.connect(self._on_mode_box_toggled)
        modes_label = QLabel("Normalisation:")
        modes_label.setToolTip(MODES_TOOLTIP)
        self.mode_boxes: dict[str, QCheckBox] = {}
        for mode in MODES:
            box = QCheckBox(mode)
            box.setChecked(True)
            box.setToolTip(f"{MODE_TOOLTIPS[mode]}<br><br>{MODES_TOOLTIP}")
            box.toggled.connect(self._on_mode_box_toggled)
            self.mode_boxes[mode] = box
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
        top.addSpacing(16)
        top.addWidget(QLabel("Rules:"))
        top.addWidget(self.rules_combo)
        top.addSpacing(16)
        top.addWidget(modes_label)
        for box in self.mode_boxes.values():
            top.addWidget(box)
        top.addSpacing(8)
        top.addWidget(self.status, 1)
        top.addWidget(self.copy_button)

        self.program_title = QLabel()
        self.program_title.setTextFormat(Qt.TextFormat.RichText)
        self.program_table = QTableWidget(0, len(PROGRAM_COLUMNS))
        self.program_table.setHorizontalHeaderLabels(PROGRAM_COLUMNS)
        self.program_table.verticalHeader().hide()
        self.program_table.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.program_table.setSelectionMode(QAbstractItemView.SelectionMode.NoSelection)
        self.program_table.setFocusPolicy(Qt.FocusPolicy.NoFocus)
        self.program_table.setShowGrid(False)
        self.program_table.setAlternatingRowColors(True)
        self.program_table.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        header = self.program_table.horizontalHeader()
        header.setSectionResizeMode(QHeaderView.ResizeMode.ResizeToContents)
        header.setStretchLastSection(False)
        header.setDefaultAlignment(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
        header.setMinimumSectionSize(46)
        header.setHighlightSections(False)
        for column, tip in enumerate(("", "Precision of this program", "Recall of this program",
                                      "F1 of this program", "True positives: predicted edges in the ground truth",
                                      "False positives: predicted edges not in the ground truth",
                                      "False negatives: ground-truth edges not predicted")):
            if tip:
                self.program_table.horizontalHeaderItem(column).setToolTip(
                    f"{tip}, after normalisation with the chosen modes.<br>Per-program rule: {INSTANCE_RULE}.")
        self.program_table.horizontalHeaderItem(0).setTextAlignment(
            Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignVCenter)
        self.program_note = QLabel(f"Per-program scores use their own rule: {INSTANCE_RULE}.\n"
                                   "The table below uses the paper's: counts summed per language, "
                                   "then averaged over languages.")
        self.program_note.setWordWrap(True)
        self.program_note.setStyleSheet(f"color: {MUTED_TEXT};")
        self.program_note.setAlignment(Qt.AlignmentFlag.AlignTop | Qt.AlignmentFlag.AlignLeft)
        program_row = QHBoxLayout()
        program_row.setContentsMargins(8, 0, 8, 4)
        program_row.addWidget(self.program_table)
        program_row.addSpacing(12)
        program_row.addWidget(self.program_note, 1)
        title_row = QHBoxLayout()
        title_row.setContentsMargins(8, 2, 8, 2)
        title_row.addWidget(self.program_title)

        self.browser = QTextBrowser()
        self.browser.setOpenLinks(False)
        self.browser.setFrameShape(QTextBrowser.Shape.NoFrame)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.setSpacing(0)
        layout.addLayout(top)
        layout.addLayout(title_row)
        layout.addLayout(program_row)
        layout.addWidget(self.browser, 1)

    # -- public ---------------------------------------------------------------------------
    def modes(self) -> frozenset[str]:
        """The normalisation modes chosen with the toggles."""
        return frozenset(mode for mode, box in self.mode_boxes.items() if box.isChecked())

    def rules(self) -> str:
        """The rule set chosen (the paper's unless the studio's is picked)."""
        return self.rules_combo.currentData()

    def reading(self) -> tuple[str, frozenset[str]]:
        """(rules, modes): what the table and the counts are scored under."""
        return self.rules(), self.modes()

    def set_modes(self, modes) -> None:
        """Check exactly `modes` (re-scores once, not once per toggle)."""
        modes = frozenset(modes)
        unknown = modes - PAPER_MODES
        if unknown:
            raise ValueError(f"unknown normalisation mode {min(unknown)!r}")
        for mode, box in self.mode_boxes.items():
            box.blockSignals(True)
            box.setChecked(mode in modes)
            box.blockSignals(False)
        self._on_mode_box_toggled(True)

    def split(self) -> str | None:
        return self.split_combo.split()

    def set_split(self, split: str | None) -> None:
        self.split_combo.set_split(split)

    def is_scoring(self) -> bool:
        return self._pending is not None

    def export_table(self, path: str | Path, fmt: str) -> Path:
        """Write the table shown (the chosen split and modes) as `fmt` (csv, md, latex, text, json).

        Raises UsageError while there is no table or the chosen modes are still being scored
        (the table shown would not be the one asked for), OSError when the file cannot be written.
        """
        if fmt not in FORMATS:
            raise ValueError(f"unknown format {fmt!r} (choose from {', '.join(FORMATS)})")
        if self.table is None:
            raise UsageError("no metrics table to export: open a dataset first")
        if self.is_scoring() or self._key(self.table) != (*self.reading(), self.split()):
            raise UsageError("the metrics table is still being scored with the chosen normalisation; "
                             "export it when the new table is shown")
        path = Path(path)
        path.write_text(render_table(self.table, fmt), encoding="utf-8", newline="")
        return path

    # -- slots ----------------------------------------------------------------------------
    def _on_state_dataset_opened(self) -> None:
        opened = self.state.opened
        if self._pending is not None:
            self._pending.cancel()
            self._set_pending(None)
        self._rows = {r.key: r for r in opened.rows}
        self._tables = {self._key(opened.table): opened.table}
        self._spreads = {}
        self._counts = {(PAPER, PAPER_MODES): opened.counts}
        splits = self.state.workspace.split_names() if self.state.workspace else set()
        self.split_combo.fill(splits, opened.default_split)
        self.counts = self.counts_reading = None
        self._show(opened.table)
        self._adopt_counts((PAPER, PAPER_MODES))
        self.split_changed.emit(self.split())
        self._request()

    def _on_state_instance_selected(self, _key: str) -> None:
        self._show_program()

    def _on_state_answers_settled(self, _model: str) -> None:
        """A model run ended: every table known is stale; the paper reading's counts the state kept
        up to date as answers arrived."""
        if self._pending is not None:
            self._pending.cancel()
            self._set_pending(None)
        self._tables.clear()
        self._spreads.clear()
        self._counts = {(PAPER, PAPER_MODES): self.state.opened.counts}
        self.counts = self.counts_reading = None
        self._request()
        self._show_program()

    def _on_split_combo_changed(self, _index: int) -> None:
        if self.state.opened is None:
            return
        self.split_changed.emit(self.split())
        self._request()

    def _on_mode_box_toggled(self, _checked: bool) -> None:
        if self.state.opened is None:
            return
        self._show_program()
        self._request()

    def _on_score_job_progressed(self, done: int, total: int, message: str) -> None:
        if self._pending is not None and self.sender() is self._pending.signals:
            self.status.setText(f"{self._scoring_text()}: {message} ({done + 1}/{total})…")

    def _on_score_job_finished(self, result: ModeScores) -> None:
        request = (result.rules, result.modes, result.selection.split)
        self._tables[request] = result.table
        self._spreads[request] = result.over_runs
        if result.counts is not None:
            self._counts[(result.rules, result.modes)] = result.counts
        if self._pending is not None and _job_key(self._pending) == request:
            self._set_pending(None)
        if request == (*self.reading(), self.split()):
            self._request()  # adopts what is now known (older requests are kept, not shown)

    def _on_score_job_failed(self, message: str) -> None:
        if self._pending is None or self.sender() is not self._pending.signals:
            return  # an older request
        self._set_pending(None)
        self.status.setText(f"⚠ {message}")

    def _on_copy_menu_triggered(self, action) -> None:
        if self.table is None:
            return
        fmt = action.data()
        QGuiApplication.clipboard().setText(render_table(self.table, fmt))
        self.copied.emit(f"Copied the metrics table as {action.text()}")

    # -- scoring --------------------------------------------------------------------------
    def _request(self) -> None:
        """Show the table and counts for the chosen split and modes, scoring what is not known yet."""
        opened = self.state.opened
        if opened is None:
            return
        reading, split = self.reading(), self.split()
        table, counts = self._tables.get((*reading, split)), self._counts.get(reading)
        if not any(len(runs) > 1 for runs in families(m.name for m in self.state.models).values()):
            self._spreads[(*reading, split)] = None  # no model run more than once: nothing to score for it
        if self._pending is not None:
            if _job_key(self._pending) == (*reading, split):
                return  # already on its way
            self._pending.cancel()
        if counts is not None:
            self._adopt_counts(reading)
        if table is not None and counts is not None and (*reading, split) in self._spreads:
            self._set_pending(None)
            if table is not self.table or self._spreads[(*reading, split)] is not self.over_runs:
                self._show(table)
            self.status.setText("")
            return
        job = ScoreModesJob(opened.workspace_path, Selection(split=split), reading[1], with_counts=counts is None,
                            rules=reading[0])
        job.signals.progressed.connect(self._on_score_job_progressed)
        job.signals.finished.connect(self._on_score_job_finished)
        job.signals.failed.connect(self._on_score_job_failed)
        self._set_pending(job)
        self.status.setText(f"{self._scoring_text()}…")
        self.state.jobs.start(job)

    def _set_pending(self, job: ScoreModesJob | None) -> None:
        busy = self._pending is not None
        self._pending = job
        if busy != (job is not None):
            self.scoring_changed.emit(job is not None)

    def _scoring_text(self) -> str:
        rules, modes = self.reading()
        text = "scoring" if modes == PAPER_MODES else f"scoring with {', '.join(sorted(modes)) or 'no normalisation'}"
        return text if rules == PAPER else f"{text} under {rules_title(rules)}"

    def _adopt_counts(self, reading: tuple[str, frozenset[str]]) -> None:
        if self.counts_reading == reading and self.counts is self._counts[reading]:
            return
        self.counts, self.counts_reading = self._counts[reading], reading
        self._show_program()
        self.counts_changed.emit()

    @staticmethod
    def _key(table: ScoreTable) -> tuple[str, frozenset[str], str | None]:
        return table.rules, table.modes, table.selection.split

    # -- rendering ------------------------------------------------------------------------
    def _show(self, table: ScoreTable | None) -> None:
        self.table = table
        self.over_runs = self._spreads.get(self._key(table)) if table is not None else None
        self.copy_button.setEnabled(table is not None and bool(table.rows))
        self.status.setText("")
        self.browser.setHtml(table_html(table) + (over_runs_html(self.over_runs) if self.over_runs else "")
                             if table is not None else
                             f"<p style='color:{MUTED_TEXT}'>Open a dataset to see its scores.</p>")
        self.table_changed.emit()

    def _show_program(self) -> None:
        """The selected program under every model, with the chosen modes (once they are scored)."""
        key = self.state.instance_key
        row = self._rows.get(key) if self.state.opened is not None and key else None
        current = self.counts is not None and self.counts_reading == self.reading()
        self.program = program_scores(key, self.state.models, self.counts) if row is not None and current else ()
        if row is None:
            self.program_title.setText(f"<span style='color:{MUTED_TEXT}'>This program: none selected</span>")
        else:
            where = f"{registry.title(row.language)}, {row.split or 'no split'}"
            waiting = "" if current else f" <span style='color:{MUTED_TEXT}'>(scoring with the chosen modes…)</span>"
            self.program_title.setText(f"This program: <b>{html.escape(row.id)}</b> "
                                       f"<span style='color:{MUTED_TEXT}'>({where})</span>{waiting}")
        table = self.program_table
        table.setRowCount(len(self.program))
        for index, score in enumerate(self.program):
            label = score.model + (f" {DAGGER}" if score.illustrative else "")
            if score.counts is None:
                cells = [label, "–", "–", "–", "–", "–", "–"]
            else:
                s, c = score.scores, score.counts
                cells = [label, *(f"{v * 100:.1f}" for v in (s.precision, s.recall, s.f1)),
                         str(c.tp), str(c.fp), str(c.fn)]
            for column, text in enumerate(cells):
                item = QTableWidgetItem(text)
                item.setData(PROGRAM_ROLE, score)
                if column:
                    item.setTextAlignment(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
                if score.counts is None:
                    item.setForeground(QColor(MUTED_TEXT))
                    item.setToolTip("No result for this program: not scored")
                table.setItem(index, column, item)
        self._fit_program_table()

    def _fit_program_table(self) -> None:
        table = self.program_table
        table.setVisible(table.rowCount() > 0)
        self.program_note.setVisible(table.rowCount() > 0)
        shown = min(table.rowCount(), 6)
        height = table.horizontalHeader().height() + sum(table.rowHeight(r) for r in range(shown)) + \
            2 * table.frameWidth()
        table.setFixedHeight(height)
        table.setFixedWidth(table.horizontalHeader().length() + 2 * table.frameWidth() +
                            (table.verticalScrollBar().sizeHint().width() if table.rowCount() > shown else 0))


def table_html(table: ScoreTable) -> str:
    """The paper's layout as rich text: languages spanning P / R / F1, best value per column in bold."""
    columns = [*table.languages, "average"]
    values = [[_cell(row, column, metric) for column in columns for metric, _ in METRIC_LABELS]
              for row in table.rows]
    best = [max((v for v in column if v is not None), default=None) for column in zip(*values)] if values else []
    head1 = "".join(f"<th colspan='3' align='center'>{registry.title(c, 'Average')}</th>" for c in columns)
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
    setting = "" if table.modes == PAPER_MODES else \
        " <span style='color:#b26a00'>(not the paper's setting, which has all three modes on)</span>"

    described = html.escape(describe_selection(table))
    if table.rules != PAPER:  # the rule set leads the description: shown in colour when it is not the paper's
        title = html.escape(table.rules_title)
        described = f"<b style='color:#b26a00'>{title}</b>{described[len(title):]}"
    return (f"<p style='margin:4px 0 8px 0'>{described}{setting}</p>"
            f"<table cellspacing='0' cellpadding='5' width='100%'>"
            f"<tr bgcolor='{HEADER_BACKGROUND}'><th rowspan='2' align='left'>Model</th>{head1}</tr>"
            f"<tr bgcolor='{HEADER_BACKGROUND}'>{head2}</tr>{''.join(body)}</table>"
            f"<div style='margin-top:8px'>{notes}</div>")


def over_runs_html(table: OverRunsTable) -> str:
    """Models run more than once: mean ± sample sd of each run's figure, and how often the answer stayed the same."""
    columns = [*table.languages, AVERAGE]
    head1 = "".join(f"<th colspan='3' align='center'>{registry.title(c, 'Average')}</th>" for c in columns)
    head2 = "".join(f"<th align='right'>{label}</th>" for _ in columns for _, label in METRIC_LABELS)
    body = []
    for row in table.rows:
        runs = ", ".join(row.runs)
        cells = "".join(f"<td align='right'>{spread_text(row.spreads[column][metric])}</td>"
                        for column in columns for metric, _ in METRIC_LABELS)
        agreement = row.agreement
        body.append(f"<tr><td title='{html.escape(runs)}'>{html.escape(row.family)}</td>"
                    f"<td align='right'>{len(row.runs)}</td>{cells}"
                    f"<td align='right'>{agreement.identical}/{agreement.compared}</td></tr>")
    return (f"<p style='margin:14px 0 6px 0'><b>Repeated runs</b>: mean ± {SD_RULE} of each run's paper figure; "
            "<i>Same</i>: programs whose normalised answer was identical in every run, of those every run "
            "answered</p>"
            f"<table cellspacing='0' cellpadding='5' width='100%'>"
            f"<tr bgcolor='{HEADER_BACKGROUND}'><th rowspan='2' align='left'>Model</th><th rowspan='2'>Runs</th>"
            f"{head1}<th rowspan='2' align='right'>Same</th></tr>"
            f"<tr bgcolor='{HEADER_BACKGROUND}'>{head2}</tr>{''.join(body)}</table>")


def _cell(row, column: str, metric: str) -> float | None:
    """The value shown, None for "–": a language counted in the Average shows even when unscored (0)."""
    if column == "average":
        scored = any(row.languages[language].programs for language in row.averaged)
        return getattr(row.average, metric) if scored else None
    result = row.languages[column]
    return getattr(result.scores, metric) if result.programs or column in row.averaged else None


def _job_key(job: ScoreModesJob) -> tuple[str, frozenset[str], str | None]:
    return job.rules, job.modes, job.selection.split
