"""The window as a whole: session restore, menus and shortcuts, history, import and exports."""
import json

import pytest
from PySide6.QtCore import QSettings

from resources import DEMO_DATASET
from tests.gui.conftest import OPEN_TIMEOUT_MS

KNOWN = "python/calcpad_0001"


def _window(qtbot, settings=None):
    from traceeval_gui.state.app_state import AppState
    from traceeval_gui.workbench.main_window import MainWindow

    state = AppState()
    window = MainWindow(state, settings=settings, interactive=False)
    qtbot.addWidget(window)
    window.resize(1400, 900)
    window.show()
    return window, state


def test_a_later_start_restores_the_dataset_workspace_selection_and_layout(qtbot, tmp_path):
    settings = QSettings(str(tmp_path / "settings.ini"), QSettings.Format.IniFormat)
    window, state = _window(qtbot, settings)
    assert not window.restore_session()  # first start: nothing to restore (the app opens the demo)
    with qtbot.waitSignal(state.dataset_opened, timeout=OPEN_TIMEOUT_MS):
        window.open_dataset(DEMO_DATASET, workspace=tmp_path / "mine.sqlite")
    state.select_model("illustrative-weak")
    window.browser.select_key("java/ledgerj_0001")
    state.set_view_mode("compare")
    window.show_tab("metrics")
    window.close()

    again, state2 = _window(qtbot, settings)
    with qtbot.waitSignal(state2.dataset_opened, timeout=OPEN_TIMEOUT_MS):
        assert again.restore_session()
    assert state2.opened.workspace_path == tmp_path / "mine.sqlite"
    assert (state2.instance_key, state2.model, state2.view_mode) == ("java/ledgerj_0001", "illustrative-weak",
                                                                      "compare")
    assert again.bottom_tabs.currentWidget() is again.metrics_panel
    assert [item.dataset for item in again.session.recent()] == [str(DEMO_DATASET)]
    again.close()


def test_help_lists_every_shortcut_from_the_menus(window):
    rows = window.keyboard_dialog().rows
    keys = {action: keys for _, action, keys in rows}
    for action in ("Next Program", "Previous Program", "Next Error Edge", "Previous Error Edge", "Back", "Forward",
                   "Filter Programs", "Filter Edges", "Trace This Program", "Next Graph Mode", "Fit Graph"):
        assert action in keys, action
    assert keys["Next Error Edge"] == "F8"
    assert sum(action.startswith("Edge Class") for action in keys) == 4  # Alt+1..4 toggle the legend's classes
    assert ("Graph", "Zoom", "mouse wheel") in rows


def test_no_two_actions_share_a_shortcut(window):
    from traceeval_gui.widgets.keyboard_dialog import shortcut_rows

    menus = [a.menu() for a in window.menuBar().actions() if a.menu() is not None]
    keys = [keys for _, _, keys in shortcut_rows(menus)]
    assert len(keys) > 20 and len(keys) == len(set(keys))


def test_next_error_edge_walks_the_mistakes_and_wraps(window, state):
    state.select_model("illustrative-weak")
    window.browser.select_key(KNOWN)
    errors = [e for e in window.edge_panel.edges() if e.kind in ("FN", "FP")]
    seen = []
    for _ in range(len(errors) + 1):
        window._next_error(1)
        seen.append(state.edge)
    assert seen[:-1] == errors[1:] + errors[:1]  # starts after the selected first row
    assert seen[-1] == errors[1]
    window._next_error(-1)
    assert state.edge == errors[0]


def test_next_and_previous_program_follow_the_browser_order(window, state):
    shown = window.browser.shown_keys()
    window.browser.select_key(shown[0])
    assert window.browser.select_relative(1) and state.instance_key == shown[1]
    assert window.browser.select_relative(-1) and state.instance_key == shown[0]
    assert not window.browser.select_relative(-1)  # already first


def test_back_and_forward_return_to_earlier_selections(window, state):
    window.browser.select_key("java/ledgerj_0001")
    first_edge = state.edge
    window.browser.select_key("python/taskqueue_0001")
    state.select_node("main.main")
    assert window.back_action.isEnabled()
    window.back_action.trigger()
    assert state.instance_key == "python/taskqueue_0001" and state.node is None
    window.back_action.trigger()
    assert (state.instance_key, state.edge) == ("java/ledgerj_0001", first_edge)
    window.forward_action.trigger()
    window.forward_action.trigger()
    assert (state.instance_key, state.node) == ("python/taskqueue_0001", "main.main")
    assert not window.forward_action.isEnabled()


def test_importing_results_adds_a_model_without_losing_the_selection(window, state, qtbot, tmp_path):
    window.browser.select_key(KNOWN)
    answers = tmp_path / "mine.jsonl"
    answers.write_text(json.dumps({"instance_id": "calcpad_0001", "language": "python", "model": "my-model",
                                   "prediction": {"main": ["main.main"]}}) + "\n")
    with qtbot.waitSignal(state.dataset_opened, timeout=OPEN_TIMEOUT_MS):
        window.import_results([str(answers)])
    assert [m.name for m in state.models] == ["illustrative-strong", "illustrative-weak", "my-model"]
    assert window.model_combo.findData("my-model") >= 0 and window.compare_combo.findData("my-model") >= 0
    assert state.instance_key == KNOWN
    assert "Imported my-model: 1" in window.statusBar().currentMessage()


