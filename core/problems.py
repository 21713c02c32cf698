"""A problem found while reading input: one line naming the file and what is wrong."""
from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Problem:
    """`severity` is "error" (the thing is skipped) or "warning" (it is used, but something is off)."""

    path: str
    message: str
    severity: str = "error"
    instance_id: str = ""

    def __str__(self) -> str:
        return f"{self.path}: {self.message}"

    def as_record(self) -> dict[str, str]:
        """The problem as a JSON record (`traceeval validate`, `import-results` and the other JSON outputs)."""
        return {"path": self.path, "message": self.message, "severity": self.severity, "instance_id": self.instance_id}
