import os
import sys
from pathlib import Path

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
os.environ.setdefault("PYQTGRAPH_QT_LIB", "PySide6")

import pytest

ROOT = Path(__file__).resolve().parent.parent
SHARED_SPLITS = ROOT.parent / "shared" / "traceeval_split"
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))


@pytest.fixture(autouse=True)
def _private_workspaces(tmp_path, monkeypatch):
    """Default workspaces, config (credentials, recent endpoints) and the answer cache go to the
    test's own folder, never the user's."""
    monkeypatch.setenv("TRACEEVAL_WORKSPACE_DIR", str(tmp_path / "workspaces"))
    monkeypatch.setenv("TRACEEVAL_CONFIG_DIR", str(tmp_path / "config"))
    monkeypatch.setenv("TRACEEVAL_CACHE_DIR", str(tmp_path / "cache"))


@pytest.fixture
def shared_splits() -> Path:
    if not SHARED_SPLITS.is_dir():
        pytest.skip(f"{SHARED_SPLITS} is not on this machine (the benchmark's real split files)")
    return SHARED_SPLITS


@pytest.fixture
def ws(tmp_path):
    """The demo dataset opened into a fresh workspace (test files that need another dataset define their own)."""
    from core.dataset.indexing import open_dataset
    from resources import DEMO_DATASET

    workspace, _ = open_dataset(DEMO_DATASET, tmp_path / "demo.sqlite")
    with workspace:
        yield workspace


@pytest.fixture
def keys(ws):
    """Every program key of `ws`, in its order."""
    return [row.key for row in ws.instance_rows()]
