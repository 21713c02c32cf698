"""Paper parity in the window, as a person uses it: Model ▸ TraceEval Release… sets the release the prompts take
their words from (the Answer tab and Run Model follow it), Help ▸ Check Paper Parity runs the release's scripts
against this tool in the sandbox (a release found next to the dataset asked about first: tests/security/
test_found_release_window.py), and the Metrics tab names a rule set that is not the paper's in its title and
table."""
import csv
import html
import importlib.util
import json

import pytest
from PySide6.QtCore import Qt, QTimer
from PySide6.QtGui import QGuiApplication
from PySide6.QtWidgets import QApplication, QLabel, QPushButton

from core.llm.prompts import build_prompt, prompt_hash
from core.release.checkout import read_release_wording
from core.results.importing import import_results
from resources import DEMO_DATASET
from tests.gui.conftest import OPEN_TIMEOUT_MS
from tests.gui.menus import menu_action
from tests.llm_server import FakeChatServer, answer_text, ok
from tests.release_standin import write_release

TIMEOUT_MS = 30_000


def in_modal_dialog(qtbot, work):
    """Run `work(dialog)` on the modal dialog an action is about to open; never leave it hanging."""
    seen = {}

    def act():
        dialog = QApplication.activeModalWidget()
        try:
            seen["result"] = work(dialog)
        finally:
            if dialog.isVisible():
                seen["left open"] = True
                dialog.reject()

    QTimer.singleShot(0, act)
    return seen


@pytest.fixture
def release(tmp_path):
    return write_release(tmp_path / "TraceEva")


def click_button(qtbot, dialog, text: str) -> str:
    """Click the button labelled `text` in `dialog`; returns the dialog's text (what it asked)."""
    button = next(b for b in dialog.findChildren(QPushButton) if b.text().replace("&", "") == text)
    asked = " ".join(label.text() for label in dialog.findChildren(QLabel))
    qtbot.mouseClick(button, Qt.MouseButton.LeftButton)
    return asked


def set_release_in_the_menu(window, qtbot, path) -> dict:
    def fill(dialog):
        qtbot.keyClicks(dialog.field.edit, str(path))
        status = dialog.field.status.text()
        ok_button = next(b for b in dialog.findChildren(QPushButton) if b.text().replace("&", "") == "OK")
        qtbot.mouseClick(ok_button, Qt.MouseButton.LeftButton)
        return status

    seen = in_modal_dialog(qtbot, fill)
    menu_action(window, "Model", "TraceEval Release…").trigger()
    return seen


def test_the_release_set_in_the_model_menu_gives_the_prompt_the_papers_words(window, state, qtbot, release):
    window.show_tab("answer")
    state.select_instance("python/calcpad_0001")
    panel = window.answer_panel
    panel.show_view("prompt")
    assert "studio wording, not the paper's" in html.unescape(panel.prompt_view.info_label.text())
    seen = set_release_in_the_menu(window, qtbot, release)
    assert "left open" not in seen and "Prompts use the paper's own wording" in seen["result"]
    assert state.release_path == str(release)
    assert "the TraceEval release's wording" in html.unescape(panel.prompt_view.info_label.text())
    spec = importlib.util.spec_from_file_location("standin_window", release / "scripts" / "run_llm.py")
    standin = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(standin)
    instance = state.detail().instance
    theirs = standin.build_prompt(str(instance.root), json.loads((instance.root / "callgraph.json").read_text()),
                                  "python")
    assert panel.prompt().messages == theirs
    assert panel.prompt_view.text_view.toPlainText().startswith("[wording] the TraceEval release's wording (")
    assert "prompt: wording not recorded" in html.unescape(panel.header_label.text())  # imported illustrative


def test_a_path_that_is_no_release_is_said_in_the_dialog_and_nothing_is_set(window, state, qtbot, tmp_path):
    seen = set_release_in_the_menu(window, qtbot, tmp_path / "nowhere")
    assert "no TraceEval release here" in seen["result"] and seen.get("left open")
    assert state.release_path == ""


def test_check_paper_parity_from_the_help_menu(window, state, qtbot, tmp_path):
    action = menu_action(window, "Help", "Check Paper Parity…")
    action.trigger()
    dialog = window.parity_dialog
    assert "No TraceEval release to check against" in dialog.status.text()
    dialog.close()
    checkout = write_release(tmp_path / "TraceEva", with_data=DEMO_DATASET)
    with qtbot.waitSignal(state.dataset_opened, timeout=OPEN_TIMEOUT_MS):
        window.open_dataset(checkout, workspace=tmp_path / "release.sqlite")  # the checkout itself
    import_results(state.workspace, [DEMO_DATASET / "results"])
    seen = in_modal_dialog(qtbot, lambda box: click_button(qtbot, box, "Use This Release"))  # found: asked first
    action.trigger()
    assert "left open" not in seen
    dialog = window.parity_dialog
    qtbot.waitUntil(lambda: dialog.report is not None, timeout=TIMEOUT_MS)
    assert "Full agreement" in dialog.status.text() and "8 of 8 table cells" in dialog.status.text()
    assert dialog.browser.toPlainText().count("✓") == 8
    qtbot.mouseClick(dialog.copy_button, Qt.MouseButton.LeftButton)
    assert QGuiApplication.clipboard().text().rstrip().endswith("Result: full agreement")


