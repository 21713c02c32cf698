"""A run killed with the app (SIGKILL, power cut) leaves its folder and cgroups; the next start removes them."""
import os
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from tests.security.sandbox_attacks import cgroups_here, needs_sandbox, processes_running, program
from tracers.run_folder import PREFIX
from tracers.sandbox_cgroups import PREFIX as CGROUP_PREFIX

pytestmark = needs_sandbox
CLI = [sys.executable, "-m", "traceeval_gui.cli.main"]


def _leftovers(pid: int) -> tuple[list[Path], list[Path]]:
    folders = list(Path(tempfile.gettempdir()).glob(f"{PREFIX}{pid}-*"))
    groups = [path for path in Path("/sys/fs/cgroup").rglob(f"{CGROUP_PREFIX}{pid}-*") if path.is_dir()]
    return folders, groups


def test_a_killed_run_leaves_nothing_after_the_next_start(tmp_path):
    folder = program(tmp_path / "sleeper_0001", "python", "import time\nprint('started', flush=True)\ntime.sleep(60)\n")
    app = subprocess.Popen([*CLI, "trace", str(folder), "--timeout", "60", "--workspace", str(tmp_path / "w.sqlite")],
                           stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True)
    try:
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline and not processes_running(f"{PREFIX}{app.pid}-"):
            time.sleep(0.1)
        folders, groups = _leftovers(app.pid)
        assert folders and (groups or not cgroups_here()), "the run never started"
    finally:
        os.kill(app.pid, signal.SIGKILL)  # the app alone: bwrap dies with it, the rest is left behind
        app.wait()
    time.sleep(0.5)
    folders, groups = _leftovers(app.pid)
    assert folders and all(folder.exists() for folder in folders)
    assert not processes_running(f"{PREFIX}{app.pid}-"), "the program outlived the app that ran it"
    again = program(tmp_path / "quick_0001", "python", "print('ok')\n")
    done = subprocess.run([*CLI, "trace", str(again), "--workspace", str(tmp_path / "w.sqlite")],
                          capture_output=True, text=True, timeout=120, check=False)
    assert done.returncode == 0, done.stderr
    assert _leftovers(app.pid) == ([], [])
