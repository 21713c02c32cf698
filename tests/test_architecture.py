"""The layer rules of docs/design.md, checked by import-linter, and the plugin that blocks Qt for the headless run
(`.ci/run` runs every test outside tests/gui and tests/packaging again with it)."""
import os
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
pytestmark = pytest.mark.skipif(os.environ.get("TRACEEVAL_QT_BLOCKED") == "1",
                                reason="already inside the headless run")


def test_import_linter_contracts_hold():
    lint = Path(sys.executable).with_name("lint-imports")
    result = subprocess.run([str(lint)], cwd=ROOT, capture_output=True, text=True, timeout=300, check=False)
    assert result.returncode == 0, result.stdout + result.stderr
    contracts = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["importlinter"]["contracts"]
    # core alone, tracers, gui > tracers > core, core's layers, the CLI, item models, the gui's layers
    assert len(contracts) == 7
    assert f"Contracts: {len(contracts)} kept, 0 broken." in result.stdout


def test_qt_is_really_blocked_by_the_plugin():
    code = "import tests.block_qt\ntry:\n import PySide6\nexcept ImportError as e:\n print('blocked', e)\n"
    result = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, timeout=60,
                            check=False)
    assert result.stdout.startswith("blocked PySide6 is blocked")
