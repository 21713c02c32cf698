"""`core.worker_pool`: results in order from real worker processes, errors raised in the caller, the job count."""
from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from core.worker_pool import JOBS_ENV, default_jobs, ordered_map


def square_after_a_pause(number: int) -> tuple[int, int]:
    """Early items take longest, so workers finish out of order."""
    import time

    time.sleep(0.02 * (10 - number) if number < 10 else 0)
    return number * number, os.getpid()


def fail_on_seven(number: int) -> int:
    if number == 7:
        raise ValueError("seven")
    return number


def test_results_come_in_order_from_other_processes() -> None:
    results = list(ordered_map(square_after_a_pause, range(25), 2))
    assert [square for square, _ in results] == [n * n for n in range(25)]
    assert os.getpid() not in {pid for _, pid in results}
    assert [square for square, _ in ordered_map(square_after_a_pause, range(5), 1)] == [0, 1, 4, 9, 16]


def test_an_error_in_a_worker_is_raised_in_the_caller_after_the_results_before_it() -> None:
    seen = []
    with pytest.raises(ValueError, match="seven"):
        for number in ordered_map(fail_on_seven, range(20), 2):
            seen.append(number)
    assert seen == list(range(7))


def test_stopping_early_stops_the_workers() -> None:
    results = ordered_map(square_after_a_pause, range(100), 2)
    assert next(results)[0] == 0
    results.close()  # the pool is shut down, its queued work cancelled


def test_the_job_count_follows_the_setting(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(JOBS_ENV, "3")
    assert default_jobs() == 3
    monkeypatch.setenv(JOBS_ENV, "zero")
    assert 1 <= default_jobs() <= 4
    monkeypatch.delenv(JOBS_ENV)
    assert default_jobs() == min(4, len(os.sched_getaffinity(0)))


def _worker(parent: str) -> subprocess.CompletedProcess:
    """A process that calls `die_with_parent(PARENT)` and then says it is still here."""
    code = f"import os; from core.worker_pool import die_with_parent; die_with_parent({parent}); print('still here')"
    return subprocess.run([sys.executable, "-c", code], check=False, capture_output=True, text=True, timeout=60,
                          cwd=Path(__file__).resolve().parents[1])


def test_a_worker_whose_parent_is_already_gone_exits_at_once() -> None:
    """The race `die_with_parent` closes: the parent died before the worker asked to die with it (the worker is then
    another process's child), so the kernel would never signal it."""
    gone = _worker("-1")  # (not the parent it has)
    assert gone.returncode == 1 and "still here" not in gone.stdout
    stays = _worker("os.getppid()")
    assert stays.returncode == 0 and "still here" in stays.stdout
