"""The `traceeval` command imports only what the command run needs, so it starts at once (the figures:
tests/bench/bench_cli_startup.py). Checked on the modules `python -X importtime` reports, in a fresh process."""
from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from resources import DEMO_DATASET

# pandas: sqlite_utils imports it when installed, unless core.dataset.workspace_db hides it
NOT_FOR_STARTUP = ("openai", "networkx", "PySide6", "pyqtgraph", "tree_sitter", "pygments", "pandas")
NOT_FOR_TRACE = ("openai", "PySide6", "pyqtgraph", "networkx")
SMALL_PROGRAM = DEMO_DATASET / "benchmark" / "python" / "calcpad_0001"


def imported_by(tmp_path: Path, *argv: str) -> set[str]:
    """The top-level packages `traceeval ARGV...` imported (the command must succeed)."""
    env = {**os.environ, "TRACEEVAL_WORKSPACE_DIR": str(tmp_path / "workspaces"),
           "TRACEEVAL_CACHE_DIR": str(tmp_path / "cache"), "TRACEEVAL_CONFIG_DIR": str(tmp_path / "config")}
    done = subprocess.run([sys.executable, "-X", "importtime", "-m", "traceeval_gui.cli.main", *argv],
                          capture_output=True, text=True, env=env, timeout=120, check=False)
    assert done.returncode == 0, done.stderr[-2000:]
    lines = [line.split("|")[-1] for line in done.stderr.splitlines() if line.startswith("import time:")]
    modules = {line.strip().split(".")[0] for line in lines[1:]}  # the first line is the header
    assert "traceeval_gui" in modules  # the report is read right
    return modules


@pytest.mark.parametrize("argv", [("--version",), ("--help",), ("info",), ("info", "--format", "json")])
def test_start_up_commands_import_no_heavy_library(tmp_path, argv):
    imported_by(tmp_path, *argv)  # the first `info` indexes the demo (new programs are parsed, with tree-sitter)
    assert sorted(imported_by(tmp_path, *argv) & set(NOT_FOR_STARTUP)) == []


@pytest.mark.parametrize("argv", [("--version",), ("--help",)])
def test_version_and_help_load_neither_the_workspace_layer_nor_numpy(tmp_path, argv):
    """numpy came in with the audit report's statistics, which a command module imported at its head."""
    assert sorted(imported_by(tmp_path, *argv) & {"sqlite_utils", "numpy"}) == []


def test_trace_imports_no_model_client_and_no_qt(tmp_path):
    assert sorted(imported_by(tmp_path, "trace", str(SMALL_PROGRAM)) & set(NOT_FOR_TRACE)) == []
