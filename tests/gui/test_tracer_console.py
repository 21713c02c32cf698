"""The tracer console: real traces of real programs through the panel, stored and shown.

Every test runs the real tracer in the real sandbox; a demo program traces in well under a second.
"""
import shutil
import time

import pytest
from PySide6.QtCore import Qt, QTimer

from core import traces
from core.scoring.normalise import normalise_name
from resources import DEMO_DATASET
from tests.builders import write_program
from tests.gui.conftest import OPEN_TIMEOUT_MS
from traceeval_gui.state.jobs import OpenDatasetJob
from traceeval_gui.trace.tracer_console import NOT_TRACED, RECORD_ROLE, STATUS_COLOURS, TracerConsolePanel

TRACE_TIMEOUT_MS = 20_000
CALCPAD = "python/calcpad_0001"
LEDGER = "python/ledgerlite_0002"

SPIN = "def helper():\n    return 1\n\n\ndef spin():\n    helper()\n    while True:\n        pass\n\n\nspin()\n"
DIFFERS = ("def helper():\n    return 1\n\n\ndef other():\n    return 2\n\n\n"
           "def run():\n    helper()\n    other()\n\n\n"
           "run()\n")

PARENT = ("import subprocess\nimport sys\n\n\ndef start():\n    subprocess.run([sys.executable, 'worker.py'])\n"
          "    subprocess.run(['/bin/true'])\n\n\nstart()\n")
WORKER = "def work():\n    return 1\n\n\nwork()\n"


def _open(state, qtbot, root, tmp_path):
    job = OpenDatasetJob(root, workspace=tmp_path / "ws.sqlite")
    with qtbot.waitSignal(job.signals.finished, timeout=OPEN_TIMEOUT_MS) as opened:
        state.jobs.start(job)
    state.adopt(opened.args[0])


@pytest.fixture
def demo(state, qtbot, tmp_path):
    _open(state, qtbot, DEMO_DATASET, tmp_path)
    return state


@pytest.fixture
def small(state, qtbot, tmp_path):
    """A dataset of odd programs: one that loops forever, one with a syntax error, one whose stored
    ground truth misses a real call and holds one that never happens."""
    root = tmp_path / "dataset"
    write_program(root / "benchmark/python/spin_0001", {"main.py": SPIN},
                  {"main": ["main.spin"], "main.helper": [], "main.spin": ["main.helper"]})
    write_program(root / "benchmark/python/broken_0001", {"main.py": "def f(:\n    pass\n"}, {"main": [], "main.f": []})
    write_program(root / "benchmark/python/differs_0001", {"main.py": DIFFERS},
                  {"main": ["main.run"], "main.helper": [], "main.other": [], "main.run": ["main.helper",
                                                                                           "main.ghost"]})
    write_program(root / "benchmark/python/parent_0001", {"main.py": PARENT, "worker.py": WORKER},
                  {"main": ["main.start"], "main.start": [], "worker": ["worker.work"], "worker.work": []})
    _open(state, qtbot, root, tmp_path)
    return state


@pytest.fixture
def panel(state, qtbot):
    panel = TracerConsolePanel(state)
    qtbot.addWidget(panel)
    panel.resize(900, 400)
    return panel


def _trace(panel, qtbot, key=None, timeout=TRACE_TIMEOUT_MS):
    if key is not None:
        panel.state.select_instance(key)
    with qtbot.waitSignal(panel.trace_ended, timeout=timeout):
        assert panel.start_trace() is not None
    assert not panel.running


def _table(view) -> list[list[str]]:
    model = view.model()
    return [[model.index(row, column).data() for column in range(model.columnCount())]
            for row in range(model.rowCount())]


