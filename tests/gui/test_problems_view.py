"""View > Problems: a dataset's broken programs listed one per row, the full reason on a click, the file
opened with Enter or a double-click (read-only text for a program that could not be read, the source view
for one that was), opened from the status bar's problem count and from the View menu."""
import json

import pytest
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QApplication

from tests.gui.conftest import open_window

GOOD = "def helper():\n    return 1\n\n\ndef main():\n    helper()\n\n\nif __name__ == '__main__':\n    main()\n"
TRUTH = {"main.main": ["main.helper"], "main.helper": []}


def program(root, name, files):
    folder = root / "benchmark" / "python" / name
    folder.mkdir(parents=True)
    for file_name, content in files.items():
        (folder / file_name).write_bytes(content if isinstance(content, bytes) else content.encode())
    return folder


@pytest.fixture
def broken_dataset(tmp_path):
    root = tmp_path / "dataset"
    truth = json.dumps(TRUTH)
    program(root, "good_0001", {"main.py": GOOD, "callgraph.json": truth})
    program(root, "good_0002", {"main.py": GOOD, "callgraph.json": truth})
    program(root, "no_entry_0001", {"a.py": "def helper():\n    return 1\n", "b.py": "import a\n",
                                     "callgraph.json": json.dumps({"a.helper": []})})  # a warning: still used
    program(root, "bad_json_0001", {"main.py": GOOD, "callgraph.json": '{"main.main": ["main.helper"'})
    program(root, "wrong_shape_0001", {"main.py": GOOD, "callgraph.json": '["main.main", "main.helper"]'})
    program(root, "bad_utf8_0001", {"main.py": b"def main():\n    print('caf\xe9')\n", "callgraph.json": truth})
    program(root, "no_source_0001", {"callgraph.json": truth})
    return root


@pytest.fixture
def broken_window(qtbot, state, broken_dataset, tmp_path):
    window = open_window(qtbot, state, tmp_path / "broken.sqlite", dataset=broken_dataset)
    yield window
    window.close()


def row_of(panel, program_id):
    return next(row for row in range(panel.model.rowCount()) if panel.model.problem_at(row).instance_id == program_id)


def click_row(qtbot, table, row, double=False):
    rect = table.visualRect(table.model().index(row, 0))
    click = qtbot.mouseDClick if double else qtbot.mouseClick
    if double:
        qtbot.mouseClick(table.viewport(), Qt.MouseButton.LeftButton, pos=rect.center())
    click(table.viewport(), Qt.MouseButton.LeftButton, pos=rect.center())


def open_text_dialog():
    from traceeval_gui.workbench.problems_view import FileTextDialog

    return next((w for w in QApplication.topLevelWidgets() if isinstance(w, FileTextDialog) and w.isVisible()), None)


def test_the_status_bar_count_opens_the_list_and_a_click_shows_the_reason(qtbot, broken_window, state):
    window = broken_window
    assert len(state.opened.rows) == 3  # the two good programs and the one without an entry point
    assert window.problems_label.text() == "5 problems" and not window.problems_dock.isVisible()
    qtbot.mouseClick(window.problems_label, Qt.MouseButton.LeftButton)
    panel = window.problems_panel
    assert window.problems_dock.isVisible() and panel.table.hasFocus()
    rows = {panel.model.problem_at(r).instance_id: r for r in range(panel.model.rowCount())}
    assert set(rows) == {"bad_json_0001", "wrong_shape_0001", "bad_utf8_0001", "no_source_0001", "no_entry_0001"}
    cells = [panel.model.index(rows["bad_json_0001"], column).data() for column in range(4)]
    assert cells[:3] == ["Error", "bad_json_0001", "benchmark/python/bad_json_0001/callgraph.json"]
    assert "invalid JSON" in cells[3]
    assert panel.model.index(rows["no_entry_0001"], 0).data() == "Warning"
    assert panel.summary.text().startswith("4 errors") and "1 warning " in panel.summary.text()
    click_row(qtbot, panel.table, rows["wrong_shape_0001"])
    detail = panel.detail.toPlainText()
    assert "expected an object {caller: [callees]}, got list" in detail
    assert str(window.state.opened.root / "benchmark/python/wrong_shape_0001/callgraph.json") in detail
    assert "not in the Programs list" in detail


def test_enter_opens_a_broken_programs_file_as_read_only_text(qtbot, broken_window):
    window = broken_window
    window.show_problems()
    panel = window.problems_panel
    click_row(qtbot, panel.table, row_of(panel, "bad_json_0001"))
    qtbot.keyClick(panel.table, Qt.Key.Key_Return)
    dialog = open_text_dialog()
    assert dialog is not None and dialog.text.isReadOnly()
    assert dialog.text.toPlainText() == '{"main.main": ["main.helper"'
    dialog.close()
    click_row(qtbot, panel.table, row_of(panel, "bad_utf8_0001"), double=True)
    dialog = open_text_dialog()
    assert dialog is not None and dialog.path.name == "main.py"
    assert "caf\ufffd" in dialog.text.toPlainText() and "not valid UTF-8 (byte 26)" in dialog.note.text()
    dialog.close()
    click_row(qtbot, panel.table, row_of(panel, "no_source_0001"))
    qtbot.keyClick(panel.table, Qt.Key.Key_Enter)
    assert open_text_dialog() is None
    assert "No file to open: benchmark/python/no_source_0001 is a folder" in window.statusBar().currentMessage()


def test_a_warning_opens_its_program_in_the_source_view(qtbot, broken_window, state):
    window = broken_window
    window.show_problems()
    panel = window.problems_panel
    click_row(qtbot, panel.table, row_of(panel, "no_entry_0001"), double=True)
    assert state.instance_key == "python/no_entry_0001"
    assert window.source_view.file_view("a.py") is not None and open_text_dialog() is None
    assert "python/no_entry_0001 selected" in window.statusBar().currentMessage()


def test_the_view_menu_item_and_its_shortcut_show_and_hide_the_list(qtbot, broken_window):
    window = broken_window
    view_menu = next(a.menu() for a in window.menuBar().actions() if a.text() == "&View")
    item = next(a for a in view_menu.actions() if a.text() == "P&roblems")
    assert item.shortcut().toString() == "Ctrl+Shift+D"
    item.trigger()
    assert window.problems_dock.isVisible()
    item.trigger()
    assert not window.problems_dock.isVisible()
    window.activateWindow()
    qtbot.keySequence(window, item.shortcut())
    assert window.problems_dock.isVisible()
