"""The Metrics tab shows a model run more than once (NAME, NAME@r1, NAME@r2) with the mean ± sample sd of each
run's paper figure and how many programs kept their answer, as `core.scoring.over_runs` computes them."""
import dataclasses

from core.dataset.indexing import open_dataset
from core.records import CallGraph
from core.scoring.normalise import MODES
from core.scoring.over_runs import over_runs_table, spread_text
from core.scoring.scores import Selection
from resources import DEMO_DATASET
from tests.gui.conftest import open_window
from tests.gui.menus import menu_action

TIMEOUT_MS = 20_000


def _store_three_runs(path):
    """Runs 0, 1 and 2 of "repeat": the illustrative strong answers, with the first two programs' answers emptied
    in run 1 and the first one's in run 2."""
    ws, _ = open_dataset(DEMO_DATASET, path)
    with ws:
        answers = ws.predictions("illustrative-strong")
        keys = sorted(answers)
        for run, emptied in ((0, ()), (1, keys[:2]), (2, keys[:1])):
            name = "repeat" if run == 0 else f"repeat@r{run}"
            ws.store_predictions(name, [
                dataclasses.replace(p, model=name, graph=CallGraph(p.graph.keys, ()) if key in emptied else p.graph)
                for key, p in answers.items()])
        return over_runs_table(ws, ["repeat", "repeat@r1", "repeat@r2"], Selection(split="test"), MODES)


def test_the_metrics_tab_shows_mean_and_spread_of_a_model_run_three_times(qtbot, state, tmp_path):
    path = tmp_path / "demo.sqlite"
    expected = _store_three_runs(path)
    window = open_window(qtbot, state, path, size=(1500, 1000))
    panel = window.metrics_panel
    qtbot.waitUntil(lambda: panel.over_runs is not None, timeout=TIMEOUT_MS)
    menu_action(window, "View", "Metrics tab").trigger()
    [row] = panel.over_runs.rows
    [want] = expected.rows
    assert row.runs == ("repeat", "repeat@r1", "repeat@r2") and row.spreads == want.spreads
    assert (row.agreement.compared, row.agreement.identical) == (want.agreement.compared, want.agreement.identical)
    shown = panel.browser.toPlainText()
    assert "Repeated runs" in shown and "sample standard deviation over runs (n - 1)" in shown
    average_f1 = spread_text(want.spreads["average"]["f1"])
    assert "±" in average_f1 and average_f1 in shown
    assert f"{want.agreement.identical}/{want.agreement.compared}" in shown
    # the paper's table above it still has one row per stored run, unchanged
    assert {"repeat", "repeat@r1", "repeat@r2"} <= {r.model for r in panel.table.rows}
    bar = panel.browser.verticalScrollBar()
    bar.setValue(bar.maximum())  # the spread is under the paper's table
    assert panel.grab().save(str(tmp_path / "metrics_over_runs.png"))
    window.close()
