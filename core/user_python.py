"""Which Python runs code that is not this app's own: traced programs, and the user's TraceEval release.

Normally this one (`sys.executable`); `$TRACEEVAL_PYTHON` names another. The packaged app
(PyInstaller, `sys.frozen`) has no interpreter of its own that could run arbitrary code (its
executable is the app), so it uses `python3` (else `python`) from PATH.
"""
from __future__ import annotations

import os
import shutil
import sys

PYTHON_ENV = "TRACEEVAL_PYTHON"


class NoPython(Exception):
    """No Python to run the code with; the message says why in one line."""


def chosen_python(given: str | None = None) -> str:
    """The Python's path: `given`, else `$TRACEEVAL_PYTHON`, else this one (a frozen app: PATH's)."""
    wanted = given or os.environ.get(PYTHON_ENV)
    if wanted:
        path = shutil.which(wanted)
        if path is None:
            named = wanted if given else f"${PYTHON_ENV} names {wanted}"
            raise NoPython(f"{named}, which is not an executable")
        return path
    if not is_frozen():
        return sys.executable
    path = shutil.which("python3") or shutil.which("python")
    if path is None:
        raise NoPython(f"no python3 on PATH: the packaged app runs other Python code with the system's Python "
                       f"(or set ${PYTHON_ENV})")
    return path


def is_frozen() -> bool:
    return bool(getattr(sys, "frozen", False))
