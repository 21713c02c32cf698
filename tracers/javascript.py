"""The JavaScript tracer: a shadow stack kept by instrumented source, run by Node in the sandbox.

1. Names: `extract_symbols("javascript", files)` names every function-like node and its span;
   the instrumenter (`js_instrument`) looks each function up by span, so the trace uses exactly
   those names (docs/benchmark.md, and `core.symbols.javascript` for the choices it leaves open).
2. Syntax errors (tree-sitter error nodes) in any program file: COMPILE_ERROR, nothing runs.
3. Every source file of a private copy of the program is rewritten (insertions only, no new
   lines) and `node --require js_runtime/runtime.js <entry>` runs it in the sandbox.
4. The runtime keeps a shadow stack: the caller of a call is the nearest program frame below
   the callee (built-ins such as `map`, `sort` or `EventEmitter.emit` have no frame), and a
   module's top-level code is the module node (loading a module is not an edge). It writes
   the trace log (`tracers.trace_records`), from which `build_run` makes the `TraceRun`;
   self-edges are dropped. CommonJS files are compiled by the runtime before the program
   starts, so early errors tree-sitter accepts are COMPILE_ERROR too.

Field initialisers (docs/benchmark.md, next to Java's rule): an instance field initialiser's
calls belong to the class's explicit constructor (a base class runs them before the body, a
derived class when `super()` returns; `js_instrument` gives both the constructor's frame); in
a class without one, to the frame that ran `new C()` or `super()`.

Where JavaScript puts calls outside any node (no node to give them to):
- the implicit constructor of a class without `constructor(){}`: its `super(...)` call and
  its fields' calls are the frame's that ran `new C()` (or `super()`);
- static fields, `static {}` blocks and computed member keys run once, when the class is
  evaluated: their calls belong to the frame that evaluates it (the module for a top-level class);
- default parameter values (`function f(a = g())`) are evaluated before the function's body,
  where its frame is entered, so their calls are the caller's (not f's): a limit of this
  tracer, as of the released one, not fixed.

Asynchronous code (details at the top of `js_runtime/runtime.js`):
- `await` and `yield` take the suspended function off the stack; code after them runs as
  that function again (a resumed generator is called by whoever resumed it; an async
  continuation makes no new edge). `yield*` runs the inner iterator under the outer generator.
- a promise job (`then`/`catch`/`finally` callback) or timer callback (`setTimeout`,
  `setInterval`, `setImmediate`, `queueMicrotask`, `process.nextTick`) is called by the
  program frame that was on top when the callback was registered (wrapped `then` and
  schedulers, no async_hooks). A function entered with an empty stack otherwise (an I/O
  callback from Node internals) makes no edge and is listed as unresolved.
- a `node` child process (`child_process.spawn('node', ...)`, `fork`, `execFile`...) inherits
  `NODE_OPTIONS` (`--require` the runtime; the runtime adds it back to an explicit `env`), so it is
  traced by the same rules; it writes its own log (`tracers.child_processes`), its edges join the
  run's and it is named in the run's `children`; other programs started are listed, untraced.
- call-site lines are exact for call and `new` expressions; calls without a call expression
  (getters, setters, iterator steps, tagged templates) carry the line of the caller's most
  recent call, an approximation.
"""
from __future__ import annotations

import json
import re
import shutil
import subprocess
import time
from dataclasses import replace
from pathlib import Path

from core import traces
from core.languages import registry
from core.records import Instance
from core.symbols import SymbolTable, extract_symbols
from core.symbols.parsing import Source, first_error_line
from core.traces import TraceRun
from tracers import child_processes
from tracers.base import ToolchainStatus, TraceOptions
from tracers.js_instrument import Span, instrument
from tracers.run_folder import run_folder
from tracers.sandbox import Limits, run_sandboxed
from tracers.sandbox_view import install_root
from tracers.tracelog import build_run, log_of, now_iso, stopped_run

RUNTIME = Path(__file__).with_name("js_runtime") / "runtime.js"
MINIMUM_NODE = 18
ROOT_ENV = "TRACEEVAL_ROOT"
CJS_ENV = "TRACEEVAL_CJS"  # CommonJS files the runtime compiles before the program starts
NODE_OPTIONS_ENV = "NODE_OPTIONS"
COMPILE_ERROR_MARK = "compile error: "  # a `W` record the runtime writes for a syntax error


