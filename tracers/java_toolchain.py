"""Find the JDK and ASM, and build the Java agent jar once into the cache folder.

The JDK is, in this order: the one `$TRACEEVAL_JAVA_HOME` names (a JDK's home folder), the one
whose `javac` is on PATH (symlinks resolved; `java` from the same bin folder), the one in
`$JAVA_HOME`. The first of these that is set is the one used; it must be a JDK 17 to 25, else it
is refused with a line saying so (never silently replaced by another). `installed_jdks` also
looks in the standard folders (/usr/lib/jvm, ...) so that `doctor` can say which JDKs work.

ASM 9.4 (Debian's `libasm-java`, the newest Debian ships) reads class files only up to Java 20.
So programs are compiled with `--release 17` (`PROGRAM_RELEASE`), whose class files ASM reads as
its own, whatever the JDK; the agent jar too. A program that needs a newer level (Java 21+
language features or APIs) is compiled at the JDK's own level, and the agent reads such class
files, and the JDK's own (Java 21+ JDKs ship theirs at their own version), through
`java_agent/.../ClassFiles.java`, which lifts ASM's version refusal: versions 61 to 69 share one
class-file format. Hidden classes (lambda proxies) are never transformed (they are not in the plan).

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
from core.user_folders import writable_cache_dir

AGENT_SOURCES = Path(__file__).resolve().parent / "java_agent"
ASM_FOLDER = Path("/usr/share/java")
ASM_JARS = ("asm.jar", "asm-commons.jar", "asm-tree.jar")
MIN_MAJOR, MAX_MAJOR = 17, 25
PROGRAM_RELEASE = 17  # class files ASM 9.4 reads as its own
JAVA_HOME_ENV = "TRACEEVAL_JAVA_HOME"
STANDARD_PLACES = ("/usr/lib/jvm/*", "/usr/java/*", "/opt/java/*", "/opt/jdk*",
                   "/Library/Java/JavaVirtualMachines/*/Contents/Home")
INSTALL_HINT = f"set ${JAVA_HOME_ENV} to a JDK {MIN_MAJOR} to {MAX_MAJOR}, or install openjdk-17-jdk-headless"
_build_lock = threading.Lock()


@dataclass(frozen=True)
class Jdk:
    javac: Path
    java: Path
    version: str  # e.g. "17.0.15"

    @property
    def major(self) -> int:
        return _major(self.version)

    @property
    def home(self) -> Path:
        return self.javac.parent.parent


def _major(version: str) -> int:
    head = version.split(".")[0].split("-")[0]
    return int(head) if head.isdigit() else 0


@cache
def _javac_version(javac: Path) -> str:
    try:
        done = subprocess.run([str(javac), "-version"], check=False, capture_output=True, text=True, timeout=30)
    except (OSError, subprocess.SubprocessError):
        return ""
    match = re.search(r"javac\s+(\S+)", done.stdout + done.stderr)
    return match.group(1) if match else ""


def chosen_javac() -> tuple[Path, str] | None:
    """The `javac` to use and where it came from (the setting, PATH or $JAVA_HOME), before checking it."""
    setting = os.environ.get(JAVA_HOME_ENV)
    if setting:
        return Path(setting) / "bin" / "javac", f"${JAVA_HOME_ENV}"
    on_path = shutil.which("javac")
    if on_path:
        return Path(os.path.realpath(on_path)), "PATH"
    if os.environ.get("JAVA_HOME"):
        return Path(os.environ["JAVA_HOME"]) / "bin" / "javac", "$JAVA_HOME"
    return None


def find_jdk() -> Jdk:
    """The JDK to use; raises TracerError saying what was found and what is missing."""
    chosen = chosen_javac()
    if chosen is None:
        raise TracerError(f"no javac on PATH and no ${JAVA_HOME_ENV} or $JAVA_HOME: {INSTALL_HINT}")
    return jdk_at(*chosen)


def jdk_at(javac: Path, source: str) -> Jdk:
    """The JDK of this `javac` if the tracer can use it; else TracerError naming `source` and the problem."""
    if not javac.is_file():
        raise TracerError(f"{source}: {javac} does not exist ({INSTALL_HINT})")
    java = javac.parent / "java"
    version = _javac_version(javac)
    if not version or not java.is_file():
        raise TracerError(f"{source}: {javac} does not work as a JDK (no version or no java beside it)")
    if not MIN_MAJOR <= _major(version) <= MAX_MAJOR:
        raise TracerError(f"{source}: {javac} is JDK {version}; the Java tracer needs JDK {MIN_MAJOR} to "
                          f"{MAX_MAJOR} ({INSTALL_HINT})")
    return Jdk(javac, java, version)


def installed_jdks() -> list[tuple[Path, str]]:
    """Every `javac` found (the chosen one first), with where it was found; each real file once."""
    found = [chosen_javac()]
    if os.environ.get("JAVA_HOME"):
        found.append((Path(os.environ["JAVA_HOME"]) / "bin" / "javac", "$JAVA_HOME"))
    for pattern in STANDARD_PLACES:
        for javac in sorted(Path("/").glob(pattern.lstrip("/") + "/bin/javac")):
            found.append((javac, str(javac.parent.parent.parent)))
    seen: set[str] = set()
    unique = []
    for item in found:
        if item is not None and os.path.realpath(item[0]) not in seen:
            seen.add(os.path.realpath(item[0]))
            unique.append(item)
    return unique


def asm_jars() -> list[Path]:
    jars = [ASM_FOLDER / name for name in ASM_JARS]
    missing = [str(jar) for jar in jars if not jar.is_file()]
    if missing:
        raise TracerError(f"ASM not found ({', '.join(missing)}): install the Debian package libasm-java")
    return jars


def agent_source_files() -> list[Path]:
    return sorted(AGENT_SOURCES.rglob("*.java"))


def agent_jar(jdk: Jdk) -> Path:
    """The agent jar (also holding the compile server) for `jdk`, built into the cache on first use."""
    jars = asm_jars()
    digest = hashlib.sha256()
    for source in agent_source_files():
        digest.update(source.relative_to(AGENT_SOURCES).as_posix().encode())
        digest.update(source.read_bytes())
    digest.update(f"{jdk.javac}|{jdk.version}|{[str(j.resolve()) for j in jars]}".encode())
    folder = writable_cache_dir() / f"java-agent-{digest.hexdigest()[:16]}"
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
        _run([str(jdk.javac), "-nowarn", "--release", str(PROGRAM_RELEASE), "-d", str(classes), "-cp", classpath,
              *sources], "compiling the agent")
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
