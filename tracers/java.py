"""The Java tracer: a warm javac, an ASM agent, one sandboxed JVM per program run, on any JDK 17 to 25.

0. The JDK is `$TRACEEVAL_JAVA_HOME`'s, else PATH's, else `$JAVA_HOME`'s (`java_toolchain`);
   `JavaTracer(jdk)` pins one (doctor's probes). Each JDK has its own compile server and agent jar.
1. Nodes come from core/symbols (tree-sitter), so names are exactly TraceEval's.
2. The program copy is compiled by the shared compile server (`java_compiler`) with `--release 17`
   (or the JDK's own level if it needs Java 21+: a run warning says so), which also
   describes every compiled method (SourceFile, first line); `java_plan` maps each method to
   its node by span (never by descriptor) and says what is transparent or not instrumented.
   Its docstring is where calls that have no node of their own go: lambdas -> the enclosing
   method; field initialisers -> the explicit constructor running them, or (implicit default
   constructor, static initialisers without a `static {}` block) the frame below, i.e. the
   method that ran `new C()` or first used the class (docs/benchmark.md, next to the
   JavaScript rule). Where the JVM forces that: implicit constructors, a `<clinit>` without
   `static {}`, record accessors and enum `values`/`valueOf` are not nodes; javac copies field
   initialisers only into constructors that call `super(...)`, so with `this(...)` chaining
   they are the last constructor's; a lambda written in a field initialiser has no enclosing
   node, so its calls are the frame's that runs it.
3. The program runs in its own JVM inside `run_sandboxed` with the agent (`java_agent/`),
   which keeps a shadow stack per thread: the caller of an edge is the nearest program frame
   (JDK frames are not instrumented, so a callback from `Collections.sort` or a stream is the
   program frame's call), the call-site line is that frame's current line. Self-recursion is
   kept (`keep_self_edges=True`), as in the released Java data.
4. A new thread's first program frame is called by the frame that ran `Thread.start()` on it;
   threads started by the JDK (executor pools, timers) have no caller for their first frame.
5. The agent is given through `$JAVA_TOOL_OPTIONS`, so a `java` child process (`ProcessBuilder`
   running `java`) loads it too and is traced by the same plan: it writes its own log
   (`ChildProcesses.java`, `tracers.child_processes`), its edges join the run's and it is named in
   the run's `children`; `ProcessBuilder.start` is instrumented to list every program started.
   The child's own stderr begins with the JVM's "Picked up JAVA_TOOL_OPTIONS" note.
6. The main thread's uncaught exception is logged (status exception) and printed as the JVM
   would; `System.exit(n)` is status exit_code; counts are written by a shutdown hook, so a
   killed run (timeout) keeps its edges with counts marked unknown.
"""
from __future__ import annotations

import threading
import time
from dataclasses import replace
from pathlib import Path

from core import traces
from core.dataset.entry_points import java_main_class
from core.errors import TracerError
from core.records import Instance
from core.symbols import extract_symbols
from core.traces import TraceRun
from tracers import child_processes, java_toolchain
from tracers.base import ToolchainStatus, TraceOptions
from tracers.java_compiler import CompiledClass, CompileServer, compile_program
from tracers.java_plan import build_plan
from tracers.run_folder import run_folder
from tracers.sandbox import Limits, run_sandboxed
from tracers.sandbox_view import install_root
from tracers.tracelog import build_run, log_of, now_iso, stopped_run

MAIN_SIGNATURE = ":main(java.lang.String[])"
TOOL_OPTIONS_ENV = "JAVA_TOOL_OPTIONS"
ACC_PUBLIC_STATIC = 0x0001 | 0x0008
COMPILE_TIMEOUT_S = 60.0


