"""Child processes of a traced program: which are traced, how they are listed, kept and read with bounds.

The corpus programs `child_process` (one per language) check the merged edges and the listing of the
ordinary case; these check the other shapes (grandchildren, `-c`, `fork`, an explicit env, exit
codes), the stored form and the bounded reader.
"""
import json
import textwrap
from pathlib import Path

import pytest

from core import traces
from core.dataset.layout import load_program
from core.dataset.workspace import Workspace
from core.traces import ChildProcess, TraceRun
from tracers.base import TraceOptions
from tracers.javascript import TRACER as NODE
from tracers.python import TRACER as PYTHON
from tracers.sandbox import Limits

needs_node = pytest.mark.skipif(not NODE.check().ok, reason="Node.js 18+ is not available")


def traced(tmp_path: Path, language: str, files: dict[str, str]) -> TraceRun:
    folder = tmp_path / "prog"
    for path, text in files.items():
        (folder / path).parent.mkdir(parents=True, exist_ok=True)
        (folder / path).write_text(textwrap.dedent(text))
    loaded = load_program(folder, language, [], require_ground_truth=False)
    assert loaded is not None
    tracer = PYTHON if language == "python" else NODE
    return tracer.trace(loaded[0], TraceOptions(Limits(wall_s=20)))


def test_python_grandchildren_are_traced_and_c_children_are_listed_untraced(tmp_path):
    run = traced(tmp_path, "python", {
        "main.py": """
            import subprocess, sys
            def go():
                subprocess.run([sys.executable, "-u", "tools/middle.py"], check=True)
                subprocess.run([sys.executable, "-c", "print(1)"], check=True)
            go()
            """,
        "tools/middle.py": """
            import subprocess, sys
            def middle():
                return subprocess.run([sys.executable, "leaf.py", "x"], cwd="tools").returncode
            middle()
            """,
        "tools/leaf.py": """
            import sys
            def leaf():
                sys.exit(3)
            leaf()
            """,
    })
    assert run.status == traces.OK, run.message + run.stderr_tail
    assert {("main", "main.go"), ("tools.middle", "tools.middle.middle"), ("tools.leaf", "tools.leaf.leaf")} \
        <= run.graph.edge_set
    by_script = {child.argv[-1] if child.argv[1] != "-u" else child.argv[2]: child for child in run.children}
    middle, leaf, inline = by_script["tools/middle.py"], by_script["x"], by_script["print(1)"]
    assert (middle.traced, middle.exit_code, middle.edges) == (True, 0, (("tools.middle", "tools.middle.middle"),))
    assert (leaf.traced, leaf.exit_code, leaf.language) == (True, 3, "python")
    assert (inline.traced, inline.language, inline.exit_code) == (False, "", 0)



def test_programs_started_through_the_os_module_are_listed(tmp_path):
    """os.system, os.spawn*, os.posix_spawn and os.exec* are listed (by wrapping the os functions)."""
    run = traced(tmp_path, "python", {
        "main.py": """
            import os
            def go():
                os.system("true")
                os.spawnv(os.P_WAIT, "/bin/true", ["true", "spawned"])
                os.waitpid(os.posix_spawn("/bin/true", ["true", "posix"], dict(os.environ)), 0)
                os.execv("/bin/true", ["true", "exec"])
            go()
            """,
    })
    assert run.status == traces.OK, run.message + run.stderr_tail
    assert ("main", "main.go") in run.graph.edge_set
    assert [child.argv for child in run.children] == [
        ("/bin/sh", "-c", "true"), ("true", "spawned"), ("true", "posix"), ("true", "exec")]
    assert all(not child.traced for child in run.children)

@needs_node
def test_node_fork_and_a_child_with_its_own_env_are_traced(tmp_path):
    run = traced(tmp_path, "javascript", {
        "main.js": """
            const { fork, spawnSync, execSync } = require('child_process');
            function viaEnv() { return spawnSync('node', ['leaf.js'], { env: { PATH: process.env.PATH } }).status; }
            function viaShell() { execSync('echo hi'); }
            function viaFork() { fork('leaf.js').on('exit', (code) => console.log('fork ended', code)); }
            viaEnv();
            viaShell();
            viaFork();
            """,
        "leaf.js": """
            function leaf() { process.exitCode = 4; }
            leaf();
            """,
    })
    assert run.status == traces.OK, run.message + run.stderr_tail
    assert ("leaf", "leaf.leaf") in run.graph.edge_set
    traced_children = [child for child in run.children if child.traced]
    assert len(traced_children) == 2 and all(c.exit_code == 4 for c in traced_children), run.children
    assert all(c.edges == (("leaf", "leaf.leaf"),) for c in traced_children)
    shell = [child for child in run.children if child.argv == ("/bin/sh", "-c", "echo hi")]
    assert shell and not shell[0].traced


@needs_node
def test_a_node_started_through_a_shell_gets_no_key_and_its_records_are_not_used(tmp_path):
    """Only a child that runs node itself gets a ticket for its key: a shell could hand the ticket to anything."""
    run = traced(tmp_path, "javascript", {
        "main.js": "require('child_process').execSync('node leaf.js', { stdio: 'inherit' });\n",
        "leaf.js": "function leaf() { return 1; }\nleaf();\n",
    })
    assert run.status == traces.OK, run.message + run.stderr_tail
    assert ("leaf", "leaf.leaf") not in run.graph.edge_set
    assert any("trace records of processes without a key were not used" in warning for warning in run.warnings)


def test_a_run_keeps_its_children_in_json_and_in_the_workspace(tmp_path):
    child = ChildProcess(argv=("python3", "worker.py"), language="python", traced=True, exit_code=0,
                         edges=(("worker", "worker.work"),))
    run = TraceRun(instance_key="python/x_0001", language="python", tracer="t", tracer_version="1",
                   started_at="2026-01-01T00:00:00+00:00", duration_s=1.0, status="ok", message="",
                   children=(child, ChildProcess(argv=("/bin/true",))))
    assert TraceRun.from_dict(json.loads(json.dumps(run.to_dict()))) == run
    assert TraceRun.from_dict({k: v for k, v in run.to_dict().items() if k != "children"}).children == ()
    assert child.summary() == "python3 worker.py (traced python, exit 0, 1 edge(s))"
    with Workspace(tmp_path / "w.sqlite") as ws:
        run_id = ws.store_run(run).id
        assert ws.run(run_id) == run
        assert ws.db.execute("select children, traced_children from runs where id = ?", [run_id]).fetchone() == (2, 1)


def test_argv_is_kept_bounded():
    from tracers.trace_records import RawTrace, RecordTotals, apply_record

    raw = RawTrace()
    apply_record(raw, ["S", 7, ["x" * 1000] * 100], RecordTotals())
    (pid, argv), = raw.spawns
    assert pid == 7 and len(argv) == 25 and len(argv[0]) == 200 and argv[-1] == "[... 76 more]"
