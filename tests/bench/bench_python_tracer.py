"""Benchmark of the Python tracer (run on demand: `.venv/bin/python tests/bench/bench_python_tracer.py`).

One call-heavy program (>= 500k program calls: recursion, methods, small helpers, callbacks
through `sorted`/`map`) is run, with this interpreter and each pyenv 3.12 and 3.13 found,
- untraced (`python -I -B main.py`),
- under our tracer with each backend that interpreter can use: the C extension (when built for
  it), `sys.monitoring` (3.12+) and the pure-Python fallback (sandboxed, as the app runs it),
  each as a ratio to the untraced run of the same interpreter;
and with this interpreter only
- under a plain `sys.settrace` call-event tracer written here (the baseline: it records
  (caller, callee, line) counts in a dict and turns off line events),
- under `python -m trace --trackcalls`.
The program times its own work with `perf_counter` and prints it: that "in-child time" is
the figure compared (it leaves out interpreter start-up and the sandbox). Wall times (whole
child, and the whole `trace()` call for our tracer) are printed too. Then per-program trace
times for the demo programs and the throughput of 2 workers over them.
"""
from __future__ import annotations

import os
import re
import subprocess
import sys
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from core.dataset.layout import load_program  # noqa: E402
from tracers.python import PythonTracer, c_backend_available  # noqa: E402
from tracers.python_interpreter import INTERPRETER_ENV, Interpreter, find_interpreter, other_pythons  # noqa: E402

PROGRAM = '''\
import time


class Vec:
    def __init__(self, x, y):
        self.x = x
        self.y = y

    def add(self, other):
        return Vec(self.x + other.x, self.y + other.y)

    def norm2(self):
        return sq(self.x) + sq(self.y)


def sq(v):
    return v * v


def fib(n):
    return n if n < 2 else fib(n - 1) + fib(n - 2)


def by_norm(v):
    return v.norm2()


def work():
    total = fib(24)
    acc = Vec(0, 0)
    for i in range(80000):
        acc = acc.add(Vec(i % 7, i % 5))
    vectors = [Vec(i % 13, i % 11) for i in range(30000)]
    ordered = sorted(vectors, key=by_norm)
    norms = list(map(lambda v: v.norm2(), vectors))
    return total + acc.x + len(ordered) + sum(norms)


started = time.perf_counter()
result = work()
print("RESULT", result)
print("WORK_SECONDS", time.perf_counter() - started)
'''

SETTRACE_BASELINE = '''\
import sys

counts = {}


def tracer(frame, event, arg):
    if event == "call":
        back = frame.f_back
        key = (back.f_code if back else None, frame.f_code, back.f_lineno if back else 0)
        counts[key] = counts.get(key, 0) + 1
    return None  # call events only: no line tracing inside frames


path = sys.argv[1]
code = compile(open(path).read(), path, "exec")
sys.settrace(tracer)
exec(code, {"__name__": "__main__"})
sys.settrace(None)
print("CALLS", sum(counts.values()))
'''

REPEATS = 5


def work_seconds(output: str) -> float:
    match = re.search(r"WORK_SECONDS ([0-9.e-]+)", output)
    if not match:
        raise RuntimeError(f"no timing in output: {output[-500:]}")
    return float(match.group(1))


def best_child(argv: list[str], cwd: Path) -> tuple[float, float, str]:
    """(best in-child work seconds, best wall seconds, last stdout) over REPEATS runs."""
    inside, wall, out = [], [], ""
    for _ in range(REPEATS):
        started = time.perf_counter()
        result = subprocess.run(argv, cwd=cwd, capture_output=True, text=True, check=True)
        wall.append(time.perf_counter() - started)
        out = result.stdout
        inside.append(work_seconds(out))
    return min(inside), min(wall), out


def best_tracer(tracer: PythonTracer, instance) -> tuple[float, float, int]:
    inside, wall, calls = [], [], 0
    for _ in range(REPEATS):
        started = time.perf_counter()
        run = tracer.trace(instance)
        wall.append(time.perf_counter() - started)
        if run.status != "ok":
            raise RuntimeError(f"{run.status}: {run.message}\n{run.stderr_tail}")
        inside.append(work_seconds(run.stdout_tail))
        calls = sum(e.count for e in run.edges)
    return min(inside), min(wall), calls


def interpreters() -> list[Interpreter]:
    """This interpreter, then the newest pyenv 3.12 and 3.13 (when present)."""
    this = find_interpreter()
    newest: dict[tuple[int, ...], Interpreter] = {}
    for found in other_pythons():
        interpreter = found.interpreter
        if interpreter is not None and interpreter.version[:2] in ((3, 12), (3, 13)) and found.origin == "pyenv":
            newest[interpreter.version[:2]] = interpreter  # other_pythons sorts pyenv's by version
    return [this, *(i for i in newest.values() if i.version[:2] != this.version[:2])]


