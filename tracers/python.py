"""The Python tracer: runs `main.py` in a sandboxed child interpreter under a profile hook.

How a run goes: every program file is compiled here first (a syntax error anywhere is
COMPILE_ERROR and nothing runs); the program is copied, and `<python> -I -B python_runtime/run.py`
runs it in the sandbox, its trace log read as it runs (`tracers.trace_channel`; `<python>` is this
interpreter, or python3 in the packaged app: `python_interpreter`); the log's raw frame ids are named
afterwards, here, by the
spans of `core.symbols.extract_symbols` (`python_frames`), and `tracelog.build_run` makes the
`TraceRun`.

Attribution rules (what counts as the caller of a program frame):
- the caller is the nearest program frame below the callee on its stack; library frames
  (stdlib, site-packages, C functions, code made by `exec` of a string) are skipped, so
  `sorted(key=f)`, `map(f, xs)`, `functools` wrappers and stdlib Python code calling back
  into the program give an edge from the program frame that called the library;
- class bodies and comprehensions (generator expressions included) are not nodes: calls
  made in them belong to the enclosing function or module, and calling them is no edge;
- a module's top-level code runs as the module's node and its calls are edges from it, but
  importing a module is not an edge (module code is never a callee). `main.py` runs as
  `__main__`; its node is `main`;
- each resumption of a generator or coroutine is a call from the frame that resumes it;
- a thread's frames have no program frame below them: the caller is the program frame that
  called `Thread.start()` (at the line of that call). Threads started by library code (a
  thread pool) are attributed to the program frame below that `start()` call, so a pooled
  worker keeps the frame that caused it to start;
- a coroutine stepped by the asyncio event loop is called by the program frame that created
  its task (`loop.create_task`, hence `asyncio.run`, `create_task`, `gather`, `ensure_future`):
  `asyncio.run(main())` at module level is `main -> main.main`; `await asyncio.gather(f(), g())`
  in `main.main` is `main.main -> main.f` and `main.main -> main.g`. A plain callback run by the
  loop (`call_soon`) falls back to the frames below the loop;
- self-edges are dropped; the call-site line is the caller frame's current line;
- a child process run by the same interpreter on a script (`subprocess.run([sys.executable,
  "worker.py"])`) is traced too (`python_runtime/children.py`), with the same rules: its edges
  join the run's, and it is named in the run's `children` with the edges it saw; `-c`/`-m`
  children and other programs are listed untraced (`tracers.child_processes`).

Where Python puts calls outside any node: class bodies and comprehensions (above); default
argument values and decorators are evaluated when `def`/`class` runs, so their calls are the
enclosing scope's; methods Python generates from strings (a dataclass's `__init__`) are not
program code, so what they call (`field(default_factory=f)`, `__post_init__`) is called by
the frame that ran `C()`, like Java's implicit constructors.

Backends (`backend_rows()`, hence `doctor`, say which one each Python found would use),
all giving the same records:
- `c`: the C extension `python_runtime._profiler`, when built for the interpreter's extension
  suffix (`pip install -e .` builds it for the installing interpreter);
- `monitoring`: PEP 669 `sys.monitoring` on Python 3.12+, near the C speed without a compiler
  (library code is switched off at its first event, so only program calls cost anything);
- `python`: the pure-Python `sys.setprofile` fallback (3.10 and 3.11 without the extension).
`auto` takes the first of these that the interpreter has; `check()` says which one is active.
One known difference: a thread started with `_thread.start_new_thread` (not `threading.Thread`)
runs unprofiled under `c` and `python` (the profile hook reaches `threading` threads only), while
`sys.monitoring` sees its calls: its root frame has no caller, the calls it makes are edges.
"""
from __future__ import annotations

import time
from dataclasses import replace
from pathlib import Path

from core import traces
from core.records import Instance
from core.symbols import extract_symbols
from core.traces import TraceRun
from tracers import child_processes, tracelog
from tracers.base import ToolchainStatus, TraceOptions
from tracers.python_frames import FrameNames
from tracers.python_interpreter import Interpreter, InterpreterProblem, find_interpreter, other_pythons
from tracers.python_runtime import RUN_SCRIPT, RUNTIME_DIR
from tracers.run_folder import run_folder
from tracers.sandbox import run_sandboxed
from tracers.sandbox_view import install_root

BACKENDS = ("auto", "c", "monitoring", "python")
BACKEND_TEXT = {
    "c": "C extension (tracers/python_runtime/_profiler)",
    "monitoring": "sys.monitoring (PEP 669)",
    "python": "pure-Python fallback (sys.setprofile; 3.12+ has sys.monitoring, or build the C extension with "
              "`pip install -e .`)",
}


