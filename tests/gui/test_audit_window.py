"""Spot-check audits in the window: a new audit made in the dialog, 100 edges judged with the keys
alone, undo, notes, moving about, resuming, annotators kept apart, and the evidence shown."""
from datetime import UTC, datetime
from pathlib import Path

import pytest
from PySide6.QtCore import Qt, QTimer
from PySide6.QtWidgets import QApplication, QDialogButtonBox, QFileDialog, QLineEdit, QMessageBox

from core.audit.sampling import create_audit
from core.audit.store import AuditStore
from core.scoring.stats import sample_size_for_margin
from core.traces import OK, EdgeEvidence, TraceRun
from tests.gui.menus import menu_action

LABEL_KEYS = [(Qt.Key.Key_1, "correct"), (Qt.Key.Key_2, "wrong"), (Qt.Key.Key_4, "unsure"),
              (Qt.Key.Key_C, "correct"), (Qt.Key.Key_W, "wrong"), (Qt.Key.Key_U, "unsure")]


@pytest.fixture
def store(window, state):
    return AuditStore(state.workspace)


def open_audit(window, qtbot, name, annotator, **options):
    """An audit made with the core (when `options` are given) and opened as `annotator`, active."""
    if options:
        create_audit(window.state.workspace, name, **{"size": 100, "seed": 1, **options})
    audit_window = window.audits.open_audit(name, annotator)
    qtbot.waitUntil(lambda: QApplication.activeWindow() is audit_window)
    return audit_window


def labels_of(store, name, annotator):
    return {ref: verdict.label for (_, ref), verdict in store.current_verdicts(name, annotator).items()}


def press(widget, qtbot, key, modifier=Qt.KeyboardModifier.NoModifier):
    qtbot.keyClick(widget, key, modifier)


def test_the_audit_menu_is_there_with_its_keys_and_waits_for_a_dataset(window, qtbot):
    rows = window.keyboard_dialog().rows
    keys = {(group, action): keys for group, action, keys in rows}
    assert keys[("Audit", "New Audit")] == "Ctrl+Shift+N"
    assert keys[("Audit", "Continue Audit")] == "Ctrl+Shift+A"
    assert keys[("Audit", "Audit Results")] == "Ctrl+Shift+R"
    assert all(item.isEnabled() for item in window.audits.actions)

    from traceeval_gui.state.app_state import AppState
    from traceeval_gui.workbench.main_window import MainWindow

    empty = MainWindow(AppState(), settings=None, interactive=False)
    qtbot.addWidget(empty)
    assert not any(item.isEnabled() for item in empty.audits.actions)


def test_an_audit_of_100_edges_is_created_and_judged_with_the_keyboard_alone(window, state, store, qtbot):
    window.activateWindow()
    qtbot.waitUntil(lambda: QApplication.activeWindow() is window)
    seen = {}

    def fill_in_the_dialog():
        dialog = QApplication.activeModalWidget()
        try:
            qtbot.waitUntil(lambda: QApplication.activeWindow() is dialog)  # its keys work once it is active
            qtbot.waitUntil(lambda: "counting" not in dialog.summary_label.text())  # counted in the background
            seen["summary"] = dialog.summary_label.text()
            qtbot.keyClick(dialog.name_edit, Qt.Key.Key_A, Qt.KeyboardModifier.ControlModifier)
            qtbot.keyClicks(dialog.name_edit, "spot")
            qtbot.keyClick(dialog.name_edit, Qt.Key.Key_A, Qt.KeyboardModifier.AltModifier)  # &Annotators
            seen["focused"] = dialog.annotators_edit.hasFocus()
            qtbot.keyClicks(dialog.annotators_edit, "ana, bo")
            qtbot.keyClick(dialog.annotators_edit, Qt.Key.Key_Return)  # Enter = Create
            qtbot.waitUntil(lambda: not dialog.isVisible())  # sampled in the background, then closed
        finally:
            if dialog.isVisible():  # never leave the test hanging in exec()
                seen["left open"] = dialog.error_label.text()
                dialog.reject()

    QTimer.singleShot(0, fill_in_the_dialog)
    press(window, qtbot, Qt.Key.Key_N, Qt.KeyboardModifier.ControlModifier | Qt.KeyboardModifier.ShiftModifier)
    assert "left open" not in seen and seen["focused"]
    assert "416</b> ground-truth edges in 15 programs → sample <b>100</b>" in seen["summary"]
    audit = store.get("spot")
    assert (audit.size, audit.population, audit.seed, audit.annotators) == (100, "truth", 1, ("ana", "bo"))
    audit_window = window.audits.windows[("spot", "ana")]
    assert audit_window.windowTitle() == "Audit spot — ana"
    qtbot.waitUntil(lambda: QApplication.activeWindow() is audit_window)

    items = store.items("spot")
    expected = {}
    for position, item in enumerate(items):
        assert audit_window.current_item == item  # each verdict moves on to the next edge
        key, label = LABEL_KEYS[position % len(LABEL_KEYS)]
        press(audit_window.table, qtbot, key)
        expected[item.ref] = label
        assert labels_of(store, "spot", "ana")[item.ref] == label  # committed on the keystroke
    assert labels_of(store, "spot", "ana") == expected
    assert audit_window.judged == 100 and audit_window.progress_bar.value() == 100
    assert audit_window.done_label.isVisible()
    assert audit_window.done_label.text().startswith("All 100 judged — thank you")
    assert "<b>100</b> / 100 judged" in audit_window.progress_label.text()


