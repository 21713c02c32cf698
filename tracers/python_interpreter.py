"""Which Python interpreter runs traced programs, and what it is.

The choice is `core.user_python`'s: this one, `$TRACEEVAL_PYTHON`, or in the packaged app
`python3` from PATH (its executable is the app, carrying only the standard library modules the app
imports), as the other tracers use `node` and `javac` from PATH.

The C profiler (`python_runtime/_profiler*.so`) is built for one interpreter version; it is used
only when a build for the chosen interpreter's extension suffix sits in the runtime folder, else
the child falls back to the pure-Python backend.
"""
from __future__ import annotations

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
    def has_c_profiler(self) -> bool:
        return bool(self.ext_suffix) and (Path(RUNTIME_DIR) / f"_profiler{self.ext_suffix}").is_file()


class InterpreterProblem(Exception):
    """Why no interpreter can run traced programs (shown as the tracer's toolchain problem)."""


def find_interpreter() -> Interpreter:
    """The interpreter for traced programs; raises InterpreterProblem with a one-line reason."""
    try:
        path = chosen_python()
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
