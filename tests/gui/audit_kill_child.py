"""Run by tests/gui/test_audit_kill.py as a real process: the workbench opens an audit and an annotator
gives verdicts with the keyboard, printing each one once its key has been handled, until killed."""
import os
import sys
import time

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
os.environ.setdefault("PYQTGRAPH_QT_LIB", "PySide6")

from PySide6.QtCore import Qt
from PySide6.QtTest import QTest
from PySide6.QtWidgets import QApplication

KEYS = (Qt.Key.Key_1, Qt.Key.Key_2, Qt.Key.Key_4, Qt.Key.Key_C, Qt.Key.Key_W, Qt.Key.Key_U)


def main(dataset: str, workspace: str, audit: str, annotator: str) -> None:
    from traceeval_gui.state.app_state import AppState
    from traceeval_gui.workbench.main_window import MainWindow

    app = QApplication([sys.argv[0]])
    state = AppState()
    window = MainWindow(state, settings=None, interactive=False)
    window.show()
    window.open_dataset(dataset, workspace)
    deadline = time.monotonic() + 60
    while state.workspace is None and time.monotonic() < deadline:
        app.processEvents()
        time.sleep(0.01)
    audit_window = window.audits.open_audit(audit, annotator)
    audit_window.show()
    audit_window.activateWindow()
    app.processEvents()
    print("ready", flush=True)
    for number in range(1, 10_000):
        QTest.keyClick(audit_window, KEYS[(number - 1) % len(KEYS)])
        app.processEvents()
        print(f"judged {number}", flush=True)
        time.sleep(0.02)


if __name__ == "__main__":
    main(*sys.argv[1:])
