"""Opening a folder that is not a dataset: a clear message in the window, and it is not remembered."""
from PySide6.QtCore import QSettings
from PySide6.QtWidgets import QFileDialog

from resources import DEMO_DATASET
from tests.gui.conftest import OPEN_TIMEOUT_MS
from tests.gui.test_menu_actions import choose_file, on_next_dialog


def test_a_folder_that_is_not_a_dataset_is_refused_and_not_remembered(qtbot, state, tmp_path):
    from traceeval_gui.workbench.main_window import MainWindow

    settings = QSettings(str(tmp_path / "settings.ini"), QSettings.Format.IniFormat)
    window = MainWindow(state, settings=settings, interactive=False)
    qtbot.addWidget(window)
    window.show()
    with qtbot.waitSignal(state.dataset_opened, timeout=OPEN_TIMEOUT_MS):
        window.open_dataset(DEMO_DATASET, workspace=tmp_path / "demo.sqlite")
    photos = tmp_path / "holiday photos"
    photos.mkdir()
    (photos / "beach.jpg").write_bytes(b"\xff\xd8")
    on_next_dialog(qtbot, choose_file(photos), QFileDialog)
    open_action = next(a for a in next(m.menu() for m in window.menuBar().actions() if m.text() == "&File").actions()
                       if a.text() == "&Open Dataset…")
    with qtbot.waitSignal(window.dataset_failed, timeout=OPEN_TIMEOUT_MS) as failed:
        open_action.trigger()
    message = failed.args[0]
    assert str(photos) in message and "not a TraceEval dataset" in message and "callgraph.json" in message
    assert "holiday photos" in window.statusBar().currentMessage()
    assert state.opened.root == DEMO_DATASET  # the dataset that was open stays open
    assert [item.dataset for item in window.session.recent()] == [str(DEMO_DATASET)]
    assert window.session.last().dataset == str(DEMO_DATASET)
    window.close()


def test_a_folder_whose_programs_all_fail_says_why(qtbot, state, tmp_path):
    from traceeval_gui.workbench.main_window import MainWindow

    window = MainWindow(state, settings=None, interactive=False)
    qtbot.addWidget(window)
    broken = tmp_path / "dataset" / "benchmark" / "python" / "calc_0001"
    broken.mkdir(parents=True)
    (broken / "main.py").write_text("print(1)\n")
    (broken / "callgraph.json").write_text("{not json")
    with qtbot.waitSignal(window.dataset_failed, timeout=OPEN_TIMEOUT_MS) as failed:
        window.open_dataset(tmp_path / "dataset", workspace=tmp_path / "ws.sqlite")
    assert "no program in it could be read" in failed.args[0] and "callgraph.json" in failed.args[0]
    assert state.opened is None
