"""The protocol every language tracer implements, and what the callers pass it."""
from __future__ import annotations

import threading
from dataclasses import dataclass, field
from typing import Protocol

from core.records import Instance
from core.traces import TraceRun
from tracers.sandbox import Limits


@dataclass(frozen=True)
class ToolchainStatus:
    """Whether a tracer can run here. `detail` names versions and paths found, or what to install."""

    language: str
    ok: bool
    detail: str
    problems: tuple[str, ...] = ()


@dataclass(frozen=True)
class TraceOptions:
    """`cancel`: set it from another thread to kill a running program at once; the run then
    ends with status killed and its partial edges (left out of equality and hashing)."""

    limits: Limits = field(default_factory=Limits)
    cancel: threading.Event | None = field(default=None, compare=False)


class Tracer(Protocol):
    """A language's tracer: `check()` the toolchain, `trace()` one program into a `TraceRun`."""

    language: str
    name: str  # e.g. "python-profile"
    version: str

    def check(self) -> ToolchainStatus:
        """Is the toolchain present? Never raises."""

    def trace(self, instance: Instance, options: TraceOptions = TraceOptions()) -> TraceRun:
        """Run the program once under the tracer. Never raises for anything the program does:
        compile errors, crashes, hangs and limits are statuses of the returned run."""
