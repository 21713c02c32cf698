"""Selecting an instance and a model fills the edge table and marks the source view."""
from PySide6.QtCore import Qt
from PySide6.QtGui import QGuiApplication

from core.scoring.normalise import MODES
from core.scoring.scores import instance_diff
from core.scoring.tables import render_table
from traceeval_gui.item_models.edge_table import EDGE_ROLE

KNOWN = "python/calcpad_0001"
MODEL = "illustrative-weak"


def _show(window, state, qtbot, key=KNOWN, model=MODEL):
    state.select_model(model)
    window.browser.select_key(key)
    assert state.instance_key == key and state.model == model


def test_the_edge_table_holds_the_same_edges_as_instance_diff(window, state, workspace, qtbot):
    _show(window, state, qtbot)
    diff = instance_diff(workspace, MODEL, KNOWN, MODES)
    shown = window.edge_panel.edges()
    by_class = {kind: sorted((e.caller, e.callee) for e in shown if e.kind == kind) for kind in ("TP", "FP", "FN")}
    assert by_class == {"TP": sorted(diff.tp), "FP": sorted(diff.fp), "FN": sorted(diff.fn)}
    others = [e for e in shown if e.kind == ""]  # only illustrative-strong predicts these
    strong = instance_diff(workspace, "illustrative-strong", KNOWN, MODES)
    assert sorted((e.caller, e.callee) for e in others) == sorted(set(strong.fp) - set(diff.fp))
    assert len(shown) == len(diff.tp) + len(diff.fp) + len(diff.fn) + len(others)
    assert [e.kind for e in shown][:len(diff.fn)] == ["FN"] * len(diff.fn)  # mistakes first
    buttons = {kind: button.text() for kind, button in window.edge_panel.class_buttons.items()}
    assert buttons == {"TP": f"TP {len(diff.tp)}", "FP": f"FP {len(diff.fp)}", "FN": f"FN {len(diff.fn)}",
                       "": f"Other {len(others)}"}


def test_class_buttons_filter_the_edge_table(window, state, qtbot):
    _show(window, state, qtbot)
    panel = window.edge_panel
    panel.class_buttons["TP"].setChecked(False)
    panel.class_buttons["FP"].setChecked(False)
    panel.class_buttons[""].setChecked(False)
    assert {e.kind for e in panel.edges()} == {"FN"}
    panel.class_buttons["TP"].setChecked(True)
    assert {e.kind for e in panel.edges()} == {"FN", "TP"}


def test_switching_the_model_updates_the_edge_table(window, state, workspace, qtbot):
    _show(window, state, qtbot)
    with qtbot.waitSignal(state.model_selected):
        window.model_combo.setCurrentIndex(window.model_combo.findData("illustrative-strong"))
    diff = instance_diff(workspace, "illustrative-strong", KNOWN, MODES)
    mistakes = [e for e in window.edge_panel.edges() if e.kind]
    assert len(mistakes) == len(diff.tp) + len(diff.fp) + len(diff.fn)
    assert window.model_combo.currentText() == "illustrative-strong (illustrative)"


def test_a_program_without_a_result_says_so(window, state, qtbot):
    _show(window, state, qtbot, key="python/ledgerlite_0002")
    shown = window.edge_panel.edges()
    assert shown and {e.kind for e in shown} == {""}  # the truth and the other model, unclassified
    assert "has no result" in window.edge_panel.summary.text()


def test_selecting_an_fn_edge_moves_the_source_view_to_the_callers_definition(window, state, qtbot):
    _show(window, state, qtbot)
    panel = window.edge_panel
    row = next(r for r, e in enumerate(panel.edges()) if e.kind == "FN" and e.caller == "main.Parser.parse_term")
    with qtbot.waitSignal(state.edge_selected) as blocker:
        panel.select_row(row)
    edge = blocker.args[0]
    assert (edge.kind, edge.caller) == ("FN", "main.Parser.parse_term")
    node = state.detail().place(edge.caller)
    source = window.source_view
    assert source.current_file() == node.file == "main.py"
    assert source.current_line() == node.start_line
    view = source.file_view("main.py")
    assert view.focused_line == node.start_line
    first_visible = view.firstVisibleBlock().blockNumber() + 1
    assert first_visible <= node.start_line < first_visible + 40  # scrolled into view
    assert view.marks[node.start_line].tint == "FN"


def test_source_marks_callers_by_their_worst_class(window, state, qtbot):
    _show(window, state, qtbot)
    detail = state.detail()
    marks = window.source_view.file_view("main.py").marks
    for caller, edges in detail.edges_by_caller().items():
        node = detail.place(caller)
        if node is None or node.kind == "module":
            continue
        kinds = {e.kind for e in edges}
        expected = "FN" if "FN" in kinds else "FP" if "FP" in kinds else "TP"
        assert marks[node.start_line].tint == expected, caller
        assert set(marks[node.start_line].kinds) == kinds
        assert all(edge.callee in marks[node.start_line].tooltip for edge in edges)


