"""Model > Run Model in the window: the dialog, a real run against a chat-completions server on
127.0.0.1 (tests/llm_server.py) through the real openai client, answers showing while it runs,
cancel, and the new model everywhere once it ends."""
import os
import stat

import pytest

from core.llm.endpoints import RunSettings, credentials_path
from core.llm.prompts import build_prompt
from tests.gui.conftest import OPEN_TIMEOUT_MS
from tests.llm_server import FakeChatServer, answer_text, hang, truth_answers

RUN_TIMEOUT_MS = 30_000


@pytest.fixture
def answers(window, workspace):
    keys = [row.key for row in workspace.instance_rows()]
    return {build_prompt(workspace.instance(k)).hash: answer_text(workspace.instance(k).ground_truth) for k in keys}


def request(server, keys, **options):
    from traceeval_gui.runs.run_model_dialog import ModelRunRequest

    settings = RunSettings(server.base_url, "fake-model", timeout_s=5.0, retries=1, concurrency=2, **options)
    return ModelRunRequest(settings, tuple(keys), None, False, False)


def run_to_the_end(qtbot, window, job):
    """Wait for the run's report and, when it stored answers, for the Metrics tab's re-scored table."""
    reports, settled = [], []
    job.signals.finished.connect(reports.append)
    window.state.answers_settled.connect(settled.append)
    qtbot.waitUntil(lambda: bool(reports), timeout=RUN_TIMEOUT_MS)
    if reports[0].answered or reports[0].cached:
        qtbot.waitUntil(lambda: bool(settled), timeout=OPEN_TIMEOUT_MS)  # re-scoring starts after a repaint
    qtbot.waitUntil(lambda: not window.metrics_panel.is_scoring(), timeout=OPEN_TIMEOUT_MS)
    return reports[0]


def test_a_run_shows_answers_as_they_arrive_then_everywhere(window, state, answers, qtbot):
    keys = [row.key for row in state.opened.rows]
    selected = keys[3]
    state.select_instance(selected)
    changed = []
    state.predictions_changed.connect(lambda model, batch: changed.append((model, set(batch))))
    with FakeChatServer(truth_answers(answers)) as server:
        job = window.model_runs.start(request(server, keys))
        assert window.model_runs.status.isVisible() and not window.model_runs.run_action.isEnabled()
        opened = []
        state.dataset_opened.connect(lambda: opened.append(True))
        report = run_to_the_end(qtbot, window, job)
        assert report.status == "finished" and report.answered == 15
    assert changed and all(model == "fake-model" for model, _ in changed)
    assert set().union(*(batch for _, batch in changed)) == set(keys)
    assert not window.model_runs.status.isVisible() and window.model_runs.run_action.isEnabled()
    assert window.model_combo.findData("fake-model") >= 0
    column = window.browser.model.f1_column("fake-model")
    assert column is not None
    assert {window.browser.model.f1_at(row, "fake-model") for row in range(window.browser.model.rowCount())} == {1.0}
    assert "fake-model" in {row.model for row in window.metrics_panel.table.rows}  # re-scored, not reopened
    assert not opened and state.instance_key == selected
    window.show_tab("plots")
    qtbot.waitUntil(lambda: window.plots_panel.data is not None
                    and window.plots_panel.data.series("fake-model") is not None)
    assert set(window.plots_panel.data.series("fake-model").f1) == {1.0}
    window.show_tab("compare")
    assert window.compare_panel.can_compare and selected in window.compare_panel.shown_keys()
    assert "fake-model: run finished: 15 answered" in window.statusBar().currentMessage()


def test_the_current_program_updates_while_the_run_goes_on(window, state, answers, workspace, qtbot):
    first, second = state.opened.rows[0].key, state.opened.rows[1].key
    state.select_instance(first)
    window.show_tab("answer")
    right = truth_answers(answers)
    slow_hash = build_prompt(workspace.instance(second)).hash
    from tests.llm_server import request_prompt_hash

    def respond(body, attempt):  # the second program keeps the run going
        return hang(1.5, right(body, attempt)) if request_prompt_hash(body) == slow_hash else right(body, attempt)

    with FakeChatServer(respond) as server:
        job = window.model_runs.start(request(server, [first, second]))
        with qtbot.waitSignal(state.predictions_changed, timeout=RUN_TIMEOUT_MS):
            pass
        assert window.model_runs.running
        assert window.model_combo.findData("fake-model") >= 0  # a new model joins the combos at once
        state.select_model("fake-model")
        assert state.detail().prediction is not None and window.answer_panel.lines
        assert window.edge_panel.model.rowCount() > 0
        run_to_the_end(qtbot, window, job)


def test_cancel_stops_the_run_and_keeps_what_was_answered(window, state, answers, qtbot):
    keys = [row.key for row in state.opened.rows]
    right = truth_answers(answers)
    with FakeChatServer(lambda body, attempt: hang(1.0, right(body, attempt))) as server:
        job = window.model_runs.start(request(server, keys))
        with qtbot.waitSignal(job.signals.outcome, timeout=RUN_TIMEOUT_MS):
            pass
        window.model_runs.cancel()
        assert "stopping" in window.model_runs.status.label.text()
        report = run_to_the_end(qtbot, window, job)
    assert report.status == "cancelled" and 1 <= report.answered < 15
    assert len(state.workspace.predicted_keys("fake-model")) == report.answered
    assert window.model_runs.run_action.isEnabled()


