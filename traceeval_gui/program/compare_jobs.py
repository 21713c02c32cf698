"""The Compare tab's background work: the paired statistics of model A and model B (a 10,000-resample
bootstrap over up to 10,583 programs takes a few tenths of a second, too long for the GUI thread)."""
from __future__ import annotations

from collections.abc import Mapping, Sequence

from core.dataset.workspace import InstanceRow
from core.scoring.metrics import Counts
from core.scoring.paired import PairedStats, paired_from_counts
from core.scoring.scores import Selection
from core.scoring.stats import PAIRED_RESAMPLES
from traceeval_gui.state.jobs import Job, Progress


class PairedStatsJob(Job):
    """`core.scoring.paired.paired_from_counts` on counts the window already holds (copied by the caller, so the
    GUI thread may go on updating its own)."""

    title = "paired statistics"

    def __init__(self, model_a: str, model_b: str, rows: Sequence[InstanceRow], counts_a: Mapping[str, Counts],
                 counts_b: Mapping[str, Counts], selection: Selection, resamples: int = PAIRED_RESAMPLES) -> None:
        super().__init__()
        self.model_a, self.model_b = model_a, model_b
        self.rows = rows  # the window's tuple: never changed, so read on the pool thread
        self.counts_a, self.counts_b = counts_a, counts_b
        self.selection, self.resamples = selection, resamples

    def work(self, progress: Progress) -> PairedStats:
        progress(0, 0, f"paired statistics of {self.model_a} against {self.model_b}")
        rows = [r for r in self.rows if self.selection.admits(r)]
        return paired_from_counts(self.model_a, self.model_b, rows, self.counts_a, self.counts_b, self.selection,
                                  resamples=self.resamples)
