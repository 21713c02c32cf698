"""The metrics panel (paper table with normalisation toggles, this program's scores, exports) and
the metrics plots (histogram, F1 against size, per-language bars), over the demo dataset."""
import pytest
from PySide6.QtCore import QPointF, Qt

from core.errors import TraceEvalError
from core.scoring.metrics import instance_scores
from core.scoring.normalise import MODES
from core.scoring.scores import NormalisedTruths, Selection, instance_counts, instance_diff, score_table
from core.scoring.tables import render_table
from resources import DEMO_DATASET
from traceeval_gui.metrics.metrics_panel import PROGRAM_ROLE, MetricsPanel
from traceeval_gui.metrics.metrics_plots import MetricsPlotsPanel
from traceeval_gui.state.jobs import OpenDatasetJob

TIMEOUT_MS = 20_000
WITHOUT_STDLIB = frozenset({"init", "nested_class"})


@pytest.fixture
def panels(qtbot, state, tmp_path):
    """Both panels on one state (the plots following the metrics panel), the demo dataset open."""
    metrics = MetricsPanel(state)
    plots = MetricsPlotsPanel(state, metrics)
    for widget in (metrics, plots):
        qtbot.addWidget(widget)
        widget.resize(900, 380)
        widget.show()
    job = OpenDatasetJob(DEMO_DATASET, tmp_path / "demo.sqlite")
    job.signals.finished.connect(state.adopt)
    with qtbot.waitSignals([state.dataset_opened, plots.plots_changed], timeout=TIMEOUT_MS):
        state.jobs.start(job)
    return metrics, plots


def _toggle(qtbot, metrics, mode, checked):
    with qtbot.waitSignals([metrics.table_changed, metrics.counts_changed], timeout=TIMEOUT_MS):
        metrics.mode_boxes[mode].setChecked(checked)


def _expected_counts(ws, modes):
    rows = ws.instance_rows()
    truths = NormalisedTruths(ws, modes)
    return {m.name: instance_counts(ws, m.name, rows, modes, truths) for m in ws.models()}


def _f1(table, model):
    return next(r for r in table.rows if r.model == model).average.f1


# -- the paper table and its toggles -----------------------------------------------------------

def test_all_modes_are_on_by_default_and_explained(panels, state):
    metrics, _ = panels
    assert metrics.modes() == frozenset(MODES)
    assert metrics.table is state.opened.table and metrics.table.modes == frozenset(MODES)
    assert not metrics.is_scoring()
    for mode, box in metrics.mode_boxes.items():
        assert box.isChecked() and mode in box.toolTip() and "paper's setting" in box.toolTip()
    assert "Java" in metrics.mode_boxes["nested_class"].toolTip()
    assert "not the paper's setting" not in metrics.browser.toPlainText()


def test_turning_off_stdlib_rescores_in_the_background_and_lowers_the_weak_model(qtbot, panels, state, workspace):
    metrics, _ = panels
    before = metrics.table
    with qtbot.waitSignal(metrics.scoring_changed, timeout=TIMEOUT_MS) as started:
        metrics.mode_boxes["stdlib"].setChecked(False)
    assert started.args == [True] and metrics.is_scoring()
    assert "scoring with init, nested_class" in metrics.status.text()
    assert metrics.table is before  # the GUI thread did not score: the old table is still shown
    with qtbot.waitSignals([metrics.table_changed, metrics.counts_changed], timeout=TIMEOUT_MS):
        pass
    assert not metrics.is_scoring() and metrics.status.text() == ""
    assert metrics.table.modes == WITHOUT_STDLIB == metrics.counts_reading[1]
    expected = score_table(workspace, selection=Selection(split="test"), modes=WITHOUT_STDLIB)
    assert render_table(metrics.table, "csv") == render_table(expected, "csv")
    assert _f1(metrics.table, "illustrative-weak") < _f1(before, "illustrative-weak")
    assert _f1(metrics.table, "illustrative-strong") == _f1(before, "illustrative-strong")
    text = metrics.browser.toPlainText()
    assert "normalisation: init, nested_class" in text and "not the paper's setting" in text
    assert metrics.counts == _expected_counts(workspace, WITHOUT_STDLIB)
    with qtbot.waitSignal(metrics.table_changed, timeout=TIMEOUT_MS):  # back again: remembered, no job
        metrics.mode_boxes["stdlib"].setChecked(True)
    assert metrics.table is before and not metrics.is_scoring()