def test_undo_restores_the_edge_and_goes_back_to_it(window, store, qtbot):
    audit_window = open_audit(window, qtbot, "undo", "ana", population="truth")
    first, second = store.items("undo")[:2]
    press(audit_window.table, qtbot, Qt.Key.Key_1)
    press(audit_window.table, qtbot, Qt.Key.Key_2)
    assert labels_of(store, "undo", "ana") == {first.ref: "correct", second.ref: "wrong"}
    press(audit_window.table, qtbot, Qt.Key.Key_Z, Qt.KeyboardModifier.ControlModifier)
    assert labels_of(store, "undo", "ana") == {first.ref: "correct"}
    assert audit_window.current_item == second
    press(audit_window.table, qtbot, Qt.Key.Key_W)  # a new verdict after the undo
    press(audit_window.table, qtbot, Qt.Key.Key_Backspace)
    press(audit_window.table, qtbot, Qt.Key.Key_Backspace)
    assert labels_of(store, "undo", "ana") == {}
    assert audit_window.current_item == first and audit_window.judged == 0
    press(audit_window.table, qtbot, Qt.Key.Key_Backspace)
    assert audit_window.statusBar().currentMessage() == "Nothing to undo"


def test_a_note_is_stored_with_the_verdict_and_esc_leaves_it(window, store, qtbot):
    audit_window = open_audit(window, qtbot, "notes", "ana", population="truth")
    first, second = store.items("notes")[:2]
    note = audit_window.note_edit
    press(audit_window.table, qtbot, Qt.Key.Key_E)  # a note before the verdict: kept until one is given
    assert note.hasFocus()
    qtbot.keyClicks(note, "called via a callback")
    press(note, qtbot, Qt.Key.Key_Return)
    assert audit_window.table.hasFocus() and labels_of(store, "notes", "ana") == {}
    press(audit_window.table, qtbot, Qt.Key.Key_C)
    verdicts = store.current_verdicts("notes", "ana")
    assert verdicts[("ana", first.ref)].note == "called via a callback"
    assert audit_window.current_item == second

    press(audit_window.table, qtbot, Qt.Key.Key_K)  # back to the judged edge: a changed note is stored
    press(audit_window.table, qtbot, Qt.Key.Key_Return)
    assert note.hasFocus() and note.text() == "called via a callback"
    qtbot.keyClicks(note, " (line 12)")
    press(note, qtbot, Qt.Key.Key_Enter)
    verdict = store.current_verdicts("notes", "ana")[("ana", first.ref)]
    assert (verdict.label, verdict.note) == ("correct", "called via a callback (line 12)")
    assert audit_window.current_item == first  # a note does not move on

    press(audit_window.table, qtbot, Qt.Key.Key_E)
    qtbot.keyClicks(note, "never mind")
    press(note, qtbot, Qt.Key.Key_Escape)
    assert audit_window.table.hasFocus() and note.text() == "called via a callback (line 12)"
    assert store.current_verdicts("notes", "ana")[("ana", first.ref)].note == "called via a callback (line 12)"
    assert audit_window.model.data(audit_window.model.index(0, 3)) == "correct  ✎"


