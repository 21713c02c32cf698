"""Compare mode on the demo: model A (illustrative-strong) vs model B (illustrative-weak)."""
import json
import time

import pytest
from PySide6.QtCore import QModelIndex, Qt
from PySide6.QtTest import QTest

from core.dataset.workspace import InstanceRow
from core.report.overlay import COMPARE_CLASSES, ModelDifference, build_overlay, classify_edges, rank_differences
from core.report.palette import EDGE_STYLES
from core.scoring.metrics import Counts
from core.scoring.normalise import MODES
from core.scoring.scores import instance_counts
from tests.builders import released_dataset
from traceeval_gui.item_models.compare_table import DIFFERENCE_COLUMNS, SCORE_ROLE, SORT_ROLE, DifferenceTableModel
from traceeval_gui.program.compare_panel import ComparePanel
from traceeval_gui.state.jobs import OpenDatasetJob

KNOWN = "python/calcpad_0001"
A, B = "illustrative-strong", "illustrative-weak"


@pytest.fixture
def panel(qtbot, window, state):
    panel = ComparePanel(state)
    qtbot.addWidget(panel)
    panel.resize(1000, 380)
    panel.show()
    state.select_model(A)
    state.select_compare_model(B)
    state.select_instance(KNOWN)
    return panel


def _expected_overlay(workspace, key):
    instance = workspace.instance(key)
    predictions = {name: workspace.predictions(name, [key])[key] for name in (A, B)}
    return build_overlay(instance, predictions, None, MODES)


def test_the_four_compare_classes_match_core(panel, state, workspace):
    overlay = _expected_overlay(workspace, KNOWN)
    expected = {category: sorted(e.edge for e in edges) for category, edges in overlay.compare(A, B).items()}
    shown = panel.edges()
    assert {c: sorted((e.caller, e.callee) for e in shown if e.category == c) for c in COMPARE_CLASSES} == expected
    assert len(shown) == sum(len(edges) for edges in expected.values())
    assert all(expected.values()), "the demo instance has edges of every class"
    for category, button in panel.class_buttons.items():
        assert button.text() == f"{EDGE_STYLES[category].label}  {len(expected[category])}"
    # what truth / A / B say, per edge
    by_edge = {(e.caller, e.callee): e for e in shown}
    for edge in overlay.edges:
        row = by_edge.get(edge.edge)
        if row is not None:
            assert (row.truth, row.kind_a, row.kind_b) == (edge.truth, edge.kind(A), edge.kind(B))
    source = panel.edge_model
    row = source.row_of(*expected["only_b_right"][0])
    cells = [source.index(row, column).data() for column in range(source.columnCount())]
    assert cells[0] == "only B right"
    assert cells[4] in ("predicted ✗", "missed ✗") and cells[5] in ("predicted ✓", "—")
    # the differences come first
    assert [e.category for e in shown][:len(expected["only_a_right"])] == ["only_a_right"] * len(
        expected["only_a_right"])
    assert "A 94.3%" in panel.instance_header.text() and "B 56.5%" in panel.instance_header.text()


def test_class_chips_filter_the_edges(panel):
    panel.class_buttons["both_right"].setChecked(False)
    panel.class_buttons["only_a_right"].setChecked(False)
    assert {e.category for e in panel.edges()} == {"only_b_right", "both_wrong"}
    panel.class_buttons["both_right"].setChecked(True)
    assert {e.category for e in panel.edges()} == {"only_b_right", "both_wrong", "both_right"}


def test_selecting_an_edge_row_selects_the_edge_and_shows_compare_classes(panel, state, workspace, qtbot):
    assert state.view_mode == "model"
    row = next(r for r, e in enumerate(panel.edges()) if e.category == "both_wrong")
    edge = panel.edges()[row]
    with qtbot.waitSignal(state.edge_selected) as blocker:
        panel.select_edge_row(row)
    assert (blocker.args[0].caller, blocker.args[0].callee) == (edge.caller, edge.callee)
    assert state.view_mode == "compare"
    overlay = state.detail().overlay
    assert classify_edges(overlay, state.view_mode, state.model, state.compare_model)[
        (edge.caller, edge.callee)] == "both_wrong"
    # an edge selected elsewhere becomes the current row here, without selecting anything back
    other = panel.edges()[0]
    state.select_edge_named(other.caller, other.callee)
    assert panel.edge_table.currentIndex().row() == 0


