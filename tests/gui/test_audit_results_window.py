"""The audit results window as a new user meets it: two annotators judge the same audit in separate workspaces,
one merges the other's file and sees kappa and the disputes, settles a dispute with the keyboard, reads the
corrected F1 and exports the report; merging again adds nothing."""
import csv
import io
import json

import pytest
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QApplication

from core.audit.agreement import cohen_kappa
from core.audit.reports import audit_report
from core.audit.sampling import create_audit
from core.audit.store import AuditStore
from core.dataset.indexing import open_dataset
from core.errors import UsageError
from resources import DEMO_DATASET
from traceeval_gui.audit.audit_results_window import AuditResultsWindow
from traceeval_gui.audit.disagreements_panel import ROW_ROLE

TIMEOUT_MS = 30_000
AUDIT = {"population": "all", "model": "illustrative-weak", "size": 30, "seed": 3}
WEAK = "illustrative-weak"


def alice_label(item) -> str:
    return "not_exercised" if item.edge_class == "FP" else "correct"


def bob_label(item) -> str:
    """Bob agrees on the false positives (real, not exercised) and calls every fourth other edge wrong."""
    return "not_exercised" if item.edge_class == "FP" else "wrong" if item.position % 4 == 0 else "correct"


@pytest.fixture
def bob_path(window, state, tmp_path):
    """Alice judged the audit in the window's workspace; Bob the same audit in his own file."""
    create_audit(state.workspace, "spot", **AUDIT)
    store = AuditStore(state.workspace)
    for item in store.items("spot"):
        store.give_verdict("spot", item.ref, "alice", alice_label(item), "seen in main()" if item.position == 0 else "")
    path = tmp_path / "bob.sqlite"
    bob, _ = open_dataset(DEMO_DATASET, path)
    with bob:
        create_audit(bob, "spot", **AUDIT)
        bob_store = AuditStore(bob)
        for item in bob_store.items("spot"):
            bob_store.give_verdict("spot", item.ref, "bob", bob_label(item))
    return path


def open_results(window, qtbot, name="spot") -> AuditResultsWindow:
    """Through the Audit menu's hook, as the menu opens it; waits for the report."""
    results = window.audits.open_results(name)
    assert results.is_computing() and "computing…" in results.status_label.text()
    assert results.disagreements.summary_label.text().find("computing…") >= 0
    qtbot.waitUntil(lambda: results.report is not None and not results.is_computing(), timeout=TIMEOUT_MS)
    return results


def merge(results, qtbot, path):
    with qtbot.waitSignal(results.merged, timeout=TIMEOUT_MS) as merged:
        results.merge_from(path)
    with qtbot.waitSignal(results.report_shown, timeout=TIMEOUT_MS):
        pass
    return merged.args[0]


def test_merging_bobs_workspace_shows_kappa_and_exactly_the_disagreements(window, state, bob_path, qtbot):
    results = open_results(window, qtbot)
    assert results.windowTitle() == "Audit results — spot"
    assert results.audit_combo.currentData() == "spot"
    overall = results.agreement.rows()[("overall", "")]
    assert overall[1:5] == ("—", "0", "—", "—")  # one annotator: nothing to agree on yet
    assert "Only one annotator" in results.agreement.note.text()
    assert results.disagreements.table.rowCount() == 0

    report = merge(results, qtbot, bob_path)
    assert report.verdicts_added == 30 and not report.conflicts
    assert results.merge_pane.isVisible()
    assert "30 verdicts" in results.merge_pane.summary_label.text()
    assert results.report.annotators == ("alice", "bob")

    items = AuditStore(state.workspace).items("spot")
    ratings = {item.ref: {"alice": alice_label(item), "bob": bob_label(item)} for item in items}
    kappa = cohen_kappa(ratings, "alice", "bob")
    rows = results.agreement.rows()
    assert rows[("overall", "")][:5] == ("Overall", "alice, bob", "30", rows[("overall", "")][3], f"{kappa:.3f}")
    python = [i for i in items if i.language == "python"]
    python_kappa = cohen_kappa({i.ref: ratings[i.ref] for i in python}, "alice", "bob")
    assert rows[("language", "python")][4] == ("—" if python_kappa is None else f"{python_kappa:.3f}")
    assert ("edge_class", "FP") in rows

    differing = {i.ref for i in items if alice_label(i) != bob_label(i)}
    table = results.disagreements.table
    shown = {table.item(row, 0).data(ROW_ROLE).item.ref for row in range(table.rowCount())}
    assert shown == differing and table.rowCount() == len(differing) > 0
    headers = [table.horizontalHeaderItem(c).text() for c in range(table.columnCount())]
    assert headers[-3:] == ["alice", "bob", "Adjudication"]
    first = table.item(0, 0).data(ROW_ROLE)
    assert table.item(0, headers.index("bob")).text() == "wrong"
    assert table.item(0, headers.index("Adjudication")).text() == "open"
    noted = next(r for r in range(table.rowCount()) if table.item(r, 0).data(ROW_ROLE).item.position == 0)
    assert "seen in main()" in table.item(noted, headers.index("alice")).toolTip()
    assert first.item.position == min(i.position for i in items if i.ref in differing)
    assert results.tabs.tabText(2) == f"Disagreements ({len(differing)} open)"


