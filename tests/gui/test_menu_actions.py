"""Every item of the main window's menu bar, triggered as a person does (the QAction found in the real
menus, or its shortcut), with what it changed on screen or in the state.

`EXPECTATIONS` holds one check per menu path; `test_every_menu_item_has_an_expectation` fails for an
item without one, so a new menu item comes with its test."""
from __future__ import annotations

from pathlib import Path

import pytest
from PySide6.QtCore import QTimer
from PySide6.QtGui import QKeySequence
from PySide6.QtWidgets import QApplication, QDialog, QFileDialog, QMessageBox

from resources import DEMO_DATASET
from tests.gui.conftest import OPEN_TIMEOUT_MS
from traceeval_gui.widgets.keyboard_dialog import menu_actions, plain_text

TIMEOUT_MS = 20_000


def all_menu_items(window) -> dict[str, object]:
    menus = [a.menu() for a in window.menuBar().actions() if a.menu() is not None]
    return {f"{path} › {plain_text(item.text())}": item for path, item in menu_actions(menus)}


def trigger(window, path: str) -> None:
    item = all_menu_items(window)[path]
    assert item.isEnabled(), f"{path} is disabled"
    item.trigger()


def press(window, qtbot, path: str) -> None:
    """The action's own shortcut, typed into the window."""
    keys = all_menu_items(window)[path].shortcut()
    assert not keys.isEmpty(), f"{path} has no shortcut"
    window.activateWindow()
    qtbot.keySequence(window, keys)


DIALOG_LEFT_OPEN_MS = 5_000


def on_next_dialog(qtbot, handle, kind=QDialog) -> list:
    """Call `handle(dialog)` on the next modal dialog of `kind` (from a timer: `exec()` blocks the test);
    the list returned gets the dialog's title and, for a file dialog, its file mode."""
    seen = []

    def poll() -> None:
        dialog = QApplication.activeModalWidget()
        if isinstance(dialog, kind) and dialog.isVisible():
            seen.append((dialog.windowTitle(), dialog.fileMode() if isinstance(dialog, QFileDialog) else None))
            handle(dialog)
            QTimer.singleShot(DIALOG_LEFT_OPEN_MS, lambda: close_if_left_open(dialog))
        else:
            QTimer.singleShot(20, poll)

    QTimer.singleShot(0, poll)
    return seen


def close_if_left_open(dialog: QDialog) -> None:
    """A dialog the test's handler could not close would block the test for ever: close it, so the test fails."""
    try:
        if dialog.isVisible():
            dialog.reject()
    except RuntimeError:  # already deleted: it was closed
        pass


def choose_file(path: Path):
    """Go to the folder `path` is in and pick it, as a person does (a folder picked from another folder
    is not what a Directory dialog returns)."""
    def fill(dialog: QFileDialog) -> None:
        dialog.setDirectory(str(Path(path).parent))
        dialog.selectFile(Path(path).name)
        dialog.accept()
    return fill


def reject(dialog: QDialog) -> None:
    dialog.reject()


# -- File --------------------------------------------------------------------------------
def open_dataset(window, qtbot, tmp_path):
    seen = on_next_dialog(qtbot, choose_file(DEMO_DATASET), QFileDialog)
    with qtbot.waitSignal(window.state.dataset_opened, timeout=OPEN_TIMEOUT_MS):
        trigger(window, "File › Open Dataset")
    assert seen and seen[0][1] == QFileDialog.FileMode.Directory
    assert window.state.opened.root == DEMO_DATASET
    assert window.state.opened.workspace_path.parent == tmp_path / "workspaces"  # its default workspace


def open_demo(window, qtbot, tmp_path):
    with qtbot.waitSignal(window.state.dataset_opened, timeout=OPEN_TIMEOUT_MS):
        trigger(window, "File › Open Demo Dataset")
    assert window.state.opened.root == DEMO_DATASET
    assert window.state.opened.workspace_path.parent == tmp_path / "workspaces"


