"""Which Python interpreter runs traced programs, and what it is.

The choice is `core.user_python`'s: this one, `$TRACEEVAL_PYTHON`, or in the packaged app
`python3` from PATH (its executable is the app, carrying only the standard library modules the app
imports), as the other tracers use `node` and `javac` from PATH.

The C profiler (`python_runtime/_profiler*.so`) is built for one interpreter version; it is used
only when a build for the chosen interpreter's extension suffix sits in the runtime folder, else
the child falls back to the pure-Python backend.
"""
from __future__ import annotations

import os
import shutil
import subprocess
import sys
import sysconfig
from dataclasses import dataclass
from functools import cache
from pathlib import Path

from core.user_python import PYTHON_ENV, NoPython, chosen_python, is_frozen
from tracers.python_runtime import RUNTIME_DIR

INTERPRETER_ENV = PYTHON_ENV
MINIMUM_VERSION = (3, 10)
# The child names its own executable: a launcher such as a pyenv shim resolves to the real interpreter.
_ASK = "import sys, sysconfig; print(sys.executable); print('.'.join(map(str, sys.version_info[:3]))); " \
       "print(sysconfig.get_config_var('EXT_SUFFIX') or '')"


@dataclass(frozen=True)
class Interpreter:
    path: str
    version: tuple[int, ...]
    ext_suffix: str  # e.g. ".cpython-311-x86_64-linux-gnu.so"

    @property
    def version_text(self) -> str:
        return ".".join(map(str, self.version))

    @property
    def has_monitoring(self) -> bool:
        """PEP 669 `sys.monitoring` (Python 3.12+): the fast backend without the C extension."""
        return self.version >= (3, 12)

    @property
    def has_c_profiler(self) -> bool:
        return bool(self.ext_suffix) and (Path(RUNTIME_DIR) / f"_profiler{self.ext_suffix}").is_file()


class InterpreterProblem(Exception):
    """Why no interpreter can run traced programs (shown as the tracer's toolchain problem)."""


def find_interpreter(given: str | None = None) -> Interpreter:
    """The interpreter for traced programs (or `given`, for the user's release); raises InterpreterProblem with a
    one-line reason."""
    try:
        path = chosen_python(given)
    except NoPython as problem:
        raise InterpreterProblem(str(problem)) from None
    if path == sys.executable and not is_frozen():
        return Interpreter(sys.executable, tuple(sys.version_info[:3]), sysconfig.get_config_var("EXT_SUFFIX") or "")
    return _describe(path)


@cache
def _describe(path: str) -> Interpreter:
    try:
        done = subprocess.run([path, "-I", "-c", _ASK], capture_output=True, text=True, timeout=30, check=False)
    except (OSError, subprocess.SubprocessError) as error:
        raise InterpreterProblem(f"{path} does not run: {error}") from None
    lines = done.stdout.splitlines()
    if done.returncode != 0 or len(lines) != 3:
        raise InterpreterProblem(f"{path} is not a working Python interpreter")
    executable, version_text, ext_suffix = lines
    version = tuple(int(part) for part in version_text.split(".") if part.isdigit())
    if version < MINIMUM_VERSION:
        raise InterpreterProblem(f"{path} is Python {version_text}: traced programs need "
                                 f"{'.'.join(map(str, MINIMUM_VERSION))} or newer")
    return Interpreter(executable or path, version, ext_suffix)


@dataclass(frozen=True)
class FoundPython:
    """One Python on this machine that could run traced programs (`doctor` lists them)."""

    origin: str  # "this", "$TRACEEVAL_PYTHON", "python3 on PATH" or "pyenv"
    interpreter: Interpreter | None  # None when it does not run or is too old
    problem: str = ""


def other_pythons() -> list[FoundPython]:
    """This interpreter, `$TRACEEVAL_PYTHON`'s, python3 on PATH and pyenv's versions, each once
    (by real executable); pyenv versions older than MINIMUM_VERSION are left out."""
    candidates: list[tuple[str, str]] = []
    if not is_frozen():
        candidates.append(("this", sys.executable))
    named = os.environ.get(INTERPRETER_ENV)
    if named and shutil.which(named):
        candidates.append((f"${INTERPRETER_ENV}", shutil.which(named) or named))
    on_path = shutil.which("python3")
    if on_path:
        candidates.append(("python3 on PATH", on_path))
    candidates += [("pyenv", str(path)) for path in pyenv_pythons()]
    found: list[FoundPython] = []
    seen: set[str] = set()
    for origin, path in candidates:
        try:
            interpreter = _describe(path)
        except InterpreterProblem as problem:
            if origin != "pyenv":
                found.append(FoundPython(origin, None, str(problem)))
            continue
        if interpreter.path not in seen:
            seen.add(interpreter.path)
            found.append(FoundPython(origin, interpreter))
    return found


def pyenv_pythons() -> list[Path]:
    """`<pyenv root>/versions/*/bin/python3` ($PYENV_ROOT, else ~/.pyenv), sorted by version."""
    root = Path(os.environ.get("PYENV_ROOT") or Path.home() / ".pyenv") / "versions"
    try:
        folders = [folder for folder in root.iterdir() if (folder / "bin" / "python3").is_file()]
    except OSError:
        return []
    return [folder / "bin" / "python3" for folder in sorted(folders, key=lambda f: _version_key(f.name))]


def _version_key(name: str) -> tuple[int, ...]:
    return tuple(int(part) if part.isdigit() else -1 for part in name.split("."))
