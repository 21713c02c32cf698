"""Per-language tracers behind one protocol (`tracers.base.Tracer`), run in a shared sandbox.

`tracer_for(language)` gives the tracer of a language; `trace_instance` runs it once or N
times (combining the runs so edges seen in only some of them stand out).
"""
from __future__ import annotations

import importlib

from core.errors import TracerError
from core.model import LANGUAGES, Instance
from core.traces import TraceRun, combine_runs
from tracers.base import ToolchainStatus, TraceOptions, Tracer

_MODULES = {"python": "tracers.python", "javascript": "tracers.javascript", "java": "tracers.java"}
_TRACERS: dict[str, Tracer] = {}


def tracer_for(language: str) -> Tracer:
    """The (shared, lazily created) tracer of a language."""
    if language not in LANGUAGES:
        raise TracerError(f"no tracer for language {language!r} (known: {', '.join(LANGUAGES)})")
    if language not in _TRACERS:
        _TRACERS[language] = importlib.import_module(_MODULES[language]).TRACER
    return _TRACERS[language]


def trace_instance(instance: Instance, options: TraceOptions | None = None, runs: int = 1) -> TraceRun:
    if runs < 1:
        raise TracerError(f"--runs must be at least 1, got {runs}")
    tracer = tracer_for(instance.language)
    options = options or TraceOptions()
    return combine_runs([tracer.trace(instance, options) for _ in range(runs)])


def check_toolchains() -> list[ToolchainStatus]:
    return [tracer_for(language).check() for language in LANGUAGES]


__all__ = ["ToolchainStatus", "TraceOptions", "Tracer", "check_toolchains", "trace_instance", "tracer_for"]
