"""Model > Run Model "as a batch": the dialog's Send choice, a real batch against the local OpenAI / Anthropic batch
server (tests/batch_server.py) through the real clients, answers showing as each batch ends, and Cancel leaving the
batches at the provider for the next run to collect."""
import pytest
from PySide6.QtCore import Qt

from core.llm.batches.store import BatchStore
from core.llm.endpoints import RunSettings
from core.llm.prompts import build_prompt
from tests.batch_server import FakeBatchServer
from tests.gui.dialogs import drive_run_model_dialog, replace_text
from tests.llm_server import answer_text

RUN_TIMEOUT_MS = 30_000


@pytest.fixture
def answers(window, workspace):
    keys = [row.key for row in workspace.instance_rows()]
    return {build_prompt(workspace.instance(k)).hash: answer_text(workspace.instance(k).ground_truth) for k in keys}


@pytest.mark.parametrize("provider", ["openai", "anthropic"])
def test_a_batch_chosen_in_the_dialog_is_submitted_collected_and_shown(provider, window, state, answers, qtbot):
    window.model_runs.batch_poll_s = 0.05
    changed = []
    state.predictions_changed.connect(lambda model, keys: changed.append((model, set(keys))))
    with FakeBatchServer(answers, ends_after=3) as server:
        seen = {}

        def steps(dialog):
            index = next(i for i in range(dialog.send_combo.count()) if dialog.send_combo.itemData(i) == provider)
            dialog.send_combo.setCurrentIndex(index)
            seen["title"] = dialog.endpoint_group.title()
            seen["url"] = dialog.url_combo.currentText()
            seen["live options"] = dialog.concurrency_spin.isEnabled() or dialog.cache_box.isEnabled()
            seen["note"] = dialog.send_note.text()
            seen["button"] = dialog.run_button.text()
            replace_text(qtbot, dialog.url_combo.lineEdit(), server.base_url)
            replace_text(qtbot, dialog.model_edit, "batch-model")
            dialog.split_combo.setCurrentIndex(dialog.split_combo.findData("all"))
            qtbot.mouseClick(dialog.run_button, Qt.MouseButton.LeftButton)

        outcome = drive_run_model_dialog(qtbot, window, steps)
        assert "left open" not in outcome, outcome
        assert seen["url"] == {"openai": "https://api.openai.com/v1", "anthropic": "https://api.anthropic.com/v1"}[
            provider]
        assert provider.capitalize()[:4] in seen["title"] and not seen["live options"]
        assert "traceeval batch collect" in seen["note"] and "batch price" in seen["note"]
        assert seen["button"] == "Submit Batch"
        qtbot.waitUntil(lambda: "batch run ended" in window.statusBar().currentMessage(), timeout=RUN_TIMEOUT_MS)
    keys = {row.key for row in state.opened.rows}
    assert "batch-model: batch run ended: 15 answer(s) collected from 1" in window.statusBar().currentMessage()
    assert set().union(*(batch for model, batch in changed if model == "batch-model")) == keys
    assert {window.browser.model.f1_at(row, "batch-model") for row in range(window.browser.model.rowCount())} == {1.0}
    assert not window.model_runs.status.isVisible() and window.model_runs.run_action.isEnabled()
    assert [b.provider for b in BatchStore(state.workspace).batches("batch-model")] == [provider]


def test_cancel_leaves_the_batch_at_the_provider_and_the_next_run_collects_it(window, state, answers, qtbot):
    from traceeval_gui.runs.run_model_dialog import ModelRunRequest

    window.model_runs.batch_poll_s = 0.05
    keys = tuple(row.key for row in state.opened.rows)
    with FakeBatchServer(answers, ends_after=10_000) as server:
        request = ModelRunRequest(RunSettings(server.base_url, "fake-model"), keys, None, False, False,
                                  batch_provider="openai")
        job = window.model_runs.start(request)
        reports = []
        job.signals.finished.connect(reports.append)
        qtbot.waitUntil(lambda: server.polls() >= 2, timeout=RUN_TIMEOUT_MS)
        assert "0 / 15 collected" in window.model_runs.status.label.text()
        window.model_runs.cancel()
        assert "stopping" in window.model_runs.status.label.text()
        qtbot.waitUntil(lambda: bool(reports), timeout=RUN_TIMEOUT_MS)
        assert reports[0].cancelled and reports[0].waiting == 1 and reports[0].stored == 0
        assert "1 still running: run as a batch again to collect" in window.statusBar().currentMessage()
        server.ends_after = 0  # it finished while nobody was looking
        again = window.model_runs.start(request)
        reports.clear()
        again.signals.finished.connect(reports.append)
        qtbot.waitUntil(lambda: bool(reports), timeout=RUN_TIMEOUT_MS)
        assert len(server.batches) == 1  # collected, not sent again
    assert reports[0].prepared == 0 and reports[0].stored == 15 and not reports[0].waiting
    assert state.workspace.predicted_keys("fake-model") == set(keys)


def test_the_estimate_is_priced_as_a_batch_when_a_batch_is_chosen(window, qtbot):
    from tests.gui.test_run_estimate import wait_for_estimate

    seen = {}

    def steps(dialog):
        replace_text(qtbot, dialog.model_edit, "new-model")
        replace_text(qtbot, dialog.estimate_view.price_edits["input_per_mtok"], "3")
        replace_text(qtbot, dialog.estimate_view.price_edits["output_per_mtok"], "15")
        seen["live"] = wait_for_estimate(qtbot, dialog, "Cost: <b>")
        dialog.send_combo.setCurrentIndex(1)
        seen["batch"] = wait_for_estimate(qtbot, dialog, "batch price, 50% of the list price")
        dialog.send_combo.setCurrentIndex(0)
        seen["back"] = wait_for_estimate(qtbot, dialog, "Cost: <b>")

    drive_run_model_dialog(qtbot, window, steps)
    live, batch = (float(seen[k].split("Cost: <b>≈$")[1].split("<")[0]) for k in ("live", "batch"))
    assert batch == pytest.approx(live / 2, rel=0.1) and "batch price" not in seen["back"]
