"""File > Import Results as a person uses it: the dialog takes files, or a whole folder of results (every results
file below it, as `traceeval import-results` reads folders)."""
import json

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QFileDialog, QPushButton

from tests.gui.conftest import OPEN_TIMEOUT_MS
from tests.gui.test_menu_actions import choose_file, on_next_dialog


def _record(program, model, prediction):
    return json.dumps({"instance_id": program, "language": "python", "model": model, "prediction": prediction})


def _results_folder(tmp_path):
    """results/ with a JSONL file at the top and one two folders down, and a file that is not results."""
    folder = tmp_path / "results"
    (folder / "run2" / "python").mkdir(parents=True)
    (folder / "a.jsonl").write_text(_record("calcpad_0001", "folder-model", {"main": ["main.main"]}) + "\n")
    (folder / "run2" / "python" / "b.jsonl").write_text(
        _record("taskqueue_0001", "folder-model", {"main": ["main.main"]}) + "\n")
    (folder / "notes.txt").write_text("not results")
    return folder


def _import_action(window):
    menu = next(a.menu() for a in window.menuBar().actions() if a.text() == "&File")
    return next(a for a in menu.actions() if a.text() == "&Import Results…")


def test_import_results_takes_a_whole_folder(window, state, qtbot, tmp_path):
    folder = _results_folder(tmp_path)

    def choose_folder(dialog):
        dialog.setDirectory(str(folder))
        button = dialog.findChild(QPushButton, "choose_folder_button")
        assert button.isVisible() and "Folder" in button.text()
        qtbot.mouseClick(button, Qt.MouseButton.LeftButton)

    on_next_dialog(qtbot, choose_folder, QFileDialog)
    with qtbot.waitSignal(state.dataset_opened, timeout=OPEN_TIMEOUT_MS):
        _import_action(window).trigger()
    assert "folder-model" in [m.name for m in state.models]
    assert state.workspace.predicted_keys("folder-model") == {"python/calcpad_0001", "python/taskqueue_0001"}
    assert "Imported folder-model: 2 from 2 files" in window.statusBar().currentMessage()


def test_import_results_still_takes_files(window, state, qtbot, tmp_path):
    folder = _results_folder(tmp_path)

    on_next_dialog(qtbot, choose_file(folder / "a.jsonl"), QFileDialog)
    with qtbot.waitSignal(state.dataset_opened, timeout=OPEN_TIMEOUT_MS):
        _import_action(window).trigger()
    assert state.workspace.predicted_keys("folder-model") == {"python/calcpad_0001"}
    assert "from 1 file" in window.statusBar().currentMessage()


def test_a_folder_without_results_says_so(window, state, qtbot, tmp_path):
    empty = tmp_path / "empty"
    empty.mkdir()

    def choose_folder(dialog):
        dialog.setDirectory(str(empty))
        qtbot.mouseClick(dialog.findChild(QPushButton, "choose_folder_button"), Qt.MouseButton.LeftButton)

    on_next_dialog(qtbot, choose_folder, QFileDialog)
    _import_action(window).trigger()
    qtbot.waitUntil(lambda: "nothing imported" in window.statusBar().currentMessage(), timeout=OPEN_TIMEOUT_MS)
    assert "No results files" in window.statusBar().currentMessage()