def test_the_latest_request_wins(qtbot, panels, state, workspace):
    metrics, _ = panels
    metrics.mode_boxes["stdlib"].setChecked(False)
    metrics.mode_boxes["init"].setChecked(False)
    metrics.set_split(None)
    state.jobs.wait()
    qtbot.waitUntil(lambda: not metrics.is_scoring(), timeout=TIMEOUT_MS)
    assert metrics.modes() == frozenset({"nested_class"})
    assert (metrics.table.modes, metrics.table.selection.split) == (frozenset({"nested_class"}), None)
    assert metrics.counts_reading == ("paper", frozenset({"nested_class"}))
    expected = score_table(workspace, selection=Selection(split=None), modes={"nested_class"})
    assert render_table(metrics.table, "md") == render_table(expected, "md")


def test_a_late_result_of_an_older_request_is_not_shown(qtbot, panels, state):
    metrics, _ = panels
    metrics.mode_boxes["stdlib"].setChecked(False)
    older = metrics._pending  # the job of the first request (replaced below)
    with qtbot.waitSignals([metrics.table_changed, metrics.counts_changed], timeout=TIMEOUT_MS):
        metrics.mode_boxes["init"].setChecked(False)
    state.jobs.wait()
    assert metrics.table.modes == frozenset({"nested_class"})
    shown = []
    metrics.table_changed.connect(lambda: shown.append(metrics.table))
    with qtbot.waitSignal(older.signals.finished, timeout=TIMEOUT_MS):  # the older result arrives late
        older.signals.finished.emit(older.work(lambda *_: None))
    assert shown == [] and metrics.table.modes == frozenset({"nested_class"})
    assert metrics.counts_reading == ("paper", frozenset({"nested_class"}))


def test_set_modes_rescores_once(qtbot, panels):
    metrics, _ = panels
    started = []
    metrics.scoring_changed.connect(lambda busy: started.append(busy))
    with qtbot.waitSignal(metrics.table_changed, timeout=TIMEOUT_MS):
        metrics.set_modes(set())
    assert started == [True, False]
    assert metrics.modes() == frozenset() and metrics.table.modes == frozenset()
    assert "normalisation: off" in metrics.browser.toPlainText()
    with pytest.raises(ValueError):
        metrics.set_modes({"camel_case"})


# -- this program -------------------------------------------------------------------------------

def _program_rows(metrics):
    table = metrics.program_table
    return [[table.item(r, c).text() for c in range(table.columnCount())] for r in range(table.rowCount())]


def _assert_program_table_matches_core(metrics, workspace, key, modes):
    table = metrics.program_table
    assert table.rowCount() == 2
    for row, model in enumerate(("illustrative-strong", "illustrative-weak")):
        score = table.item(row, 0).data(PROGRAM_ROLE)
        diff = instance_diff(workspace, model, key, modes)
        assert score.model == model
        assert score.counts == (diff.counts if diff is not None else None)
        cells = [table.item(row, c).text() for c in range(1, 7)]
        if diff is None:
            assert cells == ["–"] * 6
        else:
            s, c = instance_scores(diff.counts), diff.counts
            assert cells == [f"{s.precision * 100:.1f}", f"{s.recall * 100:.1f}", f"{s.f1 * 100:.1f}",
                             str(c.tp), str(c.fp), str(c.fn)]


