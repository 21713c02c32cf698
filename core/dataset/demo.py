"""The bundled demo dataset and its illustrative results."""
from __future__ import annotations

from core.dataset.workspace import Workspace
from core.results.importing import import_results
from resources import DEMO_DATASET, DEMO_RESULTS

__all__ = ["DEMO_DATASET", "ensure_demo_results"]


def ensure_demo_results(ws: Workspace) -> None:
    """(Re-)import the bundled illustrative results when they differ from what was imported last
    (a new version of the tool may ship new ones; stale parse problems must not linger)."""
    signature = ";".join(f"{p.name}:{p.stat().st_size}:{p.stat().st_mtime_ns}"
                         for p in sorted(DEMO_RESULTS.glob("*.json")))
    if ws.setting("demo_results") != signature:
        import_results(ws, [DEMO_RESULTS])
        ws.set_setting("demo_results", signature)