def test_a_dispute_is_settled_with_the_keyboard(window, state, bob_path, qtbot, tmp_path):
    results = open_results(window, qtbot)
    merge(results, qtbot, bob_path)
    qtbot.waitUntil(lambda: QApplication.activeWindow() is results)
    qtbot.keyClick(results, Qt.Key.Key_3, Qt.KeyboardModifier.ControlModifier)  # View ▸ Disagreements
    panel = results.disagreements
    assert results.tabs.currentWidget() is panel
    open_before = panel.open_count()
    panel.table.setFocus()
    row = panel.current_row()
    assert panel.current_index() == 0 and row.adjudication is None

    qtbot.keyClick(panel.table, Qt.Key.Key_3)  # real, not exercised: not for an edge of the ground truth
    assert panel.chosen_label() is None and "only for false positives" in panel.message_label.text()
    qtbot.keyClick(panel.table, Qt.Key.Key_1)
    assert panel.chosen_label() == "correct"
    panel.adjudicator_edit.clear()
    qtbot.keyClick(panel.table, Qt.Key.Key_Return, Qt.KeyboardModifier.ControlModifier)
    assert "adjudicator's name" in panel.message_label.text()
    assert AuditStore(state.workspace).adjudications("spot") == {}

    qtbot.keyClicks(panel.adjudicator_edit, "carol")
    qtbot.keyClick(panel.adjudicator_edit, Qt.Key.Key_Backtab, Qt.KeyboardModifier.ShiftModifier)  # up to the reason
    qtbot.keyClicks(panel.reason_edit, "main() calls it 2 times")  # digits are text here, not verdict keys
    assert panel.reason_edit.text() == "main() calls it 2 times" and panel.chosen_label() == "correct"
    with qtbot.waitSignal(panel.settled) as settled:
        qtbot.keyClick(panel.reason_edit, Qt.Key.Key_Return, Qt.KeyboardModifier.ControlModifier)
    stored = AuditStore(state.workspace).adjudications("spot")[row.item.ref]
    assert settled.args[0] == stored
    assert (stored.label, stored.adjudicator, stored.reason) == ("correct", "carol", "main() calls it 2 times")
    settled_row = next(r for r in range(panel.table.rowCount())
                       if panel.table.item(r, 0).data(ROW_ROLE).item.ref == row.item.ref)
    assert panel.table.item(settled_row, panel.table.columnCount() - 1).text() == "correct — carol"
    assert panel.current_index() == 1 and panel.current_row().adjudication is None  # the next open one
    assert panel.table.hasFocus() and panel.reason_edit.text() == ""
    assert panel.adjudicator_edit.text() == "carol"  # remembered for the next one

    assert results.is_computing()  # the report follows the adjudication; meanwhile no stale export
    with pytest.raises(UsageError, match="being updated"):
        results.export_to(tmp_path / "stale.md")
    qtbot.waitUntil(lambda: not results.is_computing(), timeout=TIMEOUT_MS)
    assert results.status_label.text() == ""
    assert panel.open_count() == open_before - 1
    assert results.tabs.tabText(2) == f"Disagreements ({open_before - 1} open)"
    assert results.report.finals.by_how["adjudicated"] == 1
    assert panel.current_row().item.ref != row.item.ref  # the selection stayed on the next open dispute
    assert panel.rows[-1].item.ref == row.item.ref  # settled ones sort after the open ones
    assert "carol" in results.report_browser.toPlainText()


def test_the_corrected_f1_tab_shows_the_weak_model_corrected_beside_the_paper(window, state, bob_path, qtbot):
    results = open_results(window, qtbot)
    merge(results, qtbot, bob_path)
    expected = audit_report(state.workspace, "spot")
    weak = next(m for m in expected.corrections.models if m.model == WEAK)
    paper, corrected = weak.paper.average.f1, weak.corrected.average.f1
    assert weak.fp_to_tp >= 1 and corrected != paper  # both judged its FPs real calls, not exercised
    shown = next(m for m in results.report.corrections.models if m.model == WEAK)
    assert (shown.paper.average.f1, shown.corrected.average.f1) == (paper, corrected)
    text = results.corrections_browser.toPlainText()
    assert f"{paper * 100:.1f}" in text and f"{corrected * 100:.1f}" in text
    assert f"{weak.fp_to_tp} FP → TP" in text and "corrected truth = truth +" in text
    assert "Ground-truth edges that are real calls" in text and "CI" in text
    assert "What the audited false positives are" in text and "real, not exercised" in text