def open_workspace(window, qtbot, tmp_path):
    from core.dataset.indexing import open_dataset as index

    other = tmp_path / "other.sqlite"
    index(DEMO_DATASET, other)[0].close()
    on_next_dialog(qtbot, choose_file(other), QFileDialog)
    with qtbot.waitSignal(window.state.dataset_opened, timeout=OPEN_TIMEOUT_MS):
        press(window, qtbot, "File › Open Workspace")
    assert window.state.opened.workspace_path == other


def new_workspace(window, qtbot, tmp_path):
    new = tmp_path / "fresh.sqlite"
    on_next_dialog(qtbot, choose_file(new), QFileDialog)
    with qtbot.waitSignal(window.state.dataset_opened, timeout=OPEN_TIMEOUT_MS):
        trigger(window, "File › New Workspace")
    assert window.state.opened.workspace_path == new and new.exists()


def import_results(window, qtbot, tmp_path):
    answers = tmp_path / "answers.jsonl"
    key = window.state.instance_key
    instance = key.split("/")[-1]
    answers.write_text(f'{{"instance": "{instance}", "model": "menu-model", "response": "{{}}"}}\n')
    seen = on_next_dialog(qtbot, lambda d: (d.selectFile(str(answers)), d.accept()), QFileDialog)
    press(window, qtbot, "File › Import Results")
    assert seen
    qtbot.waitUntil(lambda: "Import" in window.statusBar().currentMessage()
                    and "Importing" not in window.statusBar().currentMessage(), timeout=TIMEOUT_MS)


def export_to(suffix: str):
    def check(window, qtbot, tmp_path, path):
        out = tmp_path / f"out.{suffix}"
        on_next_dialog(qtbot, choose_file(out), QFileDialog)
        trigger(window, path)
        qtbot.waitUntil(lambda: out.exists() and out.stat().st_size > 0, timeout=TIMEOUT_MS)
        qtbot.waitUntil(lambda: "Saved" in window.statusBar().currentMessage(), timeout=TIMEOUT_MS)
    return check


def export_paired(suffix: str):
    """The Compare tab's statistics exist once it has been shown with two models: then they are written."""
    def check(window, qtbot, tmp_path, path):
        window.show_tab("compare")
        panel = window.compare_panel
        qtbot.waitUntil(lambda: not panel.stats_pending() and panel.stats is not None, timeout=TIMEOUT_MS)
        export_to(suffix)(window, qtbot, tmp_path, path)
    return check


def build_wizard(window, qtbot, tmp_path):
    press(window, qtbot, "File › Build Instances from Repository")
    wizard = window._build_wizard
    assert wizard is not None and wizard.isVisible()
    wizard.close()


def quit_(window, qtbot, tmp_path):
    press(window, qtbot, "File › Quit")
    assert not window.isVisible()


# -- View --------------------------------------------------------------------------------
def show_tab(name: str):
    def check(window, qtbot, tmp_path, path):
        window.show_tab("edges" if name != "edges" else "compare")
        press(window, qtbot, path)
        assert window.bottom_tabs.currentWidget() is window.tab_widget(name)
    return check


def toggle_programs(window, qtbot, tmp_path):
    assert window.browser_dock.isVisible()
    press(window, qtbot, "View › Programs")
    assert not window.browser_dock.isVisible()
    press(window, qtbot, "View › Programs")
    assert window.browser_dock.isVisible()


def graph_shows(mode: str):
    def check(window, qtbot, tmp_path, path):
        window.state.set_view_mode("truth" if mode != "truth" else "model")
        trigger(window, path)
        assert window.state.view_mode == mode
    return check


def next_graph_mode(window, qtbot, tmp_path):
    from core.report.view_modes import VIEW_MODES

    before = window.state.view_mode
    press(window, qtbot, "View › Next Graph Mode")
    assert window.state.view_mode == VIEW_MODES[(VIEW_MODES.index(before) + 1) % len(VIEW_MODES)]


