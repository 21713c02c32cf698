"""What a running merge shows: a small window saying what it is doing, with Cancel.

A merge copies and checks the other workspace file before it reads it, which takes seconds for a large one; the
window appears only when a merge lasts (SHOW_AFTER_MS). Cancel (or Escape) stops the merge at once, whatever it is
doing, and this workspace stays as it was.
"""
from __future__ import annotations

from PySide6.QtCore import Qt, QTimer
from PySide6.QtWidgets import QProgressDialog, QWidget

from traceeval_gui.audit.audit_jobs import MergeWorkspaceJob

SHOW_AFTER_MS = 400
CANCELLED = "Merge cancelled: nothing was merged"


class MergeProgressDialog(QProgressDialog):
    """Follows one merge job; closes when it ends."""

    def __init__(self, job: MergeWorkspaceJob, parent: QWidget) -> None:
        super().__init__(f"Merging {job.source_path.name}…", "Cancel", 0, 0, parent)
        self.setObjectName("merge_progress")
        self.setWindowTitle("Merge Workspace")
        self.setWindowModality(Qt.WindowModality.NonModal)  # the window stays usable meanwhile
        self.setMinimumDuration(SHOW_AFTER_MS)
        self.setAutoClose(False)
        self.setAutoReset(False)
        self.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
        self.setAttribute(Qt.WidgetAttribute.WA_ShowWithoutActivating)  # the keys stay where the person types
        self._show_timer = QTimer(self, singleShot=True, interval=SHOW_AFTER_MS)  # shown while nothing is reported too
        self._show_timer.timeout.connect(self._on_show_timer_timeout)
        self._show_timer.start()
        self.canceled.connect(job.cancel)
        job.signals.progressed.connect(self._on_job_progressed)
        for ended in (job.signals.finished, job.signals.failed, job.signals.cancelled):
            ended.connect(self._on_job_ended)

    def _on_job_progressed(self, done: int, total: int, message: str) -> None:
        if self.wasCanceled():
            return
        self.setMaximum(max(total, 0))
        self.setValue(min(done, total) if total > 0 else 0)
        self.setLabelText(f"{message[:1].upper()}{message[1:]}…")

    def _on_show_timer_timeout(self) -> None:
        if not self.wasCanceled():
            self.show()

    def _on_job_ended(self, *_result) -> None:
        self._show_timer.stop()
        had_the_keys = self.isActiveWindow()
        self.close()
        if had_the_keys:  # back to the window the merge was started from, not to none
            self.parentWidget().window().activateWindow()
