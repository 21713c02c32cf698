"""What the benchmarks share: private user folders (so a run never touches the user's workspaces, cache
and config), and printing one timed step."""
from __future__ import annotations

import os
import tempfile
import time

USER_FOLDERS = (("TRACEEVAL_CACHE_DIR", "cache"), ("TRACEEVAL_CONFIG_DIR", "config"),
                ("TRACEEVAL_WORKSPACE_DIR", "workspaces"))


def private_user_folders(name: str) -> tempfile.TemporaryDirectory:
    """Point the workspace, cache and config folders into a temporary folder; keep the returned object
    alive for the run. Call it before anything reads those variables."""
    sandbox = tempfile.TemporaryDirectory(prefix=f"traceeval-bench-{name}-env-")
    for variable, folder in USER_FOLDERS:
        os.environ[variable] = os.path.join(sandbox.name, folder)
    return sandbox


def timed(label: str, action, width: int = 58):
    """Run `action`, print `label` and its seconds; returns (result, seconds)."""
    started = time.perf_counter()
    result = action()
    seconds = time.perf_counter() - started
    print(f"{label:<{width}} {seconds:8.2f} s", flush=True)
    return result, seconds
