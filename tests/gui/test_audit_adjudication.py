"""Adjudication as the adjudicator meets it: the disputed edge's evidence (the caller's code with its call
sites, the callee's definition) beside every annotator's verdict and note, and a form whose Tab order runs
top to bottom as laid out and as its hint says."""
import html

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QApplication

from core.audit.store import AuditStore
from tests.gui.test_audit_results_window import bob_path, merge, open_results  # noqa: F401 (a fixture)
from traceeval_gui.audit.disagreements_panel import KEYS_HINT


def show_disagreements(window, qtbot, bob_path):  # noqa: F811
    results = open_results(window, qtbot)
    merge(results, qtbot, bob_path)
    qtbot.waitUntil(lambda: QApplication.activeWindow() is results)
    qtbot.keyClick(results, Qt.Key.Key_3, Qt.KeyboardModifier.ControlModifier)  # View ▸ Disagreements
    return results, results.disagreements


def test_adjudication_shows_the_code_and_every_annotators_verdict_and_note(window, state, bob_path, qtbot):  # noqa: F811
    _results, panel = show_disagreements(window, qtbot, bob_path)
    row = panel.current_row()
    assert row.item.position == 0  # alice wrote "seen in main()" on it; bob left no note
    evidence = panel.evidence  # the audit window's evidence panel, the one home of this view
    assert evidence.isVisible() and evidence.caller_pages.currentWidget() is evidence.caller_view
    assert html.escape(row.item.caller) in evidence.caller_title.text()
    assert evidence.caller_view.toPlainText().strip() and evidence.caller_view.first_line >= 1
    sites = evidence.detail.call_sites(row.item.caller, row.item.callee)
    assert evidence.caller_view.marked_lines() == sites  # the call sites, tinted
    assert html.escape(row.item.callee) in evidence.callee_title.text()
    assert f">&nbsp;{row.item.edge_class}&nbsp;<" in evidence.header_label.text()  # the adjudicator sees the class
    verdicts = panel.verdicts_label.text()
    assert "alice" in verdicts and "bob" in verdicts
    assert "“seen in main()”" in verdicts and "no note" in verdicts
    assert verdicts.index("alice") < verdicts.index("seen in main()") < verdicts.index("bob")

    panel.table.setFocus()
    qtbot.keyClick(panel.table, Qt.Key.Key_Down)  # another dispute: its own code and verdicts
    other = panel.current_row()
    assert other.item.ref != row.item.ref and other.item.callee in evidence.callee_title.text()
    assert "seen in main()" not in panel.verdicts_label.text()


def test_the_tab_order_follows_the_form_and_its_hint(window, state, bob_path, qtbot):  # noqa: F811
    _results, panel = show_disagreements(window, qtbot, bob_path)
    assert KEYS_HINT in panel.summary_label.text()
    assert KEYS_HINT == "Pick a row, 1–4 for the final verdict, Tab to the reason, Enter to settle."
    panel.adjudicator_edit.setText("carol")
    panel.table.setFocus()
    row = panel.current_row()

    def tab(backwards=False):
        widget = QApplication.focusWidget()
        if backwards:
            qtbot.keyClick(widget, Qt.Key.Key_Backtab, Qt.KeyboardModifier.ShiftModifier)
        else:
            qtbot.keyClick(widget, Qt.Key.Key_Tab)
        return QApplication.focusWidget()

    assert tab() is panel.label_buttons["correct"]  # from the list into the verdicts (nothing picked yet)
    panel.table.setFocus()
    qtbot.keyClick(panel.table, Qt.Key.Key_2)  # the hint: 1–4 for the final verdict …
    assert panel.chosen_label() == "wrong" and QApplication.focusWidget() is panel.label_buttons["wrong"]
    assert tab() is panel.reason_edit  # … Tab to the reason
    assert tab() is panel.adjudicator_edit  # then down the form as laid out
    assert tab() is panel.settle_button
    assert tab(backwards=True) is panel.adjudicator_edit
    assert tab(backwards=True) is panel.reason_edit
    assert tab(backwards=True) is panel.label_buttons["wrong"]
    assert tab(backwards=True) is panel.table
    form = [panel.label_buttons["correct"], panel.reason_edit, panel.adjudicator_edit, panel.settle_button]
    tops = [w.mapTo(panel, w.rect().topLeft()).y() for w in form]
    assert tops == sorted(tops)  # the chain runs top to bottom on screen

    qtbot.keyClick(panel.table, Qt.Key.Key_2)
    tab()
    qtbot.keyClicks(panel.reason_edit, "no path from main reaches it")
    with qtbot.waitSignal(panel.settled):
        qtbot.keyClick(panel.reason_edit, Qt.Key.Key_Return)  # … Enter to settle
    stored = AuditStore(state.workspace).adjudications("spot")[row.item.ref]
    assert (stored.label, stored.adjudicator, stored.reason) == ("wrong", "carol", "no path from main reaches it")
