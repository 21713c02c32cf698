"""Annotator mode: a human answers a baseline audit's questions, the same caller-conditioned questions
a model gets, and is scored like a model (`human:<annotator>`, see `core.audit.baseline`).

Left, the sampled programs with their progress; centre, the program's source (every file, highlighted,
read-only, the current question's function shaded in a neutral tint); right, the question in the
model's wording, the answer (`CalleeInput`, completing the program's function names) and the program's
questions with the answers given so far. Neither the ground truth nor any model's answer is shown.

Every change is committed at once (`AuditStore.store_answer`), then the program's prediction is
re-derived (`refresh_baseline_predictions`) and announced (`AppState.predictions_stored`), so the
human model joins the model combos, the F1 column and every view like a model. Opening the window
resumes at the first unanswered question.

Keys (also in the Answer menu and Help ▸ Keyboard): Enter adds the typed name, Enter on an empty
field goes to the next question, Backspace on an empty field removes the last name, Ctrl+0 answers
"no calls", Ctrl+Up / Ctrl+Down the previous / next question (plain Up / Down belong to the
completion list), Ctrl+Enter adds what is typed and goes to the next unanswered question,
Ctrl+PgUp / Ctrl+PgDown the previous / next program, F6 the source and back.
Navigating elsewhere drops a typed name that was not entered.
"""
from __future__ import annotations

import html
import logging
import sqlite3
from dataclasses import dataclass, field

from PySide6.QtCore import Qt, QTime
from PySide6.QtGui import QAction, QBrush, QColor, QFont, QKeySequence, QTextCursor
from PySide6.QtWidgets import (
    QAbstractItemView,
    QApplication,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QMainWindow,
    QProgressBar,
    QSplitter,
    QStyledItemDelegate,
    QTabWidget,
    QToolButton,
    QTreeWidget,
    QTreeWidgetItem,
    QVBoxLayout,
    QWidget,
)

from core.audit.audits import BASELINE_AUDIT, check_person_name, human_model_name
from core.audit.baseline import refresh_baseline_predictions
from core.audit.store import AuditStore
from core.errors import AuditError, TraceEvalError
from core.languages import registry
from core.llm.prompt_examples import worked_example
from core.llm.prompt_wording import STUDIO_INSTRUCTIONS
from core.llm.prompts import studio_questions
from core.records import Instance
from core.symbols import SymbolTable, extract_symbols
from traceeval_gui.program.source_file_view import SourceFileView
from traceeval_gui.program.source_view import tab_titles
from traceeval_gui.state.app_state import AppState
from traceeval_gui.theme.style import MUTED_TEXT, monospace_font
from traceeval_gui.widgets.answer_text import WARNING_TEXT, WARNING_TINT
from traceeval_gui.widgets.callee_input import NOT_DEFINED, CalleeInput
from traceeval_gui.widgets.keyboard_dialog import KeyboardDialog

log = logging.getLogger(__name__)

DONE_TEXT = "#1e7d32"
BODY_TINT = QColor("#f2f5fa")  # the question's function (neutral: never a TP / FP / FN colour)
DEFINITION_TINT = QColor("#dce6f5")
NOT_ANSWERED = "not answered"
PROGRAM_COLUMNS = ("Program", "Language", "Answered")
QUESTION_COLUMNS = ("#", "Function", "Answer")
KEY_HINT = ("Enter adds a name · Enter on an empty field: next question · Backspace removes the last name · "
            "Ctrl+0 no calls · Ctrl+↑/↓ previous/next question · Ctrl+Enter next unanswered · "
            "Ctrl+PgUp/PgDn program · F6 source")


@dataclass
class BaselineProgram:
    """One sampled program: its questions (callers, in the audit's order) and, once shown, its source."""

    key: str
    instance_id: str
    language: str
    callers: list[str] = field(default_factory=list)
    instance: Instance | None = None
    sources: dict[str, str] = field(default_factory=dict)
    unreadable: dict[str, str] = field(default_factory=dict)
    symbols: SymbolTable | None = None
    questions: list[str] = field(default_factory=list)  # in the model's wording, one per caller

    @property
    def loaded(self) -> bool:
        return bool(self.questions)


