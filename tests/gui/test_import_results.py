"""File > Import Results as a person uses it: the dialog takes files, or a whole folder of results (every results
file below it, as `traceeval import-results` reads folders)."""
import json

from PySide6.QtCore import Qt, QTimer
from PySide6.QtWidgets import QApplication, QFileDialog, QLineEdit, QPushButton

from tests.gui.conftest import OPEN_TIMEOUT_MS


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


def _in_the_dialog(qtbot, act):
    """Run `act(dialog)` on the file dialog once it is open."""
    def check():
        dialog = next((w for w in QApplication.topLevelWidgets() if isinstance(w, QFileDialog) and w.isVisible()),
                      None)
        if dialog is None:
            QTimer.singleShot(50, check)
            return
        act(dialog)
    QTimer.singleShot(50, check)


def test_import_results_takes_a_whole_folder(window, state, qtbot, tmp_path):
    folder = _results_folder(tmp_path)

    def choose_folder(dialog):
        dialog.setDirectory(str(folder))
        button = dialog.findChild(QPushButton, "choose_folder_button")
        assert button.isVisible() and "Folder" in button.text()
        qtbot.mouseClick(button, Qt.MouseButton.LeftButton)

    _in_the_dialog(qtbot, choose_folder)
    with qtbot.waitSignal(state.dataset_opened, timeout=OPEN_TIMEOUT_MS):
        _import_action(window).trigger()
    assert "folder-model" in [m.name for m in state.models]
    assert state.workspace.predicted_keys("folder-model") == {"python/calcpad_0001", "python/taskqueue_0001"}
    assert "Imported folder-model: 2 from 2 files" in window.statusBar().currentMessage()


def test_import_results_still_takes_files(window, state, qtbot, tmp_path):
    folder = _results_folder(tmp_path)

    def choose_file(dialog):
        dialog.setDirectory(str(folder))  # then type the name, as a person does (selectFile of a path in
        name = dialog.findChild(QLineEdit, "fileNameEdit")  # a folder not listed yet can select nothing)
        qtbot.keyClicks(name, "a.jsonl")
        qtbot.keyClick(name, Qt.Key.Key_Return)

    _in_the_dialog(qtbot, choose_file)
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

    _in_the_dialog(qtbot, choose_folder)
    _import_action(window).trigger()
    qtbot.waitUntil(lambda: "nothing imported" in window.statusBar().currentMessage(), timeout=OPEN_TIMEOUT_MS)
    assert "No results files" in window.statusBar().currentMessage()
