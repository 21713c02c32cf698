"""Find the JDK and ASM, and build the Java agent jar once into the cache folder.

The JDK is the one whose `javac` is on PATH (symlinks resolved; `java` from the same bin
folder); `$JAVA_HOME` is used only when PATH has no `javac`. Either must be a JDK 17 to 20:
17 is the floor for the sources we compile and ASM 9.4 (Debian's `libasm-java`) reads class
files only up to Java 20, so a newer JDK (e.g. a Temurin 25 in /usr/lib/jvm) is never used.

The agent's Java sources ship in `tracers/java_agent/`; they are compiled on first use into
`$TRACEEVAL_CACHE_DIR` (default `~/.cache/traceeval-studio/`) under a folder named by a hash of
the sources, the JDK and the ASM jars, so an upgrade rebuilds it and old builds are never reused.
"""
from __future__ import annotations

import hashlib
import os
import re
import shutil
import subprocess
import tempfile
import threading
from dataclasses import dataclass
from functools import cache
from pathlib import Path

from core.errors import TracerError
from core.user_folders import cache_dir

AGENT_SOURCES = Path(__file__).resolve().parent / "java_agent"
ASM_FOLDER = Path("/usr/share/java")
ASM_JARS = ("asm.jar", "asm-commons.jar", "asm-tree.jar")
MIN_MAJOR, MAX_MAJOR = 17, 20
_build_lock = threading.Lock()


@dataclass(frozen=True)
class Jdk:
    javac: Path
    java: Path
    version: str  # e.g. "17.0.15"


def _major(version: str) -> int:
    head = version.split(".")[0]
    return int(head) if head.isdigit() else 0


def _javac_version(javac: Path) -> str:
    try:
        done = subprocess.run([str(javac), "-version"], check=False, capture_output=True, text=True, timeout=30)
    except (OSError, subprocess.SubprocessError):
        return ""
    match = re.search(r"javac\s+(\S+)", done.stdout + done.stderr)
    return match.group(1) if match else ""


@cache
def find_jdk() -> Jdk:
    """The JDK to use; raises TracerError saying what was found and what is missing."""
    candidates = []
    on_path = shutil.which("javac")
    if on_path:
        candidates.append(Path(os.path.realpath(on_path)))
    elif os.environ.get("JAVA_HOME"):
        candidates.append(Path(os.environ["JAVA_HOME"]) / "bin" / "javac")
    for javac in candidates:
        java = javac.parent / "java"
        version = _javac_version(javac)
        if not version or not java.is_file():
            raise TracerError(f"{javac} does not work as a JDK (no version or no java beside it)")
        if not MIN_MAJOR <= _major(version) <= MAX_MAJOR:
            raise TracerError(f"{javac} is JDK {version}; the Java tracer needs JDK {MIN_MAJOR} to {MAX_MAJOR} "
                              f"(install the Debian package openjdk-17-jdk-headless)")
        return Jdk(javac, java, version)
    raise TracerError("no javac on PATH and no $JAVA_HOME: install the Debian package openjdk-17-jdk-headless")


def asm_jars() -> list[Path]:
    jars = [ASM_FOLDER / name for name in ASM_JARS]
    missing = [str(jar) for jar in jars if not jar.is_file()]
    if missing:
        raise TracerError(f"ASM not found ({', '.join(missing)}): install the Debian package libasm-java")
    return jars


def agent_source_files() -> list[Path]:
    return sorted(AGENT_SOURCES.rglob("*.java"))


def agent_jar() -> Path:
    """The agent jar (also holding the compile server), built into the cache on first use."""
    jdk, jars = find_jdk(), asm_jars()
    digest = hashlib.sha256()
    for source in agent_source_files():
        digest.update(source.relative_to(AGENT_SOURCES).as_posix().encode())
        digest.update(source.read_bytes())
    digest.update(f"{jdk.javac}|{jdk.version}|{[str(j.resolve()) for j in jars]}".encode())
    folder = cache_dir() / f"java-agent-{digest.hexdigest()[:16]}"
    jar = folder / "agent.jar"
    if jar.is_file():
        return jar
    with _build_lock:
        if not jar.is_file():
            _build(jdk, jars, folder)
    return jar


def _build(jdk: Jdk, jars: list[Path], folder: Path) -> None:
    folder.parent.mkdir(parents=True, exist_ok=True)
    work = Path(tempfile.mkdtemp(prefix="build-", dir=folder.parent))
    try:
        classes = work / "classes"
        classpath = os.pathsep.join(str(j) for j in jars)
        sources = [str(s) for s in agent_source_files()]
        _run([str(jdk.javac), "-nowarn", "-d", str(classes), "-cp", classpath, *sources], "compiling the agent")
        manifest = work / "MANIFEST.MF"
        manifest.write_text("Premain-Class: traceeval.agent.TraceAgent\n"
                            f"Class-Path: {' '.join(j.as_uri() for j in jars)}\n", encoding="utf-8")
        jar_tool = jdk.javac.parent / "jar"
        _run([str(jar_tool), "cfm", str(work / "agent.jar"), str(manifest), "-C", str(classes), "."],
             "packing the agent jar")
        shutil.rmtree(classes)
        try:
            work.rename(folder)  # atomic: another process may have built it meanwhile
        except OSError:
            if not (folder / "agent.jar").is_file():
                raise
    finally:
        shutil.rmtree(work, ignore_errors=True)


def _run(argv: list[str], what: str) -> None:
    try:
        done = subprocess.run(argv, check=False, capture_output=True, text=True, timeout=300)
    except (OSError, subprocess.SubprocessError) as error:
        raise TracerError(f"{what} failed: {error}") from error
    if done.returncode:
        raise TracerError(f"{what} failed: {(done.stderr or done.stdout).strip()[:500]}")
