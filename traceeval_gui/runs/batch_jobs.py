"""Running a model as a provider batch in the background: `BatchRunJob` prepares the programs not yet answered (or
waiting), submits them to OpenAI's Batch API or Anthropic's Message Batches and collects every batch of the model as
it ends (`core.llm.batches.flow`), looking again every `poll_s` seconds.

Cancelling stops the waiting only: the batches keep running at the provider, recorded in the workspace, and the next
"as a batch" run of the same model (or `traceeval batch collect`) collects them. Each batch's answers are reported
through `stored` as soon as they are in the workspace.
"""
from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

from PySide6.QtCore import Signal

from core.dataset.workspace import Workspace
from core.llm.batches.flow import BatchSettings, api_key_for, collect, prepare, submit
from core.llm.batches.store import PREPARED, SUBMITTED, BatchStore
from core.llm.endpoints import RunSettings
from core.llm.prices import PriceTable
from core.llm.prompt_wording import STUDIO_WORDING, PromptWording
from traceeval_gui.state.jobs import JobSignals, Progress, StoppableJob

POLL_S = 30.0


@dataclass
class BatchRunReport:
    model: str
    provider: str
    prepared: int = 0  # requests put into new batches by this run
    batches: int = 0  # the model's batches this run waited for
    stored: int = 0  # answers stored by this run
    waiting: int = 0  # batches still running at the provider when the run ended
    failed: int = 0  # requests that errored, expired or were cancelled (listed by `traceeval batch status`)
    problems: list[str] = field(default_factory=list)
    cancelled: bool = False

    def summary(self) -> str:
        """One status-bar line: `m: batch run ended: 15 answer(s) collected from 3 openai batch(es)`, then the
        failures and the batches still running, if any."""
        text = (f"{self.model}: batch run {'stopped' if self.cancelled else 'ended'}: {self.stored:,} answer(s) "
                f"collected from {self.batches} {self.provider} batch(es)")
        if self.failed:
            text += f"; {self.failed:,} failed (traceeval batch resubmit)"
        if self.waiting:
            text += f"; {self.waiting} still running: run as a batch again to collect"
        return text


class BatchRunJobSignals(JobSignals):
    stored = Signal(str, object)  # model, the keys whose answers were just stored


class BatchRunJob(StoppableJob):
    title = "running the model as a batch"

    def __init__(self, workspace_path: str | Path, provider: str, settings: RunSettings, keys: Sequence[str], *,
                 api_key: str | None, redo: bool = False, prices: PriceTable | None = None,
                 wording: PromptWording = STUDIO_WORDING, poll_s: float = POLL_S) -> None:
        super().__init__()
        self.signals = BatchRunJobSignals()
        self.workspace_path = Path(workspace_path)
        self.provider, self.settings, self.keys = provider, settings, list(keys)
        self.api_key, self.redo, self.prices, self.wording, self.poll_s = api_key, redo, prices, wording, poll_s

    def input_folder(self) -> Path:
        """Where the batch input files go: beside the workspace, one folder per workspace."""
        return self.workspace_path.with_name(f"{self.workspace_path.stem}-batches")

    def work(self, progress: Progress) -> BatchRunReport:
        name = self.settings.stored_name
        report = BatchRunReport(name, self.provider)
        batch = BatchSettings(self.provider, self.settings.model, name, self.settings.base_url,
                              self.settings.temperature, self.settings.max_tokens, self.settings.rules,
                              token_limit_field=self.settings.token_limit_field)

        def key_for(row) -> str | None:
            return self.api_key or api_key_for(row)

        with Workspace(self.workspace_path) as ws:
            store = BatchStore(ws)
            prepared = prepare(ws, batch, self.keys, self.wording, self.input_folder(), redo=self.redo)
            report.prepared = prepared.requests
            mine = [b.id for b in store.batches(name, (PREPARED,)) if b.provider == self.provider]
            submit(ws, key_for, mine)
            waiting = store.batches(name, (SUBMITTED,))
            ids = [b.id for b in waiting]
            total = sum(b.requests for b in waiting)
            reported: set[int] = set()
            report.batches = len(ids)
            self.signals.progressed.emit(0, total, f"{len(ids)} batch(es) submitted")

            def on_progress(message: str) -> None:
                done = 0
                for row in store.batches(name):
                    if row.id not in ids or row.state == SUBMITTED:
                        continue
                    done += row.requests
                    if row.id not in reported:
                        reported.add(row.id)
                        keys = {r.instance_key for r in store.requests(row.id) if r.status == "succeeded"}
                        if keys:
                            self.signals.stored.emit(name, keys)
                self.signals.progressed.emit(done, total, message)

            collected = collect(ws, key_for, ids, wait=True, poll_s=self.poll_s, prices=self.prices,
                                cancel=self.stop, progress=on_progress) if ids else None
            if collected is not None:
                on_progress("collected")
                report.stored, report.problems = collected.stored, collected.problems
                report.waiting, report.cancelled = len(collected.waiting), collected.interrupted
                report.failed = sum(b.errored + b.expired + b.canceled for b in collected.collected)
        return report
