"""The source view as a person uses it: clicking in the code selects the function everywhere, Ctrl+F finds in
the shown file (and filters the programs elsewhere), tab titles show file names exactly."""
from PySide6.QtCore import Qt
from PySide6.QtGui import QTextCursor
from PySide6.QtWidgets import QApplication, QStyle

from traceeval_gui.item_models.edge_table import EDGE_ROLE

CALCPAD = "python/calcpad_0001"
TASKQUEUE = "python/taskqueue_0001"


def _show(window, state, key):
    window.activateWindow()  # shortcuts of the window's menus need it active
    window.browser.select_key(key)
    assert state.instance_key == key


def _click_line(qtbot, view, line, column=8):
    """Click in the code at a (1-based) line, `column` characters in."""
    cursor = QTextCursor(view.document().findBlockByNumber(line - 1))
    cursor.movePosition(QTextCursor.MoveOperation.Right, n=column)
    view.setTextCursor(cursor)
    view.ensureCursorVisible()
    qtbot.mouseClick(view.viewport(), Qt.MouseButton.LeftButton, pos=view.cursorRect(cursor).center())


def test_clicking_in_a_function_selects_it_in_the_graph_and_the_edge_table(window, state, qtbot):
    _show(window, state, CALCPAD)
    view = window.source_view.file_view("main.py")
    node = state.detail().symbols.by_name["main.tokenize"]
    body_line = node.start_line + 3  # inside the for loop, below the definition
    _click_line(qtbot, view, body_line)
    assert state.node == "main.tokenize"
    assert view.focused_line == node.start_line  # the definition is highlighted
    assert view.current_line() == body_line  # and the code did not jump away from the click
    plot = window.graph_panel.plot
    assert len(plot.node_halo.points()) == 1  # the graph rings the node
    table = window.edge_panel.table
    selected = table.selectionModel().selectedRows()
    assert len(selected) == 1 and selected[0].data(EDGE_ROLE).caller == "main.tokenize"


def test_clicking_in_a_method_then_module_code_selects_each(window, state, qtbot):
    _show(window, state, CALCPAD)
    view = window.source_view.file_view("main.py")
    init = state.detail().symbols.by_name["main.Token.__init__"]
    _click_line(qtbot, view, init.start_line + 1)
    assert state.node == "main.Token.__init__"
    _click_line(qtbot, view, 4, 2)  # TOKEN_RE = ...: module-level code
    assert state.node == "main"


def test_a_drag_selecting_text_selects_no_function(window, state, qtbot):
    _show(window, state, CALCPAD)
    view = window.source_view.file_view("main.py")
    node = state.detail().symbols.by_name["main.tokenize"]
    start = view.cursorRect(QTextCursor(view.document().findBlockByNumber(node.start_line))).center()
    qtbot.mousePress(view.viewport(), Qt.MouseButton.LeftButton, pos=start)
    qtbot.mouseMove(view.viewport(), start + type(start)(60, 0))
    qtbot.mouseRelease(view.viewport(), Qt.MouseButton.LeftButton, pos=start + type(start)(60, 0))
    assert view.textCursor().hasSelection()
    assert state.node is None


def _find_action(window):
    go = next(a.menu() for a in window.menuBar().actions() if a.text() == "&Go")
    return next(a for a in go.actions() if a.text() == "Filter &Programs")


def test_ctrl_f_in_the_source_finds_in_the_file(window, state, qtbot):
    _show(window, state, CALCPAD)
    source = window.source_view
    view = source.file_view("main.py")
    qtbot.waitUntil(lambda: QApplication.activeWindow() is window)
    view.setFocus()
    qtbot.waitUntil(view.hasFocus)
    qtbot.keyClick(view, Qt.Key.Key_Home, Qt.KeyboardModifier.ControlModifier)  # find from the top
    qtbot.keyClick(view, Qt.Key.Key_F, Qt.KeyboardModifier.ControlModifier)
    bar = source.find_bar
    assert bar.isVisible() and bar.edit.hasFocus()
    qtbot.keyClicks(bar.edit, "token")
    text = view.toPlainText().lower()
    expected = text.count("token")
    assert expected > 3 and bar.count_label.text() == f"1 of {expected}"
    first = view.textCursor().selectionStart()
    assert view.textCursor().selectedText().lower() == "token"
    qtbot.keyClick(bar.edit, Qt.Key.Key_Return)
    assert bar.count_label.text() == f"2 of {expected}" and view.textCursor().selectionStart() > first
    qtbot.keyClick(bar.edit, Qt.Key.Key_Return, Qt.KeyboardModifier.ShiftModifier)
    assert bar.count_label.text() == f"1 of {expected}" and view.textCursor().selectionStart() == first
    qtbot.keyClick(bar.edit, Qt.Key.Key_F3)  # F3: the next one too
    assert bar.count_label.text() == f"2 of {expected}"
    bar.edit.setText("no such text anywhere")
    assert bar.count_label.text() == "no match"
    qtbot.keyClick(bar.edit, Qt.Key.Key_Escape)
    assert not bar.isVisible()
    qtbot.waitUntil(view.hasFocus)
    assert window.browser.filter_edit.text() == ""  # the programs were not filtered


def test_ctrl_f_elsewhere_still_filters_the_programs(window, state, qtbot):
    _show(window, state, CALCPAD)
    window.edge_panel.table.setFocus()
    qtbot.waitUntil(window.edge_panel.table.hasFocus)
    _find_action(window).trigger()
    assert QApplication.focusWidget() is window.browser.filter_edit
    assert not window.source_view.find_bar.isVisible()


def test_the_find_bar_follows_the_shown_file(window, state, qtbot):
    _show(window, state, TASKQUEUE)
    source = window.source_view
    source.tabs.setCurrentIndex(2)
    source.tabs.currentWidget().setFocus()
    _find_action(window).trigger()
    qtbot.keyClicks(source.find_bar.edit, "self")
    count = source.tabs.currentWidget().toPlainText().count("self")
    assert source.find_bar.count_label.text().endswith(f"of {count}")
    source.tabs.setCurrentIndex(3)
    other = source.tabs.currentWidget().toPlainText().count("self")
    assert other != count and source.find_bar.count_label.text().endswith(f"of {other}")


def test_tab_titles_show_file_names_exactly(window, state):
    _show(window, state, TASKQUEUE)
    tabs = window.source_view.tabs
    assert [tabs.tabText(i) for i in range(tabs.count())] == ["main.py", "__init__.py", "scheduler.py", "tasks.py"]
    # Fusion draws the tabs that are not current lower, cutting the underscores off: not these
    assert tabs.tabBar().style().pixelMetric(QStyle.PixelMetric.PM_TabBarTabShiftVertical) == 0