def test_this_program_shows_every_model_with_the_chosen_modes(qtbot, panels, state, workspace):
    metrics, _ = panels
    assert metrics.program_table.rowCount() == 0 and "none selected" in metrics.program_title.text()
    state.select_instance("javascript/eventide_0001")
    assert "eventide_0001" in metrics.program_title.text() and "JavaScript" in metrics.program_title.text()
    _assert_program_table_matches_core(metrics, workspace, "javascript/eventide_0001", frozenset(MODES))
    assert _program_rows(metrics)[1][0] == "illustrative-weak †"
    with_stdlib = _program_rows(metrics)
    _toggle(qtbot, metrics, "stdlib", False)
    _assert_program_table_matches_core(metrics, workspace, "javascript/eventide_0001", WITHOUT_STDLIB)
    assert _program_rows(metrics) != with_stdlib  # the weak model's stdlib calls now count as errors


def test_a_program_without_a_result_says_so(panels, state, workspace):
    metrics, _ = panels
    state.select_instance("python/ledgerlite_0002")
    _assert_program_table_matches_core(metrics, workspace, "python/ledgerlite_0002", frozenset(MODES))
    assert metrics.program_table.item(1, 0).data(PROGRAM_ROLE).counts is None
    assert "not scored" in metrics.program_table.item(1, 3).toolTip()


def test_the_program_table_waits_for_new_modes_instead_of_showing_stale_numbers(qtbot, panels, state):
    metrics, _ = panels
    state.select_instance("python/calcpad_0001")
    with qtbot.waitSignal(metrics.scoring_changed, timeout=TIMEOUT_MS):
        metrics.mode_boxes["init"].setChecked(False)
    assert metrics.program_table.rowCount() == 0 and "scoring" in metrics.program_title.text()
    with qtbot.waitSignal(metrics.counts_changed, timeout=TIMEOUT_MS):
        pass
    assert metrics.program_table.rowCount() == 2


# -- exports -------------------------------------------------------------------------------------

@pytest.mark.parametrize("fmt", ["csv", "md", "latex", "text", "json"])
def test_export_writes_the_table_shown(qtbot, panels, tmp_path, fmt):
    metrics, _ = panels
    _toggle(qtbot, metrics, "stdlib", False)
    path = metrics.export_table(tmp_path / f"table.{fmt}", fmt)
    assert path.read_bytes().decode("utf-8") == render_table(metrics.table, fmt)
    assert metrics.table.modes == WITHOUT_STDLIB
    if fmt == "latex":
        assert "$^\\dagger$" in path.read_text()


def test_export_refuses_while_the_chosen_modes_are_scored(qtbot, panels, tmp_path):
    metrics, _ = panels
    with pytest.raises(ValueError):
        metrics.export_table(tmp_path / "x.csv", "xlsx")
    with qtbot.waitSignal(metrics.scoring_changed, timeout=TIMEOUT_MS):
        metrics.mode_boxes["stdlib"].setChecked(False)
    with pytest.raises(TraceEvalError, match="still being scored"):
        metrics.export_table(tmp_path / "x.csv", "csv")
    assert not (tmp_path / "x.csv").exists()
    qtbot.waitUntil(lambda: not metrics.is_scoring(), timeout=TIMEOUT_MS)


# -- plots ---------------------------------------------------------------------------------------

def test_histogram_bars_count_every_scored_program_once(panels, state):
    _, plots = panels
    for model in ("illustrative-strong", "illustrative-weak"):
        scored = [r.key for r in state.opened.rows if r.split == "test" and r.key in state.opened.counts[model]]
        item = plots.histogram_items[model]
        assert item.opts["height"].sum() == len(scored) == len(plots.data.series(model))
        assert item.opts["name"].endswith("†")
    assert len(plots.histogram_items["illustrative-weak"].opts["height"]) < 10  # empty bins draw nothing


def test_bars_are_the_paper_table(qtbot, panels):
    metrics, plots = panels
    _toggle(qtbot, metrics, "stdlib", False)
    qtbot.waitUntil(lambda: plots.data.modes == WITHOUT_STDLIB, timeout=TIMEOUT_MS)
    for row in metrics.table.rows:
        heights = list(plots.bar_items[row.model].opts["height"])
        expected = [row.languages[lang].scores.f1 * 100 for lang in metrics.table.languages] + [row.average.f1 * 100]
        assert heights == pytest.approx(expected, abs=1e-12)
    assert "not the paper's setting" in plots.status.text()


