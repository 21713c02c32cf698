"""Static analyzers in the background: which can run here (`ToolStatusJob`: each check starts the interpreter, so
never on the GUI thread), and a run of one over many programs (`StaticRunJob` wraps
`tracers.static.runner.run_baseline`, which stores each program's graph as model `static:<tool>` as it is done).

Cancelling asks the runner to stop; the job still ends with `finished(BaselineReport)` (`cancelled` set), because
the programs analysed before the cancel are stored and worth reporting.
"""
from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from core.dataset.workspace import Workspace
from traceeval_gui.state.jobs import Job, Progress, StoppableJob
from tracers.static import TOOLS, ToolStatus, tool_status
from tracers.static.runner import LIMITS, BaselineReport, limits_for, run_baseline


class ToolStatusJob(Job):
    title = "checking the static analyzers"

    def work(self, progress: Progress) -> dict[str, ToolStatus]:
        return {name: tool_status(name) for name in TOOLS}


class StaticRunJob(StoppableJob):
    title = "running the static analyzer"

    def __init__(self, workspace_path: str | Path, tool: str, keys: Sequence[str], *, jobs: int = 2,
                 timeout_s: float = LIMITS.wall_s) -> None:
        super().__init__()
        self.workspace_path = Path(workspace_path)
        self.tool = tool
        self.keys = list(keys)
        self.jobs = jobs
        self.limits = limits_for(timeout_s)

    def work(self, progress: Progress) -> BaselineReport:
        def report_progress(done: int, total: int, key: str) -> None:
            self.signals.progressed.emit(done, total, key)  # `key`: the program just stored ("" at the start)

        with Workspace(self.workspace_path) as ws:
            return run_baseline(ws, self.tool, self.keys, jobs=self.jobs, limits=self.limits,
                                progress=report_progress, cancel=self.stop)