def jvm_options(limits: Limits) -> list[str]:
    """Fast start, and a heap well below the sandbox's data limit (RLIMIT_DATA also counts the
    JVM's own metaspace, code cache, thread stacks and malloc arenas)."""
    heap = max(32, min(512, limits.memory_mb // 4))
    return [f"-Xmx{heap}m", "-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1", "-Xshare:auto",
            "-XX:ReservedCodeCacheSize=64m", "-Xss1m"]


class JavaTracer:
    language = "java"
    name = "java-asm-agent"
    version = "1.0"

    def __init__(self, jdk: java_toolchain.Jdk | None = None) -> None:
        self._jdk = jdk  # None: the chosen JDK (java_toolchain.find_jdk), looked up at each trace
        self._servers: dict[Path, tuple[CompileServer, Path]] = {}  # javac -> (its server, its agent jar)
        self._lock = threading.Lock()

    def jdk(self) -> java_toolchain.Jdk:
        return self._jdk or java_toolchain.find_jdk()

    def check(self) -> ToolchainStatus:
        problems = []
        detail = ""
        try:
            jdk = self.jdk()
            detail = f"JDK {jdk.version} ({jdk.javac.parent})"
        except TracerError as error:
            problems.append(str(error))
        try:
            jars = java_toolchain.asm_jars()
            detail += f"; ASM {jars[0].resolve().name}"
        except TracerError as error:
            problems.append(str(error))
        if problems:
            return ToolchainStatus(self.language, False, "; ".join(problems), tuple(problems))
        return ToolchainStatus(self.language, True, detail.strip("; "))

    def compile_server(self, jdk: java_toolchain.Jdk) -> tuple[CompileServer, Path]:
        """The warm compiler running on `jdk`, and the agent jar built by it (one of each per JDK)."""
        with self._lock:
            if jdk.javac not in self._servers:
                agent = java_toolchain.agent_jar(jdk)
                classpath = ":".join(str(p) for p in (agent, *java_toolchain.asm_jars()))
                self._servers[jdk.javac] = (CompileServer(jdk.java, classpath), agent)
            return self._servers[jdk.javac]

    def close(self) -> None:
        """Stop the compile servers now (they also stop at interpreter exit)."""
        with self._lock:
            servers, self._servers = list(self._servers.values()), {}
        for server, _ in servers:
            server.close()

    def trace(self, instance: Instance, options: TraceOptions | None = None) -> TraceRun:
        options = options or TraceOptions()
        started_at, clock = now_iso(), time.monotonic()
        sources = {f: instance.read_source(f) for f in instance.files if f.endswith(".java")}
        table = extract_symbols("java", sources)
        nodes = table.nodes
        timings: dict[str, float] = {"symbols": time.monotonic() - clock}

        def early(status: str, message: str, stderr: str = "") -> TraceRun:
            return stopped_run(self, instance.key, started_at, status, message, nodes=nodes, timings=timings,
                               stderr=stderr)

        status = self.check()
        if not status.ok:
            return early(traces.TOOLCHAIN_MISSING, status.detail)
        main_class = java_main_class(sources)
        if not main_class:
            return early(traces.NO_ENTRY_POINT, "no class declares public static void main(String[])")
        try:
            jdk = self.jdk()
            server, agent = self.compile_server(jdk)
        except TracerError as error:
            return early(traces.TRACER_ERROR, str(error))
        with run_folder(instance.root) as folder:
            program, out = folder.program, folder.out
            classes = out / "classes"
            classes.mkdir()
            clock_phase = time.monotonic()
            compiled, level_note = compile_program(server, jdk, program, classes, [program / f for f in sources],
                                                   COMPILE_TIMEOUT_S)
            timings["compile"] = time.monotonic() - clock_phase
            if not compiled.ok:
                errors = [str(e) for e in compiled.errors] or ["javac failed without a message"]
                return early(traces.COMPILE_ERROR, errors[0], "\n".join(errors))
            plan = build_plan(nodes, compiled.classes)
            main_id = next((i for i, n in enumerate(nodes) if n.name == main_class + MAIN_SIGNATURE), None)
            entry = plan.node_classes.get(main_id) if main_id is not None else None
            if entry is None or not _is_public_static_main(compiled.classes, entry):
                return early(traces.NO_ENTRY_POINT, f"{main_class} has no public static void main(String[])")
            (out / "plan.tsv").write_text(plan.text(), encoding="utf-8")
            tool_options = tool_options_for(options.limits, agent, out / "plan.tsv")
            argv = [str(jdk.java), *jvm_options(options.limits), "-cp", str(classes),
                    entry.replace("/", ".")]
            clock_phase = time.monotonic()
            toolchain = [*install_root(jdk.java), agent, *java_toolchain.asm_jars(), out]
            result = run_sandboxed(argv, folder, env={TOOL_OPTIONS_ENV: tool_options}, read_only=toolchain,
                                   limits=options.limits, cancel=options.cancel, trace_log=True)
            result = replace(result, stderr=without_tool_options_note(result.stderr, tool_options))
            timings["run"] = time.monotonic() - clock_phase

        def name_of(frame: str) -> str | None:
            index = int(frame) if frame.isdigit() else -1
            return nodes[index].name if 0 <= index < len(nodes) else None

        run = build_run(instance_key=instance.key, language=self.language, tracer=self.name,
                        version=self.version, started_at=started_at, nodes=nodes, result=result,
                        limits=options.limits, name_of=name_of, keep_self_edges=True, timings=timings,
                        warnings=[*folder.notes, *level_note, *plan.warnings])
        return replace(run, children=child_processes.child_facts(log_of(result), name_of, keep_self_edges=True))


def tool_options_for(limits: Limits, agent: Path, plan: Path) -> str:
    """`$JAVA_TOOL_OPTIONS` of a run: every JVM started in the sandbox (a `java` child process too) loads
    the agent with the plan and gets the same memory options."""
    return " ".join([*jvm_options(limits), f"-javaagent:{agent}={plan}"])


def without_tool_options_note(stderr: str, tool_options: str) -> str:
    """The program's stderr without the note every JVM prints when `$JAVA_TOOL_OPTIONS` is set
    (a child JVM's own stderr keeps it: the program reading it sees the note)."""
    note = f"Picked up {TOOL_OPTIONS_ENV}: {tool_options}\n"
    return stderr[len(note):] if stderr.startswith(note) else stderr


def _is_public_static_main(classes: list[CompiledClass], internal_name: str) -> bool:
    for cls in classes:
        if cls.internal_name == internal_name:
            return any(m.name == "main" and m.descriptor == "([Ljava/lang/String;)V"
                       and m.access & ACC_PUBLIC_STATIC == ACC_PUBLIC_STATIC for m in cls.methods)
    return False


TRACER = JavaTracer()
