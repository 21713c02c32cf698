"""The disputed edges of an audit and the form that settles them: a final verdict, who decided, why.

Open disputes come first. Under the list, the selected edge's evidence (the audit window's panel: the caller's
code with its call sites, the callee's definition, the trace) and, beside it, every annotator's verdict with
their note, then the form. Settling stores the adjudication at once (`AuditStore.adjudicate`), shows it in its
row and moves on to the next open dispute, so a list is settled from the keyboard: 1–4 pick the verdict
(while the list or a button has focus; in a text field digits are text) and focus it, Tab goes on to the
reason, Enter (or Ctrl+Enter anywhere) settles. Tab follows the form top to bottom: verdict, reason,
adjudicator, Settle. Settling a settled edge again replaces its verdict (the newest adjudication counts).
"""
from __future__ import annotations

import html
import itertools
import sqlite3
from dataclasses import replace

from PySide6.QtCore import QSettings, Qt, Signal
from PySide6.QtGui import QAction, QColor, QFont, QKeySequence
from PySide6.QtWidgets import (
    QAbstractItemView,
    QButtonGroup,
    QFormLayout,
    QFrame,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QLineEdit,
    QPushButton,
    QRadioButton,
    QTableWidget,
    QTableWidgetItem,
    QVBoxLayout,
    QWidget,
)

from core.audit.audits import Adjudication, FinalVerdict, check_person_name, label_fits
from core.audit.reports import AuditReport, ItemRow
from core.audit.store import AuditStore
from core.errors import TraceEvalError
from core.languages import registry
from core.report.palette import VERDICT_COLOURS
from core.verdicts import LABEL_TITLES, LABELS
from traceeval_gui.audit.audit_evidence import AuditEvidencePanel
from traceeval_gui.state.app_state import AppState
from traceeval_gui.theme.style import MUTED_TEXT
from traceeval_gui.widgets.form_parts import caption, pane_splitter

ROW_ROLE = Qt.ItemDataRole.UserRole  # every cell of a row carries its ItemRow
ADJUDICATOR_SETTING = "audit/adjudicator"
NOT_EXERCISED = "not_exercised"
FIXED_COLUMNS = ("#", "Program", "Language", "Class", "Edge")
OPEN_COLOUR = "#b26a00"
ERROR_COLOUR = "#c62828"
LABEL_TIPS = {
    "correct": "A real call the program makes when run: it belongs in the ground truth",
    "wrong": "No such call can happen: a hallucinated edge, or a spurious ground-truth edge",
    NOT_EXERCISED: "The code really makes this call but the harness never runs it (only for false positives: "
                   "edges the ground truth lacks)",
    "unsure": "It cannot be told from the source: the edge counts neither way",
}


KEYS_HINT = "Pick a row, 1–4 for the final verdict, Tab to the reason, Enter to settle."


def verdicts_html(row: ItemRow) -> str:
    """Each annotator's verdict on the edge, with their note (or that they left none), one per line."""
    lines = []
    for annotator, verdict in row.verdicts.items():
        colour = VERDICT_COLOURS[verdict.label]
        note = (f"“{html.escape(verdict.note)}”" if verdict.note
                else f"<span style='color:{MUTED_TEXT}'>no note</span>")
        lines.append(f"<tr><td style='padding-right:12px'><b>{html.escape(annotator)}</b></td>"
                     f"<td style='padding-right:12px; color:{colour}'><b>{html.escape(LABEL_TITLES[verdict.label])}"
                     f"</b></td><td>{note}</td></tr>")
    return f"<table cellspacing='0' cellpadding='2'>{''.join(lines)}</table>"


def edge_text(row: ItemRow) -> str:
    return f"{row.item.caller} → {row.item.callee}"


def is_open(row: ItemRow) -> bool:
    return row.adjudication is None


class DisagreementTableWidget(QTableWidget):
    """The disputes. Typing does not jump to rows: digits are verdict keys here."""

    def keyboardSearch(self, search: str) -> None:
        pass


