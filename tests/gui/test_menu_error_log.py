"""View > Error Log: failures of jobs, of Qt slots and of the database reach the window, copyable."""
from __future__ import annotations

import sqlite3

import pytest
from PySide6.QtCore import Qt, QTimer
from PySide6.QtGui import QGuiApplication

from traceeval_gui.state.error_log import install_error_reporting
from traceeval_gui.workbench.error_log_view import ERROR_LOG_HINT


def test_a_failed_job_shows_in_the_status_bar_and_the_log_with_its_detail(window, qtbot, tmp_path):
    assert not window.error_indicator.isVisible()
    with qtbot.waitSignal(window.error_log.added, timeout=20_000):
        window.open_dataset(tmp_path / "nowhere")
    entry = window.error_log.entries[-1]
    assert "no such dataset folder" in entry.message
    assert ERROR_LOG_HINT in window.statusBar().currentMessage()
    assert window.error_indicator.isVisible() and window.error_indicator.text() == "⚠ 1 error"

    qtbot.mouseClick(window.error_indicator, Qt.MouseButton.LeftButton)  # the indicator opens the log
    dialog = window._error_log_dialog
    assert dialog.isVisible() and not window.error_indicator.isVisible()
    assert dialog.entry_list.count() == 1 and "no such dataset folder" in dialog.detail.toPlainText()
    qtbot.mouseClick(dialog.copy_button, Qt.MouseButton.LeftButton)
    copied = QGuiApplication.clipboard().text()
    assert entry.source in copied and "no such dataset folder" in copied
    dialog.close()


@pytest.mark.qt_no_exception_capture
def test_an_exception_in_a_slot_reaches_the_log_with_its_traceback(window, qtbot, capsys):
    uninstall = install_error_reporting(window.error_log)
    try:
        def broken_slot() -> None:
            raise ValueError("a slot that fails")

        with qtbot.waitSignal(window.error_log.added):
            QTimer.singleShot(0, broken_slot)
    finally:
        uninstall()
    entry = window.error_log.entries[-1]
    assert entry.source == "Unexpected error" and entry.message == "ValueError: a slot that fails"
    assert "Traceback" in entry.detail and "broken_slot" in entry.detail
    assert "a slot that fails" in capsys.readouterr().err  # stderr keeps it too
    assert "ValueError: a slot that fails" in window.statusBar().currentMessage()


@pytest.fixture
def short_lock_wait(monkeypatch):
    """Connections wait half a second for another process's lock (before the window opens its own)."""
    monkeypatch.setenv("TRACEEVAL_LOCK_WAIT_S", "0.5")


@pytest.mark.qt_no_exception_capture
@pytest.mark.usefixtures("short_lock_wait")
def test_a_database_error_in_a_slot_is_shown_not_lost(window, qtbot, tmp_path):
    """The workspace is locked by another process: creating an audit fails, and the window says why."""
    from core.audit.sampling import create_audit

    uninstall = install_error_reporting(window.error_log)
    other = sqlite3.connect(window.state.opened.workspace_path, timeout=0)
    other.execute("BEGIN EXCLUSIVE")
    try:
        def create() -> None:
            create_audit(window.state.workspace, "locked", size=2, seed=1)

        with qtbot.waitSignal(window.error_log.added, timeout=20_000):
            QTimer.singleShot(0, create)
    finally:
        other.rollback()
        other.close()
        uninstall()
    entry = window.error_log.entries[-1]
    assert "busy" in entry.message and "locked" in entry.message  # WorkspaceBusyError's own words
    assert "create_audit" in entry.detail


def test_a_count_the_new_audit_dialog_answers_itself_stays_out_of_the_log(window, state, qtbot):
    from traceeval_gui.audit.audit_jobs import PopulationJob

    job = PopulationJob(state.workspace.path, "fp", "no-such-model", None, ("python",))
    with qtbot.waitSignal(job.signals.failed, timeout=20_000) as failed:
        state.jobs.start(job)
    assert "unknown model" in failed.args[0]
    state.jobs.wait()
    qtbot.wait(50)  # a report would arrive as a queued call
    assert window.error_log.entries == [] and not window.error_indicator.isVisible()
