"""Ctrl+Shift+P: type part of an action's name, Enter runs it."""
from __future__ import annotations

from PySide6.QtCore import Qt

from tests.gui.test_menu_actions import press
from traceeval_gui.workbench.command_palette import fuzzy_score


def open_palette(window, qtbot):
    press(window, qtbot, "View › Command Palette")
    return window.command_palette


def test_typing_finds_an_action_and_enter_runs_it(window, qtbot):
    palette = open_palette(window, qtbot)
    qtbot.keyClicks(palette.filter_edit, "metrtab")
    shown = palette.shown_commands()
    assert shown[0].name == "Metrics tab" and shown[0].keys == "Ctrl+3"
    assert "Ctrl+3" in palette.results.item(0).text() and "View" in palette.results.item(0).text()
    qtbot.keyClick(palette.filter_edit, Qt.Key.Key_Return)
    assert not palette.isVisible()
    assert window.bottom_tabs.currentWidget() is window.metrics_panel


def test_arrow_keys_choose_among_matches_and_the_menu_path_matches_too(window, qtbot):
    palette = open_palette(window, qtbot)
    qtbot.keyClicks(palette.filter_edit, "graph shows")  # a menu path, not an action's name
    names = [c.name for c in palette.shown_commands()]
    assert {"Model A vs truth", "Ground truth only"} <= set(names)
    qtbot.keyClick(palette.filter_edit, Qt.Key.Key_Down)
    chosen = palette.shown_commands()[palette.results.currentRow()]
    assert palette.results.currentRow() == 1
    qtbot.keyClick(palette.filter_edit, Qt.Key.Key_Return)
    from core.report.view_modes import VIEW_MODES, view_mode

    if chosen.path.endswith("Graph Shows"):
        assert view_mode(window.state.view_mode).title == chosen.name
    assert window.state.view_mode in VIEW_MODES


def test_nothing_matches_says_so(window, qtbot):
    palette = open_palette(window, qtbot)
    qtbot.keyClicks(palette.filter_edit, "zzqx")
    assert palette.results.count() == 0 and palette.empty_label.isVisible()
    qtbot.keyClick(palette.filter_edit, Qt.Key.Key_Return)  # nothing to run: just closes
    assert not palette.isVisible()


def test_fuzzy_score_prefers_word_starts_and_runs():
    assert fuzzy_score("np", "Next Program") > fuzzy_score("np", "Open Workspace")
    assert fuzzy_score("xyz", "Next Program") is None
    assert fuzzy_score("", "anything") == 0


def test_words_that_start_words_rank_before_scattered_matches(window, qtbot):
    palette = open_palette(window, qtbot)
    qtbot.keyClicks(palette.filter_edit, "exp")
    first = palette.shown_commands()[0]
    assert "Export" in first.label, first.label  # not "Next Program", whose letters merely occur in order
