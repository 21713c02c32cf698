"""The Answer tab on the demo dataset: a raw response marked line by line, the questions without an
answer line, the prompt with its hash, the empty states and the refresh when a new answer is stored."""
import pytest
from PySide6.QtCore import Qt
from PySide6.QtGui import QGuiApplication, QTextCursor

from core.llm.prompts import build_prompt
from core.records import Prediction
from core.report.shown_response import SHOWN_CHARS, SHOWN_LINES
from core.scoring.answers import ANSWER, IGNORED, OUT_OF_RANGE, SUPERSEDED, parse_answer
from resources import DEMO_DATASET
from tests.gui.conftest import OPEN_TIMEOUT_MS
from traceeval_gui.program import answer_panel as answer_panel_module
from traceeval_gui.program.answer_panel import (
    ANSWER_VIEW,
    NO_DATASET,
    NO_MODEL,
    NO_PROGRAM,
    PROBLEMS_LISTED,
    PROMPT_VIEW,
    AnswerPanel,
    no_answer_text,
)
from traceeval_gui.program.answer_prompt import NO_HASH, OTHER_PROMPT, SAME_PROMPT
from traceeval_gui.program.answer_questions import NO_ANSWER_LINE, QUESTION_ROLE
from traceeval_gui.state.jobs import OpenDatasetJob
from traceeval_gui.widgets.answer_text import DIM_TEXT, FOCUS_TINT, WARNING_TINT, line_tooltip, margin_text

CALCPAD = "python/calcpad_0001"
NO_WEAK_ANSWER = "python/ledgerlite_0002"  # illustrative-weak has no result for it
WEAK, CRAFTED = "illustrative-weak", "crafted"
# calcpad's first keys: 1 main, 2 main.Token.__init__, 3 main.Token.__repr__, 4 main.tokenize (22 questions)
MESSY = "\n".join([
    "Sure! Here are the calls:",  # 1 prose
    "```",  # 2 fence
    "1. main.main",  # 3 answer
    "2. main.Token",  # 4 superseded by line 7
    "30. main.nothing",  # 5 out of range
    "",  # 6 blank
    "2. none",  # 7 answer
    "3) main.Token.__repr__",  # 8 not read: looks numbered
    "4. main.Token, the tokenizer loop",  # 9 answer with a prose callee
    "```",  # 10 fence
])


@pytest.fixture
def demo(state, qtbot, tmp_path):
    job = OpenDatasetJob(DEMO_DATASET, workspace=tmp_path / "ws.sqlite")
    with qtbot.waitSignal(job.signals.finished, timeout=OPEN_TIMEOUT_MS) as opened:
        state.jobs.start(job)
    state.adopt(opened.args[0])
    return state


@pytest.fixture
def panel(state, qtbot):
    panel = AnswerPanel(state)
    qtbot.addWidget(panel)
    panel.resize(940, 360)
    panel.show()
    return panel


def _store(state, key, model, text, prompt_hash=""):
    instance = state.workspace.instance(key)
    parsed = parse_answer(text, instance.ground_truth.keys)
    prediction = Prediction(instance.id, model, instance.language, parsed.graph, text, parsed.problems, prompt_hash,
                            tokens_in=2048, tokens_out=96, latency_s=1.25, cost_usd=0.0031, source="run #1")
    state.workspace.store_predictions(model, [prediction])
    return prediction


def _show(state, key, model):
    state.select_instance(key)
    state.select_model(model)


def _table(panel) -> list[list[str]]:
    model = panel.question_model
    return [[model.index(row, column).data() for column in range(model.columnCount())]
            for row in range(model.rowCount())]


def _tinted(view) -> dict[int, str]:
    return {s.cursor.blockNumber() + 1: s.format.background().color().name() for s in view.extraSelections()}