def test_export_writes_markdown_json_and_csv_that_parse(window, bob_path, qtbot, tmp_path):
    results = open_results(window, qtbot)
    merge(results, qtbot, bob_path)
    markdown = results.export_to(tmp_path / "spot.md").read_text(encoding="utf-8")
    assert markdown.startswith("# Audit report: spot") and "Cohen κ" in markdown and "corrected" in markdown
    data = json.loads(results.export_to(tmp_path / "spot.json").read_text(encoding="utf-8"))
    assert data["annotators"] == ["alice", "bob"] and data["corrected_f1"]["rule"]
    assert data["agreement"]["overall"]["cohen_kappa"] == results.report.agreement.overall.cohen_kappa
    rows = list(csv.DictReader(io.StringIO(results.export_to(tmp_path / "items.txt", "csv").read_text("utf-8"))))
    assert len(rows) == 30 and {"alice_label", "bob_label", "final_label"} <= set(rows[0])


def test_merging_the_same_file_again_reports_nothing_new_and_conflicts_are_listed(window, state, bob_path, qtbot):
    results = open_results(window, qtbot)
    assert merge(results, qtbot, bob_path).changed
    again = merge(results, qtbot, bob_path)
    assert not again.changed and again.summary().startswith("nothing new")
    assert "Nothing new in bob.sqlite" in results.merge_pane.summary_label.text()
    assert results.report.progress.annotators[1].judged == 30

    item = AuditStore(state.workspace).items("spot")[1]
    with open_dataset(DEMO_DATASET, bob_path)[0] as bob:  # Bob changes his mind on item 2, in his file
        AuditStore(bob).give_verdict("spot", item.ref, "bob", "unsure", "not sure after all")
    AuditStore(state.workspace).give_verdict("spot", item.ref, "bob", "wrong", "typed in alice's file")
    report = merge(results, qtbot, bob_path)
    assert len(report.conflicts) == 1
    listed = [results.merge_pane.conflict_list.item(i).text() for i in range(results.merge_pane.conflict_list.count())]
    assert listed == [f"conflict: {report.conflicts[0].describe()}"]
    assert "verdict by bob" in listed[0] and "1 conflict" in results.merge_pane.summary_label.text()


def test_an_unknown_audit_or_a_bad_file_is_a_one_line_message(window, state, qtbot, tmp_path):
    results = AuditResultsWindow(state, "nope", window)
    qtbot.addWidget(results)
    with qtbot.waitSignal(results.failed, timeout=TIMEOUT_MS) as failed:
        pass
    assert "no audit named 'nope'" in failed.args[0] and "\n" not in failed.args[0]
    assert "no audit named" in results.status_label.text()
    with pytest.raises(UsageError, match="no audit report"):
        results.export_to(tmp_path / "x.md")
    junk = tmp_path / "junk.sqlite"
    junk.write_text("not a database")
    with qtbot.waitSignal(results.failed, timeout=TIMEOUT_MS) as failed:
        results.merge_from(junk)
    assert failed.args[0].startswith("Merge failed:") and "junk.sqlite" in failed.args[0]


def test_a_baseline_audit_has_no_agreement_tabs_and_the_audit_combo_switches(window, state, qtbot):
    create_audit(state.workspace, "base", kind="baseline", size=3, seed=1)
    create_audit(state.workspace, "spot", **AUDIT)
    results = open_results(window, qtbot, "base")
    assert [results.tabs.isTabEnabled(i) for i in range(4)] == [True, False, False, True]
    assert "Humans beside the models" in results.report_browser.toPlainText()
    with qtbot.waitSignal(results.report_shown, timeout=TIMEOUT_MS) as shown:
        results.audit_combo.setCurrentIndex(results.audit_combo.findData("spot"))
    assert shown.args[0].audit.name == "spot" and results.windowTitle() == "Audit results — spot"
    assert all(results.tabs.isTabEnabled(i) for i in range(4))
    assert "no one has judged this audit" in results.disagreements.summary_label.text()
    assert not results.disagreements.table.isVisibleTo(results)

    qtbot.waitUntil(lambda: QApplication.activeWindow() is results)
    with qtbot.waitSignal(results.report_shown, timeout=TIMEOUT_MS):
        qtbot.keyClick(results, Qt.Key.Key_F5)
    keys = {(group, name): k for group, name, k in results.keyboard_dialog().rows}
    assert keys[("Results", "Refresh")] == "F5" and keys[("View", "3 Disagreements")] == "Ctrl+3"
    assert keys[("Disagreements", "Settle the selected disagreement (Enter in the reason)")] == "Ctrl+Enter"


def test_smoke_renders_every_tab(window, bob_path, qtbot, tmp_path):
    results = open_results(window, qtbot)
    merge(results, qtbot, bob_path)
    results.resize(1400, 900)
    for index in range(results.tabs.count()):
        results.show_tab(index)
        image = results.grab().toImage()
        path = tmp_path / f"audit-results-{index}.png"
        assert image.save(str(path)) and path.stat().st_size > 10_000
        assert not image.isNull() and image.width() == 1400
