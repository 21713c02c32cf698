"""Model > Run Static Analyzer in the window: the real menu item, the dialog (each analyzer's availability checked in
the background), a real run of the analyzer in the sandbox on the demo, the new model `static:TOOL` in the
Programs table's F1 columns, the Metrics tab and Compare once it ends, and cancel."""
from PySide6.QtCore import Qt, QTimer
from PySide6.QtWidgets import QApplication

from core.dataset.workspace import Workspace
from core.scoring.metrics import instance_scores
from core.scoring.normalise import MODES
from core.scoring.scores import Selection, instance_diff, score_table
from tests.gui.conftest import OPEN_TIMEOUT_MS
from tests.gui.menus import menu_action

RUN_TIMEOUT_MS = 120_000
DIALOG_TIMEOUT_MS = 30_000


def run_from_the_menu(window, qtbot, tool: str, split: str = "all", jobs: int = 2):
    """Model > Run Static Analyzer…, wait for the analyzers' check, pick `tool` and `split`, click Run.
    Returns what the dialog showed: each analyzer's note and whether its button was enabled."""
    from traceeval_gui.runs.static_dialog import CHECKING, RunStaticAnalyzerDialog

    seen = {}
    give_up = []
    QTimer.singleShot(DIALOG_TIMEOUT_MS, lambda: give_up.append(True))

    def handle() -> None:
        dialog = QApplication.activeModalWidget()
        if isinstance(dialog, RunStaticAnalyzerDialog) and any(
                note.text() == CHECKING for note in dialog.tool_notes.values()) and not give_up:
            QTimer.singleShot(20, handle)  # the availability check is still running
            return
        if not isinstance(dialog, RunStaticAnalyzerDialog):
            if not give_up:
                QTimer.singleShot(20, handle)
            return
        seen.update({name: (dialog.tool_notes[name].text(), button.isEnabled())
                     for name, button in dialog.tool_buttons.items()})
        qtbot.mouseClick(dialog.tool_buttons[tool], Qt.MouseButton.LeftButton)
        dialog.programs.split_combo.setCurrentIndex(dialog.programs.split_combo.findData(split))
        dialog.jobs_spin.setValue(jobs)
        seen["counts"] = dialog.counts_label.text()
        if dialog.run_button.isEnabled():
            qtbot.mouseClick(dialog.run_button, Qt.MouseButton.LeftButton)
        else:
            dialog.reject()

    QTimer.singleShot(0, handle)
    menu_action(window, "Model", "Run Static Analyzer…").trigger()
    return seen


def test_an_analyzer_picked_in_the_dialog_becomes_a_model_everywhere(window, state, qtbot):
    reports, settled = [], []
    state.answers_settled.connect(settled.append)
    seen = run_from_the_menu(window, qtbot, "pycg")
    job = window.static_runs.job
    assert job is not None, seen
    assert seen["pycg"][1] and seen["pycg"][0].startswith("version ")
    assert not seen["wala"][1] and seen["wala"][0].startswith("cannot run here: ") and "no adapter" in seen["wala"][0]
    assert "15 programs selected, 10 in languages PyCG does not read: <b>5 to analyse</b>" in seen["counts"]
    assert window.static_runs.status.isVisible() and not window.static_runs.run_action.isEnabled()
    job.signals.finished.connect(reports.append)
    qtbot.waitUntil(lambda: bool(reports), timeout=RUN_TIMEOUT_MS)
    report = reports[0]
    assert report.analysed == 5 and report.failed == 0 and not report.cancelled
    qtbot.waitUntil(lambda: bool(settled), timeout=OPEN_TIMEOUT_MS)
    qtbot.waitUntil(lambda: not window.metrics_panel.is_scoring(), timeout=OPEN_TIMEOUT_MS)
    assert not window.static_runs.status.isVisible() and window.static_runs.run_action.isEnabled()
    assert "static:pycg (pycg " in window.statusBar().currentMessage()

    # the Programs table: a static:pycg column with each Python program's F1, from its stored graph and the truth
    table = window.browser.model
    assert table.f1_column("static:pycg") is not None
    with Workspace(state.opened.workspace_path) as ws:
        predictions = ws.predictions("static:pycg")
        assert len(predictions) == 5
        expected = {key: instance_scores(instance_diff(ws, "static:pycg", key).counts).f1 for key in predictions}
        split = state.opened.default_split
        paper = score_table(ws, ["static:pycg"], Selection(split=split), MODES).rows[0]
    column = table.f1_column("static:pycg")
    shown = {table.instance_at(row).key: table.display_text(row, column) for row in range(table.rowCount())}
    assert {key: text for key, text in shown.items() if text} == {
        key: f"{f1 * 100:.1f}%" for key, f1 in expected.items()}
    assert any(f1 > 0.5 for f1 in expected.values())  # the real tool found true calls

    # Metrics re-scored (not reopened) with the model's row; the new model is model A, compared with B
    row = next(r for r in window.metrics_panel.table.rows if r.model == "static:pycg")
    assert round(row.languages["python"].scores.f1, 6) == round(paper.languages["python"].scores.f1, 6) > 0
    assert state.model == "static:pycg" and window.model_combo.currentData() == "static:pycg"
    window.show_tab("compare")
    assert window.compare_panel.can_compare and state.compare_model != "static:pycg"
    assert any(key.startswith("python/") for key in window.compare_panel.shown_keys())


def test_cancel_stops_the_analyzer_and_keeps_what_was_analysed(window, state, qtbot):
    reports = []
    run_from_the_menu(window, qtbot, "code2flow", jobs=1)
    job = window.static_runs.job
    assert job is not None
    job.signals.finished.connect(reports.append)
    with qtbot.waitSignal(job.signals.progressed, timeout=RUN_TIMEOUT_MS,
                          check_params_cb=lambda done, total, key: bool(key)):
        pass  # the first program is analysed and stored
    qtbot.mouseClick(window.static_runs.status.cancel_button, Qt.MouseButton.LeftButton)
    assert "stopping" in window.static_runs.status.label.text()
    assert not window.static_runs.status.cancel_button.isEnabled()
    qtbot.waitUntil(lambda: bool(reports), timeout=RUN_TIMEOUT_MS)
    report = reports[0]
    assert report.cancelled and 1 <= report.analysed < 10
    assert len(state.workspace.predicted_keys("static:code2flow")) == report.analysed
    assert window.static_runs.run_action.isEnabled() and not window.static_runs.status.isVisible()
    assert "cancelled" in window.statusBar().currentMessage()
