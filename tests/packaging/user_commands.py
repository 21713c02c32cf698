"""Running an installed `traceeval` or `traceeval-gui` the way a user of the app or the wheel would:
outside our virtual environment, off screen, with workspaces and caches in the test's own folder."""
from __future__ import annotations

import os
import subprocess
import sys
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
VERSION = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["version"]


def user_env(tmp_path: Path) -> dict[str, str]:
    path = os.pathsep.join(p for p in os.environ["PATH"].split(os.pathsep) if not p.startswith(sys.prefix))
    env = {k: v for k, v in os.environ.items() if k not in ("VIRTUAL_ENV", "PYTHONPATH", "DISPLAY", "WAYLAND_DISPLAY")}
    return {**env, "PATH": path, "TRACEEVAL_WORKSPACE_DIR": str(tmp_path / "workspaces"),
            "TRACEEVAL_CACHE_DIR": str(tmp_path / "cache"), "QT_QPA_PLATFORM": "offscreen"}


def run_user_command(folder: Path, command: str, *args, tmp_path: Path) -> subprocess.CompletedProcess:
    """`folder/command args...` from `tmp_path`, with `user_env`."""
    return subprocess.run([str(folder / command), *map(str, args)], cwd=tmp_path, env=user_env(tmp_path),
                          capture_output=True, text=True, timeout=300, check=False)
