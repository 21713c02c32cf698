"""The window's merge of another workspace file (issue #36 item 4), as a person does it: Ctrl+Shift+M, the file's path
typed into the file dialog, Open. A file made to hang the merge is refused at once in one line; a long merge shows
what it is doing and stops at once when Cancel is clicked (or Escape pressed), leaving the workspace as it was."""
from __future__ import annotations

import tempfile
import time
from pathlib import Path

import pytest

pytest.importorskip("PySide6", exc_type=ImportError)  # also skipped in the run with Qt blocked

from PySide6.QtCore import Qt, QTimer
from PySide6.QtWidgets import (
    QApplication,
    QDialogButtonBox,
    QFileDialog,
    QMessageBox,
    QProgressDialog,
    QPushButton,
)

from core.audit.sampling import create_audit
from resources import DEMO_DATASET
from tests.security.hostile_workspaces import AUDIT, OPTIONS, annotated_workspace, hostile_copy, more_verdicts, rows

OPEN_TIMEOUT_MS = 20_000
ENDED_TIMEOUT_MS = 60_000  # a hang would not end at all; a refusal or a cancel ends in well under a second
CANCEL_WITHIN_S = 3.0  # the merge cancelled takes over 5 s on its own on this machine
SHORTCUT = (Qt.Key.Key_M, Qt.KeyboardModifier.ControlModifier | Qt.KeyboardModifier.ShiftModifier)
MANY = 199_000  # verdicts in the long merge's file, under the bound of a table, with notes of NOTE characters
NOTE = 1_200  # 239 MB of notes, under the bound of all values together: a long merge whose copy and checks need
# little of the GIL, so the window keeps up with it on a busy machine


@pytest.fixture(scope="module")
def files(tmp_path_factory):
    """Bob's annotated workspace, and a copy of it with MANY more verdicts (a long merge, within every bound)."""
    folder = tmp_path_factory.mktemp("bob")
    bob = annotated_workspace(folder / "bob.sqlite")
    long = Path(folder / "long.sqlite")
    long.write_bytes(bob.read_bytes())
    more_verdicts(long, MANY, NOTE)
    return bob, long


@pytest.fixture
def opened(window, qtbot, tmp_path, monkeypatch):
    """The window over the demo dataset with audit `spot`; the merge's private copies go to a folder of the test's."""
    window, state = window
    with qtbot.waitSignal(state.dataset_opened, timeout=OPEN_TIMEOUT_MS):
        window.open_dataset(DEMO_DATASET, workspace=tmp_path / "ann.sqlite")
    create_audit(state.workspace, AUDIT, **OPTIONS)
    private = tmp_path / "private"
    private.mkdir()
    monkeypatch.setattr(tempfile, "tempdir", str(private))
    return window, state, private


def pick_file_when_asked(qtbot, path: Path) -> None:
    """Fill in the file dialog the next action opens, as a person does: go to the file's folder, pick the file,
    click Open. (Picked, not typed: typing opens the name completer's popup, which would take the next key.)"""
    def fill_in():
        dialog = QApplication.activeModalWidget()
        if not isinstance(dialog, QFileDialog):
            QTimer.singleShot(20, fill_in)
            return
        try:
            dialog.setDirectory(str(path.parent))
            dialog.selectFile(path.name)
            open_button = dialog.findChild(QDialogButtonBox).button(QDialogButtonBox.StandardButton.Open)
            qtbot.mouseClick(open_button, Qt.MouseButton.LeftButton)
        finally:
            if dialog.isVisible():
                dialog.reject()

    QTimer.singleShot(0, fill_in)


def press_merge(qtbot, widget) -> None:
    widget.activateWindow()
    qtbot.waitUntil(lambda: QApplication.activeWindow() is widget)
    qtbot.keyClick(widget, *SHORTCUT)


def shown_progress(qtbot, parent) -> QProgressDialog:
    """The merge's progress window, once it shows."""
    def shown() -> bool:
        dialog = parent.findChild(QProgressDialog, "merge_progress")
        return dialog is not None and dialog.isVisible()

    qtbot.waitUntil(shown, timeout=OPEN_TIMEOUT_MS)
    return parent.findChild(QProgressDialog, "merge_progress")


def test_a_file_made_to_hang_the_merge_is_refused_at_once_in_one_line(opened, files, qtbot, tmp_path):
    window, state, private = opened
    source = hostile_copy(files[0], tmp_path / "from", "a billion-row view")
    before = rows(state.workspace.path)
    pick_file_when_asked(qtbot, source)
    press_merge(qtbot, window)
    qtbot.waitUntil(lambda: window.findChild(QMessageBox, "audit_failure") is not None, timeout=ENDED_TIMEOUT_MS)
    message = window.findChild(QMessageBox, "audit_failure").informativeText()
    assert message.startswith(f"{source}: holds a view (audits)") and "\n" not in message
    assert window.statusBar().currentMessage().startswith("Merge failed: ")
    assert rows(state.workspace.path) == before and list(private.iterdir()) == []


def test_a_long_merge_stops_at_once_when_cancel_is_clicked(opened, files, qtbot):
    window, state, private = opened
    before = rows(state.workspace.path)
    results = window.audits.open_results(AUDIT)
    qtbot.waitUntil(lambda: results.report is not None, timeout=OPEN_TIMEOUT_MS)
    merged = []
    results.merged.connect(merged.append)
    pick_file_when_asked(qtbot, files[1])
    press_merge(qtbot, results)
    progress = shown_progress(qtbot, results)
    assert not results.merge_button.isEnabled()
    button = next(b for b in progress.findChildren(QPushButton) if b.text() == "Cancel")
    clicked = time.monotonic()
    qtbot.mouseClick(button, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: "Merge cancelled: nothing was merged" in results.status_label.text(),
                    timeout=ENDED_TIMEOUT_MS)
    assert time.monotonic() - clicked < CANCEL_WITHIN_S
    assert merged == [] and results.merge_button.isEnabled()
    state.jobs.wait()
    assert rows(state.workspace.path) == before and list(private.iterdir()) == []
    results.close()


def test_a_long_merge_from_the_audit_menu_stops_at_escape(opened, files, qtbot):
    window, state, private = opened
    before = rows(state.workspace.path)
    pick_file_when_asked(qtbot, files[1])
    press_merge(qtbot, window)
    progress = shown_progress(qtbot, window)
    assert progress.labelText().startswith(("Copying", "Checking", "Reading", "Merging"))
    pressed = time.monotonic()
    progress.activateWindow()  # a person's keys go to the window they look at
    qtbot.waitUntil(lambda: QApplication.activeWindow() is progress)
    qtbot.keyClick(progress, Qt.Key.Key_Escape)
    def cancelled() -> None:
        assert window.statusBar().currentMessage() == "Merge cancelled: nothing was merged"

    qtbot.waitUntil(cancelled, timeout=ENDED_TIMEOUT_MS)
    assert time.monotonic() - pressed < CANCEL_WITHIN_S
    state.jobs.wait()
    assert rows(state.workspace.path) == before and list(private.iterdir()) == []
    assert (AUDIT, "results") not in window.audits.windows  # a cancelled merge opens no results
