"""An auditor's verdict on one edge of one instance (spot-check audits)."""
from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timezone

from core.model import Edge

# correct: the edge is a real runtime call (it belongs in the ground truth); incorrect: it is not;
# unsure: the auditor cannot tell from the source.
LABELS = ("correct", "incorrect", "unsure")


@dataclass(frozen=True)
class Verdict:
    instance_key: str
    caller: str
    callee: str
    auditor: str
    label: str
    note: str = ""
    created_at: str = ""  # ISO 8601, UTC; filled when stored
    audit: str = ""  # the audit it belongs to ("" = an ad-hoc verdict)

    def __post_init__(self) -> None:
        if self.label not in LABELS:
            raise ValueError(f"unknown verdict {self.label!r} (choose from {', '.join(LABELS)})")

    @property
    def edge(self) -> Edge:
        return (self.caller, self.callee)


def now_iso() -> str:
    return datetime.now(timezone.utc).isoformat(timespec="seconds")
