"""The (backend, interpreter) legs the Python tracer tests run here, and a run's comparable evidence.

`c` and `python` run with this interpreter (`c` only when the extension is built for it);
`monitoring` needs Python 3.12+: this one if it is, else a 3.13 (then 3.12) found on the machine
(pyenv, PATH), named to the tracer by `$TRACEEVAL_PYTHON`. `all_legs` adds every backend of that
other interpreter, so each backend can be compared with the others on one interpreter: call counts
may differ between interpreter versions (3.13's `list.sort` makes fewer comparisons than 3.11's),
never between backends.
"""
from __future__ import annotations

import os
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from functools import cache

from core.traces import TraceRun
from tracers.python import PythonTracer
from tracers.python_interpreter import INTERPRETER_ENV, Interpreter, find_interpreter, other_pythons

BACKENDS = ("c", "monitoring", "python")


@cache
def leg_interpreter(backend: str) -> tuple[Interpreter | None, str]:
    """(the interpreter that runs this backend's leg, or None, and why not)."""
    with interpreter_env(None):
        this = find_interpreter()
    if backend == "python":
        return this, ""
    if backend == "c":
        return (this, "") if this.has_c_profiler else (None, "the C extension is not built (pip install -e .)")
    if this.has_monitoring:
        return this, ""
    found = [f.interpreter for f in other_pythons() if f.interpreter is not None and f.interpreter.has_monitoring]
    for wanted in ((3, 13), (3, 12)):
        for interpreter in found:
            if interpreter.version[:2] == wanted:
                return interpreter, ""
    return None, f"no Python 3.12+ here (this is {sys.version.split()[0]}; pyenv install 3.13)"


@contextmanager
def interpreter_env(interpreter: Interpreter | None) -> Iterator[None]:
    """`$TRACEEVAL_PYTHON` names `interpreter` (None: unset) for the duration."""
    before = os.environ.pop(INTERPRETER_ENV, None)
    if interpreter is not None and interpreter.path != sys.executable:
        os.environ[INTERPRETER_ENV] = interpreter.path
    try:
        yield
    finally:
        os.environ.pop(INTERPRETER_ENV, None)
        if before is not None:
            os.environ[INTERPRETER_ENV] = before


def all_legs() -> list[tuple[str, Interpreter]]:
    """Every (backend, interpreter) that can run here: each backend of this interpreter and of the
    monitoring leg's."""
    interpreters = [i for i in (leg_interpreter("python")[0], leg_interpreter("monitoring")[0]) if i is not None]
    unique = list({i.path: i for i in interpreters}.values())
    return [(backend, interpreter) for interpreter in unique for backend in BACKENDS
            if PythonTracer(backend).backend_for(interpreter) == backend]


@contextmanager
def leg(backend: str) -> Iterator[PythonTracer]:
    """The tracer of this leg with its interpreter chosen; skips the test when the leg cannot run here."""
    import pytest

    interpreter, why = leg_interpreter(backend)
    if interpreter is None:
        pytest.skip(why)
    with leg_on(backend, interpreter) as tracer:
        yield tracer


@contextmanager
def leg_on(backend: str, interpreter: Interpreter) -> Iterator[PythonTracer]:
    tracer = PythonTracer(backend)
    with interpreter_env(interpreter):
        assert tracer.backend_for(find_interpreter()) == backend
        yield tracer


def evidence(run: TraceRun) -> dict[tuple[str, str], tuple[int, tuple[int, ...], bool]]:
    """(caller, callee) -> (count, call-site lines, count known): what every backend must agree on."""
    return {(e.caller, e.callee): (e.count, e.lines, e.count_known) for e in run.edges}


def assert_backends_agree(runs: dict[tuple[str, Interpreter], TraceRun]) -> None:
    """Same counts, lines and edges from every backend of one interpreter; the same edges and lines
    (not counts) across interpreters."""
    by_interpreter: dict[str, dict[str, TraceRun]] = {}
    for (backend, interpreter), run in runs.items():
        by_interpreter.setdefault(interpreter.version_text, {})[backend] = run
    for version, backends in by_interpreter.items():
        (first, reference), *others = backends.items()
        for backend, run in others:
            assert evidence(run) == evidence(reference), \
                f"Python {version}: {backend} differs from {first}: {differences(evidence(reference), evidence(run))}"
    lines = {f"{backend} on {interpreter.version_text}": {edge: seen[1] for edge, seen in evidence(run).items()}
             for (backend, interpreter), run in runs.items()}
    (first, reference), *others = lines.items()
    for name, seen in others:
        assert seen == reference, f"{name} differs from {first}: {differences(reference, seen)}"


def differences(left: dict, right: dict) -> list:
    return [(key, left.get(key), right.get(key)) for key in sorted(set(left) | set(right))
            if left.get(key) != right.get(key)][:10]