def test_the_dataset_table_is_rank_differences_sorted_by_the_f1_gap(panel, state, workspace):
    rows = workspace.instance_rows()
    counts = {name: instance_counts(workspace, name, rows, frozenset(MODES)) for name in (A, B)}
    expected = rank_differences(counts[A], counts[B], [r.key for r in rows])
    assert panel.shown_keys() == [d.key for d in expected]
    gaps = [abs(d.delta) for d in expected]
    assert gaps == sorted(gaps, reverse=True) and len(expected) == 14  # ledgerlite_0002: no weak result
    model = panel.difference_model
    first = expected[0]
    columns = [field for field, _, _ in DIFFERENCE_COLUMNS]
    cells = {field: model.index(0, c).data() for c, field in enumerate(columns)}
    assert cells["program"] == first.key.split("/")[1]
    assert cells["f1_a"] == f"{first.f1_a * 100:.1f}%" and cells["f1_b"] == f"{first.f1_b * 100:.1f}%"
    assert cells["delta"] == f"{first.delta * 100:+.1f}"
    assert cells["counts_a"] == f"{first.counts_a.tp} / {first.counts_a.fp} / {first.counts_a.fn}"
    assert model.index(0, columns.index("f1_a")).data(SCORE_ROLE) == first.f1_a
    assert "A better on 14" in panel.summary.text() and "B better on 0" in panel.summary.text()


def test_the_dataset_table_sorts_and_filters(panel, state):
    table = panel.difference_table
    f1_b = [field for field, _, _ in DIFFERENCE_COLUMNS].index("f1_b")
    table.sortByColumn(f1_b, Qt.SortOrder.AscendingOrder)
    values = [panel.difference_proxy.index(r, f1_b).data(SORT_ROLE) for r in range(panel.difference_proxy.rowCount())]
    assert values == sorted(values)
    panel.language_combo.setCurrentIndex(panel.language_combo.findData("java"))
    assert panel.shown_keys() and all(k.startswith("java/") for k in panel.shown_keys())
    panel.split_combo.setCurrentIndex(panel.split_combo.findData("test"))
    assert panel.shown_keys() == ["java/exprtree_0001", "java/shapekit_0001"]  # F1 B ascending
    assert panel.summary.text().startswith("2 of 14 programs answered by both")
    panel.language_combo.setCurrentIndex(0)
    panel.split_combo.setCurrentIndex(0)
    panel.filter_edit.setText("LEDGER")
    assert sorted(panel.shown_keys()) == ["java/ledgerj_0001", "python/ledgerlite_0001"]


def test_enter_or_double_click_on_a_row_selects_that_instance(panel, state, qtbot):
    key = panel.shown_keys()[3]
    assert key != state.instance_key
    with qtbot.waitSignal(state.instance_selected) as blocker:
        panel.open_row(3)
    assert blocker.args == [key] and state.instance_key == key
    # the keyboard: Enter on the current row
    table = panel.difference_table
    table.setFocus()
    table.setCurrentIndex(panel.difference_proxy.index(5, 1))
    key = panel.shown_keys()[5]
    with qtbot.waitSignal(state.instance_selected) as blocker:
        QTest.keyClick(table, Qt.Key.Key_Return)
    assert blocker.args == [key]
    # the instance panel follows
    assert all(e is not None for e in panel.edges()) and panel.edges()


def test_switching_model_b_and_model_a_keeps_them_apart(panel, state, qtbot):
    assert panel.model_b_combo.currentData() == B
    assert panel.model_b_combo.findData(A) == -1  # A is never offered as B
    with qtbot.waitSignal(state.compare_model_selected) as blocker:
        state.select_model(B)  # the toolbar picks B as A: B becomes the other model
    assert blocker.args == [A] and state.compare_model == A
    assert panel.model_b_combo.currentData() == A
    assert "illustrative-weak" in panel.model_a_label.text()
    first = panel.difference_model.difference_at(0)
    assert first.f1_a < first.f1_b  # the columns swapped with the models


