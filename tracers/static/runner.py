"""Run one analyzer on programs in the sandbox and store its graphs as model `static:<tool>`.

One program: a safe copy of its folder, the tool's driver run by the traced-program interpreter inside the
sandbox (no network, its own file system view, wall-clock, CPU and memory limits), the graph read back from a
file the tool cannot replace. A tool that crashes, hangs or writes nothing usable gives a prediction with no
answer and the reason as its problem, never an exception. Many programs: worker threads (each run is a child
process), the calling thread alone stores each prediction as it arrives, and programs already analysed by the
same tool version are skipped, so an interrupted run resumes.
"""
from __future__ import annotations

import threading
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from time import monotonic

from core.baselines import static_model_name
from core.baselines.predictions import failed_prediction, static_prediction, tool_source
from core.baselines.tool_graph import BadToolOutput, read_tool_graph
from core.dataset.workspace import Workspace
from core.languages import get
from core.records import Instance, Prediction
from core.safe_files import read_text, why_unreadable
from core.symbols import extract_symbols
from tracers.program_pool import each_result
from tracers.python_interpreter import InterpreterProblem, find_interpreter
from tracers.run_folder import run_folder
from tracers.sandbox import Limits, SandboxResult, run_sandboxed
from tracers.sandbox_view import install_root
from tracers.static import RUNTIME_DIR, tool, tool_status

OUT_ENV = "TRACEEVAL_STATIC_OUT"
GRAPH_FILE = "graph.json"
LIMITS = Limits(wall_s=60.0, cpu_s=120, memory_mb=2048)
Progress = Callable[[int, int, str], None]


def limits_for(timeout_s: float) -> Limits:
    """The limits of one program's analysis with a wall-clock limit of `timeout_s` (CPU time twice that)."""
    return Limits(wall_s=timeout_s, cpu_s=max(LIMITS.cpu_s, int(timeout_s) * 2), memory_mb=LIMITS.memory_mb)


@dataclass(frozen=True)
class StaticRun:
    prediction: Prediction
    outside: int = 0  # edges left out as outside the program
    failed: bool = False
    seconds: float = 0.0


def analyse(name: str, instance: Instance, limits: Limits = LIMITS,
            cancel: threading.Event | None = None) -> StaticRun:
    """Run tool `name` on one program; never raises for anything the program or the tool does."""
    started = monotonic()
    status = tool_status(name)
    why_not = status.problem or status.languages.get(instance.language, f"{name} does not analyse "
                                                                        f"{get(instance.language).title}")
    if why_not:
        return StaticRun(failed_prediction(instance, name, status.version, why_not), failed=True)
    language = get(instance.language)
    try:
        interpreter = find_interpreter()
    except InterpreterProblem as no_interpreter:
        return StaticRun(failed_prediction(instance, name, status.version, str(no_interpreter)), failed=True)
    with run_folder(instance.root) as folder:
        out = folder.private / GRAPH_FILE
        argv = [interpreter.path, "-I", "-B", str(tool(name).script), language.prompt_suffix]
        result = run_sandboxed(argv, folder, read_only=[*install_root(interpreter.path), RUNTIME_DIR],
                               handed={OUT_ENV: out}, limits=limits, cancel=cancel)
        text, problem = _graph_text(out, result, name, limits)
    if problem:
        return StaticRun(failed_prediction(instance, name, status.version, problem), failed=True,
                         seconds=monotonic() - started)
    try:
        graph = read_tool_graph(text)
    except BadToolOutput as bad:
        return StaticRun(failed_prediction(instance, name, status.version, f"{name}: {bad}"), failed=True,
                         seconds=monotonic() - started)
    sources, _unreadable = instance.read_sources()  # a file the tool could not read either: its names go unplaced
    prediction, named = static_prediction(instance, extract_symbols(instance.language, sources), graph)
    return StaticRun(prediction, named.outside, seconds=monotonic() - started)


def _graph_text(out: Path, result: SandboxResult, name: str, limits: Limits) -> tuple[str, str]:
    """(the driver's document, "") or ("", why there is none)."""
    if result.refused:
        return "", result.refused
    if result.cancelled:
        return "", f"{name} was cancelled"
    reason = result.limit_reason
    if reason:
        return "", f"{name} stopped by the {reason} after {result.duration_s:.1f} s"
    if result.exit_code != 0:
        lines = result.stderr.strip().splitlines()
        last = lines[-1][:300] if lines else f"signal {result.signal}" if result.signal else "no message"
        return "", f"{name} failed (exit {result.exit_code}): {last}"
    try:
        return read_text(out, limits.file_mb * 1024 * 1024), ""
    except FileNotFoundError:
        return "", f"{name} wrote no graph"
    except (OSError, UnicodeDecodeError) as error:
        why = why_unreadable(error) if isinstance(error, OSError) else "not UTF-8"
        return "", f"{name}'s graph cannot be read: {why}"


@dataclass
class BaselineReport:
    tool: str
    version: str
    selected: int
    skipped: int  # already analysed by this tool version (resumed)
    unsupported: int  # programs in a language the tool does not analyse
    analysed: int = 0
    failed: int = 0
    outside: int = 0
    cancelled: bool = False
    seconds: float = 0.0
    problems: list[str] = field(default_factory=list)  # one line per failed program

    @property
    def model(self) -> str:
        return static_model_name(self.tool)

    def summary(self) -> str:
        """One line: what the run did (the CLI prints it, the window shows it in the status bar)."""
        return (f"{self.model} ({self.tool} {self.version}): analysed {self.analysed}, already done {self.skipped}, "
                f"not its language {self.unsupported}, failed {self.failed}; {self.outside} edges to code outside "
                f"the program left out; {self.seconds:.1f} s" + ("; cancelled" if self.cancelled else ""))


def run_baseline(ws: Workspace, name: str, keys: Sequence[str], *, jobs: int = 2, limits: Limits = LIMITS,
                 progress: Progress | None = None, cancel: threading.Event | None = None) -> BaselineReport:
    """Analyse every program of `keys` the tool supports and has not analysed in this version; store each."""
    status = tool_status(name)
    model = static_model_name(name)
    supported = [key for key in keys if key.split("/", 1)[0] in status.languages]
    source = tool_source(name, status.version)
    done = ws.predicted_keys_from(model, source) & set(supported)
    todo = [key for key in supported if key not in done]
    report = BaselineReport(name, status.version, len(keys), len(done), len(keys) - len(supported))
    started = monotonic()
    if progress:
        progress(0, len(todo), "")
    for key, run in each_result(ws, todo, lambda instance: analyse(name, instance, limits, cancel), jobs=jobs,
                                cancel=cancel, name=f"static-{name}"):
        if cancel is not None and cancel.is_set() and run.failed:
            continue  # cut short by the cancel: not a result of the tool
        ws.store_predictions(model, [run.prediction], sources=[source], note=f"static call-graph analyzer {source}")
        report.analysed += 1
        report.outside += run.outside
        if run.failed:
            report.failed += 1
            report.problems.append(f"{key}: {run.prediction.parse_problems[0]}")
        if progress:
            progress(report.analysed, len(todo), key)
    report.cancelled = bool(cancel and cancel.is_set()) and report.analysed < len(todo)
    report.seconds = monotonic() - started
    return report
