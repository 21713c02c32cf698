"""The Run Model dialog's estimate in the background: which programs are still unanswered and what
sending their prompts would cost (`core.llm.dry_run`). Building 10,000 prompts reads every program's
files (seconds), so it never runs on the GUI thread. Input tokens are counted as `traceeval predict
--dry-run` counts them (tiktoken for an OpenAI model whose encoding is cached here, else the
approximation, labelled). Prices are applied by the dialog, so a new price needs no new run."""
from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from core.dataset.workspace import Workspace
from core.llm.dry_run import DryRun, dry_run
from core.llm.endpoints import RunSettings
from core.llm.prompt_wording import PromptWording
from core.llm.runner import pending_keys
from core.llm.token_counts import counter_for
from traceeval_gui.state.jobs import Job, Progress


class DryRunJob(Job):
    title = "estimating the model run"

    def __init__(self, workspace_path: str | Path, keys: Sequence[str], settings: RunSettings,
                 wording: PromptWording, redo: bool) -> None:
        super().__init__()
        self.workspace_path = Path(workspace_path)
        self.keys = list(keys)
        self.settings = settings
        self.wording = wording
        self.redo = redo

    def work(self, progress: Progress) -> DryRun:
        with Workspace(self.workspace_path) as ws:
            todo = pending_keys(ws, self.settings, self.keys, redo=self.redo)
            return dry_run(ws, todo, self.settings, self.wording, progress=progress,
                           counter=counter_for(self.settings.model))
