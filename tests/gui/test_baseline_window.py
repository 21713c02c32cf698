"""Annotator mode: a human answers a baseline audit's questions over the demo dataset, by keyboard, with
completion; every answer is stored at once and scored as the model `human:<annotator>`; the truth never shows."""
import re

import pytest
import shiboken6
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QLabel

from core.audit.audits import human_model_name
from core.audit.store import AuditStore
from core.scoring.scores import instance_diff
from traceeval_gui.theme.style import EDGE_FOCUS_TINTS, EDGE_TINTS
from traceeval_gui.widgets.callee_input import NOT_DEFINED

AUDIT, ANNOTATOR = "humans", "alice"
HUMAN = human_model_name(ANNOTATOR)
CTRL = Qt.KeyboardModifier.ControlModifier


@pytest.fixture
def audit(window, state):
    from core.audit.sampling import create_audit

    return create_audit(state.workspace, AUDIT, kind="baseline", size=2, seed=1)


def open_baseline(qtbot, state, parent):
    from traceeval_gui.audit.baseline_window import BaselineWindow

    baseline = BaselineWindow(state, AUDIT, ANNOTATOR, parent)
    baseline.resize(1400, 900)
    baseline.show()
    baseline.activateWindow()
    qtbot.waitActive(baseline)
    baseline.callee_input.setFocus()
    qtbot.waitUntil(baseline.callee_input.line_edit.hasFocus)
    return baseline


@pytest.fixture
def baseline(qtbot, window, state, audit):
    baseline = open_baseline(qtbot, state, window)
    yield baseline
    if shiboken6.isValid(baseline):
        baseline.close()


def truth_of(state, key):
    return {caller: list(callees) for caller, callees in state.workspace.ground_truth_mappings([key])[key].items()}


def stored(state):
    return {ref: answer.callees for ref, answer in AuditStore(state.workspace).answers(AUDIT, ANNOTATOR).items()}


def key(widget, key, modifier=Qt.KeyboardModifier.NoModifier):
    from pytestqt.qtbot import QtBot

    QtBot.keyClick(widget, key, modifier)


def type_with_completion(qtbot, callee_input, name):
    """Type the end of `name`, pick it in the completion popup and press Enter there; a name the program
    does not define is typed in full and entered."""
    line_edit, completer = callee_input.line_edit, callee_input.completer
    if not callee_input.is_known(name):
        qtbot.keyClicks(line_edit, name)
        qtbot.keyClick(line_edit, Qt.Key.Key_Return)
        return
    fragment = re.split(r"[.:]", name)[-1][:6]
    qtbot.keyClicks(line_edit, fragment)
    popup = completer.popup()
    qtbot.waitUntil(popup.isVisible)
    model = completer.completionModel()
    rows = [row for row in range(model.rowCount()) if model.index(row, 0).data() == name]
    assert rows, f"{name} is not offered for {fragment!r}"
    for _ in range(rows[0] + 1):  # the first Down picks the first completion
        qtbot.keyClick(popup, Qt.Key.Key_Down)
    assert line_edit.text() == name
    qtbot.keyClick(popup, Qt.Key.Key_Return)
    assert name in callee_input.callees
    qtbot.waitUntil(lambda: not line_edit.text())


def answer_program(qtbot, baseline, answers):
    """Answer the current program's questions from its first, in order, by keyboard only."""
    program = baseline.program
    baseline.go_to(baseline.program_index, 0)
    for caller in program.callers:
        assert baseline.current_question() == (program.key, caller)
        callees = answers[caller]
        if not callees:
            key(baseline.callee_input.line_edit, Qt.Key.Key_0, CTRL)
        for callee in callees:
            type_with_completion(qtbot, baseline.callee_input, callee)
        key(baseline.callee_input.line_edit, Qt.Key.Key_Return)  # Enter on the empty field: next question


