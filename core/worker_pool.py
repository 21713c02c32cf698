"""Worker processes: started fresh, dying with the process that started them; and `ordered_map`, which spreads
independent work over them, results in order, with a bounded number in flight (issue #24).

Workers are started fresh (spawn, not fork: the caller may have threads, a GUI's or a job's, that a forked child
would inherit stuck) and cost about a third of a second to start, so callers use them only for work worth it.
`TRACEEVAL_JOBS` caps the number of workers (1: never start any).

A worker never outlives its parent (issue #36): killed with SIGKILL, a parent cannot stop its workers, and a spawned
worker waiting for its next task never sees the end of its queue (it holds the queue's writing end itself), nor
does multiprocessing's resource tracker while a worker lives. So each worker asks the kernel for SIGKILL when its
parent ends (`PR_SET_PDEATHSIG`) and then checks that the parent is still the one that started it.
"""
from __future__ import annotations

import ctypes
import multiprocessing
import os
import signal
import sys
import threading
import time
from collections import deque
from collections.abc import Callable, Generator, Iterable
from concurrent.futures import Future, ProcessPoolExecutor
from multiprocessing.process import BaseProcess
from typing import Any, TypeVar

JOBS_ENV = "TRACEEVAL_JOBS"
MAX_JOBS = 4  # beyond this the work here is bound by the disk and SQLite, not the CPU
_PR_SET_PDEATHSIG = 1
_PARENT_POLL_S = 0.5  # where the kernel cannot send the signal, how often a worker looks at its parent

Item = TypeVar("Item")
Result = TypeVar("Result")


def default_jobs() -> int:
    """Workers to use: `$TRACEEVAL_JOBS` when set to a number, else this machine's cores (at most MAX_JOBS)."""
    given = os.environ.get(JOBS_ENV, "").strip()
    if given.isdigit() and int(given) >= 1:
        return int(given)
    return max(1, min(MAX_JOBS, len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity")
                      else os.cpu_count() or 1))


def ordered_map(function: Callable[[Item], Result], items: Iterable[Item],
                jobs: int) -> Generator[Result, None, None]:
    """`map(function, items)` over `jobs` worker processes (in this process when `jobs` is 1), yielding results in
    the items' order while at most 2 x `jobs` items are in flight, so memory does not grow with the work ahead.
    `function` must be a module-level function; an exception in it is raised here. Closing the generator early
    stops the workers."""
    if jobs <= 1:
        yield from map(function, items)
        return
    pool = process_pool(jobs)
    pending: deque[Future] = deque()
    finished = False
    try:
        for item in items:
            pending.append(pool.submit(function, item))
            if len(pending) >= 2 * jobs:
                yield pending.popleft().result()
        while pending:
            yield pending.popleft().result()
        finished = True
    finally:
        pool.shutdown(wait=finished, cancel_futures=True)


def process_pool(jobs: int, initializer: Callable[[], None] | None = None) -> ProcessPoolExecutor:
    """A pool of `jobs` spawned workers that die with this process; `initializer` runs first in each.
    Submit to it from one thread: the kernel signals a worker when the thread that started it ends."""
    return ProcessPoolExecutor(max_workers=jobs, mp_context=multiprocessing.get_context("spawn"),
                               initializer=_start_worker, initargs=(os.getpid(), initializer))


def spawned_process(target: Callable[..., None], args: tuple[Any, ...]) -> BaseProcess:
    """A spawned process running `target(*args)` that dies with this process (started by the caller)."""
    return multiprocessing.get_context("spawn").Process(target=_run_worker, args=(os.getpid(), target, args),
                                                        daemon=True)


def die_with_parent(parent: int) -> None:
    """In a worker started by process `parent`: be killed when that process ends, however it ends.
    The parent may already be gone when this runs (the worker is then a child of init): then exit at once."""
    if not _ask_for_parent_death_signal():
        threading.Thread(target=_watch_parent, args=(parent,), daemon=True, name="parent-watch").start()
    if os.getppid() != parent:
        os._exit(1)


def _ask_for_parent_death_signal() -> bool:
    if not sys.platform.startswith("linux"):
        return False
    try:
        return ctypes.CDLL(None, use_errno=True).prctl(_PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0) == 0
    except (OSError, AttributeError):
        return False


def _watch_parent(parent: int) -> None:
    while os.getppid() == parent:
        time.sleep(_PARENT_POLL_S)
    os._exit(1)


def _start_worker(parent: int, initializer: Callable[[], None] | None) -> None:
    die_with_parent(parent)
    if initializer is not None:
        initializer()


def _run_worker(parent: int, target: Callable[..., None], args: tuple[Any, ...]) -> None:
    die_with_parent(parent)
    target(*args)