def test_tracing_a_demo_program_stores_the_run_and_shows_it_agreeing_with_the_truth(demo, panel, qtbot):
    state = demo
    state.select_instance(CALCPAD)
    assert panel.shown_run is None and panel.placeholder.text() == NOT_TRACED and panel.runs_combo.count() == 0
    with qtbot.waitSignal(state.runs_changed, timeout=TRACE_TIMEOUT_MS) as changed, \
            qtbot.waitSignal(panel.trace_ended, timeout=TRACE_TIMEOUT_MS):
        qtbot.mouseClick(panel.trace_button, Qt.MouseButton.LeftButton)
    assert changed.args == [CALCPAD]

    rows = state.workspace.run_rows(CALCPAD)
    assert len(rows) == 1 and rows[0].status == traces.OK
    stored = state.workspace.run(rows[0].id)
    truth = state.workspace.instance(CALCPAD).ground_truth
    assert {e.edge for e in stored.edges} == truth.edge_set  # the demo truth is what a real trace sees

    assert panel.runs_combo.count() == 1 and panel.runs_combo.itemData(0) == rows[0].id
    first = panel.runs_combo.itemText(0)
    assert first.startswith(f"#{rows[0].id}  ") and "ok  26 edges" in first
    assert panel.shown_run_id == rows[0].id and panel.shown_run == stored
    assert panel.status_badge.text() == "OK" and STATUS_COLOURS[traces.OK] in panel.status_badge.styleSheet()
    assert panel.message_label.text() == stored.message
    assert panel.diff.agrees and panel.diff.agreed == len(truth.edges) == 26
    assert panel.diff_items() == [] and "Full agreement" in panel.diff_label.text()
    assert panel.facts["Exit code"].text() == "0" and panel.facts["Sandbox"].text() == stored.sandbox != ""
    assert panel.facts["Phases"].text().startswith("symbols ") and " run " in panel.facts["Phases"].text()

    table = panel.edge_model
    assert [table.index(r, 0).data(RECORD_ROLE) for r in range(table.rowCount())] == list(stored.edges)
    assert {row[4] for row in _table(panel.edges_view)} == {"✓ agrees"}
    assert panel.tabs.tabText(1) == "Edges (26)" and panel.tabs.tabText(3) == "Unresolved (0)"
    assert "x = 11.0" in panel.stdout_view.toPlainText()

    overlay = state.detail().overlay  # the new run is the "Latest trace vs truth" overlay
    assert overlay.trace == stored
    assert overlay.trace_diff().counts.fp == overlay.trace_diff().counts.fn == 0
    assert panel.activity_label.text() == f"Run #{rows[0].id} stored · OK · 26 edges"
    assert panel.trace_button.isEnabled() and not panel.cancel_button.isEnabled()


def test_cancel_kills_a_program_that_loops_forever_and_keeps_the_partial_run(small, panel, qtbot):
    state = small
    key = "python/spin_0001"
    state.select_instance(key)
    assert panel.timeout_spin.value() == 30
    started = time.monotonic()
    QTimer.singleShot(1000, lambda: qtbot.mouseClick(panel.cancel_button, Qt.MouseButton.LeftButton))
    with qtbot.waitSignal(panel.trace_ended, timeout=8000):
        panel.start_trace()
        assert panel.cancel_button.isEnabled() and not panel.trace_button.isEnabled()
    assert time.monotonic() - started < 5, "the program ran on after Cancel (its time limit is 30 s)"

    rows = state.workspace.run_rows(key)
    assert [row.status for row in rows] == [traces.KILLED]
    assert panel.shown_run_id == rows[0].id and panel.shown_run.status == traces.KILLED
    assert panel.shown_run.message.startswith("cancelled by the user")
    assert panel.status_badge.text() == "Killed" and panel.message_label.text().startswith("cancelled by the user")
    assert panel.activity_label.text().startswith(f"Cancelled · run #{rows[0].id} kept")
    assert {("main", "main.spin"), ("main.spin", "main.helper")} <= {e.edge for e in panel.shown_run.edges}
    assert "Partial run (killed)" in panel.diff_label.text()
    assert panel.trace_button.isEnabled() and not panel.cancel_button.isEnabled()


def test_a_syntax_error_is_a_compile_error_run_with_the_place_of_the_error(small, panel, qtbot):
    _trace(panel, qtbot, "python/broken_0001")
    run = panel.shown_run
    assert (run.status, run.message) == (traces.COMPILE_ERROR, "main.py:1: invalid syntax")
    assert small.workspace.run_rows("python/broken_0001")[0].status == traces.COMPILE_ERROR
    assert panel.status_badge.text() == "Compile error" and panel.message_label.text() == run.message
    assert "did not run" in panel.diff_label.text() and panel.diff_items() == []
    assert panel.facts["Sandbox"].text() == "the program did not run" and not panel.alert.isVisibleTo(panel)


