"""The Programs table's model: rows found by key in any order, F1 columns computed when first
needed and kept current, filters that refilter only when they change."""
from PySide6.QtCore import Qt

from core.scoring.metrics import Counts, instance_scores
from traceeval_gui.item_models.instance_table import SCORE_ROLE


def test_row_of_follows_every_sort(window):
    browser = window.browser
    model = browser.model
    for column, order in ((model.f1_column("illustrative-weak"), Qt.SortOrder.DescendingOrder),
                          (5, Qt.SortOrder.AscendingOrder), (0, Qt.SortOrder.DescendingOrder)):
        browser.table.sortByColumn(column, order)
        keys = [model.instance_at(row).key for row in range(model.rowCount())]
        assert [model.row_of(key) for key in keys] == list(range(len(keys)))
    assert model.row_of("python/no_such_program") is None


def test_new_counts_show_in_the_f1_column_whether_or_not_it_was_computed(window, state):
    model = window.browser.model
    key = "python/calcpad_0001"
    column = model.f1_column("illustrative-weak")
    model.update_model_counts("illustrative-weak", {key: Counts(1, 1, 2)})  # before any cell was read
    assert model.index(model.row_of(key), column).data(SCORE_ROLE) == instance_scores(Counts(1, 1, 2)).f1
    model.update_model_counts("illustrative-weak", {key: Counts(3, 0, 0)})  # the column is computed now
    assert model.index(model.row_of(key), column).data(SCORE_ROLE) == 1.0


def test_setting_a_filter_to_its_value_does_not_refilter(window, qtbot):
    proxy = window.browser.proxy
    asked = []
    accepts = proxy.filterAcceptsRow
    proxy.filterAcceptsRow = lambda row, parent: asked.append(row) or accepts(row, parent)
    try:
        proxy.set_split(None)
        proxy.set_repo(None)
        proxy.set_f1_range(None)
        assert asked == []
        proxy.set_language("python")
        assert asked
        assert {proxy.index(r, 0).data(Qt.ItemDataRole.DisplayRole) for r in range(proxy.rowCount())}
    finally:
        del proxy.filterAcceptsRow
        proxy.set_language(None)


def test_showing_and_fitting_cells_computes_no_whole_f1_column(state, qtbot, tmp_path):
    """A painted cell or a fitted column reads its own F1; the column is computed for a sort or a filter."""
    from traceeval_gui.item_models.instance_table import BASE_COLUMNS, InstanceTableModel

    opened = _opened_demo(state, qtbot, tmp_path)
    model = InstanceTableModel()
    model.set_instances(opened.rows, opened.models, opened.counts)
    column = model.f1_column(opened.models[0].name)
    texts = [model.display_text(row, column) for row in range(model.rowCount())]
    assert texts == [model.index(row, column).data() for row in range(model.rowCount())]
    assert any(text.endswith("%") for text in texts)
    assert model._f1 == [None] * len(opened.models)
    assert model.display_text(0, 0) == model.index(0, 0).data() and column == len(BASE_COLUMNS)
    model.sort(column, Qt.SortOrder.DescendingOrder)
    assert model._f1[0] is not None


def test_new_counts_of_a_shown_model_change_only_their_cells(state, qtbot, tmp_path):
    from traceeval_gui.item_models.instance_table import InstanceTableModel

    opened = _opened_demo(state, qtbot, tmp_path)
    model = InstanceTableModel()
    model.set_instances(opened.rows, opened.models, opened.counts)
    name = opened.models[0].name
    column = model.f1_column(name)
    keys = [opened.rows[1].key, opened.rows[4].key]
    changed = []
    model.dataChanged.connect(lambda first, last: changed.append((first.row(), last.row(), first.column())))
    assert model.update_model_counts(name, {key: Counts(1, 1, 0) for key in keys})
    assert sorted(changed) == sorted((model.row_of(k), model.row_of(k), column) for k in keys)
    assert [model.f1_at(model.row_of(k), name) for k in keys] == [instance_scores(Counts(1, 1, 0)).f1] * 2


def test_a_model_that_joins_gets_its_column_without_a_reset(state, qtbot, tmp_path):
    from dataclasses import replace

    from traceeval_gui.item_models.instance_table import BASE_COLUMNS, InstanceTableModel

    opened = _opened_demo(state, qtbot, tmp_path)
    first, *others = opened.models
    model = InstanceTableModel()
    model.set_instances(opened.rows, others, opened.counts)
    last = model.f1_column(others[-1].name)
    model.sort(last, Qt.SortOrder.DescendingOrder)
    order = [model.instance_at(row).key for row in range(model.rowCount())]
    resets, inserted = [], []
    model.modelReset.connect(lambda: resets.append(1))
    model.columnsInserted.connect(lambda _parent, start, end: inserted.append((start, end)))
    joined = replace(first, name="a-new-model")
    key = opened.rows[2].key
    model.set_models([joined, *others], {**opened.counts, "a-new-model": {key: Counts(2, 0, 0)}})
    assert not resets and inserted == [(len(BASE_COLUMNS), len(BASE_COLUMNS))]
    assert model.f1_column("a-new-model") == len(BASE_COLUMNS) and model.f1_column(others[-1].name) == last + 1
    assert model.f1_at(model.row_of(key), "a-new-model") == 1.0
    assert [model.instance_at(row).key for row in range(model.rowCount())] == order
    model.sort(model.f1_column(others[-1].name), Qt.SortOrder.DescendingOrder)
    assert [model.instance_at(row).key for row in range(model.rowCount())] == order


def _opened_demo(state, qtbot, tmp_path):
    """The demo dataset opened into `state` by the real background job."""
    from resources import DEMO_DATASET
    from traceeval_gui.state.jobs import OpenDatasetJob

    job = OpenDatasetJob(DEMO_DATASET, tmp_path / "demo.sqlite")
    job.signals.finished.connect(state.adopt)
    with qtbot.waitSignal(state.dataset_opened, timeout=20_000):
        state.jobs.start(job)
    return state.opened
