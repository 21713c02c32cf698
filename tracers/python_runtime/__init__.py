"""The Python tracer's runtime: the code that runs inside the traced interpreter.

`run.py` is the child's entry script; it loads this package under a private name
(`_traceeval_runtime`) so nothing here is importable as a program module, then runs the
program under one of two profiler backends that share `recorder.Recorder`:
- `_profiler` (C extension, `setup.py`): the fast path, a `PyEval_SetProfile` callback;
- `backends.PythonBackend` (pure Python, `sys.setprofile`): the fallback when the extension
  is not built.
Keep imports here minimal: every traced program pays for them at start-up. Naming the raw
frames happens in the parent, after the run (`tracers.python_frames`).
"""
import os

RUNTIME_DIR = os.path.dirname(os.path.abspath(__file__))
RUN_SCRIPT = os.path.join(RUNTIME_DIR, "run.py")
