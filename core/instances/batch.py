"""Many repositories, one task each, on a local process pool or a Dask cluster; resumable.

The driver (this module, on the calling thread) submits `pipeline.build_repository` per
repository that has no stored result yet, stores each result the moment it arrives, and
finalises the language at the end (also after an interruption, so what finished is usable). A
rerun of the same batch skips finished repositories. Workers only read repositories and return
plain results: on a cluster the repository folders must be visible to the workers at the same
paths, and the output folder only to the driver.
"""
from __future__ import annotations

import logging
import signal
import threading
import time
from collections.abc import Callable, Sequence
from concurrent.futures import FIRST_COMPLETED, Future, wait
from dataclasses import dataclass, field
from pathlib import Path

from core.errors import BuildError
from core.instances.harness import HarnessTemplate
from core.instances.output import (
    FinalOptions,
    LanguageSummary,
    finalize_language,
    load_repo_results,
    merged_result,
    prepare_output,
    save_repo_result,
)
from core.instances.pipeline import BuildOptions, RepoTask, TraceRuns, build_repository, repo_names
from core.instances.records import RepoResult
from core.instances.repository import sanitise_repo_name
from core.llm.endpoints import RunSettings
from core.worker_pool import process_pool

log = logging.getLogger(__name__)
Progress = Callable[[int, int, str], None]
POLL_S = 0.2


@dataclass
class BatchReport:
    language: str
    repositories: int  # given
    resumed: int = 0  # finished in an earlier run, skipped
    built: int = 0  # finished now
    failed: list[tuple[str, str]] = field(default_factory=list)  # (repo, error): tasks that did not finish
    stopped: str = ""  # why the batch stopped early ("" when it did not)
    interrupted: bool = False
    summary: LanguageSummary | None = None
    seconds: float = 0.0


def run_batch(repos: Sequence[Path], out: Path, options: BuildOptions, settings: RunSettings,
              template: HarnessTemplate, trace_runs: TraceRuns, *, final: FinalOptions = FinalOptions(),
              jobs: int = 2, cluster: str | None = None, api_key: str | None = None,
              targets: Sequence[str] = (), harness_text: str = "",
              progress: Progress | None = None, cancel: threading.Event | None = None) -> BatchReport:
    """Build every repository not built yet into `out` and finalise the language. `targets` limits
    each repository to those candidates; `harness_text` is a hand-written harness for them."""
    started = time.perf_counter()
    prepare_output(out)
    language = options.language
    report = BatchReport(language, len(repos))
    stored = {result.repo.name: result for result in load_repo_results(out, language)}
    finished = {name: result.repo.path for name, result in stored.items()}
    readable = [Path(path) for path in repos if Path(path).is_dir()]
    for path in repos:
        if not Path(path).is_dir():
            report.failed.append((sanitise_repo_name(Path(path).name), f"{path}: not a folder"))
    names = repo_names(readable, finished)
    tasks = []
    for path, name in zip(readable, names):
        if name in finished and not targets:
            report.resumed += 1
        else:
            tasks.append(RepoTask(str(path.resolve()), name, options, settings, template, api_key,
                                  tuple(targets), harness_text))
    total = len(tasks)
    if progress:
        progress(0, total, f"{total} repositories to build, {report.resumed} already built")
    if tasks:
        with _executor(jobs, cluster) as executor:
            _drive(executor, tasks, trace_runs, out, report, progress, cancel, stored if targets else {})
    report.summary = finalize_language(out, language, final)
    report.seconds = time.perf_counter() - started
    return report


