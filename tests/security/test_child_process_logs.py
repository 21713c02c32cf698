"""The child-process log folder (`tracers.child_processes`) against hostile programs, in the real sandbox.

The folder is the one place of the host a traced program can write to by name: a program that fills it
with links, FIFOs, huge files or thousands of files must not make the parent read outside it, hang or
keep it growing; children run inside the same limits as the program.
"""
import os
import time

from core import traces
from tests.security.sandbox_attacks import HostCanary, cgroups_here, needs_sandbox, program, trace

pytestmark = needs_sandbox

FILL = """import os, sys
folder = os.environ["TRACEEVAL_CHILD_LOGS"]
os.symlink({canary!r}, os.path.join(folder, "link.jsonl"))
os.symlink("/etc/passwd", os.path.join(folder, "passwd.jsonl"))
os.mkfifo(os.path.join(folder, "fifo.jsonl"))
os.mkdir(os.path.join(folder, "nested.jsonl"))
try:
    with open(os.path.join(folder, "huge.jsonl"), "wb") as out:
        out.write(b'["P","python",1,[]]\\n' + b'["E","a","b",1]\\n' * ({huge} // 16))
except OSError as error:
    print("huge:", error.strerror, flush=True)
with open(os.path.join(folder, "claims.jsonl"), "w") as out:
    out.write('["P","python",424242,["forged"]]\\n["E","main.py:1:F::f","main.py:1:F::g",1]\\n')
print("filled", flush=True)
{more}
"""


def test_a_program_filling_the_folder_with_links_fifos_and_a_huge_file_is_read_within_bounds(tmp_path):
    with HostCanary(tmp_path / "secret") as canary:
        source = FILL.format(canary=str(canary.path), huge=3 * 1024 * 1024, more="")
        started = time.monotonic()
        run = trace(program(tmp_path / "fill_0001", "python", source), "python", file_mb=2)
        assert time.monotonic() - started < 20, "reading the folder must not hang on the FIFO"
    assert run.status == traces.OK, run.message + run.stderr_tail
    warnings = "\n".join(run.warnings)
    for name in ("link.jsonl", "passwd.jsonl", "fifo.jsonl", "nested.jsonl"):
        assert f"child-process log '{name}' not read: not a regular .jsonl file" in warnings
    assert "huge: File too large" in run.stdout_tail  # no file past the file-size limit, a log neither
    assert canary.text not in repr(run.to_dict())
    forged = [child for child in run.children if child.argv == ("forged",)]
    assert forged and forged[0].edges == ()  # its frames name no node: nothing joins the run
    assert run.graph.edge_set == set()


def test_thousands_of_files_stop_the_run_with_a_clear_message(tmp_path):
    more = ("for i in range(5000):\n    open(os.path.join(folder, f'{i}.jsonl'), 'w').close()\n"
            "import time\ntime.sleep(30)\n")
    source = FILL.format(canary="/nowhere", huge=1024, more=more)
    started = time.monotonic()
    run = trace(program(tmp_path / "fill_0002", "python", source), "python", wall_s=40)
    assert time.monotonic() - started < 15, "the watch stops the run long before the wall-clock limit"
    assert run.status == traces.LIMIT
    assert "over 256 entries in the child-process log folder" in run.message
    assert len(run.children) <= 64


def test_children_count_against_the_process_limit(tmp_path):
    if "pids" not in cgroups_here() and os.getuid() != 0:
        return  # RLIMIT_NPROC counts this user's other processes: no exact limit to test
    source = ("import subprocess, sys\n"
              "children = [subprocess.Popen([sys.executable, 'worker.py']) for _ in range(40)]\n"
              "print('started all', flush=True)\n")
    folder = program(tmp_path / "fork_0001", "python", source)
    (folder / "worker.py").write_text("import time\ntime.sleep(20)\n")
    run = trace(folder, "python", processes=16, wall_s=30)
    assert run.status == traces.LIMIT and "processes" in run.message, run.message
    assert "started all" not in run.stdout_tail