def toggle_class(index: int):
    def check(window, qtbot, tmp_path, path):
        from core.report.view_modes import VIEW_MODE_TABLE

        mode = next(m for m, view in VIEW_MODE_TABLE.items() if len(view.classes) > index)
        window.state.set_view_mode(mode)
        name = VIEW_MODE_TABLE[mode].classes[index]
        press(window, qtbot, path)
        assert name in window.state.hidden_classes
        press(window, qtbot, path)
        assert name not in window.state.hidden_classes
    return check


def fit_graph(window, qtbot, tmp_path):
    view = window.graph_panel.plot.view
    view.scaleBy((1 / 6, 1 / 6))  # zoom in
    zoomed = view.viewRect()
    press(window, qtbot, "View › Fit Graph")
    fitted = view.viewRect()
    assert fitted.width() > zoomed.width() * 3  # back out to the whole graph


def whole_graph(window, qtbot, tmp_path):
    from tests.bench.bench_graph_view import synthetic_overlay

    press(window, qtbot, "View › Whole Graph or Neighbourhood")  # the demo's graphs are drawn whole
    assert "drawn whole" in window.statusBar().currentMessage()
    overlay, groups = synthetic_overlay(200, 420, files=8, seed=3)
    graph = window.graph_panel
    graph.show_overlay(overlay, groups)
    assert len(graph.picture.layout.nodes) < 200  # a neighbourhood
    press(window, qtbot, "View › Whole Graph or Neighbourhood")
    assert graph.show_all and len(graph.picture.layout.nodes) == 200
    press(window, qtbot, "View › Whole Graph or Neighbourhood")
    assert not graph.show_all and len(graph.picture.layout.nodes) < 200


def problems(window, qtbot, tmp_path):
    assert not window.problems_dock.isVisible()
    press(window, qtbot, "View › Problems")
    assert window.problems_dock.isVisible()
    assert window.problems_panel.table.model().rowCount() == 0  # the demo reads whole


def maximise_pane(window, qtbot, tmp_path):
    window.source_view.setFocus()
    window.source_view.tabs.currentWidget().setFocus()
    press(window, qtbot, "View › Maximise Pane")
    assert window.source_view.isVisible()
    assert not any(w.isVisible() for w in (window.graph_panel, window.bottom_tabs, window.browser_dock))
    press(window, qtbot, "View › Maximise Pane")
    assert all(w.isVisible() for w in (window.graph_panel, window.bottom_tabs, window.browser_dock))


def reset_layout(window, qtbot, tmp_path):
    window.browser_dock.hide()
    window.views_splitter.setSizes([100, 900])
    press(window, qtbot, "View › Problems")
    window.problems_dock.setFloating(True)
    trigger(window, "View › Reset Layout")
    assert window.browser_dock.isVisible()
    assert not window.problems_dock.isVisible() and not window.problems_dock.isFloating()
    source, graph = window.views_splitter.sizes()
    assert abs(source - graph) <= 0.1 * (source + graph)


def theme(name: str):
    def check(window, qtbot, tmp_path, path):
        from traceeval_gui.theme.style import is_dark

        try:
            trigger(window, path)
            assert window.theme.theme == name and all_menu_items(window)[path].isChecked()
            assert is_dark() == (name == "dark" or (name == "system" and window.theme.dark))
        finally:
            window.theme.choose("light", remember=False)
    return check


def error_log(window, qtbot, tmp_path):
    press(window, qtbot, "View › Error Log")
    assert window._error_log_dialog is not None and window._error_log_dialog.isVisible()
    window._error_log_dialog.close()


def command_palette(window, qtbot, tmp_path):
    press(window, qtbot, "View › Command Palette")
    palette = window.command_palette
    assert palette.isVisible() and palette.focusWidget() is palette.filter_edit
    palette.close()


