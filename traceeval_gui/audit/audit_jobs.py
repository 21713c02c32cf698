"""Background jobs of audits: counting a population, sampling a new audit, the report, and merging
another annotator's workspace.

At TraceEval scale a population is up to 1.6 M normalised edges (seconds to build), an audit report
scores every model twice over the audit's selection (paper and corrected truth), and a merge copies
another workspace file: all run on a pool thread with their own workspace connection (SQLite
connections belong to one thread).
"""
from __future__ import annotations

from pathlib import Path

from core.audit.audits import Audit
from core.audit.merge import MergeReport, merge_workspace
from core.audit.reports import AuditReport, audit_report
from core.audit.sampling import create_audit, population_edges
from core.dataset.workspace import Workspace
from core.errors import Cancelled
from traceeval_gui.state.jobs import Job, JobCancelled, Progress, StoppableJob


class AuditReportJob(Job):
    """Everything known about one audit (`core.audit.reports.audit_report`)."""

    title = "computing the audit report"

    def __init__(self, workspace_path: str | Path, audit_name: str) -> None:
        super().__init__()
        self.workspace_path = workspace_path
        self.audit_name = audit_name

    def work(self, progress: Progress) -> AuditReport:
        progress(0, 0, f"computing the report of {self.audit_name}")
        with Workspace(self.workspace_path) as ws:
            return audit_report(ws, self.audit_name)


class MergeWorkspaceJob(StoppableJob):
    """Merge the audits, verdicts, adjudications and answers of another workspace file into this one. `cancel()`
    stops it at once, whatever it is doing (copying, checking, reading the file or writing), and nothing is merged;
    a cancel that comes once the merge is committed changes nothing, and the job reports what it merged."""

    title = "merging the workspace"

    def __init__(self, workspace_path: str | Path, source_path: str | Path) -> None:
        super().__init__()
        self.workspace_path = workspace_path
        self.source_path = Path(source_path)

    def work(self, progress: Progress) -> MergeReport:
        progress(0, 0, f"merging {self.source_path.name}")
        with Workspace(self.workspace_path) as ws:
            try:
                return merge_workspace(ws, self.source_path, cancel=self.stop, progress=progress)
            except Cancelled:
                raise JobCancelled() from None


class PopulationJob(Job):
    """How many edges (and programs) a population has: (edges, programs), for the New Audit dialog."""

    title = "counting the population"
    logs_expected_failures = False  # "no such edges" is the dialog's live answer, not an error

    def __init__(self, workspace_path: str | Path, population: str, model: str, split: str | None,
                 languages: tuple[str, ...]) -> None:
        super().__init__()
        self.workspace_path = workspace_path
        self.options = (population, model, split, languages)

    def work(self, progress: Progress) -> tuple[int, int]:
        population, model, split, languages = self.options
        with Workspace(self.workspace_path) as ws:
            items = population_edges(ws, population, model, split=split, languages=languages)
        return len(items), len({item.instance_key for item in items})


class CreateAuditJob(Job):
    """Sample and store a new audit (`core.audit.sampling.create_audit`)."""

    title = "sampling the audit"

    def __init__(self, workspace_path: str | Path, name: str, options: dict) -> None:
        super().__init__()
        self.workspace_path = workspace_path
        self.name = name
        self.options = options

    def work(self, progress: Progress) -> Audit:
        progress(0, 0, f"sampling {self.name}")
        with Workspace(self.workspace_path) as ws:
            return create_audit(ws, self.name, **self.options)
