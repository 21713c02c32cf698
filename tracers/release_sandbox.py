"""The user's TraceEval release run in the tracer sandbox: `core.release.parity`'s runner.

The release's scripts are a stranger's code, so they get what a traced program gets (`tracers.sandbox`): a safe
copy of its `scripts/` folder as the program folder (links out of it not followed, bounded), checked against the
sha256 the user confirmed; no home, no network, an environment built from scratch. They see, read-only, the
interpreter's prefix (as the Python tracer shows it), the driver (`release_runtime/parity_driver.py`), the job
(ground-truth copies, results files: the run folder's `out/`) and the sampled programs' dataset folders. The
driver's report comes back through a descriptor the release cannot replace, read with the run's file-size bound.
Bytecode next to the scripts is never loaded (`-X pycache_prefix` points into the sandbox's own `/tmp`).
"""
from __future__ import annotations

from pathlib import Path

from core.errors import ReleaseError
from core.release.confirmed import MAX_BYTES, MAX_FILES, scripts_digest
from core.release.parity import JOB_FILE, DriverOutput, DriverRun
from core.safe_files import MiB, read_text, why_unreadable
from tracers.python_interpreter import InterpreterProblem, find_interpreter
from tracers.run_folder import run_folder
from tracers.sandbox import Limits, SandboxResult, run_sandboxed
from tracers.sandbox_view import install_root

RUNTIME_DIR = Path(__file__).resolve().parent / "release_runtime"
DRIVER = RUNTIME_DIR / "parity_driver.py"
OUT_ENV = "TRACEEVAL_PARITY_OUT"  # the driver's name for it too
OUT_FILE = "parity.json"
PYCACHE = "/tmp/traceeval-pycache"  # inside the sandbox's private /tmp


def limits_for(timeout_s: float) -> Limits:
    """A traced program's limits, but the time the whole check may take (CPU time as much)."""
    return Limits(wall_s=timeout_s, cpu_s=max(60, int(timeout_s)))


def run_release(run: DriverRun) -> DriverOutput:
    """Run the release's functions on `run`'s job in the sandbox; ReleaseError when they cannot run or say nothing
    usable (the message names the limit, the exit or the last line the release printed)."""
    try:
        interpreter = find_interpreter(run.python)
    except InterpreterProblem as problem:
        raise ReleaseError(f"no Python to run the release with: {problem} (give --python)") from None
    limits = limits_for(run.timeout_s)
    with run_folder(run.release.digest.folder, max_bytes=MAX_BYTES, max_files=MAX_FILES) as folder:
        if scripts_digest(folder.program).sha256 != run.release.digest.sha256:
            left_out = f" (the copy for the run left out {folder.notes[0]})" if folder.notes else ""
            raise ReleaseError(f"{run.release.digest.folder}: the release's scripts changed since they were "
                               f"confirmed{left_out}; nothing of them ran: check again")
        shown = run.write_job(folder.out)
        out = folder.private / OUT_FILE
        argv = [interpreter.path, "-I", "-B", "-X", f"pycache_prefix={PYCACHE}", str(DRIVER),
                str(folder.out / JOB_FILE), str(folder.program)]
        result = run_sandboxed(argv, folder, read_only=[*install_root(interpreter.path), RUNTIME_DIR, folder.out,
                                                         *shown], handed={OUT_ENV: out}, limits=limits)
        _check_ran(result, interpreter.path)
        try:
            document = read_text(out, limits.file_mb * MiB)
        except OSError as error:
            raise ReleaseError(f"the release's functions wrote no report: {why_unreadable(error)}") from None
        return DriverOutput(document, result.isolation, tuple(folder.notes))


def _check_ran(result: SandboxResult, python: str) -> None:
    if result.refused:
        raise ReleaseError(f"the release's functions cannot run: {result.refused}")
    reason = result.limit_reason
    if reason:
        raise ReleaseError(f"the release's functions were stopped by the sandbox's {reason} after "
                           f"{result.duration_s:.1f} s")
    if result.exit_code != 0:
        last = (result.stderr.strip().splitlines() or [f"exit status {result.exit_code}, signal {result.signal}"])[-1]
        raise ReleaseError(f"the release's functions could not run with {python}: {last[:300]}")