# -- Go ----------------------------------------------------------------------------------
def back_and_forward(which: str):
    def check(window, qtbot, tmp_path, path):
        state = window.state
        first = state.instance_key
        window.browser.select_relative(1)
        second = state.instance_key
        assert second != first
        press(window, qtbot, "Go › Back")
        assert state.instance_key == first
        if which == "forward":
            press(window, qtbot, "Go › Forward")
            assert state.instance_key == second
    return check


def relative_program(step: int):
    def check(window, qtbot, tmp_path, path):
        state = window.state
        if step < 0:
            window.browser.select_relative(2)
        keys = window.browser.shown_keys()
        before = keys.index(state.instance_key)
        press(window, qtbot, path)
        assert keys.index(state.instance_key) == before + step
    return check


def error_edge(window, qtbot, tmp_path, path):
    press(window, qtbot, path)
    edge = window.state.edge
    assert edge is not None and edge.kind in ("FP", "FN")
    assert window.bottom_tabs.currentWidget() is window.edge_panel


def filter_programs(window, qtbot, tmp_path):
    press(window, qtbot, "Go › Filter Programs")
    assert window.browser.isAncestorOf(window.focusWidget())


def filter_edges(window, qtbot, tmp_path):
    window.show_tab("metrics")
    press(window, qtbot, "Go › Filter Edges")
    assert window.bottom_tabs.currentWidget() is window.edge_panel
    assert window.edge_panel.isAncestorOf(window.focusWidget())


# -- Trace -------------------------------------------------------------------------------
def trace(window, qtbot, tmp_path):
    key = window.state.instance_key
    with qtbot.waitSignal(window.state.runs_changed, timeout=120_000) as changed:
        press(window, qtbot, "Trace › Trace This Program")
        assert window.bottom_tabs.currentWidget() is window.tracer_panel
    assert changed.args == [key] and len(window.state.workspace.run_rows(key)) == 1


def cancel_trace(window, qtbot, tmp_path):
    panel = window.tracer_panel
    job = panel.start_trace()
    assert job is not None
    with qtbot.waitSignals([job.signals.cancelled], timeout=120_000, raising=False):
        press(window, qtbot, "Trace › Cancel Trace")
        assert not panel.cancel_button.isEnabled()  # cancelling…
    qtbot.waitUntil(lambda: not panel.running, timeout=120_000)


# -- Model -------------------------------------------------------------------------------
def run_model(window, qtbot, tmp_path):
    from traceeval_gui.runs.run_model_dialog import RunModelDialog

    seen = on_next_dialog(qtbot, reject, RunModelDialog)
    press(window, qtbot, "Model › Run Model")
    assert seen and window.model_runs.job is None


def cancel_model_run(window, qtbot, tmp_path):
    item = all_menu_items(window)["Model › Cancel Model Run"]
    assert not item.isEnabled()  # nothing runs: nothing to cancel (a run's test cancels one)
    item.trigger()
    assert window.model_runs.job is None


def run_static_analyzer(window, qtbot, tmp_path):
    from traceeval_gui.runs.static_dialog import RunStaticAnalyzerDialog

    seen = on_next_dialog(qtbot, reject, RunStaticAnalyzerDialog)
    trigger(window, "Model › Run Static Analyzer")
    assert seen and window.static_runs.job is None


def cancel_static_analyzer(window, qtbot, tmp_path):
    item = all_menu_items(window)["Model › Cancel Static Analyzer"]
    assert not item.isEnabled()  # nothing runs (tests/gui/test_static_runs.py cancels a run)
    item.trigger()
    assert window.static_runs.job is None


def runs_and_costs(window, qtbot, tmp_path):
    from traceeval_gui.runs.ledger_window import RunsLedgerWindow

    seen = on_next_dialog(qtbot, reject, RunsLedgerWindow)
    trigger(window, "Model › Runs and Costs")
    assert seen == [("Runs and Costs", None)]


def release(window, qtbot, tmp_path):
    seen = on_next_dialog(qtbot, reject)
    trigger(window, "Model › TraceEval Release")
    assert seen and seen[0][0]