def test_the_diff_lists_differing_edges_and_a_click_selects_one_in_trace_mode(small, panel, qtbot):
    state = small
    key = "python/differs_0001"
    _trace(panel, qtbot, key)
    assert panel.diff_items() == [("trace_only", "main.run", "main.other"), ("truth_only", "main.run", "main.ghost")]
    assert (panel.diff.agreed, len(panel.diff.only_in_trace), len(panel.diff.only_in_truth)) == (2, 1, 1)
    assert "<b>2</b> agree" in panel.diff_label.text()
    ground_truth = {row[1]: row[4] for row in _table(panel.edges_view)}
    assert ground_truth == {"main.run": "✓ agrees", "main.helper": "✓ agrees", "main.other": "only in the trace"}

    panel.show()
    qtbot.waitExposed(panel)
    panel.tabs.setCurrentIndex(0)
    item = panel.diff_list.item(0)
    assert state.view_mode == "model"
    with qtbot.waitSignal(state.edge_selected) as selected:
        qtbot.mouseClick(panel.diff_list.viewport(), Qt.MouseButton.LeftButton,
                         pos=panel.diff_list.visualItemRect(item).center())
    assert state.view_mode == "trace"
    assert (selected.args[0].caller, selected.args[0].callee) == ("main.run", "main.other")
    assert state.detail().overlay.edge("main.run", "main.other").trace_class() == "trace_only"


def test_an_edge_row_selects_its_normalised_edge(demo, panel, qtbot):
    state = demo
    _trace(panel, qtbot, "python/ledgerlite_0001")
    proxy = panel.edges_view.model()
    row = next(r for r in range(proxy.rowCount()) if proxy.index(r, 1).data().endswith(".__init__"))
    evidence = proxy.index(row, 0).data(RECORD_ROLE)
    with qtbot.waitSignal(state.edge_selected) as selected:
        panel.edges_view.clicked.emit(proxy.index(row, 1))
    expected = tuple(normalise_name(name, "python") for name in evidence.edge)
    assert (selected.args[0].caller, selected.args[0].callee) == expected
    assert expected[1] != evidence.callee  # the app names constructors after normalisation
    assert state.view_mode == "trace"


def test_switching_the_instance_shows_that_instances_runs(demo, panel, qtbot):
    state = demo
    _trace(panel, qtbot, CALCPAD)
    calcpad_run = state.workspace.run_rows(CALCPAD)[0].id
    state.select_instance(LEDGER)
    assert panel.shown_run is None and panel.placeholder.text() == NOT_TRACED and panel.runs_combo.count() == 0
    _trace(panel, qtbot)
    ledger_run = state.workspace.run_rows(LEDGER)[0].id
    assert panel.shown_run.instance_key == LEDGER and panel.shown_run_id == ledger_run
    state.select_instance(CALCPAD)
    assert panel.shown_run.instance_key == CALCPAD and panel.shown_run_id == calcpad_run
    assert [panel.runs_combo.itemData(i) for i in range(panel.runs_combo.count())] == [calcpad_run]


def test_older_runs_stay_listed_newest_first_and_can_be_inspected(demo, panel, qtbot):
    state = demo
    _trace(panel, qtbot, CALCPAD)
    panel.runs_spin.setValue(2)
    _trace(panel, qtbot)
    older, newer = sorted(row.id for row in state.workspace.run_rows(CALCPAD))
    assert [panel.runs_combo.itemData(i) for i in range(panel.runs_combo.count())] == [newer, older]
    assert panel.shown_run_id == newer and panel.shown_run.runs == 2
    assert panel.edge_model.columns[-1] == "Seen in" and {row[5] for row in _table(panel.edges_view)} == {"2 of 2"}
    assert panel.overlay_button.isEnabled()
    panel.show_run(older)
    assert panel.runs_combo.currentIndex() == 1
    assert panel.shown_run_id == older and panel.shown_run.runs == 1
    assert f"an older run (newest: #{newer})" in panel.facts["Run"].text()
    assert not panel.overlay_button.isEnabled()  # the graph overlays the newest run only
    assert state.detail().overlay.trace == state.workspace.run(newer)