def test_a_bad_results_file_is_reported_in_the_window(window, state, qtbot, tmp_path):
    broken = tmp_path / "broken.json"
    broken.write_text("{not json")
    job = window.import_results([str(broken)])
    qtbot.waitUntil(lambda: "broken.json" in window.statusBar().currentMessage(), timeout=OPEN_TIMEOUT_MS)
    assert [m.name for m in state.models] == ["illustrative-strong", "illustrative-weak"]
    assert job is not None


def test_open_workspace_reopens_its_dataset(window, state, qtbot, tmp_path):
    path = state.opened.workspace_path
    with qtbot.waitSignal(state.dataset_opened, timeout=OPEN_TIMEOUT_MS):
        window.open_dataset(None, path)
    assert state.opened.root == DEMO_DATASET


def test_a_workspace_file_that_is_not_one_is_reported(window, qtbot, tmp_path):
    with qtbot.waitSignal(window.dataset_failed, timeout=OPEN_TIMEOUT_MS) as blocker:
        window.open_dataset(None, tmp_path / "missing.sqlite")
    assert "no such workspace file" in blocker.args[0]


@pytest.mark.parametrize("fmt", ["png", "svg", "dot", "graphml", "json"])
def test_graph_exports_write_files(window, state, tmp_path, fmt):
    window.browser.select_key(KNOWN)
    path = window.exports.export_graph(tmp_path / f"graph.{fmt}", fmt)
    assert path.stat().st_size > 200


@pytest.mark.parametrize("fmt", ["csv", "md", "latex"])
def test_metrics_exports_write_the_shown_table(window, tmp_path, fmt):
    from core.scoring.tables import render_table

    path = window.exports.export_metrics(tmp_path / f"metrics.{fmt}", fmt)
    assert path.read_text() == render_table(window.metrics_panel.table, fmt)


def test_the_evidence_packet_is_written_in_the_background(window, state, qtbot, tmp_path):
    window.browser.select_key(KNOWN)
    with qtbot.waitSignal(window.exports.message, timeout=20_000) as blocker:
        assert window.exports.export_evidence(tmp_path / "evidence.html") is not None
    assert blocker.args == [f"Saved the evidence packet to {tmp_path / 'evidence.html'}"]
    text = (tmp_path / "evidence.html").read_text()
    assert "calcpad_0001" in text and "<svg" in text


def test_recent_datasets_are_listed_and_reopen_with_their_workspace(qtbot, tmp_path):
    settings = QSettings(str(tmp_path / "settings.ini"), QSettings.Format.IniFormat)
    window, state = _window(qtbot, settings)
    with qtbot.waitSignal(state.dataset_opened, timeout=OPEN_TIMEOUT_MS):
        window.open_dataset(DEMO_DATASET, workspace=tmp_path / "first.sqlite")
    with qtbot.waitSignal(state.dataset_opened, timeout=OPEN_TIMEOUT_MS):
        assert window.dataset_menu.new_workspace(tmp_path / "second.sqlite") is not None
    assert state.opened.workspace_path == tmp_path / "second.sqlite"
    assert window.dataset_menu.new_workspace(tmp_path / "second.sqlite") is None  # never overwrites a workspace
    window.dataset_menu.fill_recent_menu()
    entries = window.dataset_menu.recent_menu.actions()
    assert [entry.text() for entry in entries] == ["demo  (" + str(tmp_path / "second.sqlite") + ")"]
    with qtbot.waitSignal(state.dataset_opened, timeout=OPEN_TIMEOUT_MS):
        entries[0].trigger()
    assert state.opened.workspace_path == tmp_path / "second.sqlite"
    window.close()


def test_shortcut_actions_toggle_edge_classes_and_cycle_the_graph_mode(window, state):
    by_text = {action.text().replace("&", ""): action for action in window.actions()}
    window.browser.select_key(KNOWN)
    assert state.view_mode == "model" and "TP" in window.graph_panel.drawn_edges().values()
    by_text["Edge Class 1 of the Legend"].trigger()  # Alt+1: the first class of the legend, TP
    assert state.hidden_classes == {"TP"}
    assert "TP" not in window.graph_panel.drawn_edges().values()
    by_text["Edge Class 1 of the Legend"].trigger()
    assert not state.hidden_classes
    by_text["Next Graph Mode"].trigger()  # Ctrl+G
    assert state.view_mode == "compare"
    assert set(window.graph_panel.drawn_edges().values()) <= {"both_right", "only_a_right", "only_b_right",
                                                               "both_wrong"}


def test_the_keyboard_list_has_one_heading_per_menu_and_quit(window):
    rows = window.keyboard_dialog().rows
    groups = [group for group, _, _ in rows]
    assert groups == sorted(groups, key=groups.index)  # each menu's shortcuts together
    assert ("File", "Quit", "Ctrl+Q") in rows


def test_opening_a_dataset_without_results_over_the_demo_raises_nothing(window, state, qtbot, tmp_path):
    """The Compare tab held the demo's two models while the new dataset's first program was selected."""
    from tests.builders import released_dataset

    window.show_tab("compare")
    plain = released_dataset(tmp_path / "plain", {"python": ["solo_0001"]})
    with qtbot.waitSignal(state.dataset_opened, timeout=OPEN_TIMEOUT_MS):
        window.open_dataset(plain, workspace=tmp_path / "plain.sqlite")
    qtbot.waitUntil(lambda: state.opened.root == plain)
    assert [m.name for m in state.workspace.models()] == []
