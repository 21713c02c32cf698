"""Per-language tracers behind one protocol (`tracers.base.Tracer`), run in a shared sandbox.

`trace_program(folder)` traces a program folder (or an `Instance`) and gives its `TraceRun`, for notebooks and
scripts; `run_baseline(ws, "pycg", keys)` stores a static analyzer's graphs as model `static:pycg` (`tool_status`
says whether a tool runs here). `tracer_for(language)` gives the tracer of a language (its `Language.tracer`);
`trace_instance` runs it once or N times (combining the runs so edges seen in only some of them stand out); a
tracer that raises gives a run with status tracer_error, so one bug never ends a retrace or the app.
"""
from __future__ import annotations

import logging
import math
import traceback
from pathlib import Path

from core import traces
from core.dataset.layout import load_program_folder
from core.errors import TracerError
from core.languages import registry
from core.lazy_names import lazy_names
from core.records import Instance
from core.traces import TraceRun, combine_runs
from tracers.base import ToolchainStatus, TraceOptions, Tracer
from tracers.sandbox import Limits
from tracers.tracelog import now_iso, stopped_run

log = logging.getLogger(__name__)

_TRACERS: dict[str, Tracer] = {}


def tracer_for(language: str) -> Tracer:
    """The (shared, lazily created) tracer of a language."""
    if not registry.is_known(language) or not registry.get(language).tracer:
        raise TracerError(f"no tracer for language {language!r} (known: {', '.join(registry.names())})")
    if language not in _TRACERS:
        _TRACERS[language] = registry.get(language).part("tracer")
    return _TRACERS[language]


def trace_program(program: str | Path | Instance, language: str | None = None, runs: int = 1,
                  timeout: float = 30.0) -> TraceRun:
    """Run a program (a folder, its language guessed from its files unless given, or an `Instance`) under its
    language's tracer in the sandbox, `runs` times, each with a wall-clock limit of `timeout` seconds. The run's
    `graph` is what ran (a `CallGraph`, `callgraph.json`'s form with `.to_dict()`); its `status` says how it ended,
    and `unstable_edges()` lists edges seen in only some runs. The run is not stored (`Workspace.store_run`)."""
    if timeout <= 0:
        raise TracerError(f"the time limit must be positive, got {timeout}")
    instance = program if isinstance(program, Instance) else load_program_folder(program, language)
    return trace_instance(instance, TraceOptions(limits=Limits(wall_s=timeout)), runs)


def trace_instance(instance: Instance, options: TraceOptions | None = None, runs: int = 1) -> TraceRun:
    """`runs` runs of the instance combined into one `TraceRun` (`core.traces.combine_runs`)."""
    return combine_runs(trace_runs(instance, options, runs))


def trace_runs(instance: Instance, options: TraceOptions | None = None, runs: int = 1) -> list[TraceRun]:
    """`runs` separate runs of the program, each a TraceRun of its own (never raises for the program)."""
    if runs < 1:
        raise TracerError(f"--runs must be at least 1, got {runs}")
    tracer = tracer_for(instance.language)
    options = options or TraceOptions()
    return [_trace_once(tracer, instance, options) for _ in range(runs)]


def trace_for_build(instance: Instance, runs: int, wall_s: float) -> list[TraceRun]:
    """What the instance builder injects into `core.instances` (which cannot import tracers): `runs`
    separate runs under the default limits with a wall-clock limit of `wall_s` seconds each."""
    limits = Limits(wall_s=wall_s, cpu_s=max(10, math.ceil(wall_s * 4)))
    return trace_runs(instance, TraceOptions(limits=limits), runs)


def _trace_once(tracer: Tracer, instance: Instance, options: TraceOptions) -> TraceRun:
    """A bug of ours must become a run with status tracer_error, never a crash of the app or a retrace."""
    started_at = now_iso()
    try:
        return tracer.trace(instance, options)
    except Exception as error:
        log.exception("%s tracer failed on %s", instance.language, instance.key)
        return stopped_run(tracer, instance.key, started_at, traces.TRACER_ERROR,
                           f"tracer failed: {type(error).__name__}: {error}", stderr=traceback.format_exc()[-4000:])


def check_toolchains() -> list[ToolchainStatus]:
    """Whether each language's toolchain (Python, Node, a JDK) is present, one status per language."""
    return [tracer_for(language).check() for language in registry.names()]


# Static call-graph analyzers scored as models (docs/baselines.md), loaded on first use like core's API names.
_LAZY = {"run_baseline": "tracers.static.runner", "tool_status": "tracers.static"}

__all__ = ["Limits", "ToolchainStatus", "TraceOptions", "TraceRun", "Tracer", "check_toolchains", "run_baseline",
           "tool_status", "trace_for_build", "trace_instance", "trace_program", "trace_runs", "tracer_for"]
__getattr__, __dir__ = lazy_names(__name__, _LAZY, globals())
