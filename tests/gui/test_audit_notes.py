"""Notes in the audit window belong to the edge they were typed for: given with the verdict by keyboard,
kept when the verdict comes while the note is still being written (or the window moves on), and brought
back by undo together with the verdict."""
import pytest
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QApplication

from core.audit.sampling import create_audit
from core.audit.store import AuditStore


@pytest.fixture
def audit(window, qtbot):
    """A 10-edge audit open for ana; returns (its window, the store, its items)."""
    create_audit(window.state.workspace, "notes", size=10, seed=3)
    audit_window = window.audits.open_audit("notes", "ana")
    qtbot.waitUntil(lambda: QApplication.activeWindow() is audit_window)
    store = AuditStore(window.state.workspace)
    return audit_window, store, store.items("notes")


def current(store):
    """edge -> (label, note) of ana's current verdicts."""
    return {ref: (v.label, v.note) for (_, ref), v in store.current_verdicts("notes", "ana").items()}


def test_a_note_typed_then_a_verdict_by_keyboard_go_together(audit, qtbot):
    audit_window, store, items = audit
    table, note = audit_window.table, audit_window.note_edit
    qtbot.keyClick(table, Qt.Key.Key_E)
    assert note.hasFocus() and audit_window.note_label.text() == "&Note on #1:"
    qtbot.keyClicks(note, "called through a callback")
    qtbot.keyClick(note, Qt.Key.Key_Return)  # Enter: back to the list, the note kept for #1
    qtbot.keyClick(table, Qt.Key.Key_1)
    assert current(store) == {items[0].ref: ("correct", "called through a callback")}

    qtbot.keyClick(table, Qt.Key.Key_E)  # on #2 now: a note, then Tab out of the field, then the verdict
    qtbot.keyClicks(note, "dead code")
    qtbot.keyClick(note, Qt.Key.Key_Tab)
    assert audit_window.table.hasFocus()  # Tab goes on to the list
    qtbot.keyClick(table, Qt.Key.Key_W)
    assert current(store)[items[1].ref] == ("wrong", "dead code")
    assert audit_window.current_item == items[2] and note.text() == ""


def test_a_note_still_being_typed_after_the_verdict_goes_to_the_edge_it_was_typed_for(audit, qtbot):
    audit_window, store, items = audit
    note = audit_window.note_edit
    qtbot.keyClick(audit_window.table, Qt.Key.Key_E)
    qtbot.keyClicks(note, "looks real")
    qtbot.mouseClick(audit_window.verdict_buttons["correct"], Qt.MouseButton.LeftButton)  # focus stays in the note
    assert current(store) == {items[0].ref: ("correct", "looks real")}
    assert audit_window.current_item == items[1] and note.hasFocus()
    assert audit_window.note_label.text() == "&Note on #1 (the edge you wrote it for):"
    qtbot.keyClicks(note, ", seen at line 12")  # still writing about #1
    qtbot.keyClick(note, Qt.Key.Key_Return)
    assert current(store) == {items[0].ref: ("correct", "looks real, seen at line 12")}
    assert audit_window.pending_notes == {}  # nothing landed on #2
    assert audit_window.note_label.text() == "&Note on #2:" and note.text() == ""
    assert audit_window.table.hasFocus() and audit_window.current_item == items[1]

    qtbot.keyClick(audit_window.table, Qt.Key.Key_E)  # moving on while writing: the note stays with #2
    qtbot.keyClicks(note, "unsure about the receiver")
    qtbot.mouseClick(audit_window.next_button, Qt.MouseButton.LeftButton)
    assert audit_window.current_item == items[2]
    qtbot.keyClick(note, Qt.Key.Key_Escape)  # Esc drops what was typed, and the field is #3's again
    assert audit_window.pending_notes == {}
    assert note.text() == "" and audit_window.note_label.text() == "&Note on #3:"

    qtbot.keyClick(audit_window.table, Qt.Key.Key_K)
    qtbot.keyClick(audit_window.table, Qt.Key.Key_E)
    qtbot.keyClicks(note, "unsure about the receiver")
    qtbot.mouseClick(audit_window.next_button, Qt.MouseButton.LeftButton)
    audit_window.table.setFocus()  # leaving the field keeps the note for the edge it was typed for
    assert audit_window.pending_notes == {items[1].ref: "unsure about the receiver"}
    assert note.text() == "" and audit_window.note_label.text() == "&Note on #3:"
    qtbot.keyClick(audit_window.table, Qt.Key.Key_K)
    assert note.text() == "unsure about the receiver"
    qtbot.keyClick(audit_window.table, Qt.Key.Key_4)
    assert current(store)[items[1].ref] == ("unsure", "unsure about the receiver")


def test_undo_brings_back_the_verdict_and_its_note(audit, qtbot):
    audit_window, store, items = audit
    table, note = audit_window.table, audit_window.note_edit
    qtbot.keyClick(table, Qt.Key.Key_E)
    qtbot.keyClicks(note, "first thought")
    qtbot.keyClick(note, Qt.Key.Key_Return)
    qtbot.keyClick(table, Qt.Key.Key_1)
    assert current(store) == {items[0].ref: ("correct", "first thought")}
    qtbot.keyClick(table, Qt.Key.Key_Z, Qt.KeyboardModifier.ControlModifier)
    assert current(store) == {} and audit_window.current_item == items[0]
    assert note.text() == "first thought"  # the note is back in the form, for the verdict given next
    assert "note is kept" in audit_window.statusBar().currentMessage()
    qtbot.keyClick(table, Qt.Key.Key_2)
    assert current(store) == {items[0].ref: ("wrong", "first thought")}

    qtbot.keyClick(table, Qt.Key.Key_K)  # change the note of the judged edge, then undo that change
    qtbot.keyClick(table, Qt.Key.Key_E)
    note.clear()
    qtbot.keyClicks(note, "second thought")
    qtbot.keyClick(note, Qt.Key.Key_Return)
    assert current(store) == {items[0].ref: ("wrong", "second thought")}
    qtbot.keyClick(table, Qt.Key.Key_Z, Qt.KeyboardModifier.ControlModifier)
    assert current(store) == {items[0].ref: ("wrong", "first thought")}
    assert note.text() == "first thought" and "wrong" in audit_window.question_label.text()
