"""Background scoring for the metrics panel and plots: the paper table and per-program counts
with any rule set and choice of normalisation modes, and the spread of models run more than once.

Re-scoring 10,583 programs with modes that are not cached yet normalises every ground truth and
prediction again (seconds per model), so it runs here, on a pool thread, with its own workspace
connection. Counts are cached in the workspace per modes, so a second request is fast.
"""
from __future__ import annotations

import threading
from dataclasses import dataclass
from pathlib import Path

from core.dataset.workspace import Workspace
from core.scoring.metrics import Counts
from core.scoring.over_runs import OverRunsTable, over_runs_table
from core.scoring.rules import DEFAULT_RULES
from core.scoring.run_family import families
from core.scoring.scores import NormalisedTruths, ScoreTable, Selection, instance_counts, score_table
from traceeval_gui.state.jobs import Job, Progress


@dataclass(frozen=True)
class ModeScores:
    """The paper table for one selection and, when asked for, every program's counts, with `modes` and `rules`."""

    modes: frozenset[str]
    selection: Selection
    table: ScoreTable
    counts: dict[str, dict[str, Counts]] | None  # model -> instance key -> counts (all splits); None: not asked
    rules: str = DEFAULT_RULES
    over_runs: OverRunsTable | None = None  # the models run more than once (NAME, NAME@r1, ...); None: there are none


class ScoreModesJob(Job):
    """Score every model with the given normalisation modes: per-program counts over the whole
    dataset (optional: the panel keeps them per modes), then the table for `selection`."""

    title = "scoring"
    _one_at_a_time = threading.Lock()  # scoring is CPU-bound: parallel jobs would only slow the latest down

    def __init__(self, workspace_path: str | Path, selection: Selection, modes: frozenset[str],
                 with_counts: bool = True, rules: str = DEFAULT_RULES) -> None:
        super().__init__()
        self.workspace_path = workspace_path
        self.selection = selection
        self.modes = frozenset(modes)
        self.with_counts = with_counts
        self.rules = rules

    def work(self, progress: Progress) -> ModeScores:
        while not self._one_at_a_time.acquire(timeout=0.05):
            self.check_cancelled()  # a request replaced while it waits ends here, without scoring
        try:
            return self._score(progress)
        finally:
            self._one_at_a_time.release()

    def _score(self, progress: Progress) -> ModeScores:
        with Workspace(self.workspace_path) as ws:
            models = [m.name for m in ws.models()]
            counts = None
            if self.with_counts:
                rows = ws.instance_rows()
                truths = NormalisedTruths(ws, self.modes, self.rules)  # shared by the models
                counts = {}
                for done, model in enumerate(models):
                    progress(done, len(models) + 1, model)
                    counts[model] = instance_counts(ws, model, rows, self.modes, truths, self.rules)
                truths.release()  # freed a piece at a time, so the window is not frozen meanwhile
                progress(len(models), len(models) + 1, "the table")
            table = score_table(ws, selection=self.selection, modes=self.modes, rules=self.rules)
            repeated = [name for runs in families(models).values() if len(runs) > 1 for _, name in runs]
            spread = over_runs_table(ws, repeated, self.selection, self.modes, self.rules) if repeated else None
            return ModeScores(self.modes, self.selection, table, counts, self.rules, spread)
