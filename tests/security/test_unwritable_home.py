"""A home folder that cannot be written (a service account, `nobody`'s /nonexistent, a read-only home) costs no
traceback (issue #36): `doctor` says which folders cannot be written and where caches go instead, and the Java
tracer, whose agent is built into the cache, still traces."""
from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

from tests.test_user_folders import FOLDER_VARIABLES

ROOT = Path(__file__).resolve().parents[2]
HOME = "/proc/no-such-home"  # (not even root can make a folder there)


def traceeval(tmp_path: Path, *argv: str) -> subprocess.CompletedProcess:
    env = {name: value for name, value in os.environ.items() if name not in FOLDER_VARIABLES}
    env.update(HOME=HOME, PYTHONPATH=str(ROOT))  # (TMPDIR stays: traced programs, as nobody, need to reach it)
    return subprocess.run([sys.executable, "-m", "traceeval_gui.cli.main", *argv], check=False, env=env,
                          cwd=tmp_path, capture_output=True, text=True, timeout=600)


def test_doctor_names_the_folders_it_cannot_write_and_still_proves_every_tracer(tmp_path):
    done = traceeval(tmp_path, "doctor", "--format", "json")
    assert "Traceback" not in done.stderr and done.returncode in (0, 1), done.stderr[-2000:]
    checks = {check["check"]: check for check in json.loads(done.stdout)["checks"]}
    fallback = Path(tempfile.gettempdir()) / f"traceeval-studio-{os.getuid()}"
    assert not checks["folder: cache"]["ok"] and str(fallback) in checks["folder: cache"]["detail"]
    for name in ("config", "workspaces"):
        assert not checks[f"folder: {name}"]["ok"] and HOME in checks[f"folder: {name}"]["detail"]
    if checks["tracer: java"]["ok"]:
        assert any(name.startswith("jdk: ") and check["ok"] for name, check in checks.items())
        assert list(fallback.glob("java-agent-*/agent.jar"))
