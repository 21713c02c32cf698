"""What the window does when work the user started ends: a trace (F5) switches the graph to the trace, a model
run's first answers make that model model A."""
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QApplication

from core.llm.prompts import build_prompt
from tests.gui.test_model_runs import answers, request, run_to_the_end  # noqa: F401  (a fixture)
from tests.llm_server import FakeChatServer, hang, request_prompt_hash, truth_answers

TRACE_TIMEOUT_MS = 20_000
CALCPAD = "python/calcpad_0001"


def _menu_action(window, menu_title, text):
    menu = next(a.menu() for a in window.menuBar().actions() if a.text() == menu_title)
    return next(a for a in menu.actions() if a.text() == text)


def test_f5_traces_and_the_graph_switches_to_the_trace(window, state, qtbot):
    window.browser.select_key(CALCPAD)
    assert state.view_mode == "model"
    window.activateWindow()
    qtbot.waitUntil(lambda: QApplication.activeWindow() is window)
    window.edge_panel.table.setFocus()
    with qtbot.waitSignal(window.tracer_panel.trace_ended, timeout=TRACE_TIMEOUT_MS):
        qtbot.keyClick(window.edge_panel.table, Qt.Key.Key_F5)
    assert state.workspace.run_rows(CALCPAD)
    assert state.view_mode == "trace"
    assert window.graph_panel.toolbar.mode_combo.currentData() == "trace"
    assert "Latest trace vs truth, the run just stored" in window.statusBar().currentMessage()


def test_a_trace_of_another_program_leaves_the_graph_alone(window, state, qtbot):
    window.browser.select_key(CALCPAD)
    with qtbot.waitSignal(window.tracer_panel.trace_started, timeout=TRACE_TIMEOUT_MS):
        _menu_action(window, "&Trace", "&Trace This Program").trigger()
    window.browser.select_key("python/ledgerlite_0001")  # moved on while it runs
    qtbot.waitUntil(lambda: not window.tracer_panel.running, timeout=TRACE_TIMEOUT_MS)
    assert state.workspace.run_rows(CALCPAD) and state.view_mode == "model"


def test_a_newly_run_model_becomes_model_a(window, state, answers, qtbot):  # noqa: F811
    assert state.model == "illustrative-strong"
    keys = [row.key for row in state.opened.rows[:2]]
    right = truth_answers(answers)
    first_hash = build_prompt(state.workspace.instance(keys[0])).hash

    def respond(body, attempt):  # the second program keeps the run going while the window is looked at
        return right(body, attempt) if request_prompt_hash(body) == first_hash else hang(1.5, right(body, attempt))

    with FakeChatServer(respond) as server:
        job = window.model_runs.start(request(server, keys))
        with qtbot.waitSignal(state.predictions_changed, timeout=30_000):
            pass
        assert state.model == "fake-model" and window.model_combo.currentData() == "fake-model"
        assert "Model A is now fake-model" in window.statusBar().currentMessage() and window.model_runs.running
        state.select_model("illustrative-weak")  # the user's later choice stands while the run goes on
        run_to_the_end(qtbot, window, job)
    assert state.model == "illustrative-weak"
