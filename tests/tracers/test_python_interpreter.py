"""Which interpreter runs traced Python programs: this one, $TRACEEVAL_PYTHON, or python3 from PATH
in the packaged app; and a clear toolchain problem when none works."""
import json
import os
import shutil
import sys
from pathlib import Path

import pytest

from core import traces
from core.dataset.layout import load_program
from core.records import CallGraph
from tracers.python import TRACER
from tracers.python_interpreter import INTERPRETER_ENV, InterpreterProblem, find_interpreter

DEMO = Path(__file__).resolve().parents[2] / "resources" / "demo" / "benchmark" / "python" / "calcpad_0001"
SYSTEM_PYTHON = shutil.which("python3", path="/usr/bin:/usr/local/bin")


def demo_instance():
    return load_program(DEMO, "python", [])[0]


def test_by_default_traced_programs_run_with_this_interpreter(monkeypatch):
    monkeypatch.delenv(INTERPRETER_ENV, raising=False)
    interpreter = find_interpreter()
    assert interpreter.path == sys.executable and interpreter.version == tuple(sys.version_info[:3])


@pytest.mark.skipif(SYSTEM_PYTHON is None, reason="no system python3")
def test_the_environment_names_another_interpreter_and_tracing_uses_it(monkeypatch):
    monkeypatch.setenv(INTERPRETER_ENV, SYSTEM_PYTHON)
    interpreter = find_interpreter()
    assert os.path.realpath(interpreter.path) == os.path.realpath(SYSTEM_PYTHON) and interpreter.version >= (3, 10)
    assert f"at {interpreter.path}" in TRACER.check().detail
    run = TRACER.trace(demo_instance())
    assert run.status == traces.OK, run.message + run.stderr_tail
    truth = CallGraph.from_dict(json.loads((DEMO / "callgraph.json").read_text(encoding="utf-8")))
    assert run.graph.edge_set == truth.edge_set


def test_the_packaged_app_looks_for_python3_on_path(monkeypatch, tmp_path):
    monkeypatch.delenv(INTERPRETER_ENV, raising=False)
    monkeypatch.setattr(sys, "frozen", True, raising=False)
    monkeypatch.setenv("PATH", str(tmp_path))
    with pytest.raises(InterpreterProblem, match="no python3 on PATH"):
        find_interpreter()
    (tmp_path / "python3").symlink_to(sys.executable)
    assert find_interpreter().path == str(tmp_path / "python3")  # as the interpreter names itself


@pytest.mark.parametrize("script, problem", [
    (None, "which is not an executable"),
    ("#!/bin/sh\nexit 0\n", "is not a working Python interpreter"),
    ("#!/bin/sh\necho /usr/bin/python3.8; echo 3.8.10; echo .so\n",
     "is Python 3.8.10: traced programs need 3.10 or newer"),
])
def test_an_unusable_interpreter_is_a_toolchain_problem_not_a_crash(monkeypatch, tmp_path, script, problem):
    fake = tmp_path / "python-x"
    if script is not None:
        fake.write_text(script)
        fake.chmod(0o755)
    monkeypatch.setenv(INTERPRETER_ENV, str(fake))
    status = TRACER.check()
    assert not status.ok and problem in status.detail
    run = TRACER.trace(demo_instance())
    assert run.status == traces.TOOLCHAIN_MISSING and problem in run.message
