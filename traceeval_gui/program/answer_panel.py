"""The Answer tab: model A's raw response for the selected program, as the parser read it, and the prompt.

The header names the model, what is known about the call (tokens, latency, cost, the results file),
the number of parse problems, and whether the stored prompt hash is the hash of the prompt built
now. "Answer" shows a reasoning model's thinking folded (`ThinkingFold`), then the response line by line
(`AnswerTextView`) with the parse problems above it,
and beside it every question with what was read for it or "no answer line" (`QuestionTableView`);
picking a question scrolls the response to its line. "Prompt" (`PromptView`) shows the full
prompt (`core.llm.prompts.build_prompt`, in the words of the window's TraceEval release or, without
one, this project's, labelled so) with its hash, size and a Copy button; the header says which
wording the stored answer's prompt had. The prompt is built from the sources the app already read
for the selected program, and only when the prompt view is shown or the stored hash has to be checked.

The panel follows the app state: the program, model A, a newly opened dataset and newly stored
predictions; it takes the program's prediction from the state's detail (read once per selection) and
redraws only when it changed. The graph's view mode and hidden classes do not change an answer, so
switching them costs the panel nothing. An absurd response is shown in part (`shown_response`), with a
line saying what is left out; its problems are then the stored ones (from the whole response) and
those of the lines shown, listed up to `PROBLEMS_LISTED`.
"""
from __future__ import annotations

import html

from PySide6.QtCore import QModelIndex, Qt
from PySide6.QtWidgets import QButtonGroup, QHBoxLayout, QLabel, QStackedWidget, QToolButton, QVBoxLayout, QWidget

from core.errors import TraceEvalError
from core.llm.prompt_wording import RELEASE, wording_label
from core.llm.prompts import Prompt, build_prompt
from core.records import Prediction
from core.report.shown_response import SHOWN_PROBLEMS, ShownResponse, shown_response
from core.scoring.answers import AnswerLine, answer_lines, parse_answer, question_answers
from core.wording import count
from traceeval_gui.program.answer_prompt import PromptView, prompt_status
from traceeval_gui.program.answer_questions import QUESTION_ROLE, QuestionTableModel, QuestionTableView
from traceeval_gui.program.answer_thinking import ThinkingFold
from traceeval_gui.state.app_state import AppState
from traceeval_gui.theme.style import MUTED_TEXT, model_label
from traceeval_gui.theme.trace_text import GREEN
from traceeval_gui.widgets.answer_text import WARNING_TEXT, AnswerTextView
from traceeval_gui.widgets.form_parts import layout_widget, pane_splitter, titled_pane
from traceeval_gui.widgets.note_label import NoteLabel
from traceeval_gui.widgets.when_shown import WhenShown

ANSWER_VIEW, PROMPT_VIEW = "answer", "prompt"
PROBLEMS_SHOWN = 3
PROBLEMS_LISTED = SHOWN_PROBLEMS  # in the problems' tooltip
NO_DATASET = "Open a dataset to see the models' answers and prompts."
NO_PROGRAM = "Select a program to see model A's answer for it and the prompt it was given."
NO_MODEL = ("No model results in this workspace: import some (File ▸ Import Results) to see answers. "
            "The Prompt view shows what a model would be given.")


def no_answer_text(model: str) -> str:
    return f"{model} has no answer for this program."


def prediction_facts(prediction: Prediction) -> list[str]:
    """What is known about the call that produced a prediction, in words (unknown facts left out)."""
    facts = []
    if prediction.tokens_in is not None:
        facts.append(f"{prediction.tokens_in:,} tokens in")
    if prediction.tokens_out is not None:
        thinking = f" ({prediction.reasoning_tokens:,} thinking)" if prediction.reasoning_tokens is not None else ""
        facts.append(f"{prediction.tokens_out:,} out{thinking}")
    if prediction.latency_s is not None:
        facts.append(f"{prediction.latency_s:.1f} s")
    if prediction.cost_usd is not None:
        facts.append(f"${prediction.cost_usd:.4f}" if prediction.cost_usd < 1 else f"${prediction.cost_usd:,.2f}")
    if prediction.source:  # "file#program_id" for imported results: the program is the one shown
        facts.append(f"from {prediction.source.removesuffix('#' + prediction.instance_id)}")
    return facts