def c_backend_available() -> bool:
    """Whether the C profiler is built for the interpreter that runs traced programs."""
    try:
        return find_interpreter().has_c_profiler
    except InterpreterProblem:
        return False


class PythonTracer:
    language = "python"
    name = "python-profile"
    version = "1.0"

    def __init__(self, backend: str = "auto") -> None:
        if backend not in BACKENDS:
            raise ValueError(f"unknown backend {backend!r} (one of {', '.join(BACKENDS)})")
        self.backend = backend

    def backend_for(self, interpreter: Interpreter) -> str:
        """"c", "monitoring" or "python": what a run with this interpreter will use. A backend the
        interpreter lacks gives the next one ("c" without the extension: "monitoring" on 3.12+)."""
        if self.backend in ("auto", "c") and interpreter.has_c_profiler:
            return "c"
        if self.backend != "python" and interpreter.has_monitoring:
            return "monitoring"
        return "python"

    @property
    def active_backend(self) -> str:
        try:
            return self.backend_for(find_interpreter())
        except InterpreterProblem:
            return "python"

    def check(self) -> ToolchainStatus:
        try:
            interpreter = find_interpreter()
        except InterpreterProblem as problem:
            return ToolchainStatus("python", False, str(problem), (str(problem),))
        return ToolchainStatus("python", True, f"Python {interpreter.version_text} at {interpreter.path}; "
                               f"profiler backend: {BACKEND_TEXT[self.backend_for(interpreter)]}")

    def trace(self, instance: Instance, options: TraceOptions | None = None) -> TraceRun:
        options = options or TraceOptions()
        started_at = tracelog.now_iso()
        clock = time.perf_counter()
        sources = {path: instance.read_source(path) for path in instance.files if path.endswith(".py")}
        table = extract_symbols("python", sources)
        timings = {"symbols": time.perf_counter() - clock}
        stopped = _not_runnable(instance, sources)
        try:
            interpreter = find_interpreter()
        except InterpreterProblem as problem:
            stopped = stopped or (traces.TOOLCHAIN_MISSING, str(problem))
        if stopped:
            return tracelog.stopped_run(self, instance.key, started_at, *stopped, nodes=table.nodes, timings=timings)
        clock = time.perf_counter()
        with run_folder(instance.root) as folder:
            argv = [interpreter.path, "-I", "-B", RUN_SCRIPT, str(folder.program), instance.entry_point,
                    self.backend_for(interpreter)]
            result = run_sandboxed(argv, folder, read_only=[*install_root(interpreter.path), Path(RUNTIME_DIR)],
                                   limits=options.limits, cancel=options.cancel, trace_log=True)
        timings["run"] = time.perf_counter() - clock
        clock = time.perf_counter()
        names = FrameNames(table, sources)
        run = tracelog.build_run(
            instance_key=instance.key, language="python", tracer=self.name, version=self.version,
            started_at=started_at, nodes=table.nodes, result=result, limits=options.limits, name_of=names.name_of,
            keep_self_edges=False, timings=timings, warnings=folder.notes)
        facts = child_processes.child_facts(tracelog.log_of(result), names.name_of, keep_self_edges=False)
        timings["map"] = time.perf_counter() - clock
        return replace(run, duration_s=sum(timings.values()), timings=timings, children=facts)


def backend_rows(tracer: PythonTracer | None = None) -> list[tuple[str, bool, str]]:
    """`doctor`'s optional lines: each Python found (`other_pythons`) and the backend traced
    programs would get if it ran them (set `$TRACEEVAL_PYTHON` to choose it)."""
    tracer = tracer or TRACER
    rows = []
    for found in other_pythons():
        if found.interpreter is None:
            rows.append((f"python backend: {found.origin}", False, found.problem))
            continue
        interpreter = found.interpreter
        backend = tracer.backend_for(interpreter)
        rows.append((f"python backend: {found.origin} {interpreter.version_text}", True,
                     f"{interpreter.path}: {backend} ({BACKEND_TEXT[backend].split(' (')[0]})"))
    return rows


def _not_runnable(instance: Instance, sources: dict[str, str]) -> tuple[str, str] | None:
    """(status, message) when the program cannot run: no entry point, or a syntax error."""
    entry = instance.entry_point
    if not entry or entry not in sources:
        found = ", ".join(sorted(sources)[:5]) or "no .py files"
        return traces.NO_ENTRY_POINT, f"no main.py to run (Python runs main.py; found: {found})"
    for path, text in sources.items():
        try:
            compile(text, path, "exec", dont_inherit=True)
        except SyntaxError as error:
            return traces.COMPILE_ERROR, f"{path}:{error.lineno or 0}: {error.msg}"
        except ValueError as error:  # e.g. source code containing null bytes
            return traces.COMPILE_ERROR, f"{path}: {error}"
    return None


TRACER = PythonTracer()