class BaselineWindow(QMainWindow):
    def __init__(self, state: AppState, audit_name: str, annotator: str, parent: QWidget | None = None) -> None:
        """AuditError when no workspace is open or the audit is unknown or not a baseline audit;
        ValueError for an unusable annotator name."""
        super().__init__(parent)
        if state.workspace is None:
            raise AuditError("open a dataset before answering a baseline audit")
        self.state = state
        self.audit_name = audit_name
        self.annotator = check_person_name(annotator)
        self.model_name = human_model_name(annotator)
        audit = AuditStore(state.workspace).get(audit_name)
        if audit.kind != BASELINE_AUDIT:
            raise AuditError(f"{audit_name!r} is an edge audit: its verdicts are given in the audit window")
        self.programs: list[BaselineProgram] = []
        self.answers: dict[tuple[str, str], tuple[str, ...]] = {}
        self.program_index = -1
        self.question_index = -1
        self.setWindowTitle(f"Human baseline {audit_name} — {annotator}")
        self.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
        self._build()
        self._build_actions()
        state.dataset_opened.connect(self._on_state_dataset_opened)
        self.reload()

    # -- building ---------------------------------------------------------------------------
    def _build(self) -> None:
        self.program_list = _tree(PROGRAM_COLUMNS)
        self.program_list.header().setSectionResizeMode(0, QHeaderView.ResizeMode.Stretch)
        self.program_list.currentItemChanged.connect(self._on_program_list_current_changed)
        programs_title = _title("Programs")
        programs_title.setContentsMargins(8, 6, 8, 5)
        left = _column(programs_title, self.program_list)

        self.source_header = QLabel()
        self.source_header.setTextFormat(Qt.TextFormat.RichText)
        self.source_header.setContentsMargins(8, 6, 8, 4)
        self.source_notice = QLabel()
        self.source_notice.setWordWrap(True)
        self.source_notice.setContentsMargins(8, 0, 8, 4)
        self.source_notice.setStyleSheet(f"color: {WARNING_TEXT};")
        self.source_notice.hide()
        self.source_tabs = QTabWidget()
        self.source_tabs.setDocumentMode(True)
        self.source_tabs.setUsesScrollButtons(True)
        centre = _column(self.source_header, self.source_notice, self.source_tabs)

        self.progress_label = QLabel()
        self.progress_label.setStyleSheet("font-weight: bold;")
        self.progress_bar = QProgressBar()
        self.progress_bar.setTextVisible(False)
        self.progress_bar.setFixedHeight(6)
        self.question_title = QLabel()
        self.question_title.setTextFormat(Qt.TextFormat.RichText)
        self.question_title.setWordWrap(True)
        self.question_text = QLabel()
        self.question_text.setWordWrap(True)
        self.question_text.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.question_text.setStyleSheet("QLabel { background: #f6f7f9; border: 1px solid #e3e5e8; "
                                         "border-radius: 4px; padding: 8px; font-size: 11pt; }")
        self.callee_input = CalleeInput()
        self.callee_input.answer_changed.connect(self._on_callee_input_answer_changed)
        self.callee_input.submitted.connect(self._on_callee_input_submitted)
        self.save_label = QLabel()
        self.save_label.setStyleSheet(f"color: {MUTED_TEXT};")
        self.save_label.setWordWrap(True)
        navigation = QHBoxLayout()
        navigation.setSpacing(6)
        self.previous_button = _button("◀ Previous", "Previous question (Ctrl+Up)", self.previous_question)
        self.next_button = _button("Next ▶", "Next question (Ctrl+Down, or Enter on an empty field)",
                                   self.next_question)
        self.unanswered_button = _button("Next unanswered", "Add what is typed and go to the next unanswered "
                                         "question (Ctrl+Enter)", self.next_unanswered)
        for button in (self.previous_button, self.next_button, self.unanswered_button):
            navigation.addWidget(button)
        navigation.addStretch(1)
        self.question_list = _tree(QUESTION_COLUMNS)
        self.question_list.setItemDelegateForColumn(1, _ElideLeftDelegate(self.question_list))
        header = self.question_list.header()
        header.setSectionResizeMode(0, QHeaderView.ResizeMode.ResizeToContents)
        header.setSectionResizeMode(1, QHeaderView.ResizeMode.Interactive)
        header.setSectionResizeMode(2, QHeaderView.ResizeMode.Stretch)
        header.resizeSection(1, 190)
        self.question_list.currentItemChanged.connect(self._on_question_list_current_changed)
        self.questions_title = _title("Questions in this program")
        self.instructions_button = QToolButton()
        self.instructions_button.setText("Instructions given to the models")
        self.instructions_button.setCheckable(True)
        self.instructions_button.setArrowType(Qt.ArrowType.RightArrow)
        self.instructions_button.setToolButtonStyle(Qt.ToolButtonStyle.ToolButtonTextBesideIcon)
        self.instructions_button.setAutoRaise(True)
        self.instructions_button.setFocusPolicy(Qt.FocusPolicy.NoFocus)
        self.instructions_button.toggled.connect(self._on_instructions_button_toggled)
        self.instructions = QLabel()
        self.instructions.setWordWrap(True)
        self.instructions.setTextFormat(Qt.TextFormat.RichText)
        self.instructions.setStyleSheet(f"color: {MUTED_TEXT};")
        self.instructions.hide()
        hint = QLabel(KEY_HINT)
        hint.setWordWrap(True)
        hint.setStyleSheet(f"color: {MUTED_TEXT}; font-size: 8pt;")
        answer_title = _title("Your answer")
        right = _column(self.progress_label, self.progress_bar, self.question_title, self.question_text,
                        answer_title, self.callee_input, self.save_label, navigation, self.questions_title,
                        self.question_list, self.instructions_button, self.instructions, hint)
        right.layout().setContentsMargins(10, 8, 10, 8)
        right.layout().setSpacing(6)
        right.layout().setStretchFactor(self.question_list, 1)

        self.splitter = QSplitter(Qt.Orientation.Horizontal)
        for widget in (left, centre, right):
            self.splitter.addWidget(widget)
        self.splitter.setChildrenCollapsible(False)
        self.splitter.setStretchFactor(1, 1)
        self.splitter.setSizes([280, 640, 480])
        self.setCentralWidget(self.splitter)
        self.statusBar().showMessage("Every answer is saved as soon as it is given.")

    def _build_actions(self) -> None:
        menu = self.menuBar().addMenu("&Answer")
        self._action(menu, "&No calls", ["Ctrl+0"], self.no_calls)
        menu.addSeparator()
        self.previous_action = self._action(menu, "&Previous question", ["Ctrl+Up"], self.previous_question)
        self.next_action = self._action(menu, "Ne&xt question", ["Ctrl+Down"], self.next_question)
        self._action(menu, "Next &unanswered question", ["Ctrl+Return", "Ctrl+Enter"], self.next_unanswered)
        self._action(menu, "Previous p&rogram", ["Ctrl+PgUp"], self.previous_program)
        self._action(menu, "Next pro&gram", ["Ctrl+PgDown"], self.next_program)
        menu.addSeparator()
        self._action(menu, "&Source / answer", ["F6"], self.toggle_source_focus)
        menu.addSeparator()
        self._action(menu, "&Close", ["Ctrl+W"], self.close)
        help_menu = self.menuBar().addMenu("&Help")
        self._action(help_menu, "&Keyboard…", ["F1"], self._show_keyboard)
        self._menus = [menu]

    def _action(self, menu, text: str, keys: list[str], slot) -> QAction:
        action = QAction(text, self)
        action.setShortcuts([QKeySequence(key) for key in keys])
        action.setShortcutContext(Qt.ShortcutContext.WindowShortcut)
        action.triggered.connect(slot)
        menu.addAction(action)
        return action

    # -- loading ----------------------------------------------------------------------------
    def reload(self) -> None:
        """Read the audit's questions and this annotator's answers; open at the first unanswered one."""
        store = AuditStore(self.state.workspace)
        by_key: dict[str, BaselineProgram] = {}
        for item in store.items(self.audit_name):
            program = by_key.setdefault(item.instance_key,
                                        BaselineProgram(item.instance_key, item.instance_id, item.language))
            program.callers.append(item.caller)
        self.programs = list(by_key.values())
        self.answers = {ref: answer.callees for ref, answer in store.answers(self.audit_name, self.annotator).items()}
        self.program_index = self.question_index = -1
        self._fill_program_list()
        first = self.first_unanswered()
        if first is not None:
            self.go_to(*first)
        elif self.programs:
            self.go_to(0, 0)
            self.statusBar().showMessage("Every question is answered: changes are still saved.")
        self._update_progress()

    def _load(self, program: BaselineProgram) -> None:
        if program.loaded:
            return
        program.instance = self.state.workspace.instance(program.key) if self.state.workspace else None
        if program.instance is None:
            program.questions = [f"What are the function calls made by {caller}?" for caller in program.callers]
            return
        program.sources, program.unreadable = program.instance.read_sources()
        program.symbols = extract_symbols(program.language, program.sources)
        files = [path for path in program.instance.files if path in program.sources]
        program.questions = studio_questions(program.language, program.callers, files)

    # -- queries (tests, other views) -------------------------------------------------------
    @property
    def program(self) -> BaselineProgram | None:
        return self.programs[self.program_index] if 0 <= self.program_index < len(self.programs) else None

    def current_question(self) -> tuple[str, str] | None:
        """(instance key, caller) of the question shown."""
        program = self.program
        if program is None or not 0 <= self.question_index < len(program.callers):
            return None
        return program.key, program.callers[self.question_index]

    def answered_count(self, program: BaselineProgram | None = None) -> int:
        programs = [program] if program is not None else self.programs
        return sum((p.key, caller) in self.answers for p in programs for caller in p.callers)

    def question_count(self) -> int:
        return sum(len(p.callers) for p in self.programs)

    def first_unanswered(self, after: tuple[int, int] | None = None) -> tuple[int, int] | None:
        """The first unanswered question (after `after`, wrapping), as (program, question) indexes."""
        order = [(p, q) for p, program in enumerate(self.programs) for q in range(len(program.callers))]
        if after is not None and after in order:
            start = order.index(after) + 1
            order = order[start:] + order[:start]
        return next(((p, q) for p, q in order
                     if (self.programs[p].key, self.programs[p].callers[q]) not in self.answers), None)

    def source_views(self) -> list[SourceFileView]:
        return [self.source_tabs.widget(i) for i in range(self.source_tabs.count())
                if isinstance(self.source_tabs.widget(i), SourceFileView)]

    def progress_text(self) -> str:
        program = self.program
        if program is None:
            return "This audit has no questions."
        return (f"Question {self.question_index + 1} of {len(program.callers)} · program {self.program_index + 1} "
                f"of {len(self.programs)} · {self.answered_count()} of {self.question_count()} answered")

    # -- navigation -------------------------------------------------------------------------
    def go_to(self, program_index: int, question_index: int = 0) -> None:
        if not 0 <= program_index < len(self.programs):
            return
        program = self.programs[program_index]
        question_index = max(0, min(question_index, len(program.callers) - 1))
        if program_index != self.program_index:
            self.program_index = program_index
            self.question_index = -1
            self._show_program(program)
        if question_index != self.question_index:
            self.question_index = question_index
            self._show_question(program)
        self._update_progress()

    def previous_question(self) -> None:
        if self.question_index > 0:
            self.go_to(self.program_index, self.question_index - 1)
        elif self.program_index > 0:
            self.go_to(self.program_index - 1, len(self.programs[self.program_index - 1].callers) - 1)

    def next_question(self) -> None:
        program = self.program
        if program is None:
            return
        if self.question_index + 1 < len(program.callers):
            self.go_to(self.program_index, self.question_index + 1)
        elif self.program_index + 1 < len(self.programs):
            self.go_to(self.program_index + 1, 0)
        else:
            self.statusBar().showMessage("That was the last question of the audit.", 5000)

    def next_unanswered(self) -> None:
        self.callee_input.commit_pending()
        target = self.first_unanswered((self.program_index, self.question_index))
        if target is None:
            self.statusBar().showMessage(f"All {self.question_count()} questions are answered. Thank you!")
            return
        self.go_to(*target)
        self.callee_input.setFocus()

    def previous_program(self) -> None:
        self.go_to(self.program_index - 1, self._first_unanswered_in(self.program_index - 1))

    def next_program(self) -> None:
        self.go_to(self.program_index + 1, self._first_unanswered_in(self.program_index + 1))

    def no_calls(self) -> None:
        self.callee_input.line_edit.clear()
        self.callee_input.set_no_calls()

    def toggle_source_focus(self) -> None:
        view = self.source_tabs.currentWidget()
        if view is not None and not view.hasFocus():
            view.setFocus()
        else:
            self.callee_input.setFocus()

    def _first_unanswered_in(self, program_index: int) -> int:
        if not 0 <= program_index < len(self.programs):
            return 0
        program = self.programs[program_index]
        return next((q for q, caller in enumerate(program.callers) if (program.key, caller) not in self.answers), 0)

    # -- slots ------------------------------------------------------------------------------
    def _on_callee_input_answer_changed(self, callees: tuple) -> None:
        question = self.current_question()
        ws = self.state.workspace
        if question is None:
            return
        key, caller = question
        if ws is None:
            self._show_error("No workspace is open: the answer was not saved.")
            return
        try:
            answer = AuditStore(ws).store_answer(self.audit_name, self.annotator, key, caller, callees)
        except (TraceEvalError, ValueError, sqlite3.Error) as error:
            log.exception("storing a baseline answer failed")
            self._show_error(f"The answer was not saved: {error}")
            self.callee_input.set_answer(self.answers.get(question))
            return
        self.answers[question] = answer.callees
        try:
            refresh_baseline_predictions(ws, self.audit_name, self.annotator, [key])
        except (TraceEvalError, sqlite3.Error) as error:  # the answer is safe; the prediction can be redone
            log.exception("re-deriving the human baseline prediction failed")
            self._show_error(f"Saved, but the {self.model_name} prediction was not updated: {error}")
        else:
            self.state.predictions_stored(self.model_name, {key})
            given = ", ".join(answer.callees) if answer.callees else "no calls"
            self._show_saved(f"Saved {QTime.currentTime().toString('HH:mm:ss')}: {caller} → {given}")
        self._update_question_row(self.question_index)
        self._update_program_row(self.program_index)
        self._update_progress()

    def _on_callee_input_submitted(self) -> None:
        self.next_question()

    def _on_program_list_current_changed(self, current: QTreeWidgetItem | None, _previous) -> None:
        if current is not None:
            index = self.program_list.indexOfTopLevelItem(current)
            if index != self.program_index:
                self.go_to(index, self._first_unanswered_in(index))

    def _on_question_list_current_changed(self, current: QTreeWidgetItem | None, _previous) -> None:
        if current is not None:
            self.go_to(self.program_index, self.question_list.indexOfTopLevelItem(current))

    def _on_instructions_button_toggled(self, shown: bool) -> None:
        self.instructions.setVisible(shown)
        self.instructions_button.setArrowType(Qt.ArrowType.DownArrow if shown else Qt.ArrowType.RightArrow)

    def _on_state_dataset_opened(self) -> None:
        """Another dataset or a reopened workspace: read the audit again from it (or stop answering)."""
        ws = self.state.workspace
        if ws is None or AuditStore(ws).find(self.audit_name) is None:
            self.callee_input.setEnabled(False)
            self._show_error(f"The open workspace has no audit {self.audit_name!r}: close this window.")
            return
        self.callee_input.setEnabled(True)
        position = (self.program_index, self.question_index)
        self.reload()
        if 0 <= position[0] < len(self.programs):
            self.go_to(*position)

    def _show_keyboard(self) -> None:
        extra = [("Answer box", "Add the typed name", "Enter"),
                 ("Answer box", "Next question (field empty)", "Enter"),
                 ("Answer box", "Remove the last name (field empty)", "Backspace"),
                 ("Answer box", "Pick a completion", "Up, Down")]
        KeyboardDialog(self._menus, extra, self).exec()

    # -- showing ----------------------------------------------------------------------------
    def _fill_program_list(self) -> None:
        self.program_list.blockSignals(True)
        self.program_list.clear()
        for index, program in enumerate(self.programs):
            item = QTreeWidgetItem([program.instance_id, registry.title(program.language, program.language), ""])
            item.setToolTip(0, program.key)
            item.setTextAlignment(2, Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
            self.program_list.addTopLevelItem(item)
            self._update_program_row(index)
        for column in (1, 2):
            self.program_list.resizeColumnToContents(column)
        self.program_list.blockSignals(False)

    def _show_program(self, program: BaselineProgram) -> None:
        QApplication.setOverrideCursor(Qt.CursorShape.WaitCursor)
        try:
            self._load(program)
        finally:
            QApplication.restoreOverrideCursor()
        _select_row(self.program_list, self.program_index)
        self.callee_input.set_names([node.name for node in program.symbols.nodes] if program.symbols else [])
        self._build_tabs(program)
        language = registry.title(program.language, program.language)
        files = len(program.instance.files) if program.instance else 0
        self.source_header.setText(f"<b>{html.escape(program.instance_id)}</b>&nbsp;&nbsp;<span style='color:"
                                   f"{MUTED_TEXT}'>{language} · {files} file{'s' if files != 1 else ''}</span>")
        self.questions_title.setText(f"Questions in {program.instance_id}")
        self.instructions.setText(_instructions_html(program.language))
        self.question_list.blockSignals(True)
        self.question_list.clear()
        for number, caller in enumerate(program.callers, 1):
            item = QTreeWidgetItem([str(number), caller, ""])
            item.setFont(1, monospace_font(9))
            item.setTextAlignment(0, Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
            self.question_list.addTopLevelItem(item)
        for row in range(len(program.callers)):
            self._update_question_row(row)
        self.question_list.blockSignals(False)

    def _build_tabs(self, program: BaselineProgram) -> None:
        reading = any(view.hasFocus() for view in self.source_views())  # keep reading in the new source
        while self.source_tabs.count():
            widget = self.source_tabs.widget(0)
            self.source_tabs.removeTab(0)
            widget.deleteLater()
        if program.instance is None:
            self._show_notice(f"{program.key} is not in the open workspace: its source cannot be shown.")
            return
        titles = tab_titles(program.instance.files)
        for path in program.instance.files:
            if path in program.sources:
                widget = SourceFileView(path, program.sources[path], program.language)
            else:
                widget = QLabel(f"Cannot read {path}: {program.unreadable.get(path, 'unknown error')}")
                widget.setAlignment(Qt.AlignmentFlag.AlignCenter)
            index = self.source_tabs.addTab(widget, titles[path])
            self.source_tabs.setTabToolTip(index, path)
        self._show_notice()
        if reading and self.source_tabs.count():
            self.source_tabs.currentWidget().setFocus()

    def _show_question(self, program: BaselineProgram) -> None:
        caller = program.callers[self.question_index]
        number = self.question_index + 1
        self.question_title.setText(f"<span style='color:{MUTED_TEXT}'>Calls made by</span> "
                                    f"<code><b>{html.escape(caller)}</b></code>")
        self.question_text.setText(f"{number}. {program.questions[self.question_index]}")
        self.callee_input.set_answer(self.answers.get((program.key, caller)))
        _select_row(self.question_list, self.question_index)
        self._show_caller(program, caller)
        self.save_label.clear()
        self.previous_button.setEnabled(self.program_index > 0 or self.question_index > 0)
        self.next_button.setEnabled(self.program_index + 1 < len(self.programs)
                                    or self.question_index + 1 < len(program.callers))

    def _show_caller(self, program: BaselineProgram, caller: str) -> None:
        """Shade the question's function in the source (neutral tint, no edges of any kind)."""
        for view in self.source_views():
            view.setExtraSelections([])
            view.focused_line = None
            view.gutter.update()
        node = program.symbols.place(caller) if program.symbols is not None else None
        view = next((v for v in self.source_views() if node is not None and v.path == node.file), None)
        if view is None:
            if program.instance is not None:
                self._show_notice(f"{caller} is not found in the source.")
            return
        self._show_notice()
        self.source_tabs.setCurrentWidget(view)
        if node.kind == "module":
            view.moveCursor(QTextCursor.MoveOperation.Start)
            return
        view.focused_line = node.start_line
        view.tint_lines({line: DEFINITION_TINT if line == node.start_line else BODY_TINT
                         for line in range(node.start_line, node.end_line + 1)})
        view.setTextCursor(QTextCursor(view.document().findBlockByNumber(max(node.start_line - 1, 0))))
        view.centerCursor()

    def _update_question_row(self, row: int) -> None:
        program, item = self.program, self.question_list.topLevelItem(row)
        if program is None or item is None:
            return
        answer = self.answers.get((program.key, program.callers[row]))
        unknown = [name for name in answer or () if not self.callee_input.is_known(name)]
        if answer is None:
            text, colour, italic = NOT_ANSWERED, WARNING_TEXT, True
        elif not answer:
            text, colour, italic = "no calls", MUTED_TEXT, True
        else:
            text, colour, italic = ("⚠ " if unknown else "") + ", ".join(answer), "#1f2328", False
        item.setText(2, text)
        item.setForeground(2, QBrush(QColor(colour)))
        font = QFont()
        font.setItalic(italic)
        item.setFont(2, font)
        item.setBackground(2, QBrush(WARNING_TINT) if answer is None else QBrush())
        tooltip = f"<code>{html.escape(program.callers[row])}</code>: " + html.escape(text)
        if unknown:
            tooltip += f"<br>⚠ {NOT_DEFINED}: " + html.escape(", ".join(unknown))
        item.setToolTip(2, tooltip)

    def _update_program_row(self, index: int) -> None:
        item = self.program_list.topLevelItem(index)
        if item is None:
            return
        program = self.programs[index]
        done, total = self.answered_count(program), len(program.callers)
        item.setText(2, f"{'✓ ' if done == total else ''}{done} / {total}")
        item.setForeground(2, QBrush(QColor(DONE_TEXT if done == total else MUTED_TEXT if not done else "#1f2328")))

    def _update_progress(self) -> None:
        self.progress_label.setText(self.progress_text())
        self.progress_bar.setMaximum(max(self.question_count(), 1))
        self.progress_bar.setValue(self.answered_count())

    def _show_notice(self, text: str = "") -> None:
        self.source_notice.setText(f"⚠ {text}" if text else "")
        self.source_notice.setVisible(bool(text))

    def _show_saved(self, text: str) -> None:
        self.save_label.setStyleSheet(f"color: {MUTED_TEXT};")
        self.save_label.setText(text)

    def _show_error(self, text: str) -> None:
        self.save_label.setStyleSheet("color: #b3261e;")
        self.save_label.setText(text)
        self.statusBar().showMessage(text)


class _ElideLeftDelegate(QStyledItemDelegate):
    """Long function names keep their end (the function's own name) and lose their start."""

    def initStyleOption(self, option, index) -> None:
        super().initStyleOption(option, index)
        option.textElideMode = Qt.TextElideMode.ElideLeft


def _instructions_html(language: str) -> str:
    rows = "<br>".join(f"{number}. {html.escape(text)}" for number, text in enumerate(STUDIO_INSTRUCTIONS, 1))
    example = worked_example(language)
    naming = example.naming if example else ""
    return ("<i>What models are asked, in this project's wording (here, add the names one by one; \"No calls\" "
            f"when there are none):</i><br>{rows}<br>{html.escape(naming)}")


def _tree(columns: tuple[str, ...]) -> QTreeWidget:
    tree = QTreeWidget()
    tree.setHeaderLabels(list(columns))
    tree.setRootIsDecorated(False)
    tree.setUniformRowHeights(True)
    tree.setAlternatingRowColors(True)
    tree.setSelectionMode(QAbstractItemView.SelectionMode.SingleSelection)
    tree.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
    tree.header().setStretchLastSection(False)
    return tree


def _title(text: str) -> QLabel:
    label = QLabel(text)
    label.setStyleSheet("font-weight: bold; color: #3c4043;")
    return label


def _column(*parts) -> QWidget:
    widget = QWidget()
    layout = QVBoxLayout(widget)
    layout.setContentsMargins(0, 0, 0, 0)
    layout.setSpacing(0)
    for part in parts:
        if isinstance(part, QWidget):
            layout.addWidget(part)
        else:
            layout.addLayout(part)
    return widget


def _button(text: str, tooltip: str, slot) -> QToolButton:
    button = QToolButton()
    button.setText(text)
    button.setToolTip(tooltip)
    button.setFocusPolicy(Qt.FocusPolicy.NoFocus)
    button.clicked.connect(slot)
    return button


def _select_row(tree: QTreeWidget, row: int) -> None:
    item = tree.topLevelItem(row)
    if item is not None and tree.currentItem() is not item:
        tree.blockSignals(True)
        tree.setCurrentItem(item)
        tree.blockSignals(False)
        tree.scrollToItem(item)
