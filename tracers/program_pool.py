"""Work on many programs of a workspace at once, a few at a time: the loop retrace and the static analyzers share.

Each piece of work runs in a worker thread (it is a sandboxed child process, so threads are enough). At most
2 x jobs programs are read from the workspace ahead of the workers, so a 10,583-program run never holds them all;
results come back on the calling thread, which alone touches the workspace and stores each one as it arrives.
"""
from __future__ import annotations

import logging
import threading
from collections.abc import Callable, Iterable, Iterator
from concurrent.futures import FIRST_COMPLETED, Future, ThreadPoolExecutor, wait
from typing import TypeVar

from core.dataset.workspace import Workspace
from core.records import Instance

log = logging.getLogger(__name__)
Result = TypeVar("Result")


def each_result(ws: Workspace, keys: Iterable[str], work: Callable[[Instance], Result], *, jobs: int,
                cancel: threading.Event | None, name: str) -> Iterator[tuple[str, Result]]:
    """(key, work(instance)) for each key, in the order they finish; after `cancel` is set no new work starts
    and the work under way is still given back. A key missing from the workspace index is logged and skipped."""
    workers = max(1, jobs)
    pending: dict[Future, str] = {}
    queue = iter(keys)
    with ThreadPoolExecutor(max_workers=workers, thread_name_prefix=name) as pool:
        while True:
            while len(pending) < workers * 2 and not (cancel and cancel.is_set()):
                key = next(queue, None)
                if key is None:
                    break
                instance = ws.instance(key)
                if instance is None:
                    log.warning("%s: not in the workspace index, skipped", key)
                    continue
                pending[pool.submit(work, instance)] = key
            if not pending:
                return
            finished, _ = wait(pending, return_when=FIRST_COMPLETED)
            for future in finished:
                yield pending.pop(future), future.result()
