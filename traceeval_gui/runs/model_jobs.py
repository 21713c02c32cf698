"""Running a model in the background: `RunModelJob` wraps `core.llm.runner.run_model`.

The runner stores every answer as it arrives (so a crash or cancel loses nothing) and reports
each one through `outcome`, which the window uses to show results while the run goes on.
Cancelling asks the runner to stop; the job still ends with `finished(RunReport)` (status
"cancelled"), because what was answered before the cancel is a result worth reporting.
"""
from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from PySide6.QtCore import Signal

from core.dataset.workspace import Workspace
from core.llm.answer_cache import AnswerCache
from core.llm.endpoints import RunSettings
from core.llm.prices import PriceTable
from core.llm.prompt_wording import STUDIO_WORDING, PromptWording
from core.llm.runner import RunReport, run_model
from traceeval_gui.state.jobs import JobSignals, Progress, StoppableJob


class RunModelJobSignals(JobSignals):
    outcome = Signal(object)  # RequestOutcome: one program answered (stored), cached or failed


class RunModelJob(StoppableJob):
    title = "running the model"

    def __init__(self, workspace_path: str | Path, settings: RunSettings, keys: Sequence[str], *,
                 api_key: str | None, redo: bool = False, prices: PriceTable | None = None,
                 wording: PromptWording = STUDIO_WORDING) -> None:
        super().__init__()
        self.signals = RunModelJobSignals()
        self.workspace_path = Path(workspace_path)
        self.settings = settings
        self.keys = list(keys)
        self.api_key = api_key
        self.redo = redo
        self.prices = prices
        self.wording = wording

    def work(self, progress: Progress) -> RunReport:
        def report_progress(done: int, total: int, message: str) -> None:
            self.signals.progressed.emit(done, total, message)

        with Workspace(self.workspace_path) as ws:
            return run_model(ws, self.settings, self.keys, api_key=self.api_key, prices=self.prices,
                             cache=AnswerCache(), redo=self.redo, progress=report_progress, cancel=self.stop,
                             on_outcome=self.signals.outcome.emit, wording=self.wording)