def test_each_line_is_marked_by_what_the_parser_made_of_it(demo, panel):
    _store(demo, CALCPAD, CRAFTED, MESSY)
    _show(demo, CALCPAD, CRAFTED)
    lines = panel.lines
    assert [line.kind for line in lines] == [IGNORED, IGNORED, ANSWER, SUPERSEDED, OUT_OF_RANGE, IGNORED, ANSWER,
                                             IGNORED, ANSWER, IGNORED]
    view = panel.text_view
    assert view.toPlainText() == MESSY and view.document().blockCount() == 10
    # the key column, per line
    assert [margin_text(line) for line in lines] == [
        "", "", "→ main", "replaced by line 7", "no question 30", "", "→ main.Token.__init__", "not read",
        "→ main.tokenize", ""]
    # warning tint: out of range, the prose answer, the numbered-looking line the parser skips
    assert _tinted(view) == {5: WARNING_TINT.name(), 8: WARNING_TINT.name(), 9: WARNING_TINT.name()}

    def formats(line):
        return view.document().findBlockByNumber(line - 1).layout().formats()
    assert all(r.format.fontStrikeOut() for r in formats(4)) and formats(4)
    assert all(r.format.foreground().color() == DIM_TEXT for r in formats(1) + formats(8))
    assert not any(r.format.fontStrikeOut() for r in formats(3))
    assert "answer 2 given twice" in line_tooltip(lines[3]) and "line 7 answers question 2" in line_tooltip(lines[3])
    assert "prose?" in line_tooltip(lines[8]) and "not read" in line_tooltip(lines[7])
    # the parse problems above the text, and in the header
    assert panel.problems == list(parse_answer(MESSY, demo.detail().instance.ground_truth.keys).problems)
    assert panel.problems_label.isVisible() and "answer 30 has no question" in panel.problems_label.text()
    assert "more (hover to see all)" in panel.problems_label.text()  # 4 problems, 3 shown
    header = panel.header_label.text()
    assert f"{len(panel.problems)} parse problems" in header
    assert "2,048 tokens in" in header and "96 out" in header and "1.2 s" in header and "$0.0031" in header
    assert "from run #1" in header


def test_questions_without_an_answer_line_are_marked_and_reachable(demo, panel):
    _show(demo, CALCPAD, WEAK)
    rows = _table(panel)
    keys = demo.detail().instance.ground_truth.keys
    assert [row[1] for row in rows] == list(keys)
    assert rows[16] == ["17", keys[16], NO_ANSWER_LINE, "—"]  # the demo's weak answer skips question 17
    assert [row[0] for row in rows if row[2] == NO_ANSWER_LINE] == ["17"]
    assert rows[0] == ["1", "main", "main.main", "3"] and rows[1][2] == "none"
    assert panel.question_model.index(16, 2).data(Qt.ItemDataRole.BackgroundRole).color() == WARNING_TINT
    assert "1 unanswered" in panel.questions_label.text() and "21 answered" in panel.questions_label.text()
    assert panel.select_next_unanswered() == 17
    assert panel.question_table.currentIndex().row() == 16 and panel.text_view.focused_line is None
    # a question scrolls the response to its line and tints it
    panel.select_question(4)
    question = panel.question_table.currentIndex().data(QUESTION_ROLE)
    assert question.number == 4 and question.callees == ("main.Token", "re.findall")
    assert panel.text_view.focused_line == 6 and panel.text_view.textCursor().blockNumber() == 5
    assert _tinted(panel.text_view)[6] == FOCUS_TINT.name()
    # and a click in the text picks the question back
    panel.text_view.setTextCursor(QTextCursor(panel.text_view.document().findBlockByNumber(8)))  # line 9: "7. none"
    assert panel.question_table.currentIndex().row() == 6 and panel.text_view.focused_line == 9


