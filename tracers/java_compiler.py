"""A warm `javac`: one long-lived JVM running `javax.tools.JavaCompiler` for many programs.

Starting javac costs about a second of JVM start and warm-up per program; the server pays it
once per Python process. Requests go over stdin/stdout (protocol in CompileServer.java), one
at a time under a lock (traces from several threads share it). A request that takes longer
than its timeout kills the server; the next request starts a new one, as after a crash.
The server is stopped at interpreter exit. javac never runs program code (`-proc:none`).
`compile_program` picks the level: `--release 17` first (see java_toolchain for why).
"""
from __future__ import annotations

import atexit
import queue
import shutil
import subprocess
import threading
from dataclasses import dataclass, field
from pathlib import Path

from core.errors import TracerError
from tracers.java_toolchain import PROGRAM_RELEASE, Jdk

SERVER_CLASS = "traceeval.agent.CompileServer"
SERVER_OPTIONS = ("-Xmx512m", "-XX:+UseSerialGC", "-Xshare:auto", "-XX:TieredStopAtLevel=1")


@dataclass(frozen=True)
class CompiledMethod:
    name: str
    descriptor: str
    access: int
    first_line: int  # line of the lowest bytecode offset that has one; 0 when none


@dataclass(frozen=True)
class CompiledClass:
    internal_name: str  # com/demo/Main$1
    source_file: str  # the SourceFile attribute, e.g. Main.java
    methods: tuple[CompiledMethod, ...]


@dataclass(frozen=True)
class CompileError:
    file: str  # relative to the program root; "" when not about a file
    line: int
    message: str

    def __str__(self) -> str:
        first = self.message.splitlines()[0] if self.message else ""
        return f"{self.file}:{self.line}: error: {first}" if self.file else f"error: {first}"


@dataclass
class CompileResult:
    ok: bool
    errors: list[CompileError] = field(default_factory=list)
    classes: list[CompiledClass] = field(default_factory=list)


def _unescape(text: str) -> str:
    out, chars = [], iter(text)
    for char in chars:
        if char == "\\":
            following = next(chars, "")
            out.append({"n": "\n", "t": "\t"}.get(following, following))
        else:
            out.append(char)
    return "".join(out)


def parse_response(lines: list[str]) -> CompileResult:
    result = CompileResult(ok=bool(lines) and lines[0] == "OK")
    methods: list[CompiledMethod] = []
    current: tuple[str, str] | None = None

    def close() -> None:
        if current:
            result.classes.append(CompiledClass(current[0], current[1], tuple(methods)))

    for line in lines[1:]:
        fields = line.split("\t")
        if fields[0] == "D" and len(fields) >= 4:
            result.errors.append(CompileError(_unescape(fields[1]), int(fields[2] or 0), _unescape(fields[3])))
        elif fields[0] == "C" and len(fields) >= 3:
            close()
            current, methods = (fields[1], _unescape(fields[2])), []
        elif fields[0] == "M" and len(fields) >= 5:
            methods.append(CompiledMethod(fields[1], fields[2], int(fields[3]), int(fields[4])))
    close()
    return result


class CompileServer:
    """The shared warm compiler; `compile` is thread-safe."""

    def __init__(self, java: Path, classpath: str) -> None:
        self._argv = [str(java), *SERVER_OPTIONS, "-cp", classpath, SERVER_CLASS]
        self._lock = threading.Lock()
        self._process: subprocess.Popen | None = None
        self._lines: queue.Queue[str | None] = queue.Queue()
        atexit.register(self.close)

    def compile(self, root: Path, outdir: Path, files: list[Path], timeout: float,
                release: int | None = None) -> CompileResult:
        """Compile `files` (absolute, under `root`) into `outdir`, for `--release N` (None: the JDK's own)."""
        fields = ["COMPILE", "" if release is None else str(release), str(root), str(outdir), *map(str, files)]
        if any(("\t" in f or "\n" in f) for f in fields):
            raise TracerError("a source path contains a tab or newline; the compile server cannot take it")
        with self._lock:
            process = self._ensure_started()
            if process.stdin is None:
                raise TracerError("the compile server has no input pipe")  # started with stdin=PIPE
            try:
                process.stdin.write(("\t".join(fields) + "\n").encode("utf-8"))
                process.stdin.flush()
            except OSError as error:
                self._stop()
                raise TracerError(f"the compile server died: {error}") from error
            lines: list[str] = []
            while True:
                try:
                    line = self._lines.get(timeout=timeout)
                except queue.Empty:
                    self._stop()
                    return CompileResult(False, [CompileError("", 0, f"javac did not finish within {timeout:g} s")])
                if line is None:
                    self._stop()
                    raise TracerError("the compile server stopped unexpectedly")
                if line == "END":
                    return parse_response(lines)
                lines.append(line)

    def _ensure_started(self) -> subprocess.Popen:
        if self._process is None or self._process.poll() is not None:
            self._lines = queue.Queue()
            try:
                self._process = subprocess.Popen(self._argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                                 stderr=subprocess.DEVNULL)
            except OSError as error:
                raise TracerError(f"cannot start the compile server: {error}") from error
            threading.Thread(target=_pump, args=(self._process.stdout, self._lines), daemon=True,
                             name="java-compile-server").start()
        return self._process

    def _stop(self) -> None:
        process, self._process = self._process, None
        if process is not None:
            process.kill()
            process.wait()

    def close(self) -> None:
        with self._lock:
            process, self._process = self._process, None
        if process is not None and process.poll() is None:
            try:
                if process.stdin is not None:  # always a pipe (see _ensure_started)
                    process.stdin.close()
                process.wait(timeout=5)
            except (OSError, subprocess.TimeoutExpired):
                process.kill()
                process.wait()


def compile_program(server: CompileServer, jdk: Jdk, root: Path, outdir: Path, files: list[Path],
                    timeout: float) -> tuple[CompileResult, list[str]]:
    """Compile for `--release 17` (class files ASM 9.4 reads as its own); a program that needs a newer
    level on a newer JDK (Java 21+ features or APIs) is compiled at the JDK's own level instead, and
    the returned note (a run warning) says so. On JDK 17, or when both fail, the errors are javac's."""
    compiled = server.compile(root, outdir, files, timeout, release=PROGRAM_RELEASE)
    if compiled.ok or jdk.major <= PROGRAM_RELEASE:
        return compiled, []
    for leftover in outdir.iterdir():  # javac may have written some classes before failing
        if leftover.is_dir():
            shutil.rmtree(leftover)
        else:
            leftover.unlink()
    native = server.compile(root, outdir, files, timeout)
    if not native.ok:
        return native, []
    why = str(compiled.errors[0]) if compiled.errors else "javac failed without a message"
    return native, [f"compiled for Java {jdk.major}, not {PROGRAM_RELEASE}: with --release {PROGRAM_RELEASE}, {why}"]


def _pump(stream, lines: queue.Queue) -> None:
    for raw in stream:
        lines.put(raw.decode("utf-8", "replace").rstrip("\n"))
    lines.put(None)