# -- Audit -------------------------------------------------------------------------------
def new_audit(window, qtbot, tmp_path):
    from traceeval_gui.audit.new_audit_dialog import NewAuditDialog

    seen = on_next_dialog(qtbot, reject, NewAuditDialog)
    press(window, qtbot, "Audit › New Audit")
    assert seen


def no_audits_yet(window, qtbot, tmp_path, path):
    from traceeval_gui.audit.audit_actions import NO_AUDITS

    press(window, qtbot, path)
    assert window.statusBar().currentMessage() == NO_AUDITS


def merge_workspace(window, qtbot, tmp_path):
    """The bug that started these tests: the action's `checked` flag arrived as the file path."""
    from core.audit.sampling import create_audit
    from core.audit.store import AuditStore
    from core.dataset.indexing import open_dataset as index

    bob_path = tmp_path / "bob.sqlite"
    bob, _ = index(DEMO_DATASET, bob_path)
    with bob:
        create_audit(bob, "pair", size=3, seed=1)
        for item in AuditStore(bob).items("pair"):
            AuditStore(bob).give_verdict("pair", item.ref, "bob", "correct")
    on_next_dialog(qtbot, choose_file(bob_path), QFileDialog)
    press(window, qtbot, "Audit › Merge Workspace")
    qtbot.waitUntil(lambda: ("pair", "results") in window.audits.windows, timeout=TIMEOUT_MS)
    assert [a.name for a in AuditStore(window.state.workspace).audits()] == ["pair"]
    assert not window.error_log.entries
    window.audits.windows[("pair", "results")].close()


# -- Help --------------------------------------------------------------------------------
def keyboard(window, qtbot, tmp_path):
    from traceeval_gui.widgets.keyboard_dialog import KeyboardDialog

    rows = []
    on_next_dialog(qtbot, lambda d: (rows.extend(d.rows), d.reject()), KeyboardDialog)
    press(window, qtbot, "Help › Keyboard Shortcuts")
    assert ("Audit", "Merge Workspace", "Ctrl+Shift+M") in rows


def parity(window, qtbot, tmp_path):
    trigger(window, "Help › Check Paper Parity")
    assert window.parity_dialog.isVisible()
    window.parity_dialog.close()


def about(window, qtbot, tmp_path):
    texts = []
    on_next_dialog(qtbot, lambda d: (texts.append(d.text()), d.accept()), QMessageBox)
    trigger(window, "Help › About TraceEval Studio")
    assert "TraceEval Studio" in texts[0]


def _with_path(check):
    return lambda window, qtbot, tmp_path, path: check(window, qtbot, tmp_path)


