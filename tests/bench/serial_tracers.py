"""Stand-ins for the release's serial tracers (`run_tracers.py`), which isolate nothing: `bench_retrace` times them.

The release's scripts are not here, so these are written in the benchmark, as plain as the release's are: one
program after another, each in a fresh process of the language's toolchain, in the program's own folder, no
sandbox, no limits but a time-out, the edges (where recorded) written to a file beside the program.
- Python: a fresh interpreter (the one our tracer uses) runs `main.py` under a small `sys.settrace` recorder of
  (caller, callee) pairs between program frames: the release's in-process settrace tracer.
- JavaScript: `node <entry>`, uninstrumented. Any instrumentation only adds to it, so this is a floor on what a
  serial JavaScript tracer costs, not an estimate.
- Java: `javac` into a fresh folder, then `java -cp` on the main class, uninstrumented (the same floor): the
  release compiles every program with javac before tracing it.
Preparing the list (entry points, the main class) is not timed.
"""
from __future__ import annotations

import shutil
import subprocess
import tempfile
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from core.dataset.entry_points import java_main_class
from core.records import Instance

TIMEOUT_S = 30.0
EDGES_FILE = ".standin-edges.json"
SETTRACE_RECORDER = r'''
import json, os, runpy, sys, threading
root = os.getcwd() + os.sep
edges = set()

def program(code):
    return code.co_filename.startswith(root)

def on_call(frame, event, arg):
    if event == "call" and program(frame.f_code):
        caller = frame.f_back
        while caller is not None and not program(caller.f_code):
            caller = caller.f_back
        if caller is not None:
            edges.add((caller.f_code.co_filename[len(root):] + ":" + caller.f_code.co_qualname,
                       frame.f_code.co_filename[len(root):] + ":" + frame.f_code.co_qualname))
    return None

entry = sys.argv[1]
sys.argv = [entry]
sys.path.insert(0, root)
threading.settrace(on_call)
sys.settrace(on_call)
try:
    runpy.run_path(root + entry, run_name="__main__")
finally:
    sys.settrace(None)
    with open(EDGES_FILE, "w") as out:
        json.dump(sorted(edges), out)
'''.replace("EDGES_FILE", repr(EDGES_FILE))


@dataclass(frozen=True)
class StandinRun:
    seconds: float
    programs: int
    exit_codes: dict[int, int]  # exit code (-1: timed out) -> programs

    @property
    def per_second(self) -> float:
        return self.programs / self.seconds if self.seconds else 0.0


def run_serially(language: str, instances: Sequence[Instance], python: str) -> StandinRun:
    """Run each program once, one after another, under the language's stand-in; the time of the runs alone."""
    with tempfile.TemporaryDirectory(prefix="traceeval-standin-") as scratch:
        recorder = Path(scratch) / "settrace_recorder.py"
        recorder.write_text(SETTRACE_RECORDER)
        commands = [_commands(language, instance, python, recorder, Path(scratch) / f"classes-{number}")
                    for number, instance in enumerate(instances)]
        codes: dict[int, int] = {}
        started = time.perf_counter()
        for instance, steps in zip(instances, commands, strict=True):
            code = 0
            for step in steps:
                try:
                    code = subprocess.run(step, cwd=instance.root, stdin=subprocess.DEVNULL, capture_output=True,
                                          timeout=TIMEOUT_S, check=False).returncode
                except subprocess.TimeoutExpired:
                    code = -1
                if code != 0:
                    break
            codes[code] = codes.get(code, 0) + 1
        seconds = time.perf_counter() - started
    return StandinRun(seconds, len(instances), codes)


def _commands(language: str, instance: Instance, python: str, recorder: Path, classes: Path) -> list[list[str]]:
    if language == "python":
        return [[python, str(recorder), instance.entry_point]]
    if language == "javascript":
        return [[shutil.which("node") or "node", instance.entry_point]]
    if language == "java":
        sources = [path for path in instance.files if path.endswith(".java")]
        main = java_main_class({path: instance.read_source(path) for path in sources})
        return [[shutil.which("javac") or "javac", "-d", str(classes), *sources],
                [shutil.which("java") or "java", "-cp", str(classes), main]]
    raise ValueError(f"no stand-in for {language}")
