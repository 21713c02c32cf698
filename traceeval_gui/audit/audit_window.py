"""One annotator's pass through one edge audit: the sampled edges on the left, the evidence in the
middle, verdict keys at the bottom.

Every verdict (and every changed note) is committed to the workspace by `AuditStore` as it is given,
so closing the window, or the app, loses nothing; opening it again resumes at the first edge this
annotator has not judged. Only this annotator's verdicts are read: annotators never see each
other's. The keys are window actions listed in the Verdict and Go menus (Help ▸ Keyboard Shortcuts
reads them from there). Picking an edge also selects its program and edge in the main window.
"""
from __future__ import annotations

import html

from PySide6.QtCore import QAbstractTableModel, QEvent, QModelIndex, QObject, QPersistentModelIndex, Qt, Signal
from PySide6.QtGui import QBrush, QCloseEvent, QColor, QKeySequence
from PySide6.QtWidgets import (
    QAbstractItemView,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QLineEdit,
    QMainWindow,
    QProgressBar,
    QPushButton,
    QSizePolicy,
    QTableView,
    QVBoxLayout,
    QWidget,
)

from core.audit.audits import Audit, AuditItem, EdgeRef, label_fits, not_exercised_everywhere, population_phrase
from core.audit.store import AuditStore
from core.report.palette import VERDICT_COLOURS
from core.verdicts import LABEL_TITLES, LABELS, Verdict
from traceeval_gui.audit.audit_evidence import AuditEvidencePanel, restyle
from traceeval_gui.item_models.graph_scene import short_name
from traceeval_gui.state.app_state import AppState
from traceeval_gui.theme.style import MUTED_TEXT
from traceeval_gui.widgets.form_parts import pane_splitter
from traceeval_gui.widgets.keyboard_dialog import KeyboardDialog, action
from traceeval_gui.widgets.window_layout import fit_on_screen

ITEM_ROLE = Qt.ItemDataRole.UserRole
NOT_EXERCISED = "not_exercised"
VERDICT_KEYS = {"correct": ("1", "C"), "wrong": ("2", "W"), NOT_EXERCISED: ("3", "N"), "unsure": ("4", "U")}
VERDICT_TIPS = {
    "correct": "A real call: the program makes it when run (it belongs in the ground truth)",
    "wrong": "No such call can happen (a hallucinated edge, or a spurious ground-truth edge)",
    NOT_EXERCISED: "The code really makes this call, but the harness never runs it (only for edges the "
                   "ground truth lacks)",
    "unsure": "You cannot tell from the source",
}
MENU_TITLES = {"correct": "&Correct", "wrong": "&Wrong", NOT_EXERCISED: "&Real, Not Exercised", "unsure": "&Unsure"}
BLIND_TITLE = "Blind audit"
BLIND_TIP = ("Whether a model predicted an edge (its class), the models and their scores stay hidden until you give "
             "your verdict on it, and the main window does not follow the audit until then, so they cannot sway you")
DONE_STYLE = "QLabel { background: #e2f2e3; color: #1b5e20; border-bottom: 1px solid #c2e4c4; padding: 8px 12px; }"


def edge_text(item: AuditItem) -> str:
    return f"{item.caller} → {item.callee}"


