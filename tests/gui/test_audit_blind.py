"""Blind audits in the window: chosen in New Audit (on by default for a ground-truth audit), said in the audit
window, and nothing there (evidence, header, table, tooltips, progress, the main window behind it) tells an
edge's class, the model or its scores until the annotator has judged the edge."""
import re

from PySide6.QtCore import QPoint, Qt, QTimer
from PySide6.QtWidgets import QApplication, QLabel

from core.audit.store import AuditStore

MODEL = "illustrative-weak"
CLASS_WORDS = re.compile(r"\b(TP|FP|FN)\b|found by|missed by|not in the ground truth|false (positive|negative)")


def new_audit_in_the_dialog(window, qtbot, name, population=None, blind_click=False):
    """Audit ▸ New Audit by its shortcut, filled in as a person does; returns what the dialog showed."""
    window.activateWindow()
    qtbot.waitUntil(lambda: QApplication.activeWindow() is window)
    seen = {}

    def fill_in():
        dialog = QApplication.activeModalWidget()
        try:
            qtbot.waitUntil(lambda: QApplication.activeWindow() is dialog)
            if population is not None:
                dialog.population_combo.setCurrentIndex(dialog.population_combo.findData(population))
                dialog.model_combo.setCurrentIndex(dialog.model_combo.findData(MODEL))
            seen["blind by default"] = dialog.blind_box.isChecked()
            if blind_click:
                box = dialog.blind_box  # its tick box, at the left
                qtbot.mouseClick(box, Qt.MouseButton.LeftButton, pos=QPoint(8, box.height() // 2))
            seen["blind"] = dialog.blind_box.isChecked()
            qtbot.keyClick(dialog.name_edit, Qt.Key.Key_A, Qt.KeyboardModifier.ControlModifier)
            qtbot.keyClicks(dialog.name_edit, name)
            qtbot.keyClick(dialog.name_edit, Qt.Key.Key_A, Qt.KeyboardModifier.AltModifier)
            qtbot.keyClicks(dialog.annotators_edit, "ana")
            qtbot.keyClick(dialog.annotators_edit, Qt.Key.Key_Return)
            qtbot.waitUntil(lambda: not dialog.isVisible())
        finally:
            if dialog.isVisible():
                seen["left open"] = dialog.error_label.text()
                dialog.reject()

    QTimer.singleShot(0, fill_in)
    qtbot.keyClick(window, Qt.Key.Key_N, Qt.KeyboardModifier.ControlModifier | Qt.KeyboardModifier.ShiftModifier)
    assert "left open" not in seen, seen
    audit_window = window.audits.windows[(name, "ana")]
    qtbot.waitUntil(lambda: QApplication.activeWindow() is audit_window)
    return audit_window, seen


def everything_shown(audit_window, row):
    """Every text the audit window shows or offers on hover while `row` is the current edge."""
    model = audit_window.model
    texts = [label.text() for label in audit_window.findChildren(QLabel) if label.isVisible()]
    texts += [label.toolTip() for label in audit_window.findChildren(QLabel)]
    texts += [str(model.data(model.index(r, c), role)) for r in range(model.rowCount()) for c in range(4)
              for role in (Qt.ItemDataRole.DisplayRole, Qt.ItemDataRole.ToolTipRole)]
    texts += [button.toolTip() for button in audit_window.verdict_buttons.values()]
    texts += [audit_window.windowTitle(), audit_window.statusBar().currentMessage()]
    assert audit_window.current_row == row
    return "\n".join(texts)


def test_a_blind_audit_hides_class_model_and_scores_until_the_verdict(window, qtbot):
    state = window.state
    audit_window, seen = new_audit_in_the_dialog(window, qtbot, "mixed", population="all", blind_click=True)
    assert seen == {"blind by default": False, "blind": True}  # a model's audit is open unless asked
    store = AuditStore(state.workspace)
    assert store.get("mixed").blind
    items = store.items("mixed")
    assert {"TP", "FP", "FN"} <= {item.edge_class for item in items}
    assert "Blind audit" in audit_window.who_label.text()
    shown_before = state.instance_key

    for row in range(4):  # the first edges, each before its verdict: nothing tells its class or the model
        audit_window.select_row(row)
        text = everything_shown(audit_window, row)
        assert not CLASS_WORDS.search(text), CLASS_WORDS.search(text)
        assert MODEL not in text and "F1" not in text
        assert "class hidden until your verdict" in audit_window.evidence.header_label.text()
        assert audit_window.verdict_buttons["not_exercised"].isEnabled()  # offered on every edge alike
        assert state.instance_key == shown_before  # the main window (classes, scores) does not follow
    audit_window.select_row(0)
    first = items[0]
    qtbot.keyClick(audit_window.table, Qt.Key.Key_1)
    assert audit_window.current_row == 1
    qtbot.keyClick(audit_window.table, Qt.Key.Key_K)  # back to the judged edge: now it may be revealed
    header = audit_window.evidence.header_label.text()
    assert f">&nbsp;{first.edge_class}&nbsp;<" in header and "class hidden" not in header
    if first.edge_class != "FP":
        assert MODEL in header
    assert state.instance_key == first.instance_key  # and the main window follows it


def test_a_ground_truth_audit_is_blind_by_default_and_says_so(window, qtbot):
    audit_window, seen = new_audit_in_the_dialog(window, qtbot, "truth")
    assert seen == {"blind by default": True, "blind": True}
    assert AuditStore(window.state.workspace).get("truth").blind
    assert audit_window.who_label.text().startswith("<b>Blind audit</b>")
    assert "until you give your verdict" in audit_window.who_label.toolTip()
    assert "ground-truth" not in audit_window.who_label.text()