def test_a_trace_of_another_instance_is_stored_and_announced_but_not_shown(small, panel, qtbot):
    state = small
    state.select_instance("python/spin_0001")
    panel.timeout_spin.setValue(1)
    with qtbot.waitSignal(state.runs_changed, timeout=TRACE_TIMEOUT_MS) as changed, \
            qtbot.waitSignal(panel.trace_ended, timeout=TRACE_TIMEOUT_MS):
        panel.start_trace()
        state.select_instance("python/differs_0001")
        assert panel.shown_run is None and panel.placeholder.text() == NOT_TRACED
        assert not panel.trace_button.isEnabled() and panel.cancel_button.isEnabled()
    assert changed.args == ["python/spin_0001"]
    assert [row.status for row in state.workspace.run_rows("python/spin_0001")] == [traces.TIMEOUT]
    assert panel.shown_run is None and panel.runs_combo.count() == 0
    assert panel.activity_label.text().startswith("python/spin_0001: Run #")


@pytest.mark.skipif(shutil.which("node") is None, reason="the message is checked against a missing Node")
def test_a_missing_toolchain_shows_the_tracers_message_not_a_traceback(demo, panel, qtbot, tmp_path, monkeypatch):
    monkeypatch.setenv("PATH", str(tmp_path / "nothing-here"))
    _trace(panel, qtbot, "javascript/eventide_0002")
    run = panel.shown_run
    assert (run.status, run.message) == (traces.TOOLCHAIN_MISSING, "Node.js not found on PATH")
    assert panel.status_badge.text() == "Toolchain missing" and panel.message_label.text() == run.message
    assert STATUS_COLOURS[traces.TOOLCHAIN_MISSING] in panel.status_badge.styleSheet()
    assert not panel.alert.isVisibleTo(panel)


def test_a_failed_job_shows_its_message_with_the_traceback_on_demand(demo, panel, qtbot):
    state = demo
    state.select_instance("python/not_in_the_dataset_0001")
    _trace(panel, qtbot)
    assert panel.alert.isVisibleTo(panel)
    assert "not_in_the_dataset_0001: not in the workspace" in panel.alert_label.text()
    detail = panel.details_view.toPlainText()
    assert detail.startswith("Traceback") and "DatasetError" in detail
    assert not panel.details_view.isVisibleTo(panel)
    panel.details_button.click()
    assert panel.details_view.isVisibleTo(panel)
    assert state.workspace.run_rows("python/not_in_the_dataset_0001") == []
    assert panel.activity_label.text() == "Tracing failed" and panel.trace_button.isEnabled()
    state.select_instance(CALCPAD)
    _trace(panel, qtbot)  # the next trace starts with the bar gone
    assert not panel.alert.isVisibleTo(panel) and panel.shown_run.status == traces.OK


def test_the_run_facts_name_the_child_processes(small, panel, qtbot):
    _trace(panel, qtbot, "python/parent_0001")
    run = panel.shown_run
    assert run.status == traces.OK and ("worker", "worker.work") in run.graph.edge_set
    assert panel.facts["Child processes"].text().splitlines() == [
        f"{run.children[0].argv[0]} worker.py (traced python, exit 0, 1 edge(s))",
        "/bin/true (not traced: another program, exit 0)"]
    assert panel.diff.agrees
    _trace(panel, qtbot, "python/differs_0001")
    assert panel.facts["Child processes"].text() == "none"


def test_tracing_past_the_runs_kept_says_what_the_workspace_removed(demo, panel, qtbot, monkeypatch):
    monkeypatch.setenv("TRACEEVAL_KEEP_RUNS", "2")
    demo.select_instance(CALCPAD)
    for _ in range(3):
        with qtbot.waitSignal(panel.trace_ended, timeout=TRACE_TIMEOUT_MS):
            qtbot.mouseClick(panel.trace_button, Qt.MouseButton.LeftButton)
    rows = demo.workspace.run_rows(CALCPAD)
    assert len(rows) == 2 and panel.runs_combo.count() == 2
    assert panel.activity_label.text() == f"Run #{rows[0].id} stored · OK · 26 edges · 1 older run removed (keeping 2)"
