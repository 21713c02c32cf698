"""Background jobs of the audit results: the report and merging another annotator's workspace.

An audit report scores every model twice over the audit's selection (paper and corrected truth), which
takes a while on the full dataset, and a merge copies another workspace file: both run on a pool thread
with their own workspace connection (SQLite connections belong to one thread).
"""
from __future__ import annotations

from pathlib import Path

from core.audit_reports import AuditReport, audit_report
from core.workspace import Workspace
from core.workspace_merge import MergeReport, merge_workspace
from traceeval_gui.jobs import Job, Progress


class AuditReportJob(Job):
    """Everything known about one audit (`core.audit_reports.audit_report`)."""

    title = "computing the audit report"

    def __init__(self, workspace_path: str | Path, audit_name: str) -> None:
        super().__init__()
        self.workspace_path = workspace_path
        self.audit_name = audit_name

    def work(self, progress: Progress) -> AuditReport:
        progress(0, 0, f"computing the report of {self.audit_name}")
        with Workspace(self.workspace_path) as ws:
            return audit_report(ws, self.audit_name)


class MergeWorkspaceJob(Job):
    """Merge the audits, verdicts, adjudications and answers of another workspace file into this one."""

    title = "merging the workspace"

    def __init__(self, workspace_path: str | Path, source_path: str | Path) -> None:
        super().__init__()
        self.workspace_path = workspace_path
        self.source_path = Path(source_path)

    def work(self, progress: Progress) -> MergeReport:
        progress(0, 0, f"merging {self.source_path.name}")
        with Workspace(self.workspace_path) as ws:
            return merge_workspace(ws, self.source_path)