EXPECTATIONS = {
    "File › Open Dataset": _with_path(open_dataset),
    "File › Open Demo Dataset": _with_path(open_demo),
    "File › Open Workspace": _with_path(open_workspace),
    "File › New Workspace": _with_path(new_workspace),
    "File › Import Results": _with_path(import_results),
    "File › Export › Graph › As PNG image": export_to("png"),
    "File › Export › Graph › As SVG drawing": export_to("svg"),
    "File › Export › Graph › As Graphviz DOT": export_to("dot"),
    "File › Export › Graph › As GraphML": export_to("graphml"),
    "File › Export › Graph › As JSON": export_to("json"),
    "File › Export › Metrics Table › As CSV": export_to("csv"),
    "File › Export › Metrics Table › As Markdown": export_to("md"),
    "File › Export › Metrics Table › As LaTeX": export_to("tex"),
    "File › Export › Paired Statistics (Compare) › As CSV": export_paired("csv"),
    "File › Export › Paired Statistics (Compare) › As Markdown": export_paired("md"),
    "File › Export › Paired Statistics (Compare) › As JSON": export_paired("json"),
    "File › Export › Evidence Packet (HTML)": export_to("html"),
    "File › Build Instances from Repository": _with_path(build_wizard),
    "File › Quit": _with_path(quit_),
    "View › Edges tab": show_tab("edges"),
    "View › Compare tab": show_tab("compare"),
    "View › Metrics tab": show_tab("metrics"),
    "View › Plots tab": show_tab("plots"),
    "View › Tracer tab": show_tab("tracer"),
    "View › Answer tab": show_tab("answer"),
    "View › Programs": _with_path(toggle_programs),
    "View › Graph Shows › Model A vs truth": graph_shows("model"),
    "View › Graph Shows › Model A vs model B": graph_shows("compare"),
    "View › Graph Shows › Latest trace vs truth": graph_shows("trace"),
    "View › Graph Shows › Ground truth only": graph_shows("truth"),
    "View › Next Graph Mode": _with_path(next_graph_mode),
    **{f"View › Toggle Edge Classes › Edge Class {i + 1} of the Legend": toggle_class(i) for i in range(4)},
    "View › Fit Graph": _with_path(fit_graph),
    "View › Whole Graph or Neighbourhood": _with_path(whole_graph),
    "View › Problems": _with_path(problems),
    "View › Maximise Pane": _with_path(maximise_pane),
    "View › Reset Layout": _with_path(reset_layout),
    "View › Theme › System": theme("system"),
    "View › Theme › Light": theme("light"),
    "View › Theme › Dark": theme("dark"),
    "View › Error Log": _with_path(error_log),
    "View › Command Palette": _with_path(command_palette),
    "Go › Back": back_and_forward("back"),
    "Go › Forward": back_and_forward("forward"),
    "Go › Next Program": relative_program(1),
    "Go › Previous Program": relative_program(-1),
    "Go › Next Error Edge": error_edge,
    "Go › Previous Error Edge": error_edge,
    "Go › Filter Programs": _with_path(filter_programs),
    "Go › Filter Edges": _with_path(filter_edges),
    "Trace › Trace This Program": _with_path(trace),
    "Trace › Cancel Trace": _with_path(cancel_trace),
    "Model › Run Model": _with_path(run_model),
    "Model › Cancel Model Run": _with_path(cancel_model_run),
    "Model › TraceEval Release": _with_path(release),
    "Model › Runs and Costs": _with_path(runs_and_costs),
    "Model › Run Static Analyzer": _with_path(run_static_analyzer),
    "Model › Cancel Static Analyzer": _with_path(cancel_static_analyzer),
    "Audit › New Audit": _with_path(new_audit),
    "Audit › Continue Audit": no_audits_yet,
    "Audit › Audit Results": no_audits_yet,
    "Audit › Merge Workspace": _with_path(merge_workspace),
    "Help › Keyboard Shortcuts": _with_path(keyboard),
    "Help › Check Paper Parity": _with_path(parity),
    "Help › About TraceEval Studio": _with_path(about),
}


def test_every_menu_item_has_an_expectation(window):
    items = set(all_menu_items(window))
    missing = sorted(items - set(EXPECTATIONS))
    stale = sorted(set(EXPECTATIONS) - items)
    assert not missing, f"menu items without a test in EXPECTATIONS (add one): {missing}"
    assert not stale, f"EXPECTATIONS for items no longer in the menus: {stale}"


def test_no_two_menu_items_share_a_shortcut(window):
    owners: dict[str, str] = {}
    for path, item in all_menu_items(window).items():
        for keys in item.shortcuts():
            text = keys.toString(QKeySequence.SequenceFormat.PortableText)
            assert text not in owners, f"{text} is both {owners[text]} and {path}"
            owners[text] = path


@pytest.mark.parametrize("path", list(EXPECTATIONS))
def test_menu_item(window, qtbot, tmp_path, path):
    window.activateWindow()
    qtbot.waitUntil(lambda: window.state.instance_key is not None)
    EXPECTATIONS[path](window, qtbot, tmp_path, path)
    assert window.isVisible() or path == "File › Quit"
    unexpected = [e for e in window.error_log.entries if path not in ("File › Import Results",)]
    assert not unexpected, f"{path} reported errors: {[e.text() for e in unexpected]}"