def backend_rows(instance, interpreter: Interpreter, folder: Path) -> list[tuple[str, str, float, float, str]]:
    """(interpreter, run, in-child s, wall s, note) rows: untraced, then each backend it can use."""
    label = f"{interpreter.version_text}"
    plain, plain_wall, _ = best_child([interpreter.path, "-I", "-B", "main.py"], folder)
    rows = [(label, "untraced", plain, plain_wall, "")]
    os.environ[INTERPRETER_ENV] = interpreter.path
    try:
        for backend in ("c", "monitoring", "python"):
            tracer = PythonTracer(backend)
            if tracer.backend_for(interpreter) != backend:
                continue
            inside, wall, calls = best_tracer(tracer, instance)
            rows.append((label, f"ours ({backend} backend)", inside, wall, f"{calls:,} program calls counted"))
    finally:
        del os.environ[INTERPRETER_ENV]
    return rows


def main() -> None:
    print(f"Python {sys.version.split()[0]}, C backend built: {c_backend_available()}, repeats: best of {REPEATS}")
    with tempfile.TemporaryDirectory() as temp:
        folder = Path(temp) / "bench_0001"
        folder.mkdir()
        (folder / "main.py").write_text(PROGRAM)
        (Path(temp) / "baseline.py").write_text(SETTRACE_BASELINE)
        instance = load_program(folder, "python", [], require_ground_truth=False)[0]
        python = [sys.executable, "-I", "-B"]

        started = time.perf_counter()
        for _ in range(REPEATS):
            subprocess.run([*python, "-c", "pass"], check=True)
        startup = (time.perf_counter() - started) / REPEATS
        rows = []
        for interpreter in interpreters():
            rows += backend_rows(instance, interpreter, folder)
        this = rows[0][0]
        plain = {label: inside for label, name, inside, _, _ in rows if name == "untraced"}
        baseline, baseline_wall, out = best_child([*python, str(Path(temp) / "baseline.py"), "main.py"], folder)
        baseline_calls = int(re.search(r"CALLS (\d+)", out).group(1))
        stdlib, stdlib_wall, _ = best_child([*python, "-m", "trace", "--trackcalls", "main.py"], folder)
        rows.append((this, "plain sys.settrace baseline", baseline, baseline_wall, f"{baseline_calls:,} call events"))
        rows.append((this, "python -m trace --trackcalls", stdlib, stdlib_wall, ""))

        print(f"\nCall-heavy program (no-op child start-up: {startup * 1000:.0f} ms); x untraced: against the "
              f"untraced run of the same interpreter")
        print(f"{'python':8} {'run':30} {'in-child s':>10} {'x untraced':>10} {'wall s':>8}  note")
        for label, name, inside, wall, note in rows:
            print(f"{label:8} {name:30} {inside:10.3f} {inside / plain[label]:10.2f} {wall:8.3f}  {note}")
        overhead = {(label, name): inside / plain[label] for label, name, inside, _, _ in rows}
        ours = next(inside for label, name, inside, _, _ in rows if label == this and name.startswith("ours"))
        print(f"\nours ({this}, {PythonTracer().active_backend}) vs settrace baseline: {baseline / ours:.1f}x faster; "
              f"vs python -m trace: {stdlib / ours:.1f}x faster")
        c_rows = {label: ratio for (label, name), ratio in overhead.items() if name == "ours (c backend)"}
        for (label, name), ratio in overhead.items():
            if name == "ours (monitoring backend)":
                against = ", ".join(f"{ratio / c_ratio:.2f}x the C backend's on {c_label}"
                                    for c_label, c_ratio in c_rows.items())
                print(f"monitoring on {label}: {ratio:.2f}x untraced; {against or 'no C backend to compare'}")

    demo_root = ROOT / "resources" / "demo" / "benchmark" / "python"
    demos = [load_program(p, "python", [])[0] for p in sorted(demo_root.iterdir()) if p.is_dir()]
    tracer = PythonTracer()
    tracer.trace(demos[0])  # warm caches (tree-sitter parser)
    print(f"\nDemo programs ({tracer.active_backend} backend), one trace each:")
    for instance in demos:
        started = time.perf_counter()
        run = tracer.trace(instance)
        print(f"  {instance.id:18} {time.perf_counter() - started:6.3f} s  {run.status}  {len(run.edges)} edges"
              f"  (child {run.timings.get('run', 0):.3f} s)")
    batch = demos * 8
    started = time.perf_counter()
    with ThreadPoolExecutor(max_workers=2) as pool:
        statuses = list(pool.map(tracer.trace, batch))
    elapsed = time.perf_counter() - started
    print(f"  throughput, 2 workers, {len(batch)} traces: {len(batch) / elapsed:.1f} programs/s "
          f"({sum(r.status == 'ok' for r in statuses)} ok; {os.cpu_count()} cores)")


if __name__ == "__main__":
    main()