def test_studio_rules_are_named_in_the_metrics_tab_and_table(window, state, qtbot, tmp_path):
    window.show_tab("metrics")
    metrics = window.metrics_panel
    titles = lambda: [window.bottom_tabs.tabText(i) for i in range(window.bottom_tabs.count())]  # noqa: E731
    assert "Metrics" in titles() and "paper rules" in metrics.browser.toPlainText()
    metrics.rules_combo.setFocus()
    with qtbot.waitSignal(metrics.table_changed, timeout=TIMEOUT_MS):
        qtbot.keyClick(metrics.rules_combo, Qt.Key.Key_Down)
    qtbot.waitUntil(lambda: metrics.table.rules == "studio" and not metrics.is_scoring(), timeout=TIMEOUT_MS)
    assert "Metrics (studio rules, not the paper's)" in titles() and "Plots (studio rules, not the paper's)" in titles()
    assert "studio rules, not the paper's" in metrics.browser.toPlainText()
    window.show_tab("plots")  # a tab behind another is redrawn when it is shown
    qtbot.waitUntil(lambda: "studio rules" in window.plots_panel.status.text(), timeout=TIMEOUT_MS)
    window.show_tab("metrics")
    out = metrics.export_table(tmp_path / "table.csv", "csv")
    rows = list(csv.DictReader(out.read_text().splitlines()))
    assert {row["rules"] for row in rows} == {"studio"}
    with qtbot.waitSignal(metrics.table_changed, timeout=TIMEOUT_MS):
        qtbot.keyClick(metrics.rules_combo, Qt.Key.Key_Up)
    assert "Metrics" in titles() and not any("studio" in title for title in titles())


def test_run_model_sends_the_releases_words_and_records_them(window, state, qtbot, release):
    wording = read_release_wording(release / "scripts" / "run_llm.py")
    key = state.opened.rows[0].key
    instance = state.workspace.instance(key)
    prompt = build_prompt(instance, wording=wording)
    answers = {prompt_hash(prompt.system, prompt.user): answer_text(instance.ground_truth)}
    state.select_instance(key)

    with FakeChatServer(lambda request, attempt: ok(answers.get(
            prompt_hash(request["messages"][0]["content"], request["messages"][1]["content"]), "1. wrong"))) as server:
        def fill(dialog):
            dialog.url_combo.setEditText(server.base_url)
            dialog.model_edit.setText("paper-words")
            dialog.scope_buttons["current"].setChecked(True)
            qtbot.keyClicks(dialog.release_field.edit, str(release))
            qtbot.mouseClick(dialog.run_button, Qt.MouseButton.LeftButton)

        seen = in_modal_dialog(qtbot, fill)
        with qtbot.waitSignal(state.answers_settled, timeout=TIMEOUT_MS + OPEN_TIMEOUT_MS):
            menu_action(window, "Model", "Run Model…").trigger()
        assert "left open" not in seen
        bodies = [request.body for request in server.chat_requests()]
    assert bodies[0]["messages"][0]["content"] == f"STAND-IN system words for {instance.language.capitalize()} " \
                                                  "code. They are not the paper's."
    stored = state.workspace.predictions("paper-words", [key])[key]
    assert stored.prompt_wording == wording.tag and stored.prompt_hash == prompt.hash
    assert stored.graph.edge_set == instance.ground_truth.edge_set
    run = state.workspace.model_run_rows("paper-words")[0]
    assert run.params["prompt_wording"] == wording.tag and run.params["release"] == wording.path
    assert state.release_path == str(release)  # the dialog's field is the window's setting


def test_a_release_that_went_away_falls_back_to_the_studio_words_and_says_why(window, state, qtbot, release):
    window.show_tab("answer")
    state.select_instance("python/calcpad_0001")
    window.answer_panel.show_view("prompt")
    set_release_in_the_menu(window, qtbot, release)
    assert "the TraceEval release's wording" in html.unescape(window.answer_panel.prompt_view.info_label.text())
    (release / "scripts" / "run_llm.py").write_text("SYSTEM_PROMPT = f'{1}'\n")
    state.set_release_path(str(release) + "/")  # set again (as the dialog does): read again
    text = html.unescape(window.answer_panel.prompt_view.info_label.text())
    assert "studio wording, not the paper's" in text and "SYSTEM_PROMPT is not a plain string literal" in text