def test_next_previous_and_first_unjudged(window, store, qtbot):
    audit_window = open_audit(window, qtbot, "moves", "ana", population="truth")
    items = store.items("moves")
    assert audit_window.current_item == items[0]
    for key, position in ((Qt.Key.Key_Right, 1), (Qt.Key.Key_J, 2), (Qt.Key.Key_Left, 1), (Qt.Key.Key_K, 0)):
        press(audit_window.table, qtbot, key)
        assert audit_window.current_item == items[position]
    press(audit_window.table, qtbot, Qt.Key.Key_K)
    assert audit_window.current_item == items[0] and "first" in audit_window.statusBar().currentMessage()
    press(audit_window.table, qtbot, Qt.Key.Key_1)
    press(audit_window.table, qtbot, Qt.Key.Key_1)
    for _ in range(5):
        press(audit_window.table, qtbot, Qt.Key.Key_J)
    press(audit_window.table, qtbot, Qt.Key.Key_Home)
    assert audit_window.current_item == items[2]


def test_reopening_resumes_at_the_first_unjudged_edge(window, store, qtbot):
    audit_window = open_audit(window, qtbot, "resume", "ana", population="truth")
    for key in (Qt.Key.Key_1, Qt.Key.Key_2, Qt.Key.Key_4):
        press(audit_window.table, qtbot, key)
    audit_window.close()
    qtbot.waitUntil(lambda: ("resume", "ana") not in window.audits.windows)
    again = open_audit(window, qtbot, "resume", "ana")
    assert again is not audit_window
    assert again.current_item == store.items("resume")[3] and again.judged == 3


def test_annotators_do_not_see_each_others_verdicts(window, store, qtbot):
    ana = open_audit(window, qtbot, "two", "ana", population="truth")
    for key in (Qt.Key.Key_1, Qt.Key.Key_2, Qt.Key.Key_4):
        press(ana.table, qtbot, key)
    bo = open_audit(window, qtbot, "two", "bo")
    assert bo.judged == 0 and bo.verdicts == {}
    assert all(bo.model.data(bo.model.index(row, 3)) == "" for row in range(bo.model.rowCount()))
    assert bo.current_item == store.items("two")[0]
    assert "<b>0</b> / 100 judged" in bo.progress_label.text()
    assert "correct" not in bo.progress_label.text() and "correct" not in bo.question_label.text()
    press(bo.table, qtbot, Qt.Key.Key_2)
    assert ana.judged == 3 and labels_of(store, "two", "ana")[store.items("two")[0].ref] == "correct"
    assert store.annotators("two") == ("ana", "bo")


def test_real_not_exercised_is_only_for_edges_the_truth_lacks(window, store, qtbot):
    truth = open_audit(window, qtbot, "truth", "ana", population="truth")
    assert not truth.verdict_actions["not_exercised"].isEnabled()
    assert not truth.verdict_buttons["not_exercised"].isEnabled()
    press(truth.table, qtbot, Qt.Key.Key_N)
    press(truth.table, qtbot, Qt.Key.Key_3)
    assert labels_of(store, "truth", "ana") == {}
    assert "only for edges the ground truth lacks" in truth.statusBar().currentMessage()

    fps = open_audit(window, qtbot, "fps", "ana", population="fp", model="illustrative-weak", size=20)
    first, second = store.items("fps")[:2]
    assert first.edge_class == "FP" and fps.verdict_actions["not_exercised"].isEnabled()
    press(fps.table, qtbot, Qt.Key.Key_N)
    press(fps.table, qtbot, Qt.Key.Key_3)
    assert labels_of(store, "fps", "ana") == {first.ref: "not_exercised", second.ref: "not_exercised"}