class JavaScriptTracer:
    language = "javascript"
    name = "javascript-shadow-stack"
    version = "1.0"

    def check(self) -> ToolchainStatus:
        node = shutil.which("node")
        if node is None:
            return ToolchainStatus(self.language, False, "Node.js not found on PATH: install Node 18 or newer",
                                   ("node not found",))
        version = node_version(node)
        if version is None:
            return ToolchainStatus(self.language, False, f"{node} does not report a version",
                                   ("node --version failed",))
        if version[0] < MINIMUM_NODE:
            detail = f"Node {'.'.join(map(str, version))} at {node} is too old: Node {MINIMUM_NODE}+ is needed"
            return ToolchainStatus(self.language, False, detail, ("node too old",))
        if not RUNTIME.is_file():
            return ToolchainStatus(self.language, False, f"tracer runtime missing: {RUNTIME}",
                                   ("runtime missing",))
        return ToolchainStatus(self.language, True, f"Node {'.'.join(map(str, version))} at {node}")

    def trace(self, instance: Instance, options: TraceOptions | None = None) -> TraceRun:
        options = options or TraceOptions()
        started_at = now_iso()
        clock = time.monotonic()
        files = {path: instance.read_source(path) for path in instance.files
                 if path.endswith(registry.get("javascript").suffixes)}
        table = extract_symbols("javascript", files)
        timings = {"symbols": time.monotonic() - clock}

        def stopped(status: str, message: str) -> TraceRun:
            return stopped_run(self, instance.key, started_at, status, message, nodes=table.nodes, timings=timings)

        node = shutil.which("node")
        if node is None:
            return stopped(traces.TOOLCHAIN_MISSING, "Node.js not found on PATH")
        entry = instance.entry_point if instance.entry_point in files else ""
        if not entry:
            return stopped(traces.NO_ENTRY_POINT,
                           "no entry point: no main.js, main.mjs or main.cjs and not a single-file program")
        problem = syntax_problem(files)
        if problem:
            return stopped(traces.COMPILE_ERROR, problem)
        with run_folder(instance.root) as folder:
            copy = folder.program
            clock_instrument = time.monotonic()
            warnings = folder.notes + write_instrumented(copy, files, table)
            timings["instrument"] = time.monotonic() - clock_instrument
            argv = [node, f"--max-old-space-size={heap_mb(options.limits)}", "--require", str(RUNTIME),
                    entry]
            env = {ROOT_ENV: str(copy),
                   CJS_ENV: "\n".join(str(copy / path) for path in commonjs_files(instance.root, files)),
                   NODE_OPTIONS_ENV: node_options(options.limits)}
            result = run_sandboxed(argv, folder, env=env, read_only=[*install_root(node), RUNTIME.parent],
                                   limits=options.limits, cancel=options.cancel, trace_log=True)
            timings["run"] = result.duration_s
        log = log_of(result)
        compile_errors = [w[len(COMPILE_ERROR_MARK):] for w in log.top.warnings if w.startswith(COMPILE_ERROR_MARK)]
        if compile_errors:
            return stopped(traces.COMPILE_ERROR, located(compile_errors[0], result.stderr, copy))
        known = set(table.by_name)

        def name_of(frame: str) -> str | None:
            return frame if frame in known else None

        run = build_run(instance_key=instance.key, language=self.language, tracer=self.name,
                        version=self.version, started_at=started_at, nodes=table.nodes, result=result,
                        limits=options.limits, name_of=name_of, keep_self_edges=False, timings=timings,
                        warnings=warnings)
        return replace(run, children=child_processes.child_facts(log, name_of, keep_self_edges=False))


def write_instrumented(copy: Path, files: dict[str, str], table: SymbolTable) -> list[str]:
    """Overwrite each source file of the program copy with its instrumented text."""
    spans: dict[str, dict[Span, str]] = {path: {} for path in files}
    for node in table.nodes:
        for definition in table.definitions(node.name):
            if definition.kind != "module" and definition.file in spans:
                key = (definition.start_line, definition.start_col, definition.end_line, definition.end_col)
                spans[definition.file][key] = definition.name
    warnings = []
    for path, text in files.items():
        result = instrument(path, text, table.modules[path], spans[path])
        (copy / path).write_text(result.text, encoding="utf-8")
        warnings += [f"no symbol-table node for the function at {name}" for name in result.unnamed]
    return warnings


def commonjs_files(root: Path, files: dict[str, str]) -> list[str]:
    """Files Node loads as CommonJS: `.cjs`, and `.js` unless the nearest package.json says
    `"type": "module"`."""
    types: dict[Path, str] = {}

    def package_type(folder: Path) -> str:
        if folder not in types:
            manifest = folder / "package.json"
            kind = ""
            if manifest.is_file():
                try:
                    data = json.loads(manifest.read_text(encoding="utf-8"))
                    kind = data.get("type", "commonjs") if isinstance(data, dict) else "commonjs"
                except (OSError, ValueError):
                    kind = "commonjs"
            elif folder != root and root in folder.parents:
                kind = package_type(folder.parent)
            types[folder] = kind or "commonjs"
        return types[folder]

    return [path for path in files if path.endswith(".cjs")
            or (path.endswith(".js") and package_type((root / path).parent) != "module")]


def located(message: str, stderr: str, copy: Path) -> str:
    """`file:line: message`; ES module syntax errors get their place from the first line Node
    printed (`file:///<copy>/lib.mjs:2`), the only place Node exposes it."""
    if not message.startswith("SyntaxError"):
        return message
    first = stderr.lstrip().partition("\n")[0].removeprefix("file://")
    prefix = f"{copy}/"
    if first.startswith(prefix):
        return f"{first[len(prefix):]}: {message}"
    return message


def syntax_problem(files: dict[str, str]) -> str:
    """`file:line: syntax error` for the first file tree-sitter cannot parse cleanly, else ''."""
    for path, text in files.items():
        line = first_error_line(Source.parse("javascript", path, text).tree.root_node)
        if line is not None:
            return f"{path}:{line}: syntax error"
    return ""


def node_options(limits: Limits) -> str:
    """`$NODE_OPTIONS` of a run: a `node` child process inherits it, and so is traced like the program."""
    return f"--require {RUNTIME} --max-old-space-size={heap_mb(limits)}"


def heap_mb(limits: Limits) -> int:
    """V8's old-space cap, under the sandbox's data limit so V8 fails cleanly before the kernel does."""
    return max(64, limits.memory_mb * 3 // 4)


def node_version(node: str) -> tuple[int, ...] | None:
    try:
        output = subprocess.run([node, "--version"], capture_output=True, text=True, timeout=20, check=False).stdout
    except (OSError, subprocess.SubprocessError):
        return None
    match = re.match(r"v(\d+)\.(\d+)\.(\d+)", output.strip())
    return tuple(int(part) for part in match.groups()) if match else None


TRACER = JavaScriptTracer()
