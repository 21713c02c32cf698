"""The Python tracer end to end: demo programs against their ground truth, the program's
environment, evidence (counts and call-site lines), kills, unresolved frames, `check()`."""
import json
import sys
import textwrap
from pathlib import Path

import pytest

from core import traces
from core.dataset.layout import load_program
from core.records import CallGraph
from tests.tracers.python_legs import all_legs, assert_backends_agree, leg, leg_interpreter, leg_on
from tracers import tracer_for
from tracers.python import TRACER, PythonTracer, c_backend_available

ROOT = Path(__file__).resolve().parent.parent.parent
DEMO = ROOT / "resources" / "demo" / "benchmark" / "python"
DEMOS = sorted(p.name for p in DEMO.iterdir() if (p / "callgraph.json").is_file())


def instance_of(folder: Path):
    loaded = load_program(folder, "python", [], require_ground_truth=False)
    assert loaded is not None
    return loaded[0]


def program(tmp_path: Path, files: dict[str, str]):
    folder = tmp_path / "prog"
    for relative, text in files.items():
        (folder / relative).parent.mkdir(parents=True, exist_ok=True)
        (folder / relative).write_text(textwrap.dedent(text), encoding="utf-8")
    return instance_of(folder)


@pytest.mark.parametrize("program_id", DEMOS)
def test_demo_programs_match_their_callgraph_with_every_backend(program_id):
    """Each backend that can run here (`python_legs`: C, sys.monitoring on 3.12+, pure Python) gives
    the ground truth, and all give the same counts and call-site lines."""
    folder = DEMO / program_id
    truth = CallGraph.from_dict(json.loads((folder / "callgraph.json").read_text(encoding="utf-8")))
    runs = {}
    for backend, interpreter in all_legs():
        with leg_on(backend, interpreter) as tracer:
            run = runs[backend, interpreter] = tracer.trace(instance_of(folder))
        assert run.status == traces.OK, f"{backend}: {run.message}{run.stderr_tail}"
        assert run.graph.edge_set == truth.edge_set, backend
        assert run.graph.keys == truth.keys
        assert not run.unresolved
    assert {backend for backend, _ in runs} >= {"python"}
    assert_backends_agree(runs)


def test_registry_gives_this_tracer_and_check_names_the_backend():
    assert tracer_for("python") is TRACER
    status = TRACER.check()
    assert status.ok and status.language == "python"
    expected = ("C extension" if c_backend_available() else
                "sys.monitoring (PEP 669)" if sys.version_info >= (3, 12) else "pure-Python fallback")
    assert expected in status.detail
    assert "pure-Python fallback" in PythonTracer("python").check().detail
    assert ("sys.monitoring (PEP 669)" in PythonTracer("monitoring").check().detail) == (sys.version_info >= (3, 12))
    with pytest.raises(ValueError):
        PythonTracer("rust")


def test_program_runs_as_python_would_run_it(tmp_path):
    instance = program(tmp_path, {"main.py": """\
        import os
        import sys
        print("argv", sys.argv)
        print("name", __name__)
        print("path0", sys.path[0] == os.getcwd())
        print("log", "TRACEEVAL_LOG" in os.environ)
        print("main", sys.modules["__main__"].__dict__ is globals())
        print("err", file=sys.stderr)
        """})
    run = TRACER.trace(instance)
    assert run.status == traces.OK
    assert run.stdout_tail.splitlines() == ["argv ['main.py']", "name __main__", "path0 True", "log False", "main True"]
    assert run.stderr_tail == "err\n"


def test_counts_and_call_site_lines(tmp_path):
    instance = program(tmp_path, {"main.py": """\
        def f():
            return 1


        def g():
            f()
            for _ in range(3):
                f()


        g()
        """})
    for backend in ("c", "monitoring", "python"):
        if leg_interpreter(backend)[0] is None:
            continue
        with leg(backend) as tracer:
            run = tracer.trace(instance)
        seen = {e.edge: e for e in run.edges}
        assert seen[("main.g", "main.f")].count == 4, backend
        assert seen[("main.g", "main.f")].lines == (6, 8)
        assert seen[("main", "main.g")].lines == (11,)
        assert all(e.count_known for e in run.edges)