def test_the_evidence_shows_the_call_sites_and_what_the_trace_saw(window, state, store, qtbot):
    audit_window = open_audit(window, qtbot, "evidence", "ana", population="truth", blind=False)
    evidence = audit_window.evidence
    row, sites = next((row, sites) for row, item in enumerate(audit_window.items)
                      for sites in [_call_sites(evidence, item)] if sites)
    audit_window.select_row(row)
    item = audit_window.current_item
    assert state.instance_key == item.instance_key and (state.edge.caller, state.edge.callee) == (item.caller,
                                                                                                 item.callee)
    assert evidence.caller_view.marked_lines() == sites  # tinted, and marked in the gutter
    assert evidence.caller_pages.currentWidget() is evidence.caller_view
    assert f"{item.caller}" in evidence.header_label.text() and item.instance_id in evidence.header_label.text()
    assert evidence.trace_label.text().count("No trace run yet") == 1

    lines = tuple(sites[:2])
    run = TraceRun(item.instance_key, item.language, "test", "1", datetime.now(UTC).isoformat(), 0.1, OK,
                   "", edges=(EdgeEvidence(item.caller, item.callee, 8, lines),))
    state.workspace.store_run(run)
    state.run_stored(item.instance_key)
    where = ", ".join(map(str, lines))
    assert f"called 8× from line{'s' if len(lines) > 1 else ''} {where}" in evidence.trace_label.text()
    assert evidence.caller_view.marked_lines() == list(lines)  # the trace's call sites now

    state.workspace.store_run(TraceRun(item.instance_key, item.language, "test", "1",
                                       datetime.now(UTC).isoformat(), 0.1, OK, ""))
    state.run_stored(item.instance_key)
    assert "never saw this call" in evidence.trace_label.text()


def test_the_audit_window_renders(window, qtbot, tmp_path):
    audit_window = open_audit(window, qtbot, "shot", "ana", population="fp", model="illustrative-weak", size=30)
    audit_window.resize(1400, 900)
    press(audit_window.table, qtbot, Qt.Key.Key_1)
    image = audit_window.grab().toImage()
    assert image.width() >= 1000 and image.height() >= 600
    assert image.save(str(tmp_path / "audit_window.png"))


def test_the_new_audit_dialog_reports_errors_inline(window, state, qtbot):
    from traceeval_gui.audit.new_audit_dialog import NewAuditDialog

    create_audit(state.workspace, "taken", size=5, seed=1)
    dialog = NewAuditDialog(state, "ana", window)
    qtbot.addWidget(dialog)
    dialog.name_edit.setText("taken")
    assert "counting" in dialog.summary_label.text()  # the population is counted in the background
    qtbot.waitUntil(lambda: "416</b> ground-truth edges" in dialog.summary_label.text())
    create(dialog, qtbot)
    assert dialog.error_label.isVisibleTo(dialog) and "already exists" in dialog.error_label.text()
    assert dialog.result() == 0 and dialog.audit is None
    dialog.population_combo.setCurrentIndex(dialog.population_combo.findData("fp"))
    assert dialog.model != ""  # a population of a model's errors picks a model
    dialog.model_combo.setCurrentIndex(dialog.model_combo.findData("illustrative-weak"))
    dialog.margin_radio.setChecked(True)
    qtbot.waitUntil(lambda: "75</b> false positives of illustrative-weak" in dialog.summary_label.text())
    assert f"sample <b>{sample_size_for_margin(0.05, 75)}</b> for ±5 % at 95%" in dialog.summary_label.text()
    create(dialog, qtbot)
    assert dialog.result() == 0 and "already exists" in dialog.error_label.text()
    dialog.name_edit.setText("by margin")
    create(dialog, qtbot)
    assert dialog.result() == 1 and dialog.audit.margin == 0.05
    assert dialog.audit.size == sample_size_for_margin(0.05, 75)


def create(dialog, qtbot):
    """Click Create and wait for the background sampling to end (the dialog closes, or shows why not)."""
    dialog.create_button.click()
    assert dialog.create_button.text() == "Sampling…" and not dialog.create_button.isEnabled()
    qtbot.waitUntil(lambda: dialog.create_button.isEnabled())


def _call_sites(evidence, item):
    from traceeval_gui.item_models.instance_detail import InstanceDetailLoader

    detail = InstanceDetailLoader().load(evidence.window().state.workspace, item.instance_key, None)
    if detail.place(item.caller) is None:
        return []
    return detail.call_sites(item.caller, item.callee)