def test_clicking_a_scatter_point_selects_its_program_and_rings_it(qtbot, panels, state):
    _, plots = panels
    item = plots.scatter_items["illustrative-weak"]
    index = plots.data.series("illustrative-weak").index("java/shapekit_0001")
    point = item.points()[index]
    assert point.data() == plots.key_at("illustrative-weak", index) == "java/shapekit_0001"
    with qtbot.waitSignal(state.instance_selected, timeout=TIMEOUT_MS) as selected:
        item.sigClicked.emit(item, [point], None)
    assert selected.args == ["java/shapekit_0001"] and state.instance_key == "java/shapekit_0001"
    rings = plots.ring_item.data
    assert len(rings) == 2 and set(rings["data"]) == {"java/shapekit_0001"}
    assert {(x, y) for x, y in zip(rings["x"], rings["y"])} == {
        plots.point_of(m, "java/shapekit_0001") for m in ("illustrative-strong", "illustrative-weak")}


def test_a_mouse_click_on_a_point_opens_its_program(qtbot, panels, state):
    _, plots = panels
    key = "python/ledgerlite_0001"
    x, y = plots.point_of("illustrative-weak", key)
    scene = plots.scatter_plot.getViewBox().mapViewToScene(QPointF(x, y))
    position = plots.scatter_plot.mapFromScene(scene)
    assert state.instance_key != key
    with qtbot.waitSignal(state.instance_selected, timeout=TIMEOUT_MS) as selected:
        qtbot.mouseClick(plots.scatter_plot.viewport(), Qt.MouseButton.LeftButton, pos=position)
    assert selected.args == [key]
    assert (x, y) in {(px, py) for px, py in zip(plots.ring_item.data["x"], plots.ring_item.data["y"])}
    item = plots.scatter_items["illustrative-weak"]
    with qtbot.waitSignal(item.sigClicked, timeout=TIMEOUT_MS):  # the ring drawn on top takes no clicks
        qtbot.mouseClick(plots.scatter_plot.viewport(), Qt.MouseButton.LeftButton, pos=position)


def test_the_point_under_the_mouse_is_named_in_a_tooltip(panels, state):
    _, plots = panels
    x, y = plots.point_of("illustrative-strong", "javascript/eventide_0002")
    view_box = plots.scatter_plot.getViewBox()
    plots.scatter_plot.scene().sigMouseMoved.emit(view_box.mapViewToScene(QPointF(x, y)))
    tip = view_box.toolTip()
    assert "eventide_0002" in tip and "illustrative-strong" in tip and "F1" in tip
    plots.scatter_plot.scene().sigMouseMoved.emit(view_box.mapViewToScene(QPointF(x, -50)))  # off every point
    assert view_box.toolTip() == ""


def test_bars_and_histogram_bins_explain_themselves_under_the_mouse(panels):
    _, plots = panels
    view_box = plots.bars_plot.getViewBox()
    x = plots.bar_items["illustrative-weak"].opts["x"][-1]  # the weak model's Average bar
    plots.bars_plot.scene().sigMouseMoved.emit(view_box.mapViewToScene(QPointF(x, 10)))
    average = plots.data.bars[1].average.f1 * 100
    assert "illustrative-weak" in view_box.toolTip() and f"macro): F1 {average:.1f} %" in view_box.toolTip()
    view_box = plots.histogram_plot.getViewBox()
    item = plots.histogram_items["illustrative-strong"]
    left, width = item.opts["x0"][-1], item.opts["width"]  # the strong model's highest bin: 90-100 %
    plots.histogram_plot.scene().sigMouseMoved.emit(view_box.mapViewToScene(QPointF(left + width / 2, 0.5)))
    n = int(plots.data.histograms["illustrative-strong"].counts[-1])
    assert f"{n:,} of 7 programs with F1 in [90, 100] %" in view_box.toolTip()