def test_the_prompt_view_shows_the_exact_prompt_its_hash_and_size(demo, panel, qtbot):
    _show(demo, CALCPAD, WEAK)
    prompt = build_prompt(demo.workspace.instance(CALCPAD))
    panel.show_view(PROMPT_VIEW)
    assert panel.shown_view == PROMPT_VIEW and panel.views.currentIndex() == 1
    view = panel.prompt_view
    assert view.text_view.toPlainText() == prompt.render()
    info = view.info_label.text()
    assert prompt.hash[:12] in info and prompt.hash in view.info_label.toolTip()
    assert f"{len(prompt.render()):,} characters" in info and f"≈{round(len(prompt.render()) / 4):,} tokens" in info
    qtbot.mouseClick(view.copy_button, Qt.MouseButton.LeftButton)
    assert QGuiApplication.clipboard().text() == prompt.render()
    assert view.copy_button.text() == "Copied ✓"
    panel.show_view(ANSWER_VIEW)
    assert panel.views.currentIndex() == 0
    # the prompt follows the program while shown
    panel.show_view(PROMPT_VIEW)
    demo.select_instance("java/ledgerj_0001")
    assert view.text_view.toPlainText() == build_prompt(demo.workspace.instance("java/ledgerj_0001")).render()


def test_the_prompt_is_built_only_when_needed(demo, panel, monkeypatch):
    built = []
    real = answer_panel_module.build_prompt
    monkeypatch.setattr(answer_panel_module, "build_prompt", lambda *a, **k: built.append(1) or real(*a, **k))
    _show(demo, CALCPAD, WEAK)  # an imported answer has no hash: nothing to compare
    assert built == [] and NO_HASH in panel.header_label.text()
    panel.show_view(PROMPT_VIEW)
    panel.show_view(ANSWER_VIEW)
    panel.show_view(PROMPT_VIEW)
    assert built == [1]  # once per program


@pytest.mark.parametrize("same, expected", [(True, SAME_PROMPT), (False, OTHER_PROMPT)])
def test_the_header_says_whether_the_answer_came_from_this_prompt(demo, panel, same, expected):
    prompt = build_prompt(demo.workspace.instance(CALCPAD))
    _store(demo, CALCPAD, CRAFTED, "1. main.main", prompt.hash if same else "0" * 64)
    _show(demo, CALCPAD, CRAFTED)
    header = panel.header_label.text()
    assert expected in header and NO_HASH not in header
    assert (OTHER_PROMPT in header) == (not same)
    panel.show_view(PROMPT_VIEW)
    assert ("was given this prompt" if same else "was given another prompt") in panel.prompt_view.info_label.text()


def test_empty_states_say_why_there_is_nothing_to_show(state, qtbot, tmp_path):
    panel = AnswerPanel(state)
    qtbot.addWidget(panel)
    assert panel.pages.currentIndex() == 0 and panel.message.text() == NO_DATASET
    job = OpenDatasetJob(DEMO_DATASET, workspace=tmp_path / "ws.sqlite")
    with qtbot.waitSignal(job.signals.finished, timeout=OPEN_TIMEOUT_MS) as opened:
        state.jobs.start(job)
    state.adopt(opened.args[0])
    assert panel.message.text() == NO_PROGRAM and panel.pages.currentIndex() == 0
    _show(state, NO_WEAK_ANSWER, WEAK)
    assert panel.pages.currentIndex() == 1 and panel.answer_page.currentWidget() is panel.answer_message
    assert panel.answer_message.text() == no_answer_text(WEAK)
    assert panel.question_model.rowCount() == 0 and not panel.problems_label.isVisibleTo(panel)
    state.select_model(None)
    assert panel.answer_message.text() == NO_MODEL
    panel.show_view(PROMPT_VIEW)  # the prompt needs no model
    assert panel.prompt_view.text_view.toPlainText() == build_prompt(state.workspace.instance(NO_WEAK_ANSWER)).render()
    state.select_instance(None)
    assert panel.pages.currentIndex() == 0 and panel.message.text() == NO_PROGRAM