def test_continue_audit_asks_who_you_are_with_the_keyboard(window, state, store, qtbot):
    create_audit(state.workspace, "later", size=10, seed=1, annotators=("ana",))
    window.activateWindow()
    qtbot.waitUntil(lambda: QApplication.activeWindow() is window)
    seen = {}

    def answer():
        dialog = QApplication.activeModalWidget()
        try:
            qtbot.waitUntil(lambda: QApplication.activeWindow() is dialog)
            seen["audits"] = [dialog.audit_combo.itemText(i) for i in range(dialog.audit_combo.count())]
            seen["focused"] = dialog.annotator_combo.lineEdit().hasFocus()
            qtbot.keyClicks(dialog.annotator_combo.lineEdit(), "ana")
            seen["progress"] = dialog.progress_label.text()
            qtbot.keyClick(dialog.annotator_combo.lineEdit(), Qt.Key.Key_Return)
        finally:
            if dialog.isVisible():
                dialog.reject()

    QTimer.singleShot(0, answer)
    press(window, qtbot, Qt.Key.Key_A, Qt.KeyboardModifier.ControlModifier | Qt.KeyboardModifier.ShiftModifier)
    assert seen["audits"] == ["later  (truth, 10 edges; ana 0/10)"] and seen["focused"]
    assert seen["progress"] == "ana has done 0 of 10 edges"
    audit_window = window.audits.windows[("later", "ana")]
    assert audit_window.current_item == store.items("later")[0]
    assert window.audits.open_audit("later", "ana") is audit_window  # one window per audit and annotator


def test_baseline_audits_and_results_open_in_their_own_windows(window, state, qtbot):
    from traceeval_gui.audit.audit_results_window import AuditResultsWindow
    from traceeval_gui.audit.baseline_window import BaselineWindow

    create_audit(state.workspace, "humans", kind="baseline", size=2, seed=1)
    baseline = window.audits.open_audit("humans", "ana")
    results = window.audits.open_results("humans")
    assert isinstance(baseline, BaselineWindow) and baseline.windowTitle() == "Human baseline humans — ana"
    assert isinstance(results, AuditResultsWindow) and "humans" in results.windowTitle()
    assert window.audits.open_audit("humans", "ana") is baseline  # one window per audit and annotator
    assert window.audits.open_audit("nope", "ana") is None
    assert "no audit named 'nope'" in window.statusBar().currentMessage()
    for opened in (baseline, results):
        opened.close()


def test_the_main_window_shows_only_the_auditing_annotators_verdicts(window, qtbot):
    from core.audit.sampling import create_audit
    from core.audit.store import AuditStore

    state = window.state
    create_audit(state.workspace, "private", size=5, seed=2, blind=False)  # the main window follows it
    store = AuditStore(state.workspace)
    first = store.items("private")[0]
    store.give_verdict("private", first.ref, "bob", "wrong", "bob's note")
    audit_window = window.audits.open_audit("private", "ann")
    qtbot.waitUntil(lambda: QApplication.activeWindow() is audit_window)
    assert state.annotator == "ann" and state.instance_key == first.instance_key
    assert state.detail().verdicts == {}  # bob's verdict stays hidden from ann
    with qtbot.waitSignal(state.verdicts_changed):
        press(audit_window.table, qtbot, Qt.Key.Key_1)
    state.select_instance(first.instance_key)  # the verdict moved the audit on, maybe to another program
    assert {edge: v.auditor for edge, v in state.detail().verdicts.items()} == {(first.caller, first.callee): "ann"}
    audit_window.close()
    assert state.annotator is None
    assert state.detail().verdicts[(first.caller, first.callee)].auditor == "ann"  # the newest of anyone's


def pick_file_when_asked(qtbot, path, seen):
    """Fill in the file dialog the next action opens, as a person does: in the folder it opens on, type the
    file's name and click Open."""
    def fill_in():
        dialog = QApplication.activeModalWidget()
        try:
            assert isinstance(dialog, QFileDialog), dialog
            seen["caption"] = dialog.windowTitle()
            assert Path(dialog.directory().path()) == path.parent
            qtbot.keyClicks(dialog.findChild(QLineEdit, "fileNameEdit"), path.name)
            buttons = dialog.findChild(QDialogButtonBox)
            qtbot.mouseClick(buttons.button(QDialogButtonBox.StandardButton.Open), Qt.MouseButton.LeftButton)
        finally:
            if dialog is not None and dialog.isVisible():
                seen["left open"] = dialog.selectedFiles()
                dialog.reject()

    QTimer.singleShot(0, fill_in)


