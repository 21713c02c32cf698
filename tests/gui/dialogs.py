"""Driving the window's dialogs as a person does: typing into fields, and Model > Run Model… end to end."""
from __future__ import annotations

from PySide6.QtCore import Qt, QTimer
from PySide6.QtWidgets import QApplication

from tests.gui.menus import menu_action


def replace_text(qtbot, widget, text):
    """Select what the field holds and type `text` over it."""
    widget.setFocus()
    widget.selectAll()
    qtbot.keyClick(widget, Qt.Key.Key_Delete)
    qtbot.keyClicks(widget, text)


def drive_run_model_dialog(qtbot, window, steps) -> dict:
    """Trigger Model > Run Model…, run `steps(dialog)` once the modal dialog shows. A dialog the steps leave
    open (they did not start a run, or it refused) is cancelled; its error line is returned as "left open"."""
    from traceeval_gui.runs.run_model_dialog import RunModelDialog

    outcome = {}

    def check():
        dialog = next((w for w in QApplication.topLevelWidgets() if isinstance(w, RunModelDialog) and w.isVisible()),
                      None)
        if dialog is None:
            QTimer.singleShot(50, check)
            return
        try:
            steps(dialog)
            outcome["done"] = True
        finally:
            if dialog.isVisible():
                outcome["left open"] = dialog.error_label.text()
                dialog.reject()

    QTimer.singleShot(50, check)
    menu_action(window, "Model", "Run Model…").trigger()
    assert outcome.get("done"), "the steps in the dialog did not finish"
    return outcome