def test_the_dialog_counts_what_will_be_asked_and_builds_the_request(window, state, answers, qtbot, monkeypatch):
    from traceeval_gui.runs.run_model_dialog import RunModelDialog

    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    monkeypatch.delenv("TRACEEVAL_API_KEY", raising=False)
    state.select_instance(state.opened.rows[0].key)
    listed = [row.key for row in state.opened.rows[:6]]
    dialog = RunModelDialog(state, listed)
    qtbot.addWidget(dialog)
    dialog.model_edit.setText("illustrative-weak")  # already answered 14 of the 15 demo programs
    dialog.split_combo.setCurrentIndex(dialog.split_combo.findData("all"))
    assert "15 programs selected, 14 already answered by illustrative-weak (skipped)" in dialog.counts_label.text()
    assert "<b>1 to ask</b>" in dialog.counts_label.text()
    dialog.redo_box.setChecked(True)
    assert "<b>15 to ask</b>" in dialog.counts_label.text()
    dialog.scope_buttons["listed"].setChecked(True)
    assert dialog.selected_keys() == listed
    dialog.limit_spin.setValue(2)
    assert dialog.selected_keys() == listed[:2]
    dialog.scope_buttons["current"].setChecked(True)
    assert dialog.selected_keys() == [state.instance_key]
    # a bad URL is a one-line error in the dialog, which stays open
    dialog.url_combo.setEditText("localhost:8000")
    dialog._on_run_clicked()
    assert dialog.request is None and dialog.error_label.isVisibleTo(dialog) and "http://" in dialog.error_label.text()
    dialog.url_combo.setEditText("http://127.0.0.1:9/v1")
    dialog.key_edit.setText("sk-typed-key")
    dialog.remember_box.setChecked(True)
    dialog.concurrency_spin.setValue(7)
    dialog._on_run_clicked()
    made = dialog.request
    assert made.keys == (state.instance_key,) and made.api_key == "sk-typed-key" and made.remember_key
    assert made.settings.concurrency == 7 and made.settings.model == "illustrative-weak" and made.redo
    assert made.settings.token_limit_field == ""  # both fields, as the paper, one alone if the endpoint refuses them
    dialog.limit_field_combo.setCurrentIndex(dialog.limit_field_combo.findText("max_completion_tokens only"))
    dialog._on_run_clicked()
    assert dialog.request.settings.token_limit_field == "max_completion_tokens"


def test_a_remembered_key_goes_to_the_private_credentials_file_only(window, state, answers, qtbot):
    from traceeval_gui.runs.run_model_dialog import ModelRunRequest

    with FakeChatServer(truth_answers(answers)) as server:
        settings = RunSettings(server.base_url, "fake-model", timeout_s=5.0, retries=1)
        job = window.model_runs.start(ModelRunRequest(settings, (state.opened.rows[0].key,), "sk-remember-me",
                                                      True, False))
        run_to_the_end(qtbot, window, job)
        assert server.chat_requests()[0].headers["authorization"] == "Bearer sk-remember-me"
    path = credentials_path()
    assert "sk-remember-me" in path.read_text()
    assert stat.S_IMODE(os.stat(path).st_mode) == 0o600
    assert b"sk-remember-me" not in state.opened.workspace_path.read_bytes()


def test_the_first_model_of_a_workspace_without_models_is_shown_as_its_answers_arrive(qtbot, state, tmp_path):
    """A dataset opened with no results at all: its first run (through Model > Run Model…, a person's clicks)
    becomes model A, and the program selected shows its answer (it once ended in `model_label(None)`)."""
    import shutil

    from PySide6.QtCore import Qt

    from resources import DEMO_DATASET
    from tests.gui.conftest import open_window
    from tests.gui.dialogs import drive_run_model_dialog, replace_text

    dataset = tmp_path / "no-results"
    for part in ("benchmark", "traceeval_split"):
        shutil.copytree(DEMO_DATASET / part, dataset / part)
    window = open_window(qtbot, state, tmp_path / "bare.sqlite", dataset=dataset)
    try:
        assert state.models == () and state.model is None
        keys = [row.key for row in state.opened.rows]
        state.select_instance(keys[0])
        answers = {build_prompt(state.workspace.instance(k)).hash: answer_text(state.workspace.instance(k).ground_truth)
                   for k in keys}
        reports = []
        with FakeChatServer(truth_answers(answers)) as server:
            def steps(dialog):
                replace_text(qtbot, dialog.url_combo.lineEdit(), server.base_url)
                replace_text(qtbot, dialog.model_edit, "first-model")
                dialog.split_combo.setCurrentIndex(dialog.split_combo.findData("all"))
                qtbot.mouseClick(dialog.run_button, Qt.MouseButton.LeftButton)

            outcome = drive_run_model_dialog(qtbot, window, steps)
            assert "left open" not in outcome, outcome
            window.model_runs.job.signals.finished.connect(reports.append)
            qtbot.waitUntil(lambda: bool(reports), timeout=RUN_TIMEOUT_MS)
        assert state.model == "first-model" and window.model_combo.currentData() == "first-model"
        qtbot.waitUntil(lambda: "first-model" in window.edge_panel.summary.text(), timeout=OPEN_TIMEOUT_MS)
        assert "F1 100.0%" in window.edge_panel.summary.text()
    finally:
        window.close()
