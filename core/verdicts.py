"""An auditor's verdict on one edge of one instance (spot-check audits).

The question is always the same, whatever population the edge came from: is `caller -> callee`
a real call of this program? correct: yes, and the program makes it when run (it belongs in the
ground truth); not_exercised: the code really makes this call, but the harness never runs it
(docs/benchmark.md: a "false positive" that is a real call); wrong: no such call can happen
(hallucinated, or a spurious ground-truth edge); unsure: the auditor cannot tell from the source.
"""
from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, datetime

from core.records import Edge

LABELS = ("correct", "wrong", "not_exercised", "unsure")
LABEL_TITLES = {"correct": "correct", "wrong": "wrong", "not_exercised": "real, not exercised", "unsure": "unsure"}
CLEARED = ""  # a stored row with this label withdraws the annotator's verdict on the edge (undo)
# Labels that say the edge is a real call of the program (a "false positive" with one is the truth's miss).
REAL_CALL = ("correct", "not_exercised")


@dataclass(frozen=True)
class Verdict:
    instance_key: str
    caller: str
    callee: str
    auditor: str
    label: str
    note: str = ""
    created_at: str = ""  # ISO 8601, UTC, microseconds; filled when stored
    audit: str = ""  # the audit it belongs to ("" = an ad-hoc verdict)

    def __post_init__(self) -> None:
        if self.label not in LABELS and self.label != CLEARED:
            raise ValueError(f"unknown verdict {self.label!r} (choose from {', '.join(LABELS)})")

    @property
    def edge(self) -> Edge:
        return (self.caller, self.callee)

    @property
    def cleared(self) -> bool:
        return self.label == CLEARED


def now_iso() -> str:
    return datetime.now(UTC).isoformat(timespec="seconds")


def now_precise() -> str:
    """A timestamp that orders verdicts given in quick succession (and across merged workspaces)."""
    return datetime.now(UTC).isoformat(timespec="microseconds")