def _drive(executor, tasks: list[RepoTask], trace_runs: TraceRuns, out: Path, report: BatchReport,
           progress: Progress | None, cancel: threading.Event | None, earlier: dict[str, RepoResult]) -> None:
    """Collect results as they come. On cancel (or a fatal endpoint error) tasks not yet started are
    dropped and running ones are still collected, so no finished work is lost. A result for chosen
    targets is merged into the repository's `earlier` one."""
    pending: dict = {executor.submit(build_repository, task, trace_runs,
                                     key=f"build-{task.options.language}-{task.repo_name}"): task for task in tasks}
    done = 0
    stopping = False
    try:
        while pending:
            if not stopping and (report.stopped or (cancel is not None and cancel.is_set())):
                stopping = True
                if not report.stopped:
                    report.interrupted, report.stopped = True, "cancelled; a rerun resumes"
                executor.cancel(list(pending))
                pending = {future: task for future, task in pending.items() if not future.cancelled()}
                continue
            for future in executor.wait_any(list(pending), POLL_S):
                task = pending.pop(future)
                done += 1
                message = _collect(future, task, out, report, earlier.get(task.repo_name))
                if progress:
                    progress(done, len(tasks), message)
    except KeyboardInterrupt:
        report.interrupted, report.stopped = True, "interrupted; a rerun resumes"
        raise


def _collect(future, task: RepoTask, out: Path, report: BatchReport, earlier: RepoResult | None) -> str:
    """Store one finished task's result; a task that died is listed as failed (a rerun retries it)."""
    if future.cancelled():
        return f"{task.repo_name}: cancelled"
    try:
        result = future.result()
    except Exception as error:  # noqa: BLE001 - the worker died or the task could not run there
        message = f"the task failed: {type(error).__name__}: {error}"
        log.error("%s: %s", task.repo_name, message)
        report.failed.append((task.repo_name, message))
        return f"{task.repo_name}: failed"
    save_repo_result(out, merged_result(earlier, result))
    report.built += 1
    if result.fatal and not report.stopped:
        report.stopped = f"stopped: {result.error}"
    return (f"{task.repo_name}: {len(result.accepted)} accepted, "
            f"{len(result.attempts) - len(result.accepted)} rejected")


def _executor(jobs: int, cluster: str | None):
    return _DaskCluster(cluster) if cluster else _LocalPool(jobs)


class _LocalPool:
    """Worker processes started fresh (spawn), so nothing of the caller (threads, Qt) is copied."""

    def __init__(self, jobs: int):
        if jobs < 1:
            raise BuildError(f"--jobs must be at least 1, got {jobs}")
        self.pool = process_pool(jobs, initializer=_ignore_interrupts)

    def submit(self, fn, *args, key: str) -> Future:
        return self.pool.submit(fn, *args)

    def wait_any(self, futures: list, timeout: float) -> list:
        return list(wait(futures, timeout=timeout, return_when=FIRST_COMPLETED)[0])

    def cancel(self, futures: list) -> None:
        for future in futures:
            future.cancel()

    def __enter__(self):
        return self

    def __exit__(self, *exc) -> None:
        if exc[0] is not None:  # a second Ctrl-C: stop the running repositories too
            for process in list(getattr(self.pool, "_processes", {}).values()):
                process.terminate()
        self.pool.shutdown(wait=exc[0] is None, cancel_futures=True)


def _ignore_interrupts() -> None:
    """Ctrl-C in a terminal reaches the workers too; the driver decides what stops (see `_drive`)."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)


class _DaskCluster:
    """The same tasks on a Dask distributed scheduler (`tcp://host:8786`, or a LocalCluster's address)."""

    def __init__(self, address: str):
        try:
            from distributed import Client
        except ImportError:
            raise BuildError("--cluster needs Dask: pip install 'traceeval-studio[cluster]'") from None
        try:
            self.client = Client(address, timeout="15s", set_as_default=False)
        except (OSError, TimeoutError) as error:
            raise BuildError(f"cannot reach the Dask scheduler at {address}: {error}") from None

    def submit(self, fn, *args, key: str):
        return self.client.submit(fn, *args, key=key, pure=False, retries=1)

    def wait_any(self, futures: list, timeout: float) -> list:
        done = [future for future in futures if future.done()]
        if not done:
            time.sleep(timeout)
        return done

    def cancel(self, futures: list) -> None:
        if futures:
            self.client.cancel(futures)

    def __enter__(self):
        return self

    def __exit__(self, *exc) -> None:
        self.client.close()
