"""Tabs behind the current one do their work when they are shown, and then show the current state."""
from __future__ import annotations

from PySide6.QtCore import Qt

from traceeval_gui.item_models.compare_table import DIFFERENCE_ROLE


def _menu_action(window, menu_title: str, text: str):
    from PySide6.QtWidgets import QMenu

    for menu in window.menuBar().findChildren(QMenu):
        if menu.title().replace("&", "") == menu_title:
            for action in menu.actions():
                if action.text().replace("&", "") == text:
                    return action
    raise LookupError(f"{menu_title} > {text}")


def _click_tab(qtbot, window, name: str) -> None:
    tabs = window.bottom_tabs
    index = tabs.indexOf(window.tab_widget(name))
    qtbot.mouseClick(tabs.tabBar(), Qt.MouseButton.LeftButton, pos=tabs.tabBar().tabRect(index).center())
    assert tabs.currentIndex() == index


def test_a_hidden_compare_tab_shows_the_program_chosen_meanwhile_when_shown(window, state, qtbot):
    _click_tab(qtbot, window, "edges")
    compare = window.compare_panel
    before = compare.instance_header.text()
    next_program = _menu_action(window, "Go", "Next Program")
    next_program.trigger()
    next_program.trigger()
    chosen = state.detail().instance.id
    assert chosen not in before
    assert compare.instance_header.text() == before  # nobody sees it: not redrawn yet
    _click_tab(qtbot, window, "compare")
    assert chosen in compare.instance_header.text()
    assert compare.edges() and compare.difference_table.currentIndex().data(DIFFERENCE_ROLE).key \
        == state.instance_key


def test_hidden_plots_are_drawn_for_the_current_split_when_shown(window, state, qtbot):
    _click_tab(qtbot, window, "metrics")
    plots = window.plots_panel
    drawn = []
    plots.plots_changed.connect(lambda: drawn.append(plots.split()))
    with qtbot.waitSignal(window.metrics_panel.table_changed, timeout=20_000):
        window.metrics_panel.set_split(None)
    qtbot.wait(50)
    assert drawn == []  # behind the Metrics tab
    with qtbot.waitSignal(plots.plots_changed, timeout=5_000):
        _click_tab(qtbot, window, "plots")
    assert drawn == [None] and plots.data.split is None


def test_a_hidden_answer_tab_shows_the_current_programs_answer_when_shown(window, state, qtbot):
    _click_tab(qtbot, window, "answer")
    answer = window.answer_panel
    shown_before = answer.text_view.toPlainText()
    _click_tab(qtbot, window, "edges")
    next_program = _menu_action(window, "Go", "Next Program")
    next_program.trigger()
    expected = state.detail().prediction
    assert expected is not None and answer.prediction is not expected  # not redrawn behind the Edges tab
    assert answer.text_view.toPlainText() == shown_before
    _click_tab(qtbot, window, "answer")
    assert answer.prediction is expected and answer.text_view.toPlainText() != shown_before