class DisagreementsPanel(QWidget):
    settled = Signal(object)  # the Adjudication just stored

    def __init__(self, state: AppState, settings: QSettings | None = None, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.state = state
        self.settings = settings
        self.report: AuditReport | None = None
        self.rows: list[ItemRow] = []  # in table order: open first, then by item number
        self.annotators: tuple[str, ...] = ()
        self._build()
        self._build_actions()
        self.set_report(None)

    # -- building -------------------------------------------------------------------------
    def _build(self) -> None:
        self.summary_label = QLabel()
        self.summary_label.setTextFormat(Qt.TextFormat.RichText)
        self.summary_label.setWordWrap(True)
        self.summary_label.setAlignment(Qt.AlignmentFlag.AlignTop | Qt.AlignmentFlag.AlignLeft)
        self.table = DisagreementTableWidget(0, len(FIXED_COLUMNS) + 1)
        self.table.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        self.table.setSelectionMode(QAbstractItemView.SelectionMode.SingleSelection)
        self.table.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.table.setTabKeyNavigation(False)  # Tab leaves the list for the form, not the next cell
        self.table.setTextElideMode(Qt.TextElideMode.ElideMiddle)
        self.table.setWordWrap(False)
        self.table.setShowGrid(False)
        self.table.setAlternatingRowColors(True)
        self.table.verticalHeader().hide()
        self.table.verticalHeader().setDefaultSectionSize(self.fontMetrics().height() + 8)
        self.table.horizontalHeader().setHighlightSections(False)
        self.table.currentCellChanged.connect(self._on_table_current_changed)

        self.evidence = AuditEvidencePanel()
        self.detail_label = QLabel()
        self.detail_label.setTextFormat(Qt.TextFormat.RichText)
        self.detail_label.setWordWrap(True)
        self.detail_label.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.verdicts_label = QLabel()  # every annotator's verdict and note
        self.verdicts_label.setTextFormat(Qt.TextFormat.RichText)
        self.verdicts_label.setWordWrap(True)
        self.verdicts_label.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.label_group = QButtonGroup(self)
        self.label_buttons: dict[str, QRadioButton] = {}
        labels_row = QVBoxLayout()
        labels_row.setSpacing(4)
        for number, label in enumerate(LABELS, start=1):
            button = QRadioButton(f"{number}  {LABEL_TITLES[label]}")
            button.setToolTip(f"{LABEL_TIPS[label]} (key {number})")
            button.setStyleSheet(f"QRadioButton {{ color: {VERDICT_COLOURS[label]}; font-weight: 600; }} "
                                 "QRadioButton:disabled { color: #a9adb3; font-weight: normal; }")
            self.label_group.addButton(button, number)
            self.label_buttons[label] = button
            labels_row.addWidget(button)
        self.adjudicator_edit = QLineEdit()
        self.adjudicator_edit.setPlaceholderText("who decides (required)")
        self.adjudicator_edit.setMaximumWidth(260)
        self.adjudicator_edit.setText(self._remembered_adjudicator())
        self.reason_edit = QLineEdit()
        self.reason_edit.setPlaceholderText("why this verdict (Enter settles)")
        self.reason_edit.setClearButtonEnabled(True)
        self.reason_edit.returnPressed.connect(self.settle)
        self.settle_button = QPushButton("Settle")
        self.settle_button.setToolTip("Store the final verdict of this edge, then go to the next open one "
                                      "(Ctrl+Enter)")
        self.settle_button.setMinimumWidth(120)
        self.settle_button.clicked.connect(self.settle)
        self.message_label = QLabel()
        self.message_label.setWordWrap(True)

        form = QFormLayout()
        form.setFieldGrowthPolicy(QFormLayout.FieldGrowthPolicy.ExpandingFieldsGrow)
        form.setHorizontalSpacing(12)
        form.setVerticalSpacing(8)
        form.addRow("Final verdict:", labels_row)
        reason_label = QLabel("&Reason:")
        reason_label.setBuddy(self.reason_edit)
        form.addRow(reason_label, self.reason_edit)
        adjudicator_label = QLabel("&Adjudicator:")
        adjudicator_label.setBuddy(self.adjudicator_edit)
        form.addRow(adjudicator_label, self.adjudicator_edit)
        settle_row = QHBoxLayout()
        settle_row.addStretch(1)
        settle_row.addWidget(self.settle_button)

        self.form_frame = QFrame()
        self.form_frame.setObjectName("adjudication_form")
        self.form_frame.setMinimumWidth(380)
        form_layout = QVBoxLayout(self.form_frame)
        form_layout.setContentsMargins(14, 10, 14, 10)
        form_layout.setSpacing(10)
        form_layout.addWidget(self.detail_label)
        form_layout.addWidget(caption("Annotators"))
        form_layout.addWidget(self.verdicts_label)
        form_layout.addWidget(caption("Adjudication"))
        form_layout.addLayout(form)
        form_layout.addLayout(settle_row)
        form_layout.addWidget(self.message_label)
        form_layout.addStretch(1)
        # the evidence, and beside it the verdicts and form; the disagreements above
        self.lower = pane_splitter(Qt.Orientation.Horizontal, (self.evidence, self.form_frame), (3, 2), (820, 560))
        self.splitter = pane_splitter(Qt.Orientation.Vertical, (self.table, self.lower), (1, 3), (200, 600))

        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.setSpacing(0)
        top = QHBoxLayout()
        top.setContentsMargins(12, 8, 12, 8)
        top.addWidget(self.summary_label, 1)
        layout.addLayout(top)
        layout.addWidget(self.splitter, 1)
        chain = [self.table, *self.label_buttons.values(), self.reason_edit, self.adjudicator_edit,
                 self.settle_button]
        for before, after in itertools.pairwise(chain):  # top to bottom, as laid out
            self.setTabOrder(before, after)

    def _build_actions(self) -> None:
        """Keys that work while focus is anywhere in the panel (digits stay text in the text fields)."""
        self.label_actions: dict[str, QAction] = {}
        for number, label in enumerate(LABELS, start=1):
            item = QAction(LABEL_TITLES[label], self)
            item.setShortcut(QKeySequence(str(number)))
            item.setShortcutContext(Qt.ShortcutContext.WidgetWithChildrenShortcut)
            item.triggered.connect(lambda _=False, la=label: self.pick_label(la))
            self.addAction(item)
            self.label_actions[label] = item
        self.settle_action = QAction("Settle", self)
        self.settle_action.setShortcuts([QKeySequence("Ctrl+Return"), QKeySequence("Ctrl+Enter")])
        self.settle_action.setShortcutContext(Qt.ShortcutContext.WidgetWithChildrenShortcut)
        self.settle_action.triggered.connect(self.settle)
        self.addAction(self.settle_action)

    # -- public ---------------------------------------------------------------------------
    def set_report(self, report: AuditReport | None, waiting: str = "computing…") -> None:
        """Show the disputes of `report` (None: `waiting` is shown instead), keeping the selected edge."""
        selected = self.current_row()
        self.report = report
        disputes = list(report.disagreements) if report is not None else []
        self.rows = sorted(disputes, key=lambda r: (not is_open(r), r.item.position))
        self.annotators = tuple(a for a in (report.annotators if report else ())
                                if any(a in r.verdicts for r in self.rows))
        refs = [r.item.ref for r in self.rows]
        kept = selected is not None and selected.item.ref in refs
        self.table.blockSignals(True)
        self._fill_table()
        self._select(refs.index(selected.item.ref) if kept else 0)
        self.table.blockSignals(False)
        self._show_summary(waiting)
        self.splitter.setVisible(bool(self.rows))
        if kept:
            self._show_detail(self.current_row())  # the same edge: keep what is being typed
        else:
            self._show_form(self.current_row())

    def current_index(self) -> int:
        row = self.table.currentRow()
        return row if 0 <= row < len(self.rows) else -1

    def current_row(self) -> ItemRow | None:
        index = self.current_index()
        return self.rows[index] if index >= 0 else None

    def select_index(self, index: int) -> None:
        """Select the `index`-th row of the table (-1: none) and show it in the form."""
        before = self.current_index()
        self._select(index)
        if self.current_index() == before:
            self._show_form(self.current_row())

    def _select(self, index: int) -> None:
        if 0 <= index < len(self.rows):
            self.table.setCurrentCell(index, 0)
            self.table.scrollToItem(self.table.item(index, 0), QAbstractItemView.ScrollHint.EnsureVisible)
        else:
            self.table.setCurrentCell(-1, -1)

    def open_count(self) -> int:
        return sum(is_open(r) for r in self.rows)

    def pick_label(self, label: str) -> None:
        button = self.label_buttons[label]
        if self.current_row() is None:
            return
        if not button.isEnabled():
            self._say("“Real, not exercised” is only for false positives (edges the ground truth lacks); this "
                      "edge is in the ground truth", error=True)
            return
        button.setChecked(True)
        button.setFocus(Qt.FocusReason.ShortcutFocusReason)  # as a click would: Tab goes on to the reason
        self._say("")

    def chosen_label(self) -> str | None:
        return next((label for label, button in self.label_buttons.items() if button.isChecked()), None)

    def settle(self) -> Adjudication | None:
        """Store the form's verdict for the selected edge; returns the adjudication (None with a message
        under the form when something is missing)."""
        row, report = self.current_row(), self.report
        if row is None or report is None or self.state.workspace is None:
            return None
        label, name = self.chosen_label(), self.adjudicator_edit.text().strip()
        if label is None:
            return self._refuse("Pick the final verdict first (keys 1–4)", None)
        try:
            check_person_name(name, "adjudicator")
        except ValueError:
            return self._refuse("Type the adjudicator's name (who decides; one line, at most 64 characters)",
                                self.adjudicator_edit)
        reason = self.reason_edit.text().strip()
        try:
            adjudication = AuditStore(self.state.workspace).adjudicate(report.audit.name, row.item.ref, label, name,
                                                                         reason)
        except (sqlite3.Error, TraceEvalError) as error:  # e.g. the workspace file is locked or read-only
            return self._refuse(f"Not stored: {error}", None)
        self._remember_adjudicator(name)
        index = self.current_index()
        labels = {a: v.label for a, v in row.verdicts.items()}
        self.rows[index] = replace(row, adjudication=adjudication,
                                   final=FinalVerdict(label, "adjudicated", (name,), reason, labels))
        self._fill_row(index)
        self._show_summary()
        self.settled.emit(adjudication)
        following = self._next_open(index)
        if following >= 0:
            self.select_index(following)
        else:
            self._show_form(self.rows[index])
        self.table.setFocus()
        rest = "" if following >= 0 else " — every disagreement is settled"
        self._say(f"Item {row.item.position + 1} settled: {LABEL_TITLES[label]} (by {name}){rest}")
        return adjudication

    # -- slots ----------------------------------------------------------------------------
    def _on_table_current_changed(self, row: int, _column: int, previous: int, _previous_column: int) -> None:
        if row != previous:
            self._show_form(self.rows[row] if 0 <= row < len(self.rows) else None)
            self._say("")

    # -- rendering ------------------------------------------------------------------------
    def _fill_table(self) -> None:
        table = self.table
        table.clear()
        headers = [*FIXED_COLUMNS, *self.annotators, "Adjudication"]
        table.setColumnCount(len(headers))
        table.setHorizontalHeaderLabels(headers)
        table.setRowCount(len(self.rows))
        for index in range(len(self.rows)):
            self._fill_row(index)
        header = table.horizontalHeader()
        for column in range(len(headers)):
            mode = QHeaderView.ResizeMode.Stretch if headers[column] == "Edge" else \
                QHeaderView.ResizeMode.ResizeToContents
            header.setSectionResizeMode(column, mode)
        for column in range(len(headers)):
            side = Qt.AlignmentFlag.AlignRight if column == 0 else Qt.AlignmentFlag.AlignLeft
            table.horizontalHeaderItem(column).setTextAlignment(side | Qt.AlignmentFlag.AlignVCenter)
        for column, name in enumerate(self.annotators, start=len(FIXED_COLUMNS)):
            table.horizontalHeaderItem(column).setToolTip(f"{name}'s verdict (✎: with a note, shown on hover)")
        table.horizontalHeaderItem(len(headers) - 1).setToolTip("The final verdict, who decided and why; "
                                                                 "“open” until someone settles it")

    def _fill_row(self, index: int) -> None:
        row = self.rows[index]
        item = row.item
        edge = edge_text(row)
        where = f"{item.instance_key}<br><code>{html.escape(edge)}</code>"
        cells = [(str(item.position + 1), None, where), (item.instance_id, None, where),
                 (registry.title(item.language, item.language), None, None),
                 (item.edge_class, None, None), (edge, None, where)]
        cells += [self._verdict_cell(row, annotator) for annotator in self.annotators]
        cells.append(self._adjudication_cell(row))
        for column, (text, colour, tip) in enumerate(cells):
            cell = QTableWidgetItem(text)
            cell.setData(ROW_ROLE, row)
            if colour:
                cell.setForeground(QColor(colour))
            if tip:
                cell.setToolTip(tip)
            if column == 0:
                cell.setTextAlignment(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
                cell.setForeground(QColor(MUTED_TEXT))
            if column == len(cells) - 1 and is_open(row):
                font = QFont(cell.font())
                font.setBold(True)
                cell.setFont(font)
            self.table.setItem(index, column, cell)

    @staticmethod
    def _verdict_cell(row: ItemRow, annotator: str) -> tuple[str, str | None, str | None]:
        verdict = row.verdicts.get(annotator)
        if verdict is None:
            return "—", MUTED_TEXT, f"{annotator} gave no verdict on this edge"
        tip = f"<b>{html.escape(annotator)}</b>: {html.escape(LABEL_TITLES[verdict.label])}"
        tip += f"<br>Note: {html.escape(verdict.note)}" if verdict.note else "<br>No note"
        tip += f"<br><span style='color:{MUTED_TEXT}'>{html.escape(verdict.created_at)}</span>"
        return LABEL_TITLES[verdict.label] + ("  ✎" if verdict.note else ""), VERDICT_COLOURS[verdict.label], tip

    @staticmethod
    def _adjudication_cell(row: ItemRow) -> tuple[str, str | None, str | None]:
        adjudication = row.adjudication
        if adjudication is None:
            return "open", OPEN_COLOUR, "Not settled yet: pick the final verdict below"
        reason = html.escape(adjudication.reason) if adjudication.reason else "<i>no reason given</i>"
        tip = (f"Final verdict <b>{html.escape(LABEL_TITLES[adjudication.label])}</b> by "
               f"{html.escape(adjudication.adjudicator)}<br>Why: {reason}<br>"
               f"<span style='color:{MUTED_TEXT}'>{html.escape(adjudication.created_at)}</span>")
        text = f"{LABEL_TITLES[adjudication.label]} — {adjudication.adjudicator}"
        return text, VERDICT_COLOURS[adjudication.label], tip

    def _show_summary(self, waiting: str = "computing…") -> None:
        if self.report is None:
            self.summary_label.setText(f"<span style='color:{MUTED_TEXT}'>{html.escape(waiting)}</span>")
            return
        if not self.rows:
            judged = sum(p.judged > 0 for p in self.report.progress.annotators)
            text = ("No disagreements: every edge judged by two or more annotators got the same label from each of "
                    "them." if judged >= 2 else
                    f"No disagreements yet: {'only one annotator has' if judged else 'no one has'} judged this audit. "
                    "Merge another annotator's workspace (Merge Workspace…) to compare their verdicts.")
            self.summary_label.setText(f"<span style='color:{MUTED_TEXT}'>{text}</span>")
            return
        total, still = len(self.rows), self.open_count()
        state = (f"<b style='color:{OPEN_COLOUR}'>{still} open</b>" if still
                 else "<b style='color:#2e7d32'>all settled</b>")
        self.summary_label.setText(
            f"<b>{total}</b> edge{'s' if total != 1 else ''} got different labels from different annotators: "
            f"{state}. <span style='color:{MUTED_TEXT}'>{KEYS_HINT}</span>")

    def _show_form(self, row: ItemRow | None) -> None:
        """The selected edge in the form, its inputs reset to its adjudication (empty while open)."""
        self.label_group.setExclusive(False)
        for button in self.label_buttons.values():
            button.setChecked(False)
        self.label_group.setExclusive(True)
        self.reason_edit.clear()
        if row is not None and row.adjudication is not None:
            self.label_buttons[row.adjudication.label].setChecked(True)
            self.reason_edit.setText(row.adjudication.reason)
        self._show_detail(row)

    def _show_detail(self, row: ItemRow | None) -> None:
        """What the form says about the selected edge (its inputs left alone)."""
        self.form_frame.setEnabled(row is not None)
        if row is None:
            self.detail_label.setText(f"<span style='color:{MUTED_TEXT}'>No disagreement selected.</span>")
            self.verdicts_label.setText("")
            self.settle_button.setText("Settle")
            return
        item = row.item
        if self.state.workspace is not None and self.report is not None:
            self.evidence.show_item(self.state.workspace, item, self.report.audit.model)
        self.label_buttons[NOT_EXERCISED].setEnabled(label_fits(item, NOT_EXERCISED))
        self.verdicts_label.setText(verdicts_html(row))
        lines = [f"<b>Item {item.position + 1}</b> <span style='color:{MUTED_TEXT}'>of the audit (its edge, class and "
                 "code at the left)</span>"]
        adjudication = row.adjudication
        if adjudication is not None:
            lines.append(f"<span style='color:{MUTED_TEXT}'>Settled by {html.escape(adjudication.adjudicator)} at "
                         f"{html.escape(adjudication.created_at)}; settling again replaces it.</span>")
        self.settle_button.setText("Settle" if adjudication is None else "Settle again")
        self.detail_label.setText("<br>".join(lines))

    def _next_open(self, after: int) -> int:
        """The first open row after `after` (wrapping round), -1 when none is open."""
        count = len(self.rows)
        for step in range(1, count + 1):
            index = (after + step) % count
            if is_open(self.rows[index]):
                return index
        return -1

    def _refuse(self, message: str, focus: QWidget | None) -> None:
        self._say(message, error=True)
        if focus is not None:
            focus.setFocus()
        return None

    def _say(self, message: str, error: bool = False) -> None:
        self.message_label.setStyleSheet(f"QLabel {{ color: {ERROR_COLOUR if error else MUTED_TEXT}; }}")
        self.message_label.setText(message)
        self.message_label.setVisible(bool(message))

    # -- following the app ----------------------------------------------------------------
    def forget_program(self, instance_key: str | None = None) -> None:
        """A program was traced again (None: the workspace was reopened): its evidence is read afresh."""
        self.evidence.forget(instance_key)
        row = self.current_row()
        if row is not None and (instance_key is None or row.item.instance_key == instance_key):
            self._show_detail(row)

    # -- settings -------------------------------------------------------------------------
    def _remembered_adjudicator(self) -> str:
        value = self.settings.value(ADJUDICATOR_SETTING) if self.settings is not None else None
        return value if isinstance(value, str) else ""

    def _remember_adjudicator(self, name: str) -> None:
        if self.settings is not None:
            self.settings.setValue(ADJUDICATOR_SETTING, name)
