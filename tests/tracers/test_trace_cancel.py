"""Cancelling a trace: setting the options' cancel event kills the sandboxed program tree at once,
long before its time limit, and the run keeps what was seen before (status killed)."""
import shutil
import signal
import sys
import threading
import time
from pathlib import Path

import pytest

from core import traces
from core.dataset.layout import load_program
from tracers import trace_instance
from tracers.base import TraceOptions
from tracers.run_folder import run_folder
from tracers.sandbox import Limits, run_sandboxed
from tracers.sandbox_view import install_root

TIMEOUT_S = 30.0
CANCEL_AFTER_S = 1.0

PY_SPIN = """\
def helper():
    return 1


def spin():
    helper()
    while True:
        pass


spin()
"""

JS_SPIN = """\
function helper() { return 1; }
function spin() {
  helper();
  for (;;) {}
}
spin();
"""


def _program(tmp_path: Path, name: str, code: str, language: str):
    folder = tmp_path / "spin_0001"
    folder.mkdir()
    (folder / name).write_text(code)
    instance, _ = load_program(folder, language, [], require_ground_truth=False)
    return instance


def _trace_and_cancel(instance, after_s: float = CANCEL_AFTER_S):
    cancel = threading.Event()
    timer = threading.Timer(after_s, cancel.set)
    started = time.monotonic()
    timer.start()
    try:
        run = trace_instance(instance, TraceOptions(Limits(wall_s=TIMEOUT_S), cancel=cancel))
    finally:
        timer.cancel()
    return run, time.monotonic() - started


def test_a_python_infinite_loop_is_killed_soon_after_cancel(tmp_path):
    instance = _program(tmp_path, "main.py", PY_SPIN, "python")
    run, seconds = _trace_and_cancel(instance)
    assert run.status == traces.KILLED, run.message
    assert CANCEL_AFTER_S <= seconds < CANCEL_AFTER_S + 3, f"took {seconds:.1f} s (time limit {TIMEOUT_S:g} s)"
    assert {("main", "main.spin"), ("main.spin", "main.helper")} <= {e.edge for e in run.edges}, \
        "edges seen before the cancel were lost"


@pytest.mark.skipif(shutil.which("node") is None, reason="Node.js is not installed")
def test_a_javascript_infinite_loop_is_killed_soon_after_cancel(tmp_path):
    instance = _program(tmp_path, "main.js", JS_SPIN, "javascript")
    run, seconds = _trace_and_cancel(instance)
    assert run.status == traces.KILLED, run.message
    assert seconds < CANCEL_AFTER_S + 3, f"took {seconds:.1f} s (time limit {TIMEOUT_S:g} s)"
    assert ("main.spin", "main.helper") in {e.edge for e in run.edges}


def test_the_sandbox_says_it_was_cancelled_not_that_a_limit_was_hit(tmp_path):
    folder = tmp_path / "prog"
    folder.mkdir()
    (folder / "main.py").write_text("import time\nwhile True:\n    time.sleep(0.01)\n")
    cancel = threading.Event()
    timer = threading.Timer(0.5, cancel.set)
    timer.start()
    with run_folder(folder) as run_in:
        result = run_sandboxed([sys.executable, "main.py"], run_in, read_only=install_root(sys.executable),
                               limits=Limits(wall_s=TIMEOUT_S), cancel=cancel)
    timer.cancel()
    assert result.cancelled and not result.timed_out and result.limit_reason is None
    assert (result.exit_code, result.signal) == (None, signal.SIGKILL)
    assert result.duration_s < 3


def test_an_event_set_before_the_start_stops_the_program_at_once(tmp_path):
    instance = _program(tmp_path, "main.py", PY_SPIN, "python")
    cancel = threading.Event()
    cancel.set()
    started = time.monotonic()
    run = trace_instance(instance, TraceOptions(Limits(wall_s=TIMEOUT_S), cancel=cancel))
    assert run.status == traces.KILLED and time.monotonic() - started < 2


def test_an_unset_event_changes_nothing(tmp_path):
    folder = tmp_path / "ok_0001"
    folder.mkdir()
    (folder / "main.py").write_text("def f():\n    return 1\n\n\nf()\n")
    instance, _ = load_program(folder, "python", [], require_ground_truth=False)
    run = trace_instance(instance, TraceOptions(Limits(wall_s=TIMEOUT_S), cancel=threading.Event()))
    assert run.status == traces.OK and {e.edge for e in run.edges} == {("main", "main.f")}
    assert TraceOptions(Limits(wall_s=5), cancel=threading.Event()) == TraceOptions(Limits(wall_s=5))
    assert hash(TraceOptions(Limits(wall_s=5), cancel=threading.Event())) == hash(TraceOptions(Limits(wall_s=5)))
