"""The instance browser: rows, per-model F1, filters and sorting, on the demo dataset."""
from PySide6.QtCore import Qt

from core.scoring.metrics import instance_scores
from core.scoring.normalise import MODES
from core.scoring.scores import instance_counts
from traceeval_gui.item_models.instance_table import BASE_COLUMNS, ROW_ROLE, SCORE_ROLE, SORT_ROLE

KNOWN = "python/calcpad_0001"


def test_lists_every_demo_program_with_a_f1_column_per_model(window, state):
    model = window.browser.model
    assert model.rowCount() == 15
    assert window.browser.proxy.rowCount() == 15
    assert model.columnCount() == len(BASE_COLUMNS) + 2
    headers = [model.headerData(c, Qt.Orientation.Horizontal) for c in range(model.columnCount())]
    assert headers[:len(BASE_COLUMNS)] == ["ID", "Language", "Split", "Repository", "Functions", "Edges", "Lines"]
    assert headers[len(BASE_COLUMNS):] == ["F1\nillustrative-strong †", "F1\nillustrative-weak †"]
    tooltip = model.headerData(model.f1_column("illustrative-weak"), Qt.Orientation.Horizontal,
                               Qt.ItemDataRole.ToolTipRole)
    assert "illustrative-weak (illustrative)" in tooltip
    assert "empty prediction: P = 1; empty ground truth: R = 1" in tooltip
    assert window.windowTitle() == "TraceEval Studio — demo"


def test_f1_cells_equal_core_instance_scores(window, state, workspace):
    model = window.browser.model
    row = model.row_of(KNOWN)
    rows = [model.index(row, 0).data(ROW_ROLE)]
    for name in ("illustrative-strong", "illustrative-weak"):
        expected = instance_scores(instance_counts(workspace, name, rows, frozenset(MODES))[KNOWN]).f1
        index = model.index(row, model.f1_column(name))
        assert index.data(SCORE_ROLE) == expected
        assert index.data(SORT_ROLE) == expected
        assert index.data() == f"{expected * 100:.1f}%"


def test_a_program_without_a_result_has_an_empty_f1_cell(window):
    model = window.browser.model
    index = model.index(model.row_of("python/ledgerlite_0002"), model.f1_column("illustrative-weak"))
    assert index.data() == ""
    assert index.data(SCORE_ROLE) is None
    assert "no result" in index.data(Qt.ItemDataRole.ToolTipRole)


def test_filters_by_language_split_and_text(window):
    browser = window.browser
    browser.language_combo.setCurrentIndex(browser.language_combo.findData("java"))
    assert browser.proxy.rowCount() == 5
    assert all(key.startswith("java/") for key in browser.shown_keys())
    browser.split_combo.setCurrentIndex(browser.split_combo.findData("test"))
    assert browser.shown_keys() == ["java/exprtree_0001", "java/shapekit_0001"]
    assert browser.count_label.text() == "2 of 15 programs"
    browser.language_combo.setCurrentIndex(0)
    browser.split_combo.setCurrentIndex(0)
    browser.filter_edit.setText("LEDGER")
    assert browser.shown_keys() == ["java/ledgerj_0001", "python/ledgerlite_0001", "python/ledgerlite_0002"]


def test_sorting_by_f1_orders_rows_and_missing_results_sort_lowest(window):
    browser = window.browser
    column = browser.model.f1_column("illustrative-weak")
    browser.table.sortByColumn(column, Qt.SortOrder.DescendingOrder)
    values = [browser.proxy.index(r, column).data(SORT_ROLE) for r in range(browser.proxy.rowCount())]
    assert values == sorted(values, reverse=True)
    assert browser.shown_keys()[-1] == "python/ledgerlite_0002"  # no result
    browser.table.sortByColumn(column, Qt.SortOrder.AscendingOrder)
    values = [browser.proxy.index(r, column).data(SORT_ROLE) for r in range(browser.proxy.rowCount())]
    assert values == sorted(values)


def test_sorting_numbers_is_numeric_and_keeps_the_selection(window, state):
    browser = window.browser
    browser.select_key("java/ledgerj_0001")
    lines = BASE_COLUMNS.index(next(c for c in BASE_COLUMNS if c[0] == "lines"))
    browser.table.sortByColumn(lines, Qt.SortOrder.AscendingOrder)
    values = [browser.proxy.index(r, lines).data(SORT_ROLE) for r in range(browser.proxy.rowCount())]
    assert values == sorted(values) and all(isinstance(v, int) for v in values)
    assert browser.table.currentIndex().data(ROW_ROLE).key == "java/ledgerj_0001"
    assert state.instance_key == "java/ledgerj_0001"


def test_selecting_a_row_selects_the_instance(window, state, qtbot):
    with qtbot.waitSignal(state.instance_selected) as blocker:
        window.browser.select_key("javascript/eventide_0002")
    assert blocker.args == ["javascript/eventide_0002"]
    assert state.instance_key == "javascript/eventide_0002"


def test_scores_are_shown_right_after_the_id_and_reopening_keeps_that(window, state, qtbot):
    header = window.browser.table.horizontalHeader()

    def visual_titles():
        model = window.browser.model
        return [model.headerData(header.logicalIndex(v), Qt.Orientation.Horizontal).replace("\n", " ")
                for v in range(model.columnCount())]

    expected = ["ID", "F1 illustrative-strong †", "F1 illustrative-weak †", "Language", "Split", "Repository",
                "Functions", "Edges", "Lines"]
    assert visual_titles() == expected
    state.select_model("illustrative-weak")
    window.browser.select_key("java/ledgerj_0001")
    with qtbot.waitSignal(state.dataset_opened, timeout=20_000):
        window.open_dataset(state.opened.root, workspace=state.opened.workspace_path)
    assert visual_titles() == expected
    assert window.browser.model.rowCount() == 15
    assert state.model == "illustrative-weak"  # kept across reopening
    assert state.instance_key == window.browser.shown_keys()[0]  # the first row is selected again


def test_filters_by_repository_and_f1_range_of_the_current_model(window, state):
    browser = window.browser
    browser.repo_combo.setCurrentIndex(browser.repo_combo.findData("ledgerlite"))
    assert browser.shown_keys() == ["python/ledgerlite_0001", "python/ledgerlite_0002"]
    browser.repo_combo.setCurrentIndex(0)
    state.select_model("illustrative-weak")
    model = browser.model
    expected = sorted(model.instance_at(r).key for r in range(model.rowCount())
                      if (f1 := model.f1_at(r, "illustrative-weak")) is not None and 0.6 <= f1 <= 0.7)
    browser.set_f1_range(60, 70)
    assert sorted(browser.shown_keys()) == expected and 0 < len(expected) < 15
    assert "python/ledgerlite_0002" not in browser.shown_keys()  # no result: hidden while narrowed
    state.select_model("illustrative-strong")  # the range now applies to the other model
    assert all(0.6 <= model.f1_at(model.row_of(k), "illustrative-strong") <= 0.7 for k in browser.shown_keys())
    browser.f1_reset.click()
    assert len(browser.shown_keys()) == 15
    assert browser.select_key("python/ledgerlite_0002")  # selecting clears filters that hide it
