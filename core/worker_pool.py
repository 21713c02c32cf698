"""Spread independent work over worker processes, results in order, with a bounded number in flight (issue #24).

Workers are started fresh (spawn, not fork: the caller may have threads, a GUI's or a job's, that a forked child
would inherit stuck) and cost about a third of a second to start, so callers use them only for work worth it.
`TRACEEVAL_JOBS` caps the number of workers (1: never start any).
"""
from __future__ import annotations

import multiprocessing
import os
from collections import deque
from collections.abc import Callable, Generator, Iterable
from concurrent.futures import Future, ProcessPoolExecutor
from typing import TypeVar

JOBS_ENV = "TRACEEVAL_JOBS"
MAX_JOBS = 4  # beyond this the work here is bound by the disk and SQLite, not the CPU

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
    pool = ProcessPoolExecutor(max_workers=jobs, mp_context=multiprocessing.get_context("spawn"))
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
