"""Stepping through the program list: while a program is shown, the ones next to it in the list are parsed
and their files coloured on a worker thread, and the next step uses that work instead of redoing it."""
from __future__ import annotations

from core.report.program_view import parse_program
from tests.gui.menus import menu_action
from traceeval_gui.item_models.instance_detail import InstanceDetailLoader
from traceeval_gui.widgets.code_highlighter import lexed


def test_next_program_shows_the_program_read_ahead(window, state, qtbot):
    keys = window.browser.shown_keys()
    window.browser.select_key(keys[1])
    loader = state._loader
    qtbot.waitUntil(lambda: loader.is_parsed(keys[0]) and loader.is_parsed(keys[2]) and state._read_ahead.idle())
    neighbour = state.workspace.instance(keys[2])
    sources, _ = neighbour.read_sources()
    runs = {path: lexed(neighbour.language, text) for path, text in sources.items()}
    assert all(runs.values()), "every file of the next program is coloured ahead"
    menu_action(window, "Go", "Next Program").trigger()
    assert state.instance_key == keys[2]
    for path, view_runs in runs.items():
        assert window.source_view.file_view(path).highlighter._lines is view_runs  # not lexed again


def test_a_parse_begun_before_the_dataset_closed_is_not_kept(window, state):
    loader = InstanceDetailLoader()
    key = state.opened.rows[0].key
    generation = loader.generation
    parsed = parse_program(state.workspace, key)
    loader.clear()
    loader.keep_parsed(parsed, generation)
    assert not loader.is_parsed(key)
    loader.keep_parsed(parsed, loader.generation)
    assert loader.is_parsed(key)
