"""Issue #36 item 1 in the window: a release found next to the opened dataset is not used until the user says yes
in a dialog naming its folder and the sha256 of its scripts (Help ▸ Check Paper Parity, Model ▸ Run Model);
until then the Answer tab keeps this project's words and says why; a yes is remembered, and asked again when a
script changes. Everything through real menu items and clicks."""
import html

import pytest

pytest.importorskip("PySide6", exc_type=ImportError)

from PySide6.QtCore import Qt, QTimer
from PySide6.QtWidgets import QApplication, QLabel, QPushButton

from core.dataset.indexing import open_dataset
from core.release.confirmed import confirmed_path, scripts_digest
from core.results.importing import import_results
from resources import DEMO_DATASET
from tests.gui.dialogs import drive_run_model_dialog
from tests.gui.menus import menu_action
from tests.llm_server import FakeChatServer, ok
from tests.release_standin import write_release
from tests.security.sandbox_attacks import needs_sandbox

OPEN_TIMEOUT_MS = 20_000
TIMEOUT_MS = 60_000


@pytest.fixture
def opened(window, qtbot, tmp_path):
    """The window with a downloaded-looking checkout open (the demo corpus beside a stand-in release's scripts), the
    demo's illustrative results in its workspace."""
    window, state = window
    checkout = write_release(tmp_path / "TraceEva", with_data=DEMO_DATASET)
    ws, _ = open_dataset(checkout / "data", tmp_path / "release.sqlite")
    with ws:
        import_results(ws, [DEMO_DATASET / "results"])
    with qtbot.waitSignal(state.dataset_opened, timeout=OPEN_TIMEOUT_MS):
        window.open_dataset(checkout, workspace=tmp_path / "release.sqlite")
    return window, state, checkout


def answer_when_asked(qtbot, button: str) -> dict:
    """Click `button` in the question the next action opens; what it asked is in "asked" (absent: nothing asked)."""
    seen = {}

    def act():
        box = QApplication.activeModalWidget()
        if box is None:
            return
        seen["asked"] = " ".join(label.text() for label in box.findChildren(QLabel))
        clicked = next(b for b in box.findChildren(QPushButton) if b.text().replace("&", "") == button)
        qtbot.mouseClick(clicked, Qt.MouseButton.LeftButton)
        if box.isVisible():
            seen["left open"] = True
            box.reject()

    QTimer.singleShot(0, act)
    return seen


def prompt_info(window, state) -> str:
    window.show_tab("answer")
    state.select_instance("python/calcpad_0001")
    window.answer_panel.show_view("prompt")
    return html.unescape(window.answer_panel.prompt_view.info_label.text())


@needs_sandbox
def test_check_paper_parity_asks_first_and_a_yes_is_remembered_until_a_script_changes(opened, qtbot):
    window, state, checkout = opened
    sha256 = scripts_digest(checkout / "scripts").sha256
    shown = prompt_info(window, state)
    assert "studio wording, not the paper's" in shown and "not confirmed" in shown and sha256[:16] in shown

    seen = answer_when_asked(qtbot, "Cancel")
    menu_action(window, "Help", "Check Paper Parity…").trigger()
    dialog = window.parity_dialog
    assert str(checkout) in seen["asked"] and sha256 in seen["asked"] and "left open" not in seen
    assert "Not checked" in dialog.status.text() and dialog.report is None and not confirmed_path().exists()
    assert "studio wording" in prompt_info(window, state)

    seen = answer_when_asked(qtbot, "Use This Release")
    qtbot.mouseClick(dialog.check_button, Qt.MouseButton.LeftButton)
    assert "asked" in seen
    qtbot.waitUntil(lambda: dialog.report is not None, timeout=TIMEOUT_MS)
    assert "Full agreement" in dialog.status.text() and sha256 in confirmed_path().read_text()
    assert "the TraceEval release's wording" in prompt_info(window, state)  # the window's prompts follow

    seen = answer_when_asked(qtbot, "Cancel")
    qtbot.mouseClick(dialog.check_button, Qt.MouseButton.LeftButton)
    qtbot.wait(50)
    assert "asked" not in seen  # remembered
    qtbot.waitUntil(lambda: dialog.report is not None, timeout=TIMEOUT_MS)

    with (checkout / "scripts" / "compute_metrics.py").open("a") as script:
        script.write("\n# changed upstream\n")
    seen = answer_when_asked(qtbot, "Cancel")
    qtbot.mouseClick(dialog.check_button, Qt.MouseButton.LeftButton)
    assert scripts_digest(checkout / "scripts").sha256 in seen["asked"]
    assert "Not checked" in dialog.status.text()
    dialog.close()


def test_run_model_asks_before_it_sends_the_found_releases_words(opened, qtbot):
    window, state, checkout = opened
    state.select_instance("python/calcpad_0001")
    with FakeChatServer(lambda request, attempt: ok("1. none")) as server:
        def steps(dialog):
            assert "not confirmed" in html.unescape(dialog.release_field.status.text())
            dialog.url_combo.setEditText(server.base_url)
            dialog.model_edit.setText("found-words")
            dialog.scope_buttons["current"].setChecked(True)
            seen = answer_when_asked(qtbot, "Cancel")
            qtbot.mouseClick(dialog.run_button, Qt.MouseButton.LeftButton)
            assert str(checkout) in seen["asked"] and dialog.isVisible()
            assert "not confirmed" in dialog.error_label.text() and not server.chat_requests()
            seen = answer_when_asked(qtbot, "Use This Release")
            qtbot.mouseClick(dialog.run_button, Qt.MouseButton.LeftButton)
            assert "asked" in seen

        with qtbot.waitSignal(state.answers_settled, timeout=TIMEOUT_MS):
            outcome = drive_run_model_dialog(qtbot, window, steps)
        assert "left open" not in outcome
        sent = [request.body["messages"][0]["content"] for request in server.chat_requests()]
    assert sent and all(text.startswith("STAND-IN system words") for text in sent)
    assert scripts_digest(checkout / "scripts").sha256 in confirmed_path().read_text()
