"""The same sandbox started by an unprivileged user (`nobody`), where the machine allows it: the
probes hold but for the cgroups such a user cannot create, and runs refuse that weakness unless
the user allowed it, saying so."""
import json
import os
import shutil
import site
import subprocess
import sys
from pathlib import Path

import pytest

from tests.security.sandbox_attacks import needs_sandbox, world_readable_folder
from tracers.sandbox_view import reachable_by_others

REPO = Path(__file__).resolve().parents[2]
SYSTEM_PYTHON = Path("/usr/bin/python3")
PACKAGES = site.getsitepackages()[0]


def _unprivileged_python_problem() -> str:
    if os.getuid() != 0:
        return "already unprivileged: the whole suite runs as this user"
    if not shutil.which("setpriv") or not SYSTEM_PYTHON.exists():
        return "needs setpriv and /usr/bin/python3"
    version = subprocess.run([SYSTEM_PYTHON, "-c", "import sys; print(sys.version_info[:2])"],
                             capture_output=True, text=True, check=False).stdout.strip()
    if version != str(tuple(sys.version_info[:2])):
        return f"/usr/bin/python3 is {version}, our packages are built for {tuple(sys.version_info[:2])}"
    if not (reachable_by_others(REPO / "tracers" / "sandbox.py") and reachable_by_others(Path(PACKAGES))):
        return "the checkout or its packages are not readable by other users"
    return ""


pytestmark = [needs_sandbox, pytest.mark.skipif(bool(_unprivileged_python_problem()),
                                                reason=_unprivileged_python_problem() or "n/a")]


def as_nobody(code: str, **env: str) -> subprocess.CompletedProcess:
    home = world_readable_folder()
    environment = {"PATH": "/usr/local/bin:/usr/bin:/bin", "HOME": str(home), "PYTHONPATH": f"{REPO}:{PACKAGES}",
                   "TRACEEVAL_PYTHON": str(SYSTEM_PYTHON), **env}
    try:
        return subprocess.run(["setpriv", "--reuid=65534", "--regid=65534", "--clear-groups", str(SYSTEM_PYTHON),
                               "-c", code], capture_output=True, text=True, env=environment, timeout=180, cwd=home,
                               check=False)
    finally:
        shutil.rmtree(home, ignore_errors=True)


def test_doctor_as_nobody_proves_the_sandbox_but_for_the_cgroups():
    done = as_nobody("import json; from tracers.sandbox_doctor import sandbox_report; "
                     "print(json.dumps(sandbox_report()))", TRACEEVAL_SANDBOX_ALLOW="")
    assert done.returncode == 0, done.stderr
    rows = {name: (held, detail) for name, held, detail in json.loads(done.stdout)}
    probes = ["no capabilities", "cannot remount or write the host", "seccomp filter", "no new privileges",
              "host folders not there", "host sockets and network unreachable", "/tmp is size-limited",
              "process limit", "unprivileged id"]
    for name in probes:
        assert rows[f"sandbox: {name}"][0], (name, rows[f"sandbox: {name}"])
    assert "uid 65534" in rows["sandbox: unprivileged id"][1]
    if "sandbox: memory" in rows:  # no cgroup for this user: said, with how to go ahead anyway
        assert "runs refuse unless TRACEEVAL_SANDBOX_ALLOW=memory" in rows["sandbox: memory"][1]
        assert not rows["sandbox: memory limit"][0]


def test_a_run_lacking_a_property_refuses_unless_allowed_and_then_says_so():
    folder = world_readable_folder()
    try:
        (folder / "prog_0001").mkdir()
        (folder / "prog_0001" / "main.py").write_text("def f():\n    pass\nf()\n")
        for path in (folder / "prog_0001", folder / "prog_0001" / "main.py"):
            path.chmod(0o755)
        code = ("import json, sys; from pathlib import Path; from core.dataset.layout import load_program; "
                "from tracers import trace_instance; "
                f"instance, _ = load_program(Path({str(folder / 'prog_0001')!r}), 'python', [], "
                "require_ground_truth=False); run = trace_instance(instance); "
                "print(json.dumps([run.status, run.message, run.sandbox, [[e.caller, e.callee] for e in run.edges]]))")
        refused = as_nobody(code, TRACEEVAL_SANDBOX_ALLOW="")
        allowed = as_nobody(code, TRACEEVAL_SANDBOX_ALLOW="memory")
    finally:
        shutil.rmtree(folder, ignore_errors=True)
    status, message, _, _ = json.loads(refused.stdout)
    if status == "ok":
        pytest.skip("this machine gives an unprivileged user a memory cgroup: nothing is lacking")
    assert status == "toolchain_missing" and "TRACEEVAL_SANDBOX_ALLOW=memory" in message, message
    status, message, sandbox, edges = json.loads(allowed.stdout)
    assert status == "ok" and edges == [["main", "main.f"]], (message, allowed.stderr)
    assert "lacking, as allowed by TRACEEVAL_SANDBOX_ALLOW" in sandbox and "memory cgroup" in sandbox