def test_an_instance_one_model_did_not_answer_says_so(panel, state):
    state.select_instance("python/ledgerlite_0002")
    assert panel.edges() == []
    assert "illustrative-weak has no result for this program" in panel.instance_header.text()
    assert not any(button.isEnabled() for button in panel.class_buttons.values())


def test_with_one_model_the_panel_says_compare_needs_two(qtbot, state, tmp_path):
    root = released_dataset(tmp_path / "ds", {"python": ["solo_0001"]})
    results = tmp_path / "r.jsonl"
    results.write_text(json.dumps({"instance_id": "solo_0001", "language": "python", "model": "only-model",
                                   "raw_response": "1. main.run"}) + "\n")
    from core.dataset.indexing import open_dataset
    from core.results.importing import import_results

    ws, _ = open_dataset(root, tmp_path / "w.sqlite")
    with ws:
        import_results(ws, [results])
    panel = ComparePanel(state)
    qtbot.addWidget(panel)
    state.adopt(OpenDatasetJob(root, tmp_path / "w.sqlite").work(lambda *_: None))
    assert not panel.can_compare
    assert "Compare needs two models" in panel.message.text()
    assert "only-model" in panel.message.text() and "traceeval import-results" in panel.message.text()
    assert not panel.model_b_combo.isEnabled() and panel.model_b_combo.currentText() == "no other model"
    state.select_instance("python/solo_0001")
    assert panel.edges() == []


def test_sorting_ten_thousand_rows_stays_fast(qtbot):
    """The dataset table at the benchmark's size: sorting is done on Python lists, not via data()."""
    model = DifferenceTableModel()
    differences, rows = [], {}
    for i in range(10_583):
        key = f"python/repo{i % 1655}_{i:04d}"
        a, b = Counts(i % 17, i % 5, i % 7), Counts(i % 13, i % 3, i % 11)
        rows[key] = InstanceRow(key, key.split("/")[1], "python", "test", f"repo{i % 1655}", key, ("main.py",),
                                "main.py", 3, 4, 50, "", "")
        differences.append((key, a, b))
    ranked = rank_differences({k: a for k, a, _ in differences}, {k: b for k, _, b in differences})
    assert isinstance(ranked[0], ModelDifference)
    model.set_differences(ranked, rows, "a", "b")
    for column in range(model.columnCount()):
        for order in (Qt.SortOrder.AscendingOrder, Qt.SortOrder.DescendingOrder):
            start = time.perf_counter()
            model.sort(column, order)
            assert time.perf_counter() - start < 0.5, DIFFERENCE_COLUMNS[column][0]
    model.sort(0, Qt.SortOrder.AscendingOrder)
    assert [model.difference_at(r).key for r in range(5)] == [d.key for d in ranked[:5]]
    assert model.rowCount(QModelIndex()) == 10_583


def test_the_panel_renders(panel):
    image = panel.grab().toImage()
    assert not image.isNull() and image.width() == 1000 and image.height() == 380


def test_edge_names_are_the_shortest_parts_that_tell_them_apart_with_the_full_name_on_hover(panel):
    source = panel.edge_model
    edges = panel.edges()
    names = {name for e in edges for name in (e.caller, e.callee)}
    shown = {}
    for _row, edge in enumerate(edges):
        for column, name in ((1, edge.caller), (2, edge.callee)):
            index = source.index(source.row_of(edge.caller, edge.callee), column)
            assert index.data(Qt.ItemDataRole.ToolTipRole) == name
            shown[name] = index.data()
    assert len(set(shown.values())) == len(names)  # no two functions read alike
    assert all(name.endswith(label) and len(label) <= len(name) for name, label in shown.items())
    assert any(len(label) < len(name) for name, label in shown.items())  # "main.BinOp.eval" reads "BinOp.eval"