@pytest.mark.parametrize("how", ["menu", "shortcut"])
def test_merge_workspace_from_the_audit_menu_shows_the_merged_audits_agreement(window, qtbot, tmp_path, how):
    from core.dataset.indexing import open_dataset
    from resources import DEMO_DATASET

    state = window.state
    create_audit(state.workspace, "pair", size=6, seed=4)
    store = AuditStore(state.workspace)
    items = store.items("pair")
    bob_path = tmp_path / "bob.sqlite"
    bob_ws, _ = open_dataset(DEMO_DATASET, bob_path)
    with bob_ws:
        create_audit(bob_ws, "pair", size=6, seed=4)
        for n, item in enumerate(items):
            store.give_verdict("pair", item.ref, "ann", "correct")
            AuditStore(bob_ws).give_verdict("pair", item.ref, "bob", "wrong" if n == 0 else "correct")
    assert ("Audit", "Merge Workspace", "Ctrl+Shift+M") in window.keyboard_dialog().rows
    seen = {}
    pick_file_when_asked(qtbot, bob_path, seen)
    if how == "menu":
        menu_action(window, "Audit", "Merge Workspace…").trigger()
    else:
        window.activateWindow()
        qtbot.waitUntil(lambda: QApplication.activeWindow() is window)
        press(window, qtbot, Qt.Key.Key_M, Qt.KeyboardModifier.ControlModifier | Qt.KeyboardModifier.ShiftModifier)
    assert seen == {"caption": "Merge another annotator's workspace"}
    qtbot.waitUntil(lambda: ("pair", "results") in window.audits.windows, timeout=20_000)
    results = window.audits.windows[("pair", "results")]
    assert results.merge_pane.isVisible()
    assert store.labels("pair")[items[0].ref] == {"ann": "correct", "bob": "wrong"}
    qtbot.waitUntil(lambda: results.report is not None and results.report.agreement is not None, timeout=20_000)
    assert results.report.agreement.overall.items == 6 and len(results.report.disagreements) == 1
    results.close()


def test_an_audit_window_that_cannot_open_says_why_in_the_window(window, qtbot, monkeypatch):
    """Another process holds the workspace's write lock past the wait: the window says so, no traceback."""
    from core.dataset.workspace_db import connect

    state = window.state
    create_audit(state.workspace, "locked", size=5, seed=1)
    conn = state.workspace.db.conn  # the window's connection gives up after 0.3 s, not the default 60 s
    conn.lock_wait = 0.3
    conn.execute("pragma busy_timeout = 300")
    holder = connect(state.workspace.path)
    holder.execute("BEGIN IMMEDIATE")
    try:
        def choose():
            dialog = QApplication.activeModalWidget()
            dialog.annotator_combo.setEditText("")
            qtbot.keyClicks(dialog.annotator_combo.lineEdit(), "newcomer")  # a new annotator: a write
            qtbot.keyClick(dialog.annotator_combo, Qt.Key.Key_Return)

        QTimer.singleShot(0, choose)
        menu_action(window, "Audit", "Continue Audit…").trigger()
        qtbot.waitUntil(lambda: window.findChild(QMessageBox, "audit_failure") is not None)
    finally:
        holder.rollback()
        holder.close()
    box = window.findChild(QMessageBox, "audit_failure")
    assert box.windowTitle() == "Audit locked did not open"
    assert "busy: another process kept the workspace locked" in box.informativeText()
    assert not box.detailedText()  # an expected failure: the message says it all, no traceback
    assert window.statusBar().currentMessage().startswith("Audit locked did not open: ")
    assert ("locked", "newcomer") not in window.audits.windows
    box.close()


def test_the_audit_window_opens_within_its_screen(window, qtbot):
    audit_window = open_audit(window, qtbot, "fits", "ann", population="truth")
    room = audit_window.screen().availableGeometry()  # offscreen: 800x800, less than the 1400x900 it prefers
    assert audit_window.width() <= room.width() and audit_window.height() <= room.height()
