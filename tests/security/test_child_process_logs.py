"""Traced child processes against hostile programs, in the real sandbox.

A traced child writes its records to the run's log pipe with a key of its own, which it gets from the
supervisor for the one-time ticket its parent's runtime put in its environment: a program that takes a
child's ticket (from /proc/<pid>/environ, racing the child's start) or makes one up shows as tampering;
children run inside the same limits as the program, and only so many logs are kept.
"""
import pytest

from core import traces
from tests.security.sandbox_attacks import java_main, needs_sandbox, program, trace
from tracers.java import TRACER as JAVA
from tracers.trace_streams import MAX_LOGS

pytestmark = needs_sandbox
needs_java = pytest.mark.skipif(not JAVA.check().ok, reason="no JDK 17+ and ASM here")

TAKE_THE_TICKET = """import os, socket, subprocess, sys, time
child = subprocess.Popen([sys.executable, 'worker.py'])
environ = open(f'/proc/{child.pid}/environ', 'rb').read().split(b'\\0')
found = dict(item.split(b'=', 1) for item in environ if b'=' in item)
request = found[b'TRACEEVAL_STREAM'] + b' ' + found[b'TRACEEVAL_KEY'].partition(b':')[2] + b'\\n'
with socket.socket(socket.AF_UNIX) as keys:
    keys.connect('/traceeval-log/keys')
    keys.sendall(request)
    print('taken', len(keys.recv(100).strip()), flush=True)
child.wait()
"""


def test_a_childs_ticket_taken_by_the_program_shows_as_tampering(tmp_path):
    folder = program(tmp_path / "ticket_0001", "python", TAKE_THE_TICKET)
    (folder / "worker.py").write_text("import time\ntime.sleep(0.5)\ndef work():\n    pass\nwork()\n")
    run = trace(folder, "python")
    assert "taken 64" in run.stdout_tail, run.stdout_tail + run.stderr_tail  # the thief got the key...
    assert run.status == traces.UNTRUSTED and "asked for twice (its ticket was taken)" in run.message, run.message
    assert ("worker", "worker.work") not in run.graph.edge_set  # ...and the child none: its records are not used


def test_a_made_up_ticket_shows_as_tampering(tmp_path):
    source = ("import socket\nwith socket.socket(socket.AF_UNIX) as keys:\n"
              "    keys.connect('/traceeval-log/keys')\n    keys.sendall(b'0.1_1 ' + b'0' * 32 + b'\\n')\n"
              "    print('answer', keys.recv(100), flush=True)\n")
    run = trace(program(tmp_path / "ticket_0002", "python", source), "python")
    assert "answer b'refused\\n'" in run.stdout_tail, run.stdout_tail + run.stderr_tail
    assert run.status == traces.UNTRUSTED and "with a forged ticket" in run.message, run.message


def test_more_traced_children_than_logs_kept_are_left_out_with_a_warning(tmp_path):
    source = ("import subprocess, sys\n"
              f"for _ in range({MAX_LOGS + 6}):\n    subprocess.run([sys.executable, 'worker.py'], check=True)\n")
    folder = program(tmp_path / "many_0001", "python", source)
    (folder / "worker.py").write_text("def work():\n    pass\nwork()\n")
    run = trace(folder, "python", wall_s=120)
    assert run.status == traces.OK, run.message
    assert sum(child.traced for child in run.children) == MAX_LOGS - 1  # the program's own log is one of them
    assert any(f"past the first {MAX_LOGS} were not used" in warning for warning in run.warnings), run.warnings


def test_children_count_against_the_process_limit(tmp_path):
    """The pids cgroup, or for an unprivileged user without one RLIMIT_NPROC and the supervisor's count."""
    source = ("import subprocess, sys\n"
              "children = [subprocess.Popen([sys.executable, 'worker.py']) for _ in range(40)]\n"
              "print('started all', flush=True)\n")
    folder = program(tmp_path / "fork_0001", "python", source)
    (folder / "worker.py").write_text("import time\ntime.sleep(20)\n")
    run = trace(folder, "python", processes=16, wall_s=30)
    assert run.status == traces.LIMIT and "processes" in run.message, run.message
    assert "started all" not in run.stdout_tail


@needs_java
def test_a_java_childs_ticket_is_never_left_in_the_programs_builder(tmp_path):
    """The agent puts the ticket in the ProcessBuilder's environment only while `start` runs, and takes it out
    again on return and when `start` fails (a ticket left there would be the program's to use)."""
    source = java_main("""        ProcessBuilder failing = new ProcessBuilder("java", "-version")
                .directory(new File("/nowhere"));
        try {
            failing.start();
        } catch (IOException error) {
            System.out.println("failed: " + failing.environment().get("TRACEEVAL_KEY"));
        }
        ProcessBuilder started = new ProcessBuilder("java", "-version");
        started.start().waitFor();
        System.out.println("started: " + started.environment().get("TRACEEVAL_KEY"));""")
    run = trace(program(tmp_path / "builder_0001", "java", source), "java")
    assert run.status == traces.OK, run.message + run.stderr_tail
    assert "failed: fd:" in run.stdout_tail and "started: fd:" in run.stdout_tail, run.stdout_tail  # as inherited
    assert "ticket" not in run.stdout_tail