class AuditItemTableModel(QAbstractTableModel):
    """The audit's items in order, with this annotator's current label (and ✎ when it has a note)."""

    COLUMNS = ("#", "Program", "Edge", "Your verdict")

    def __init__(self, items: list[AuditItem], parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.items = items
        self.verdicts: dict[EdgeRef, Verdict] = {}
        self._rows = {item.ref: row for row, item in enumerate(items)}

    def set_verdicts(self, verdicts: dict[EdgeRef, Verdict]) -> None:
        self.beginResetModel()
        self.verdicts = dict(verdicts)
        self.endResetModel()

    def set_verdict(self, ref: EdgeRef, verdict: Verdict | None) -> None:
        if verdict is None or verdict.cleared:
            self.verdicts.pop(ref, None)
        else:
            self.verdicts[ref] = verdict
        row = self.row_of(ref)
        if row >= 0:
            self.dataChanged.emit(self.index(row, 0), self.index(row, len(self.COLUMNS) - 1))

    def row_of(self, ref: EdgeRef) -> int:
        return self._rows.get(ref, -1)

    def rowCount(self, parent: QModelIndex | QPersistentModelIndex = QModelIndex()) -> int:
        return 0 if parent.isValid() else len(self.items)

    def columnCount(self, parent: QModelIndex | QPersistentModelIndex = QModelIndex()) -> int:
        return 0 if parent.isValid() else len(self.COLUMNS)

    def headerData(self, section: int, orientation: Qt.Orientation, role: int = Qt.ItemDataRole.DisplayRole):
        if orientation == Qt.Orientation.Horizontal and role == Qt.ItemDataRole.DisplayRole:
            return self.COLUMNS[section]
        return None

    def data(self, index: QModelIndex | QPersistentModelIndex, role: int = Qt.ItemDataRole.DisplayRole):
        if not index.isValid():
            return None
        item = self.items[index.row()]
        verdict = self.verdicts.get(item.ref)
        column = index.column()
        if role == ITEM_ROLE:
            return item
        if role == Qt.ItemDataRole.DisplayRole:
            if column == 0:
                return str(item.position + 1)
            if column == 1:
                return item.instance_id
            if column == 2:  # short names: the full ones are in the tooltip and above the evidence
                return f"{short_name(item.caller)} → {short_name(item.callee)}"
            if verdict is not None:
                return LABEL_TITLES[verdict.label] + ("  ✎" if verdict.note else "")
            return ""
        if role == Qt.ItemDataRole.ForegroundRole:
            if column == 3 and verdict is not None:
                return QBrush(QColor(VERDICT_COLOURS[verdict.label]))
            if column == 0:
                return QBrush(QColor(MUTED_TEXT))
        if role == Qt.ItemDataRole.TextAlignmentRole and column == 0:
            return int(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
        if role == Qt.ItemDataRole.ToolTipRole:
            tip = f"{html.escape(item.instance_key)}<br><code>{html.escape(edge_text(item))}</code>"
            if verdict is not None and verdict.note:
                tip += f"<br>Your note: {html.escape(verdict.note)}"
            return tip
        return None


class AuditItemTableView(QTableView):
    """The item list. Typing does not jump to rows: digits and letters are verdict keys here."""

    def __init__(self, model: AuditItemTableModel, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setModel(model)
        self.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        self.setSelectionMode(QAbstractItemView.SelectionMode.SingleSelection)
        self.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.setTextElideMode(Qt.TextElideMode.ElideMiddle)
        self.setWordWrap(False)
        self.setShowGrid(False)
        self.setAlternatingRowColors(True)
        self.verticalHeader().hide()
        self.verticalHeader().setDefaultSectionSize(self.fontMetrics().height() + 8)
        header = self.horizontalHeader()
        header.setHighlightSections(False)
        header.setSectionResizeMode(0, QHeaderView.ResizeMode.ResizeToContents)
        header.setSectionResizeMode(1, QHeaderView.ResizeMode.ResizeToContents)
        header.setSectionResizeMode(2, QHeaderView.ResizeMode.Stretch)
        header.setSectionResizeMode(3, QHeaderView.ResizeMode.Fixed)
        header.resizeSection(3, self.fontMetrics().horizontalAdvance("real, not exercised  ✎") + 16)

    def keyboardSearch(self, search: str) -> None:
        pass


class AuditWindow(QMainWindow):
    verdict_given = Signal(object)  # the Verdict stored (a verdict, a changed note, or what undo restored)

    def __init__(self, state: AppState, audit_name: str, annotator: str, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.state = state
        self.annotator = annotator
        self.audit: Audit = self.store.add_annotator(audit_name, annotator)
        self.items = self.store.items(audit_name)
        self.blind = self.audit.blind
        self.not_exercised_everywhere = not_exercised_everywhere(self.audit, self.items)
        self.pending_notes: dict[EdgeRef, str] = {}  # notes written before the edge has a verdict
        self.note_ref: EdgeRef | None = None  # the edge the note field is for (the shown one, unless being written)
        self._note_edited = False  # the note field's text differs from what is kept for `note_ref`
        self.setWindowTitle(f"Audit {audit_name} — {annotator}")
        self.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
        fit_on_screen(self, 1400, 900)

        self.model = AuditItemTableModel(self.items, self)
        self.table = AuditItemTableView(self.model)
        self.evidence = AuditEvidencePanel()
        self._build_actions()
        self.setCentralWidget(self._build_content())
        self._build_menus()
        self.table.selectionModel().currentRowChanged.connect(self._on_table_current_row_changed)
        self.note_edit.returnPressed.connect(self._commit_note)
        self.note_edit.textEdited.connect(self._on_note_edit_text_edited)
        self.note_edit.installEventFilter(self)
        state.runs_changed.connect(self._on_state_runs_changed)
        state.dataset_opened.connect(self._on_state_dataset_opened)
        self.verdict_given.connect(lambda verdict: state.verdicts_stored(verdict.instance_key))
        state.set_annotator(annotator)  # the main window now shows this annotator's verdicts only
        self.reload()
        self.go_first_unjudged(quiet=True)
        self.table.setFocus()

    @property
    def store(self) -> AuditStore:
        return AuditStore(self.state.workspace)  # the state's workspace: a reopened dataset has a new one

    # -- building -------------------------------------------------------------------------
    def _build_actions(self) -> None:
        self.verdict_actions = {}
        for label in LABELS:
            keys = VERDICT_KEYS[label]
            item = action(self, MENU_TITLES[label], lambda _=False, la=label: self.give(la), None,
                          VERDICT_TIPS[label])
            item.setShortcuts([QKeySequence(key) for key in keys])
            self.verdict_actions[label] = item
        # The same keys while "real, not exercised" is disabled: they only say why (not in a menu).
        self._refusal_action = action(self, "Real, Not Exercised (not for this edge)", self._refuse_not_exercised)
        self._refusal_action.setShortcuts([QKeySequence(key) for key in VERDICT_KEYS[NOT_EXERCISED]])
        self.undo_action = action(self, "&Undo Verdict", self.undo, None, "Take back your last verdict or note")
        self.undo_action.setShortcuts([QKeySequence(QKeySequence.StandardKey.Undo), QKeySequence("Backspace")])
        self.note_action = action(self, "Edit &Note", self._on_note_action_triggered, None,
                                  "Write a note on this edge (Enter stores it, Esc leaves it)")
        self.note_action.setShortcuts([QKeySequence("Return"), QKeySequence("Enter"), QKeySequence("E")])
        self.next_action = action(self, "&Next Edge", lambda: self.go_relative(1), None)
        self.next_action.setShortcuts([QKeySequence("Right"), QKeySequence("J")])
        self.previous_action = action(self, "&Previous Edge", lambda: self.go_relative(-1), None)
        self.previous_action.setShortcuts([QKeySequence("Left"), QKeySequence("K")])
        self.first_unjudged_action = action(self, "&First Unjudged Edge", self.go_first_unjudged, "Home")
        self.close_action = action(self, "&Close", self.close, QKeySequence.StandardKey.Close)
        self.keyboard_action = action(self, "&Keyboard Shortcuts", self._on_keyboard_action_triggered, "F1")

    def _build_menus(self) -> None:
        bar = self.menuBar()
        audit_menu = bar.addMenu("&Audit")
        audit_menu.addAction(self.close_action)
        verdict_menu = bar.addMenu("&Verdict")
        for label in LABELS:
            verdict_menu.addAction(self.verdict_actions[label])
        verdict_menu.addSeparator()
        verdict_menu.addAction(self.undo_action)
        verdict_menu.addAction(self.note_action)
        go_menu = bar.addMenu("&Go")
        for item in (self.next_action, self.previous_action, self.first_unjudged_action):
            go_menu.addAction(item)
        bar.addMenu("&Help").addAction(self.keyboard_action)

    def _build_content(self) -> QWidget:
        self.progress_label = QLabel()
        self.progress_label.setTextFormat(Qt.TextFormat.RichText)
        self.progress_bar = QProgressBar()
        self.progress_bar.setTextVisible(False)
        self.progress_bar.setFixedWidth(240)
        self.progress_bar.setMaximumHeight(12)
        self.who_label = QLabel()
        self.who_label.setTextFormat(Qt.TextFormat.RichText)
        self.who_label.setSizePolicy(QSizePolicy.Policy.Ignored, QSizePolicy.Policy.Preferred)
        self.who_label.setAlignment(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
        top = QHBoxLayout()
        top.setContentsMargins(12, 8, 12, 8)
        top.setSpacing(12)
        top.addWidget(self.progress_bar)
        top.addWidget(self.progress_label)
        top.addWidget(self.who_label, 1)
        self.done_label = QLabel()
        self.done_label.setStyleSheet(DONE_STYLE)
        self.done_label.hide()

        self.table.setMinimumWidth(520)
        right = QWidget()  # the done line sits above the evidence: showing it never moves the list
        right_layout = QVBoxLayout(right)
        right_layout.setContentsMargins(0, 0, 0, 0)
        right_layout.setSpacing(0)
        right_layout.addWidget(self.done_label)
        right_layout.addWidget(self.evidence, 1)
        splitter = pane_splitter(Qt.Orientation.Horizontal, (self.table, right), (2, 3), (580, 820))

        content = QWidget()
        layout = QVBoxLayout(content)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.setSpacing(0)
        layout.addLayout(top)
        layout.addWidget(splitter, 1)
        layout.addWidget(self._build_verdict_bar())
        return content

    def _build_verdict_bar(self) -> QWidget:
        bar = QWidget()
        self.verdict_bar = bar
        bar.setObjectName("verdict_bar")
        bar.setStyleSheet("#verdict_bar { background: palette(alternate-base); border-top: 1px solid palette(mid); }")
        self.question_label = QLabel()
        self.question_label.setTextFormat(Qt.TextFormat.RichText)
        self.question_label.setWordWrap(True)
        self.verdict_buttons: dict[str, QPushButton] = {}
        buttons = QHBoxLayout()
        buttons.setSpacing(8)
        for label in LABELS:
            button = QPushButton(f"{LABEL_TITLES[label][:1].upper()}{LABEL_TITLES[label][1:]}   "
                                 f"{' · '.join(VERDICT_KEYS[label])}")
            button.setFocusPolicy(Qt.FocusPolicy.NoFocus)  # the keys are the way in; focus stays on the list
            button.setToolTip(f"{VERDICT_TIPS[label]} (keys {' or '.join(VERDICT_KEYS[label])})")
            button.setMinimumHeight(34)
            button.clicked.connect(self.verdict_actions[label].trigger)
            self.verdict_buttons[label] = button
            buttons.addWidget(button)
        buttons.addStretch(1)
        self.undo_button = _nav_button("Undo   Ctrl+Z", self.undo_action)
        buttons.addWidget(self.undo_button)
        self.note_edit = QLineEdit()
        self.note_edit.setPlaceholderText("A note on this edge (Enter or E to write, Enter to store, Esc to leave)")
        self.note_edit.setClearButtonEnabled(True)
        self.previous_button = _nav_button("◀  Previous   K", self.previous_action)
        self.next_button = _nav_button("Next   J  ▶", self.next_action)
        note_row = QHBoxLayout()
        note_row.setSpacing(8)
        self.note_label = QLabel("&Note:")
        self.note_label.setBuddy(self.note_edit)
        self.note_label.setTextFormat(Qt.TextFormat.PlainText)
        note_row.addWidget(self.note_label)
        note_row.addWidget(self.note_edit, 1)
        note_row.addSpacing(12)
        note_row.addWidget(self.previous_button)
        note_row.addWidget(self.next_button)
        layout = QVBoxLayout(bar)
        layout.setContentsMargins(12, 8, 12, 10)
        layout.setSpacing(8)
        layout.addWidget(self.question_label)
        layout.addLayout(buttons)
        layout.addLayout(note_row)
        return bar

    # -- reading the store ----------------------------------------------------------------
    def reload(self) -> None:
        """Read this annotator's current verdicts again (only theirs)."""
        current = self.store.current_verdicts(self.audit.name, self.annotator)
        self.model.set_verdicts({ref: verdict for (_, ref), verdict in current.items()})
        self._show_progress()

    @property
    def verdicts(self) -> dict[EdgeRef, Verdict]:
        return self.model.verdicts

    @property
    def judged(self) -> int:
        return sum(item.ref in self.verdicts for item in self.items)

    @property
    def current_row(self) -> int:
        return self.table.currentIndex().row() if self.table.currentIndex().isValid() else -1

    @property
    def current_item(self) -> AuditItem | None:
        row = self.current_row
        return self.items[row] if 0 <= row < len(self.items) else None

    def first_unjudged_row(self, after: int = -1) -> int:
        """The first row without a verdict after `after` (wrapping round), -1 when all are judged."""
        count = len(self.items)
        for step in range(1, count + 1):
            row = (after + step) % count
            if self.items[row].ref not in self.verdicts:
                return row
        return -1

    # -- verdicts -------------------------------------------------------------------------
    def give(self, label: str) -> Verdict | None:
        """Store this annotator's `label` (with the note shown) for the current edge, then move on to
        the next edge without a verdict."""
        item = self.current_item
        if item is None:
            return None
        if not label_fits(item, label, self.not_exercised_everywhere):
            self._refuse_not_exercised()
            return None
        note = self.note_edit.text().strip() if self.note_ref == item.ref else self._kept_note(item.ref)
        verdict = self.store.give_verdict(self.audit.name, item.ref, self.annotator, label, note)
        self.pending_notes.pop(item.ref, None)
        if self.note_ref == item.ref:
            self._note_edited = self.note_edit.text().strip() != note
        self.model.set_verdict(item.ref, verdict)
        self._show_progress()
        self.verdict_given.emit(verdict)
        row = self.first_unjudged_row(self.current_row)
        if row >= 0:
            self.select_row(row)
        else:
            self._show_current()  # stay: the done line says so
        self.statusBar().showMessage(f"#{item.position + 1} {edge_text(item)}: {LABEL_TITLES[label]}", 4000)
        return verdict

    def undo(self) -> Verdict | None:
        """Take back the newest verdict (or note change); the edge's earlier verdict and note come back into
        the form, and a note given with a verdict that is taken back stays in the note field."""
        before = dict(self.verdicts)
        restored = self.store.undo(self.audit.name, self.annotator)
        if restored is None:
            self.statusBar().showMessage("Nothing to undo", 4000)
            return None
        ref = EdgeRef(restored.instance_key, restored.caller, restored.callee)
        undone = before.get(ref)
        if restored.cleared and undone is not None and undone.note:
            self.pending_notes[ref] = undone.note  # kept for the verdict given next
        if self.note_ref == ref:
            self._note_edited = False  # the form shows what the edge is back to
        self.model.set_verdict(ref, restored)
        self._show_progress()
        self.verdict_given.emit(restored)
        row = self.model.row_of(ref)
        if row >= 0:
            self.select_row(row)
            self._show_current()
        now = LABEL_TITLES[restored.label] if not restored.cleared else "no verdict"
        kept = " (its note is kept in the note field)" if ref in self.pending_notes else ""
        self.statusBar().showMessage(f"Undone: {restored.caller} → {restored.callee} is back to {now}{kept}", 5000)
        return restored

    def _refuse_not_exercised(self) -> None:  # never in a blind audit: the refusal would tell the class
        self.statusBar().showMessage("“Real, not exercised” is only for edges the ground truth lacks (false "
                                     "positives); this edge is in the ground truth", 5000)

    # -- notes ----------------------------------------------------------------------------
    def _on_note_action_triggered(self) -> None:
        if self.note_edit.hasFocus():  # Enter while writing: the shortcut wins over the line edit
            self._commit_note()
        else:
            self.note_edit.setFocus()
            self.note_edit.deselect()
            self.note_edit.end(False)  # go on writing; Esc brings the stored note back

    def _commit_note(self) -> None:
        """Enter in the note field: keep the note for the edge it was written for, and go back to the list."""
        self._keep_note()
        self._bind_note()
        self.table.setFocus()

    def _keep_note(self) -> None:
        """Save the note field's text to its edge: with the edge's verdict (a new row, so undo can take it
        back), or kept until the edge gets one."""
        ref, text = self.note_ref, self.note_edit.text().strip()
        if ref is None:
            return
        self._note_edited = False
        number = f"#{self.model.row_of(ref) + 1}"
        verdict = self.verdicts.get(ref)
        if verdict is not None:
            if text != verdict.note:
                stored = self.store.give_verdict(self.audit.name, ref, self.annotator, verdict.label, text)
                self.model.set_verdict(ref, stored)
                self.verdict_given.emit(stored)
                self.statusBar().showMessage(f"Note saved with your verdict on {number}", 3000)
        elif text:
            if text != self.pending_notes.get(ref):
                self.statusBar().showMessage(f"Note kept for {number}: it is stored with the verdict you give it",
                                             5000)
            self.pending_notes[ref] = text
        else:
            self.pending_notes.pop(ref, None)

    def _revert_note(self) -> None:
        self._note_edited = False
        self._bind_note()
        self.table.setFocus()

    def _kept_note(self, ref: EdgeRef) -> str:
        """The note kept for an edge: its verdict's, or one written before the verdict."""
        verdict = self.verdicts.get(ref)
        return verdict.note if verdict is not None else self.pending_notes.get(ref, "")

    def _bind_note(self) -> None:
        """Point the note field at the current edge and show its note, unless a note is being written for
        another edge: that one stays until Enter, Esc or leaving the field, and then goes to its own edge."""
        item = self.current_item
        if item is None:
            return
        if self.note_edit.hasFocus() and self.note_ref is not None and (self.note_ref != item.ref or self._note_edited):
            self._show_note_label()
            return
        self.note_ref = item.ref
        self._note_edited = False
        self.note_edit.setText(self._kept_note(item.ref))
        self._show_note_label()

    def _show_note_label(self) -> None:
        row = self.model.row_of(self.note_ref) if self.note_ref is not None else -1
        current = self.current_row
        if row < 0:
            self.note_label.setText("&Note:")
        elif row == current:
            self.note_label.setText(f"&Note on #{row + 1}:")
        else:  # still writing the note of an edge left behind (judged, or moved away from)
            self.note_label.setText(f"&Note on #{row + 1} (the edge you wrote it for):")

    def _on_note_edit_text_edited(self, _text: str) -> None:
        self._note_edited = True

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        if watched is self.note_edit:
            if event.type() == QEvent.Type.KeyPress and event.key() == Qt.Key.Key_Escape:
                self._revert_note()
                return True
            if event.type() == QEvent.Type.FocusOut:  # nothing written is lost, wherever the focus goes
                if self._note_edited:
                    self._keep_note()
                if event.reason() not in (Qt.FocusReason.ActiveWindowFocusReason, Qt.FocusReason.PopupFocusReason):
                    self._bind_note()  # left for good (not another window or a menu): back to the shown edge
        return super().eventFilter(watched, event)

    # -- moving ---------------------------------------------------------------------------
    def select_row(self, row: int) -> None:
        if 0 <= row < len(self.items):
            self.table.setCurrentIndex(self.model.index(row, 0))
            self.table.scrollTo(self.model.index(row, 0), QAbstractItemView.ScrollHint.PositionAtCenter)

    def go_relative(self, step: int) -> None:
        row = self.current_row + step
        if 0 <= row < len(self.items):
            self.select_row(row)
        else:
            self.statusBar().showMessage("This is the last edge" if step > 0 else "This is the first edge", 3000)

    def go_first_unjudged(self, quiet: bool = False) -> None:
        row = self.first_unjudged_row()
        if row < 0:
            if self.current_row < 0:
                self.select_row(0)
            if not quiet:
                self.statusBar().showMessage(f"All {len(self.items)} edges have your verdict", 4000)
            return
        self.select_row(row)

    def _on_table_current_row_changed(self, current: QModelIndex, _previous: QModelIndex) -> None:
        if current.isValid():
            self._show_current()

    def _show_current(self) -> None:
        item = self.current_item
        if item is None:
            return
        verdict = self.verdicts.get(item.ref)
        revealed = not self.blind or verdict is not None
        self.evidence.show_item(self.state.workspace, item, self.audit.model, reveal=revealed)
        self._bind_note()
        fp = label_fits(item, NOT_EXERCISED, self.not_exercised_everywhere)
        self.verdict_actions[NOT_EXERCISED].setEnabled(fp)
        self._refusal_action.setEnabled(not fp)
        self.verdict_buttons[NOT_EXERCISED].setEnabled(fp)
        for label, button in self.verdict_buttons.items():
            button.setStyleSheet(_button_style(label, verdict is not None and verdict.label == label))
        yours = (f"your verdict: <b style='color:{VERDICT_COLOURS[verdict.label]}'>{LABEL_TITLES[verdict.label]}"
                 "</b>" if verdict is not None else f"<span style='color:{MUTED_TEXT}'>no verdict yet</span>")
        self.question_label.setText(
            f"<b>Edge {item.position + 1} of {len(self.items)}</b> &nbsp;·&nbsp; Is <code>{html.escape(item.caller)}"
            f"</code> → <code>{html.escape(item.callee)}</code> a real call of this program? &nbsp;·&nbsp; {yours}")
        if not revealed:  # the main window colours the edge by class and shows the models' scores
            return
        if self.state.instance_key != item.instance_key:
            self.state.select_instance(item.instance_key)
        self.state.select_edge_named(item.caller, item.callee)

    def _show_progress(self) -> None:
        total, judged = len(self.items), self.judged
        counts = dict.fromkeys(LABELS, 0)
        for item in self.items:
            verdict = self.verdicts.get(item.ref)
            if verdict is not None:
                counts[verdict.label] += 1
        parts = [f"<b>{judged:,}</b> / {total:,} judged"]
        parts += [f"<span style='color:{VERDICT_COLOURS[label]}'>{n:,} {LABEL_TITLES[label]}</span>"
                  for label, n in counts.items() if n]
        self.progress_label.setText(" &nbsp;·&nbsp; ".join(parts))
        self.progress_bar.setRange(0, max(total, 1))
        self.progress_bar.setValue(judged)
        blind = (f"<b>{BLIND_TITLE}</b> <span style='color:{MUTED_TEXT}'>(class, models and scores shown after your "
                 "verdict)</span> &nbsp;·&nbsp; " if self.blind else "")
        self.who_label.setText(f"{blind}<span style='color:{MUTED_TEXT}'>{html.escape(self._describe())}</span> "
                               f"&nbsp;·&nbsp; annotating as <b>{html.escape(self.annotator)}</b>")
        self.who_label.setToolTip(BLIND_TIP if self.blind else "")
        done = total > 0 and judged == total
        self.done_label.setText(f"All {total:,} judged — thank you. Your verdicts are saved; you can still revise "
                                "any of them.")
        self.done_label.setVisible(done)

    def _describe(self) -> str:
        audit = self.audit
        if self.blind:  # the population names the model and, for FPs or FNs, every edge's class
            return f"{audit.name}: {audit.size:,} edges, seed {audit.seed}"
        return (f"{audit.name}: {audit.size:,} of {audit.population_size:,} "
                f"{population_phrase(audit.population, audit.model)}, seed {audit.seed}")

    # -- following the app ----------------------------------------------------------------
    def _on_state_runs_changed(self, key: str) -> None:
        self.evidence.forget(key)
        item = self.current_item
        if item is not None and item.instance_key == key:
            self._show_current()

    def _on_state_dataset_opened(self) -> None:
        """The dataset was opened again (new results, another workspace): read from the new workspace."""
        self.evidence.forget()
        if self.state.workspace is None or self.store.find(self.audit.name) is None:
            self.statusBar().showMessage("This audit is not in the workspace now open: close this window", 0)
            self.centralWidget().setEnabled(False)
            for item in (*self.verdict_actions.values(), self._refusal_action, self.undo_action, self.note_action):
                item.setEnabled(False)
            return
        self.reload()
        self._show_current()

    def _on_keyboard_action_triggered(self) -> None:
        KeyboardDialog([a.menu() for a in self.menuBar().actions() if a.menu() is not None], [], self).exec()

    def changeEvent(self, event: QEvent) -> None:
        if event.type() == QEvent.Type.ActivationChange and self.isActiveWindow():
            self.state.set_annotator(self.annotator)
        if event.type() in (QEvent.Type.PaletteChange, QEvent.Type.ApplicationPaletteChange):
            restyle(self.verdict_bar)  # style sheets read palette(...) only when set
            self._show_current()  # the verdict buttons' styles
        super().changeEvent(event)

    def closeEvent(self, event: QCloseEvent) -> None:
        if self.state.annotator == self.annotator:
            self.state.set_annotator(None)
        for signal, slot in ((self.state.runs_changed, self._on_state_runs_changed),
                             (self.state.dataset_opened, self._on_state_dataset_opened)):
            try:
                signal.disconnect(slot)
            except (RuntimeError, TypeError):  # already disconnected
                pass
        super().closeEvent(event)


def _nav_button(text: str, target) -> QPushButton:
    button = QPushButton(text)
    button.setFocusPolicy(Qt.FocusPolicy.NoFocus)
    button.setToolTip(target.toolTip())
    button.clicked.connect(target.trigger)
    return button


def _button_style(label: str, chosen: bool) -> str:
    colour = VERDICT_COLOURS[label]
    if chosen:
        return (f"QPushButton {{ background: {colour}; color: #ffffff; border: 1px solid {colour}; "
                "border-radius: 4px; padding: 4px 14px; font-weight: 600; }")
    return (f"QPushButton {{ background: palette(base); color: {colour}; border: 1px solid palette(mid); "
            f"border-left: 4px solid {colour}; border-radius: 4px; padding: 4px 14px; font-weight: 600; }}"
            f" QPushButton:hover {{ background: palette(alternate-base); }}"
            f" QPushButton:disabled {{ color: palette(mid); border-left-color: palette(mid); }}")