def test_multi_file_programs_get_one_tab_per_file(window, state, qtbot):
    _show(window, state, qtbot, key="java/ledgerj_0001")
    tabs = window.source_view.tabs
    titles = [tabs.tabText(i) for i in range(tabs.count())]
    assert titles[0] == "Main.java" and "Account.java" in titles and len(titles) == 8
    edge = next(e for e in window.edge_panel.edges() if e.caller.startswith("com.demo.bank.Account:"))
    window.edge_panel.select_row(window.edge_panel.edges().index(edge))
    assert window.source_view.current_file() == "com/demo/bank/Account.java"


def test_metrics_panel_shows_the_paper_table(window, state, qtbot):
    panel = window.metrics_panel
    assert panel.table is not None and panel.table.selection.split == "test"
    assert [row.model for row in panel.table.rows] == ["illustrative-strong", "illustrative-weak"]
    text = panel.browser.toPlainText()
    assert "illustrative-weak †" in text and "not real model output" in text
    assert "test (Python 3, JavaScript 2, Java 2 programs)" in text
    with qtbot.waitSignal(panel.table_changed, timeout=10_000):
        panel.split_combo.setCurrentIndex(panel.split_combo.findData(None))
    assert panel.table.selection.split is None
    assert "ledgerlite_0002" in panel.browser.toPlainText()  # the missing result is named
    markdown = next(a for a in panel.copy_button.menu().actions() if a.data() == "md")
    with qtbot.waitSignal(panel.copied):
        markdown.trigger()
    assert QGuiApplication.clipboard().text() == render_table(panel.table, "md")


def test_tab_titles_tell_same_named_files_apart():
    from traceeval_gui.program.source_view import tab_titles

    paths = ("main.js", "shapes/index.js", "lib/index.js", "a/b/util.js", "c/b/util.js")
    assert tab_titles(paths) == {"main.js": "main.js", "shapes/index.js": "shapes/index.js",
                                 "lib/index.js": "lib/index.js", "a/b/util.js": "a/b/util.js",
                                 "c/b/util.js": "c/b/util.js"}
    assert tab_titles(("Main.java", "com/x/Item.java")) == {"Main.java": "Main.java", "com/x/Item.java": "Item.java"}


def test_edge_rows_carry_the_core_edge(window, state, qtbot):
    _show(window, state, qtbot)
    index = window.edge_panel.proxy.index(0, 1)
    edge = index.data(EDGE_ROLE)
    assert index.data(Qt.ItemDataRole.DisplayRole) == edge.caller


def test_a_dataset_without_results_still_shows_its_programs(qtbot, state, tmp_path):
    from tests.builders import released_dataset
    from traceeval_gui.workbench.main_window import MainWindow

    root = released_dataset(tmp_path / "data", {"python": ["tiny_0001"], "java": ["tiny_0002"]})
    window = MainWindow(state, settings=None, interactive=False)
    qtbot.addWidget(window)
    with qtbot.waitSignal(state.dataset_opened, timeout=20_000):
        window.open_dataset(root, workspace=tmp_path / "ws.sqlite")
    assert window.browser.model.rowCount() == 2
    assert window.browser.model.columnCount() == 7  # no F1 columns
    assert not window.model_combo.isEnabled()
    assert state.instance_key == "python/tiny_0001"  # sorted by id
    assert window.source_view.current_file() == "main.py"
    truth = state.detail().overlay.truth_edges()  # normalised, like every column
    assert sorted(e[1:] for e in window.edge_panel.edges()) == sorted(truth)  # the truth, unclassified
    assert "No model results" in window.edge_panel.summary.text()
    assert "No models" in window.metrics_panel.browser.toPlainText()
    assert window.windowTitle() == "TraceEval Studio — data"
    window.close()


def test_opening_shows_the_first_program_under_the_first_model(window, state):
    assert state.instance_key == "python/calcpad_0001" and state.model == "illustrative-strong"
    assert window.source_view.current_file() == "main.py"
    assert window.edge_panel.edges()  # filled, and the first (a mistake) is selected
    assert state.edge == window.edge_panel.edges()[0]
    assert window.source_view.current_line() == state.detail().place(state.edge.caller).start_line


def test_selecting_an_edge_also_marks_the_callee_definition_in_its_own_file(window, state):
    state.select_model("illustrative-strong")
    window.browser.select_key("javascript/eventide_0001")
    detail = state.detail()
    edge = next(e for e in detail.edges
                if (caller := detail.place(e.caller)) and (callee := detail.place(e.callee))
                and caller.kind != "module" and callee.kind != "module" and caller.file != callee.file)
    state.select_edge(edge)
    caller, callee = detail.place(edge.caller), detail.place(edge.callee)
    source = window.source_view
    assert source.current_file() == caller.file  # the caller's file is shown, the callee's is marked
    assert source.file_view(callee.file).callee_line == callee.start_line
    assert source.file_view(caller.file).focused_line == caller.start_line
    state.select_edge(None)
    assert source.file_view(callee.file).callee_line is None
