"""The folder traced child processes write their logs to, and the watch that keeps it small.

It is handed into the sandbox read-write at `SANDBOX_FOLDER` (named by `$TRACEEVAL_CHILD_LOGS`);
the program can write anything there, so the supervisor calls `over_budget` every
WATCH_INTERVAL_S and stops the run past MAX_ENTRIES entries or MAX_TOTAL bytes.
`child_processes` reads it afterwards.
"""
from __future__ import annotations

import os
import stat
from pathlib import Path

CHILD_LOGS_ENV = "TRACEEVAL_CHILD_LOGS"
SANDBOX_FOLDER = "/traceeval-children"
MAX_ENTRIES = 256  # entries the folder may hold (anything, anywhere below it)
MAX_TOTAL = 128 * 1024 * 1024  # bytes the folder may hold, all files together
WATCH_INTERVAL_S = 0.02  # a look costs at most 257 `stat` calls; between two the program writes at disk speed


def over_budget(folder: Path) -> str:
    """Why the folder holds too much ('' when it does not); never visits more than MAX_ENTRIES + 1 entries."""
    entries, total, pending = 0, 0, [str(folder)]
    while pending:
        try:
            with os.scandir(pending.pop()) as listing:
                for entry in listing:
                    entries += 1
                    if entries > MAX_ENTRIES:
                        return f"over {MAX_ENTRIES} entries in the child-process log folder"
                    info = entry.stat(follow_symlinks=False)
                    total += info.st_blocks * 512 if stat.S_ISREG(info.st_mode) else 0
                    if total > MAX_TOTAL:
                        return f"over {MAX_TOTAL // 2**20} MiB in the child-process log folder"
                    if stat.S_ISDIR(info.st_mode):
                        pending.append(entry.path)
        except OSError:
            continue
    return ""