class AnswerPanel(QWidget):
    def __init__(self, state: AppState, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.state = state
        self.prediction: Prediction | None = None  # model A's answer for the program shown
        self.lines: list[AnswerLine] = []  # of the shown part of the response
        self.shown_response: ShownResponse | None = None
        self.problems: list[str] = []  # the prediction's parse problems (stored, then any new on re-parsing)
        self._shown: tuple | None = None  # (workspace, key, model, prediction) last drawn
        self._prompt: tuple[str, Prompt | None, str] | None = None  # (instance key, prompt, why not)
        self._syncing = False  # a table row picked because of a click in the text: do not scroll the text

        self.message = _message_label()
        self.pages = QStackedWidget()
        self.pages.addWidget(self.message)
        self.pages.addWidget(self._build_content())
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(self.pages)
        state.dataset_opened.connect(self._on_state_dataset_opened)
        state.instance_selected.connect(self._on_state_instance_selected)
        state.model_selected.connect(self._on_state_model_selected)
        state.predictions_changed.connect(self._on_state_predictions_changed)
        state.release_changed.connect(self._on_state_release_changed)
        self._when_shown = WhenShown(self)  # behind another tab, the answer is shown when the tab is
        self.refresh()

    # -- building -------------------------------------------------------------------------
    def _build_content(self) -> QWidget:
        self.header_label = QLabel()
        self.header_label.setTextFormat(Qt.TextFormat.RichText)
        self.header_label.setWordWrap(True)
        self.view_buttons: dict[str, QToolButton] = {}
        self._view_group = QButtonGroup(self)
        switch = QHBoxLayout()
        switch.setSpacing(0)
        for name, title, tip in ((ANSWER_VIEW, "Answer", "The model's raw response, line by line as it was parsed"),
                                 (PROMPT_VIEW, "Prompt", "The prompt the model was (or would be) given")):
            button = QToolButton()
            button.setText(title)
            button.setCheckable(True)
            button.setToolTip(tip)
            button.setStyleSheet(_segment_style(name == ANSWER_VIEW))
            self._view_group.addButton(button)
            self.view_buttons[name] = button
            switch.addWidget(button)
        self.view_buttons[ANSWER_VIEW].setChecked(True)
        for button in self.view_buttons.values():
            button.toggled.connect(self._on_view_button_toggled)
        header = QHBoxLayout()
        header.setContentsMargins(8, 6, 8, 4)
        header.setSpacing(10)
        header.addWidget(self.header_label, 1)
        header.addLayout(switch)

        self.prompt_view = PromptView()
        self.views = QStackedWidget()
        self.views.addWidget(self._build_answer_page())
        self.views.addWidget(self.prompt_view)
        content = QWidget()
        layout = QVBoxLayout(content)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.setSpacing(0)
        layout.addLayout(header)
        layout.addWidget(self.views, 1)
        return content

    def _build_answer_page(self) -> QWidget:
        self.problems_label = QLabel()
        self.problems_label.setTextFormat(Qt.TextFormat.RichText)
        self.problems_label.setWordWrap(True)
        self.problems_label.setContentsMargins(8, 0, 4, 4)
        self.response_note = NoteLabel()  # what a long response's view leaves out
        self.text_view = AnswerTextView()
        self.text_view.line_clicked.connect(self._on_text_view_line_clicked)
        self.questions_label = QLabel()
        self.questions_label.setTextFormat(Qt.TextFormat.RichText)
        self.questions_label.setWordWrap(True)
        self.questions_label.setContentsMargins(4, 0, 8, 4)
        self.questions_label.linkActivated.connect(self._on_questions_label_link_activated)
        self.question_model = QuestionTableModel(self)
        self.question_table = QuestionTableView(self.question_model)
        self.question_table.selectionModel().currentRowChanged.connect(self._on_question_table_current_row_changed)
        self.thinking = ThinkingFold()
        above_text = QVBoxLayout()
        above_text.setSpacing(0)
        above_text.addWidget(self.thinking)
        above_text.addWidget(self.response_note)
        above_text.addWidget(self.problems_label)
        self.answer_splitter = pane_splitter(
            Qt.Orientation.Horizontal, (titled_pane(layout_widget(above_text), self.text_view),
                                        titled_pane(self.questions_label, self.question_table)), (3, 2), (600, 340))
        self.answer_message = _message_label()
        self.answer_page = QStackedWidget()
        self.answer_page.addWidget(self.answer_message)
        self.answer_page.addWidget(self.answer_splitter)
        return self.answer_page

    # -- public ---------------------------------------------------------------------------
    @property
    def shown_view(self) -> str:
        return PROMPT_VIEW if self.view_buttons[PROMPT_VIEW].isChecked() else ANSWER_VIEW

    def show_view(self, name: str) -> None:
        """Switch between the answer ("answer") and the prompt ("prompt")."""
        self._when_shown.flush()
        self.view_buttons[name].setChecked(True)

    def prompt(self) -> Prompt | None:
        """The selected program's prompt, built on first use (None when it cannot be built)."""
        detail = self.state.detail()
        if detail is None:
            return None
        key = detail.instance.key
        if self._prompt is None or self._prompt[0] != key:
            if detail.unreadable:  # a prompt without a file would not be the prompt
                path, why = next(iter(detail.unreadable.items()))
                self._prompt = (key, None, f"cannot read {path}: {why}")
            else:
                try:
                    self._prompt = (key, build_prompt(detail.instance, detail.sources,
                                                      wording=self.state.prompt_wording()), "")
                except TraceEvalError as error:
                    self._prompt = (key, None, str(error))
        return self._prompt[1]

    def select_question(self, number: int) -> None:
        """Pick a question (1-based) in the table and show its answer line."""
        self._when_shown.flush()
        row = self.question_model.row_of(number)
        if row >= 0:
            self.question_table.setCurrentIndex(self.question_model.index(row, 0))

    def select_next_unanswered(self) -> int | None:
        """Pick the next question with no answer line after the current one (wrapping); its number."""
        self._when_shown.flush()
        missing = [question.number for question in self.question_model.questions if not question.answered]
        if not missing:
            return None
        current = self.question_table.currentIndex()
        after = current.row() + 1 if current.isValid() else 0
        number = next((n for n in missing if n > after), missing[0])
        self.select_question(number)
        return number

    def refresh(self, force: bool = False) -> None:
        """Show the state's program and model A (nothing is redrawn when neither changed, unless `force`)."""
        state = self.state
        ws, key, model = state.workspace, state.instance_key, state.model
        detail = state.detail()
        prediction = detail.prediction if detail is not None and model else None
        shown = (id(ws), key, model, prediction)  # an unchanged prediction is the same object: compared at once
        if shown == self._shown and not force:
            return
        self._shown, self.prediction = shown, prediction
        if ws is None:
            self._show_message(NO_DATASET)
        elif key is None:
            self._show_message(NO_PROGRAM)
        elif detail is None:
            self._show_message(f"{key} is not in this workspace.")
        else:
            self.pages.setCurrentIndex(1)
            self._show_answer(model, prediction)
            self._show_header(model, prediction)
            if self.shown_view == PROMPT_VIEW:
                self._show_prompt()

    # -- slots: app state -----------------------------------------------------------------
    def _on_state_dataset_opened(self) -> None:
        self._prompt = None
        self._request_refresh(force=True)

    def _on_state_instance_selected(self, _key: str) -> None:
        self._request_refresh()

    def _on_state_release_changed(self) -> None:
        self._prompt = None
        self._request_refresh(force=True)

    def _on_state_model_selected(self, _model: str) -> None:
        self._request_refresh()

    def _on_state_predictions_changed(self, _model: str, keys: frozenset) -> None:
        if self.state.instance_key in keys:
            self._request_refresh()  # a newly stored answer of this program shows; otherwise nothing moves

    def _request_refresh(self, force: bool = False) -> None:
        if force:
            self._shown = None  # whatever is shown now is redrawn
        self._when_shown.request(self.refresh)

    # -- slots: widgets -------------------------------------------------------------------
    def _on_view_button_toggled(self, checked: bool) -> None:
        if checked:
            self.views.setCurrentIndex(1 if self.shown_view == PROMPT_VIEW else 0)
            if self.shown_view == PROMPT_VIEW:
                self._show_prompt()

    def _on_question_table_current_row_changed(self, current: QModelIndex, _previous: QModelIndex) -> None:
        if not self._syncing and current.isValid():
            line = current.data(QUESTION_ROLE).line
            self.text_view.focus_line(line.line if line is not None else None)

    def _on_text_view_line_clicked(self, number: int) -> None:
        line = self.text_view.line(number)
        row = self.question_model.row_of(line.number) if line is not None and line.number is not None else -1
        self._syncing = True
        if row >= 0:
            self.question_table.setCurrentIndex(self.question_model.index(row, 0))
        else:
            self.question_table.clearSelection()
        self._syncing = False

    def _on_questions_label_link_activated(self, _link: str) -> None:
        self.select_next_unanswered()

    # -- showing --------------------------------------------------------------------------
    def _show_message(self, text: str) -> None:
        self.lines, self.problems, self.shown_response = [], [], None
        self.response_note.hide()
        self.thinking.show_thinking(None)
        self.text_view.set_lines([])
        self.question_model.set_questions([])
        self.message.setText(text)
        self.pages.setCurrentIndex(0)

    def _show_answer(self, model: str | None, prediction: Prediction | None) -> None:
        keys = self.state.detail().instance.ground_truth.keys
        self.thinking.show_thinking(prediction)
        raw = prediction.raw_response if prediction is not None else None
        shown = self.shown_response = shown_response(raw) if raw is not None else None
        self.lines = answer_lines(shown.text, keys) if shown is not None else []
        questions = question_answers(self.lines, keys) if raw is not None else []
        self.question_model.set_questions(questions)
        self.text_view.set_lines(self.lines, "The response is empty.")
        self.response_note.setText(shown.summary() if shown is not None else "")
        self.response_note.setVisible(bool(self.response_note.text()))
        if shown is not None and shown.omitted_chars:  # re-parsing the whole would take seconds
            found = (problem for line in self.lines for problem in line.problems)
        else:
            found = parse_answer(raw, keys).problems if raw is not None else ()
        self.problems = [] if prediction is None else list(dict.fromkeys((*prediction.parse_problems, *found)))
        if model is None:
            self.answer_message.setText(NO_MODEL)
        elif prediction is None:
            self.answer_message.setText(no_answer_text(model))
        elif raw is None:
            self.answer_message.setText(f"{model}'s result for this program holds no raw response, only the parsed "
                                        f"prediction ({count(len(prediction.graph), 'edge')}): see the Edges tab.")
        self.answer_page.setCurrentIndex(1 if raw is not None else 0)
        self._show_problems()
        missing = sum(not question.answered for question in questions)
        summary = f"<b>{count(len(questions), 'question')}</b> · {len(questions) - missing:,} answered"
        if missing:
            summary += f" · <a href='#missing' style='color:{WARNING_TEXT}'>⚠ {missing:,} unanswered</a>"
        self.questions_label.setText(summary)
        self.questions_label.setToolTip("No line answers these questions: they are scored as \"no calls\". "
                                        "Click to go to the next one." if missing else "")

    def _show_problems(self) -> None:
        problems = self.problems
        rows = [f"⚠ {html.escape(problem)}" for problem in problems[:PROBLEMS_SHOWN]]
        if len(problems) > PROBLEMS_SHOWN:
            rows.append(f"… and {len(problems) - PROBLEMS_SHOWN:,} more (hover to see "
                        f"{'all' if len(problems) <= PROBLEMS_LISTED else f'the first {PROBLEMS_LISTED}'})")
        self.problems_label.setText(f"<span style='color:{WARNING_TEXT}'>{'<br>'.join(rows)}</span>")
        listed = [f"⚠ {html.escape(problem)}" for problem in problems[:PROBLEMS_LISTED]]
        if len(problems) > PROBLEMS_LISTED:
            listed.append(f"… and {len(problems) - PROBLEMS_LISTED:,} more")
        self.problems_label.setToolTip("<br>".join(listed))
        self.problems_label.setVisible(bool(problems))

    def _show_header(self, model: str | None, prediction: Prediction | None) -> None:
        """Two lines: the model and the facts of its call; its parse problems and where its prompt came from."""
        row = self.state.model_row(model)
        name = html.escape(model_label(row) if row is not None else model or "No model selected")
        dot = f"<span style='color:{MUTED_TEXT}'> · </span>"
        first, second, tooltip = [f"<b>{name}</b>"], [], ""
        if prediction is not None:
            first += [f"<span style='color:{MUTED_TEXT}'>{html.escape(fact)}</span>"
                      for fact in prediction_facts(prediction)]
            problems = len(self.problems)
            second.append(f"<span style='color:{WARNING_TEXT}'>⚠ {count(problems, 'parse problem')}</span>"
                          if problems else f"<span style='color:{GREEN}'>no parse problems</span>")
            prompt = self.prompt() if prediction.prompt_hash else None  # built only when there is a hash to check
            status, colour, tooltip = prompt_status(prediction.prompt_hash, prompt,
                                                    self._prompt[2] if self._prompt else "")
            second.append(f"<span style='color:{colour}'>{html.escape(status)}</span>")
            paper_words = prediction.prompt_wording.startswith(RELEASE)
            second.append(f"<span style='color:{MUTED_TEXT if paper_words else WARNING_TEXT}'>prompt: "
                          f"{html.escape(wording_label(prediction.prompt_wording))}</span>")
        self.header_label.setText(dot.join(first) + ("<br>" + dot.join(second) if second else ""))
        self.header_label.setToolTip(tooltip)

    def _show_prompt(self) -> None:
        if self.state.detail() is None:
            return
        prompt = self.prompt()
        if prompt is None:
            self.prompt_view.show_error(self._prompt[2] if self._prompt else "no program")
        else:
            self.prompt_view.show_prompt(prompt, self.prediction.prompt_hash if self.prediction is not None else "",
                                         self.state.release_problem)


def _message_label() -> QLabel:
    label = QLabel()
    label.setAlignment(Qt.AlignmentFlag.AlignCenter)
    label.setWordWrap(True)
    label.setStyleSheet(f"color: {MUTED_TEXT}; font-size: 11pt; padding: 12px;")
    return label


def _segment_style(first: bool) -> str:
    """Two joined buttons, the checked one filled."""
    corners = "border-top-left-radius: 4px; border-bottom-left-radius: 4px;" if first else \
        "border-top-right-radius: 4px; border-bottom-right-radius: 4px; border-left: none;"
    return (f"QToolButton {{ border: 1px solid #b8bcc2; padding: 2px 12px; background: #fafafa; color: #3c4043; "
            f"{corners} }} QToolButton:checked {{ background: #1a73e8; border-color: #1a73e8; color: white; }}")
