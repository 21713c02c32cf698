"""Entry script of the traced child: `python -I -B run.py <program folder> <entry file> <backend> [args]`
(backend: c, monitoring, python or auto).

Writes the trace log to the run's log pipe (`log.py`: `$TRACEEVAL_LOG`; its key, `$TRACEEVAL_KEY`, is
taken and removed from the environment before the program runs) and runs the entry file as Python
would: as `__main__`, `sys.argv == [entry]`, `sys.path[0]` the program folder, cwd the program
folder (set by the caller). An uncaught exception is logged as an X
record, then its traceback is printed (without this script's frame) and the exit code is 1.
`sys.exit(n)` passes through untouched. A child process of the program run by this interpreter is
started through this script too (`children.py`): it gets the rest of the arguments and writes a log
of its own (its lineage and ticket in its environment). Final call counts and the closing record are
written at exit (atexit, so after non-daemon threads are joined), or before an `os.exec*` replaces the
process; first sightings are written as they happen.
"""
import atexit
import builtins
import importlib.util
import os
import sys


def _load_runtime():
    """Import this folder as the private package `_traceeval_runtime` (not on sys.path)."""
    here = os.path.dirname(os.path.abspath(__file__))
    spec = importlib.util.spec_from_file_location("_traceeval_runtime", os.path.join(here, "__init__.py"),
                                                  submodule_search_locations=[here])
    if spec is None or spec.loader is None:
        raise ImportError(f"cannot load the tracer runtime from {here}")
    package = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = package
    spec.loader.exec_module(package)
    from _traceeval_runtime import (  # type: ignore[import-not-found]  # loaded above
        backends,
        children,
        log,
        recorder,
    )

    return backends, recorder, children, log


def _backend(wanted, backends, recorder):
    """The backend the parent chose (`c`, `monitoring`, `python`; `auto`: the fastest here).
    One that cannot run here falls back to the next, with a warning when it was asked for."""
    if wanted in ("c", "auto"):
        try:
            from _traceeval_runtime import _profiler
        except ImportError as error:
            if wanted == "c":
                _warn(recorder, f"C profiler not available ({error}); used the fallback")
        else:
            return backends.CBackend(recorder, _profiler)
    if wanted in ("c", "monitoring", "auto"):
        tool = backends.MonitoringBackend.free_tool()
        if tool is not None:
            return backends.MonitoringBackend(recorder, tool)
        if wanted == "monitoring":
            _warn(recorder, f"sys.monitoring not available (Python {sys.version.split()[0]}, 3.12+ has it) or no "
                            "free tool id; used the pure-Python fallback")
    return backends.PythonBackend(recorder)


def _warn(recorder, text):
    recorder.write(b'["W",' + _json(text) + b']')


def _json(text):
    from _traceeval_runtime.recorder import json_string  # type: ignore[import-not-found]  # loaded by _load_runtime

    return json_string(text)


def main():
    root, entry, wanted = sys.argv[1:4]
    backends, recorder_module, children_module, log_module = _load_runtime()
    recorder = recorder_module.Recorder(root, log_module.open_log(os.environ))
    backend = _backend(wanted, backends, recorder)
    children = children_module.Children(recorder, root, os.path.abspath(__file__), wanted)
    children.write_process([sys.executable, entry, *sys.argv[4:]])
    path = os.path.join(root, entry)
    with open(path, "rb") as handle:
        source = handle.read()
    code = compile(source, path, "exec", dont_inherit=True)
    program = type(sys)("__main__")
    program.__dict__.update(__file__=path, __builtins__=builtins, __cached__=None)
    sys.modules["__main__"] = program
    sys.argv = [entry, *sys.argv[4:]]
    sys.path.insert(0, os.path.dirname(path))

    def finish():
        backend.uninstall()
        recorder.finish(backend.counts())

    children.install(finish)
    atexit.register(finish)
    backend.install()
    try:
        exec(code, program.__dict__)  # noqa: S102 (running the program is the point)
    except SystemExit:
        raise
    except BaseException as error:  # noqa: BLE001 (any uncaught exception ends the program)
        recorder.exception(error)
        traceback = error.__traceback__.tb_next if error.__traceback__ else None  # without this script
        sys.excepthook(type(error), error.with_traceback(traceback), traceback)
        sys.exit(1)


if __name__ == "__main__":
    main()