def test_typing_with_completion_and_enter_stores_the_answers(qtbot, baseline, state):
    program = baseline.program
    truth = truth_of(state, program.key)
    changed = []
    state.predictions_changed.connect(lambda model, keys: changed.append((model, set(keys))))
    answer_program(qtbot, baseline, truth)
    assert {caller: list(callees) for (k, caller), callees in stored(state).items() if k == program.key} == truth
    assert baseline.program_index == 1  # Enter after the last question went on to the next program
    assert changed and {model for model, _ in changed} == {HUMAN} and set().union(*(k for _, k in changed)) == {
        program.key}
    assert baseline.program_list.topLevelItem(0).text(2) == f"✓ {len(truth)} / {len(truth)}"


def test_the_truth_as_an_answer_scores_f1_one_and_the_human_joins_every_view(qtbot, window, baseline, state):
    program = baseline.program
    answer_program(qtbot, baseline, truth_of(state, program.key))
    diff = instance_diff(state.workspace, HUMAN, program.key)
    assert diff is not None and diff.tp and not diff.fp and not diff.fn
    assert window.model_combo.findData(HUMAN) >= 0
    browser = window.browser.model
    assert browser.f1_column(HUMAN) is not None
    assert browser.f1_at(browser.row_of(program.key), HUMAN) == 1.0
    scored = [r for r in range(browser.rowCount()) if browser.f1_at(r, HUMAN) is not None]
    assert scored == [browser.row_of(program.key)]  # only the answered program has a result


def test_no_calls_is_an_answer_distinct_from_not_answered(qtbot, baseline, state):
    program = baseline.program
    callee_input = baseline.callee_input
    assert callee_input.answer() is None and callee_input.placeholder.text() == "Not answered yet"
    key(callee_input.line_edit, Qt.Key.Key_0, CTRL)
    first = (program.key, program.callers[0])
    assert callee_input.answer() == () and callee_input.placeholder.text() == "No calls"
    assert stored(state) == {first: ()}
    assert baseline.question_list.topLevelItem(0).text(2) == "no calls"
    assert baseline.question_list.topLevelItem(1).text(2) == "not answered"
    prediction = state.workspace.predictions(HUMAN, [program.key])[program.key]
    assert prediction.raw_response == "1. none\n"
    assert "1 of 44 answered" in baseline.progress_label.text()


def test_a_name_not_in_the_program_is_kept_and_flagged(qtbot, baseline, state):
    program = baseline.program
    callee_input = baseline.callee_input
    type_with_completion(qtbot, callee_input, "main.report")
    type_with_completion(qtbot, callee_input, "json.dumps")
    chip = callee_input.chip("json.dumps")
    assert chip is not None and not chip.known and NOT_DEFINED in chip.toolTip()
    assert callee_input.chip("main.report").known
    assert stored(state)[(program.key, program.callers[0])] == ("main.report", "json.dumps")
    assert NOT_DEFINED in baseline.question_list.topLevelItem(0).toolTip(2)
    assert baseline.question_list.topLevelItem(0).text(2).startswith("⚠")
    key(callee_input.line_edit, Qt.Key.Key_Backspace)  # on the empty field: the last name goes
    assert stored(state)[(program.key, program.callers[0])] == ("main.report",)
    key(callee_input.line_edit, Qt.Key.Key_Backspace)  # the last one: answered with no calls, not unanswered
    assert stored(state)[(program.key, program.callers[0])] == ()
    assert callee_input.answer() == ()


def test_reopening_resumes_at_the_first_unanswered_question(qtbot, window, baseline, state):
    program = baseline.program
    for index in (0, 1, 2, 4):
        baseline.go_to(0, index)
        baseline.callee_input.add_names("main.report")
    baseline.close()
    again = open_baseline(qtbot, state, window)
    assert again.current_question() == (program.key, program.callers[3])
    assert again.progress_text() == f"Question 4 of {len(program.callers)} · program 1 of 2 · 4 of 44 answered"
    assert again.callee_input.answer() is None
    again.go_to(0, 0)
    assert again.callee_input.answer() == ("main.report",)
    key(again.callee_input.line_edit, Qt.Key.Key_Return, CTRL)  # next unanswered, again question 4
    assert again.current_question() == (program.key, program.callers[3])
    again.close()