def test_calls_sharing_an_instruction_offset_or_far_into_a_function_are_counted_per_call_site(tmp_path):
    """`a`, `b` and `c` compile to the same bytecode, so their calls sit at the same instruction
    offset (the monitoring backend's first-level cache is per offset); `a` and `c` call the same
    function there; `call` is one site with two callees;
    `long_one`'s call lies thousands of bytes into its code."""
    padding = "\n".join(f"    total += {i}" for i in range(600))
    source = f"""\
def x():
    return 1


def y():
    return 2


def a():
    return x()


def b():
    return y()


def c():
    return x()


def call(f):
    return f()


def long_one():
    total = 0
{padding}
    return x() + total


for _ in range(5):
    a()
    b()
    c()
    call(x)
call(y)
long_one()
long_one()
"""
    instance = program(tmp_path, {"main.py": source})
    lines = source.splitlines()

    def line(text: str, nth: int = 0) -> int:
        return [number for number, found in enumerate(lines, 1) if found.strip() == text][nth]

    for backend in ("c", "monitoring", "python"):
        if leg_interpreter(backend)[0] is None:
            continue
        with leg(backend) as tracer:
            run = tracer.trace(instance)
        counts = {(e.edge, e.lines): e.count for e in run.edges}
        assert counts == {
            (("main", "main.a"), (line("a()"),)): 5, (("main", "main.b"), (line("b()"),)): 5,
            (("main", "main.c"), (line("c()"),)): 5, (("main.c", "main.x"), (line("return x()", 1),)): 5,
            (("main", "main.call"), (line("call(x)"), line("call(y)"))): 6,
            (("main", "main.long_one"), (line("long_one()"), line("long_one()", 1))): 2,
            (("main.a", "main.x"), (line("return x()"),)): 5, (("main.b", "main.y"), (line("return y()"),)): 5,
            (("main.call", "main.x"), (line("return f()"),)): 5, (("main.call", "main.y"), (line("return f()"),)): 1,
            (("main.long_one", "main.x"), (line("return x() + total"),)): 2}, backend


def test_edges_seen_before_a_sigkill_survive(tmp_path):
    instance = program(tmp_path, {"main.py": """\
        import os
        import signal


        def first():
            return 1


        first()
        first()
        os.kill(os.getpid(), signal.SIGKILL)
        """})
    run = TRACER.trace(instance)
    assert run.status == traces.KILLED
    [edge] = run.edges
    assert edge.edge == ("main", "main.first") and not edge.count_known


def test_program_frames_without_a_node_are_unresolved(tmp_path):
    instance = program(tmp_path, {"main.py": """\
        import pathlib


        def callback():
            return 2


        pathlib.Path("made.py").write_text("def run(cb):\\n    return cb()\\n")
        import made

        made.run(callback)
        """})
    run = TRACER.trace(instance)
    assert run.status == traces.OK
    assert any(u.frame.startswith("made.py:1:F::run") for u in run.unresolved)
    assert not run.edges  # both edges go through the unnamed frame


def test_compile_error_and_missing_entry_point_do_not_run(tmp_path):
    broken = program(tmp_path, {"main.py": "print('hi'\n"})
    run = TRACER.trace(broken)
    assert run.status == traces.COMPILE_ERROR and run.message.startswith("main.py:1:")
    assert not run.ran and run.nodes[0].name == "main"


def test_generator_throw_close_and_coroutine_send_are_calls_with_every_backend(tmp_path):
    """Resuming by `throw()` (and `close()`, which throws GeneratorExit) is a call, as `next()` and
    `send()` are: sys.monitoring's PY_THROW event, setprofile's call event."""
    instance = program(tmp_path, {"main.py": """\
        def f():
            return 1


        def gen():
            while True:
                try:
                    yield f()
                except ValueError:
                    f()


        def g():
            it = gen()
            next(it)
            it.throw(ValueError)
            it.close()


        async def co():
            f()


        def h():
            try:
                co().send(None)
            except StopIteration:
                pass


        g()
        h()
        """})
    runs = {}
    for backend, interpreter in all_legs():
        with leg_on(backend, interpreter) as tracer:
            run = runs[backend, interpreter] = tracer.trace(instance)
        seen = {e.edge: e for e in run.edges}
        assert seen[("main.g", "main.gen")].lines == (15, 16, 17) and seen[("main.g", "main.gen")].count == 3, backend
        assert seen[("main.gen", "main.f")].count == 3 and seen[("main.h", "main.co")].count == 1
    assert_backends_agree(runs)
