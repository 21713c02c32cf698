"""Which Python interpreter runs traced programs.

Normally this one (`sys.executable`). `$TRACEEVAL_PYTHON` names another. The packaged app
(PyInstaller, `sys.frozen`) has no interpreter of its own that could run arbitrary programs (its
executable is the app, and it carries only the standard library modules the app imports), so it
uses `python3` from PATH, as the other tracers use `node` and `javac` from PATH.

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

from tracers.python_runtime import RUNTIME_DIR

INTERPRETER_ENV = "TRACEEVAL_PYTHON"
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
    wanted = os.environ.get(INTERPRETER_ENV)
    if wanted:
        path = shutil.which(wanted)
        if path is None:
            raise InterpreterProblem(f"${INTERPRETER_ENV} names {wanted}, which is not an executable")
    elif getattr(sys, "frozen", False):
        path = shutil.which("python3") or shutil.which("python")
        if path is None:
            raise InterpreterProblem(f"no python3 on PATH: the packaged app runs Python programs with the system's "
                                     f"Python {'.'.join(map(str, MINIMUM_VERSION))}+ (or set ${INTERPRETER_ENV})")
    else:
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