def test_the_keys_move_between_questions_programs_and_the_source(qtbot, baseline):
    line_edit = baseline.callee_input.line_edit
    assert baseline.current_question()[1] == "main"
    key(line_edit, Qt.Key.Key_Down, CTRL)
    assert baseline.question_index == 1
    key(line_edit, Qt.Key.Key_Up, CTRL)
    assert baseline.question_index == 0
    key(line_edit, Qt.Key.Key_PageDown, CTRL)
    assert baseline.program_index == 1 and baseline.question_index == 0
    assert len(baseline.source_views()) > 1  # the JavaScript program's files, one tab each
    key(line_edit, Qt.Key.Key_PageUp, CTRL)
    assert baseline.program_index == 0
    key(line_edit, Qt.Key.Key_F6)
    view = baseline.source_tabs.currentWidget()
    qtbot.waitUntil(view.hasFocus)
    key(view, Qt.Key.Key_Down, CTRL)  # the question keys work from the source too
    assert baseline.question_index == 1
    key(view, Qt.Key.Key_PageDown, CTRL)  # and the program keys (not the tabs' own Ctrl+PgDown)
    assert baseline.program_index == 1
    view = baseline.source_tabs.currentWidget()
    qtbot.waitUntil(view.hasFocus)  # the new program's source, still reading
    key(view, Qt.Key.Key_PageUp, CTRL)
    view = baseline.source_tabs.currentWidget()
    qtbot.waitUntil(view.hasFocus)
    key(view, Qt.Key.Key_F6)
    qtbot.waitUntil(line_edit.hasFocus)
    baseline.go_to(0, 6)  # main.schedule: its definition is shown, shaded in a neutral tint
    view = baseline.source_tabs.currentWidget()
    assert view.focused_line == 28 and view.extraSelections()


def test_the_window_shows_no_truth_and_no_model(qtbot, baseline, state):
    for program_index in range(len(baseline.programs)):
        baseline.go_to(program_index, 1)
        for view in baseline.source_views():
            assert view.marks == {} and view.callee_line is None and view._focus is None
            tints = {selection.format.background().color().name() for selection in view.extraSelections()}
            assert not tints & (set(EDGE_TINTS.values()) | set(EDGE_FOCUS_TINTS.values()))
        answers = {baseline.question_list.topLevelItem(r).text(2)
                   for r in range(baseline.question_list.topLevelItemCount())}
        assert answers == {"not answered"}
    texts = [label.text() for label in baseline.findChildren(QLabel)]
    assert not [text for text in texts if re.search(r"\b(TP|FP|FN|F1|precision|recall|illustrative)\b", text)]


def test_an_edge_audit_or_a_bad_name_is_refused(window, state, audit):
    from core.errors import AuditError
    from traceeval_gui.audit.baseline_window import BaselineWindow

    with pytest.raises(ValueError):
        BaselineWindow(state, AUDIT, " alice", window)
    with pytest.raises(AuditError):
        BaselineWindow(state, "nonesuch", ANNOTATOR, window)


def test_the_window_renders(qtbot, baseline, tmp_path):
    baseline.go_to(0, 3)
    baseline.callee_input.add_names("main.payment, json.dumps")
    path = tmp_path / "baseline.png"
    assert baseline.grab().save(str(path))
    from PySide6.QtGui import QImage

    image = QImage(str(path))
    assert image.width() >= 1000 and image.height() >= 600


def test_answering_goes_on_after_the_dataset_is_reopened(qtbot, window, baseline, state):
    from tests.gui.conftest import OPEN_TIMEOUT_MS

    program = baseline.program
    baseline.go_to(0, 2)
    baseline.callee_input.add_names("main.report")
    with qtbot.waitSignal(state.dataset_opened, timeout=OPEN_TIMEOUT_MS):
        window.reopen()
    assert baseline.current_question() == (program.key, program.callers[2])
    assert baseline.callee_input.answer() == ("main.report",) and baseline.callee_input.isEnabled()
    baseline.callee_input.add_names("main.fmt_row")  # stored in the reopened workspace
    assert stored(state)[(program.key, program.callers[2])] == ("main.report", "main.fmt_row")
    assert HUMAN in {model.name for model in state.models}