def test_the_size_axis_can_show_lines_instead_of_edges(panels, state):
    _, plots = panels
    row = next(r for r in state.opened.rows if r.key == "python/calcpad_0001")
    assert plots.point_of("illustrative-strong", row.key)[0] == row.edges
    plots.set_size_measure("lines")
    assert plots.point_of("illustrative-strong", row.key)[0] == row.lines
    item = plots.scatter_items["illustrative-strong"]
    assert row.lines in set(item.data["x"])
    assert plots.scatter_plot.getAxis("bottom").labelText == "lines of code"


def test_plots_share_the_split_with_the_metrics_panel(qtbot, panels, state):
    metrics, plots = panels
    assert plots.split() == metrics.split() == "test"
    with qtbot.waitSignal(plots.plots_changed, timeout=TIMEOUT_MS):
        metrics.set_split(None)
    assert plots.split() is None and plots.data.split is None
    assert len(plots.data.series("illustrative-strong")) == len(state.opened.counts["illustrative-strong"])
    with qtbot.waitSignal(metrics.table_changed, timeout=TIMEOUT_MS):
        plots.set_split("train")
    assert metrics.split() == "train" and metrics.table.selection.split == "train"


def test_plots_follow_the_chosen_modes(qtbot, panels, workspace):
    metrics, plots = panels
    with qtbot.waitSignal(plots.plots_changed, timeout=TIMEOUT_MS):
        metrics.mode_boxes["stdlib"].setChecked(False)
    assert plots.data.modes == WITHOUT_STDLIB
    weak = plots.data.series("illustrative-weak")
    expected = _expected_counts(workspace, WITHOUT_STDLIB)["illustrative-weak"]
    assert list(weak.f1) == [instance_scores(expected[k]).f1 for k in weak.keys]


def test_standalone_plots_use_the_counts_from_opening(qtbot, state, tmp_path):
    plots = MetricsPlotsPanel(state)
    qtbot.addWidget(plots)
    job = OpenDatasetJob(DEMO_DATASET, tmp_path / "demo.sqlite")
    job.signals.finished.connect(state.adopt)
    with qtbot.waitSignals([state.dataset_opened, plots.plots_changed], timeout=TIMEOUT_MS):
        state.jobs.start(job)
    assert plots.data.modes == frozenset(MODES) and plots.split() == "test"
    assert plots.data.bars[0].average == state.opened.table.rows[0].average


def test_both_panels_render(panels):
    for widget in panels:
        image = widget.grab().toImage()
        assert not image.isNull() and image.width() == 900 and image.height() == 380
    metrics, plots = panels
    assert metrics.program_table.horizontalHeaderItem(3).text() == "F1"
    assert "illustrative-strong †" in plots.legend.text()
    assert plots.bars_plot.getAxis("bottom")._tickLevels[0][-1][1] == "Average"


def test_a_dataset_without_results_shows_empty_panels(qtbot, state, tmp_path):
    from tests.builders import released_dataset

    root = released_dataset(tmp_path / "data", {"python": ["tiny_0001"], "java": ["tiny_0002"]})
    metrics = MetricsPanel(state)
    plots = MetricsPlotsPanel(state, metrics)
    for widget in (metrics, plots):
        qtbot.addWidget(widget)
    job = OpenDatasetJob(root, tmp_path / "ws.sqlite")
    job.signals.finished.connect(state.adopt)
    with qtbot.waitSignals([state.dataset_opened, plots.plots_changed], timeout=TIMEOUT_MS):
        state.jobs.start(job)
    state.select_instance("python/tiny_0001")
    assert "No models" in metrics.browser.toPlainText() and metrics.program_table.rowCount() == 0
    assert plots.data.points == () and plots.scatter_items == {} and plots.bar_items == {}
    assert "2 programs, 0 scored" in plots.status.text()
    with qtbot.waitSignal(metrics.table_changed, timeout=TIMEOUT_MS):
        metrics.mode_boxes["init"].setChecked(False)
    assert metrics.table.modes == frozenset({"nested_class", "stdlib"})