def test_a_result_without_a_raw_response_says_so(demo, panel):
    instance = demo.workspace.instance(CALCPAD)
    graph = parse_answer("1. main.main", instance.ground_truth.keys).graph
    demo.workspace.store_predictions(CRAFTED, [Prediction(instance.id, CRAFTED, instance.language, graph)])
    _show(demo, CALCPAD, CRAFTED)
    assert panel.answer_page.currentWidget() is panel.answer_message
    assert "no raw response" in panel.answer_message.text() and "1 edge" in panel.answer_message.text()


def test_a_newly_stored_answer_shows_when_a_run_stores_it(demo, panel):
    _show(demo, CALCPAD, "running-model")
    assert panel.answer_message.text() == no_answer_text("running-model")
    _store(demo, CALCPAD, "running-model", "1. main.main\n2. none")
    demo.predictions_stored("running-model", [CALCPAD])  # what the window does as a model run stores answers
    assert panel.answer_page.currentWidget() is panel.answer_splitter
    assert [line.kind for line in panel.lines] == [ANSWER, ANSWER]
    assert panel.question_model.rowCount() == 22
    # an unrelated overlay change keeps what the user is looking at
    panel.select_question(2)
    demo.set_view_mode("truth")
    assert panel.text_view.focused_line == 2 and panel.question_table.currentIndex().row() == 1
    # a replaced answer redraws
    _store(demo, CALCPAD, "running-model", "intro\n1. main.main")
    demo.predictions_stored("running-model", [CALCPAD])
    assert [line.kind for line in panel.lines] == [IGNORED, ANSWER] and panel.text_view.focused_line is None


def test_the_answer_tab_is_in_the_window_and_renders(window, state, qtbot):
    from traceeval_gui.app_options import TABS

    assert TABS[-1] == "answer"
    by_text = {action.text().replace("&", ""): action for action in window.actions()}
    assert by_text["Answer tab"].shortcut().toString() == f"Ctrl+{len(TABS)}"
    by_text["Answer tab"].trigger()
    assert window.bottom_tabs.currentWidget() is window.answer_panel
    assert window.bottom_tabs.tabText(window.bottom_tabs.currentIndex()) == "Answer"
    state.select_model(WEAK)
    window.browser.select_key("javascript/inkparse_0001")
    panel = window.answer_panel
    image = panel.grab().toImage()
    assert not image.isNull() and image.width() > 100 and image.height() > 100
    prose = [line for line in panel.lines if line.problems]
    assert len(prose) == 1 and prose[0].number == 8  # the echoed question
    assert panel.question_model.index(7, 2).data().startswith("What are the function calls")


def test_a_response_of_a_million_lines_is_shown_in_part_with_every_problem_counted(demo, panel):
    lines = 10 ** 6  # one answer, then a line answering no question each: a problem per line
    text = "1. main.main\n" + "\n".join(f"{n}. main.nothing" for n in range(100, 100 + lines - 1))
    stored = _store(demo, CALCPAD, CRAFTED, text)
    _show(demo, CALCPAD, CRAFTED)
    assert len(panel.lines) == panel.text_view.document().blockCount() <= SHOWN_LINES
    assert len(panel.text_view.toPlainText()) <= SHOWN_CHARS
    assert panel.lines[0].kind == ANSWER and panel.lines[1].kind == OUT_OF_RANGE
    note = panel.response_note
    assert note.isVisible() and f"the last {lines - len(panel.lines):,} lines left out" in note.text()
    assert len(stored.parse_problems) >= lines - 1  # the stored problems (the whole response's) all count
    assert f"{len(panel.problems):,} parse problems" in panel.header_label.text()
    assert f"… and {len(panel.problems) - PROBLEMS_LISTED:,} more" in panel.problems_label.toolTip()
    assert panel.problems_label.toolTip().count("⚠") == PROBLEMS_LISTED
