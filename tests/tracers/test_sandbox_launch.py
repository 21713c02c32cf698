"""How a sandboxed run starts (the C launcher, or the preexec_fn fallback) and how its end is waited for."""
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

from core.dataset.indexing import open_dataset
from tracers import sandbox_launch, trace_instance
from tracers.retrace import retrace
from tracers.run_folder import run_folder
from tracers.sandbox import Limits, run_sandboxed
from tracers.sandbox_cgroups import RunCgroups
from tracers.sandbox_view import Identity, install_root, sandbox_identity
from tracers.sandbox_wait import ExitWatch

BUILT = sandbox_launch.launcher_path() is not None
STARTS = [pytest.param("launcher", marks=pytest.mark.skipif(not BUILT, reason="the launcher is not built")),
          "preexec_fn"]


@pytest.fixture(params=STARTS)
def start_kind(request, monkeypatch):
    if request.param == "preexec_fn":
        monkeypatch.setattr(sandbox_launch, "launcher_path", lambda: None)
    return request.param


@pytest.fixture
def cgroups():
    groups = RunCgroups.create(processes=16, memory_mb=256)
    if not groups.procs_files:
        groups.remove()
        pytest.skip("no cgroup can be made here")
    yield groups
    groups.remove()


FIRST_LOOK = ["/bin/sh", "-c", "cat /proc/self/cgroup; ulimit -f; id -u"]
PLAIN = {"cwd": "/", "env": {"PATH": "/usr/bin:/bin"}, "pass_fds": ()}


def _output(process) -> str:
    out, _ = process.communicate(timeout=10)
    return out.decode()


def _setup(cgroups, **changes):
    values = {"procs_files": cgroups.procs_files, "rlimits": [("fsize", 4096, 4096), ("core", 0, 0)],
              "staged": [], "identity": sandbox_identity()}
    return sandbox_launch.ChildSetup(**{**values, **changes})


def test_the_launcher_is_built_by_the_install():
    assert BUILT, "pip install -e . links tracers/traceeval-launch (setup.py); is a C compiler missing?"


def test_the_first_instruction_runs_in_the_cgroups_under_the_limits(start_kind, cgroups):
    """What runs is in every cgroup of the run and under its rlimits from its first instruction on."""
    out = _output(sandbox_launch.start(FIRST_LOOK, _setup(cgroups), **PLAIN))
    lines = out.splitlines()
    for procs in cgroups.procs_files:
        name = Path(procs).parent.name
        assert any(line.endswith("/" + name) for line in lines), (name, out)
    assert lines[-2] == "8"  # 4096 bytes in 512-byte blocks
    assert int(lines[-1]) == sandbox_identity().uid


def _fork_burst(tmp_path: Path) -> Path:
    """A program whose first statements fork 64 sleeping children (or as many as allowed) and print how many."""
    folder = tmp_path / "prog"
    folder.mkdir()
    (folder / "main.py").write_text(
        "import os, time\nmade = 0\nfor _ in range(64):\n    try:\n        pid = os.fork()\n"
        "    except OSError:\n        break\n    if pid == 0:\n        time.sleep(3)\n        os._exit(0)\n"
        "    made += 1\nprint(made)\n")
    return folder


def test_a_fork_burst_at_the_first_statement_meets_the_pids_limit(start_kind, tmp_path):
    """No window between start and joining the cgroup: the program's very first forks are counted."""
    folder = _fork_burst(tmp_path)
    with run_folder(folder) as run_in:
        result = run_sandboxed([sys.executable, "main.py"], run_in, read_only=install_root(sys.executable),
                               limits=Limits(wall_s=10, processes=12))
    assert result.exit_code == 0, result.stderr
    assert int(result.stdout) < 12, result.stdout


def test_a_step_that_fails_stops_the_start_with_the_reason_and_runs_nothing(start_kind, cgroups, tmp_path):
    marker = tmp_path / "ran"
    setup = _setup(cgroups, procs_files=[*cgroups.procs_files, str(tmp_path / "no-such-cgroup" / "cgroup.procs")])
    with pytest.raises(subprocess.SubprocessError) as raised:
        sandbox_launch.start(["/bin/touch", str(marker)], setup, **PLAIN)
    if start_kind == "launcher":
        assert "no-such-cgroup" in str(raised.value) and "No such file" in str(raised.value)
    assert not marker.exists()


def test_a_missing_command_is_reported(start_kind, cgroups):
    with pytest.raises((subprocess.SubprocessError, OSError)) as raised:
        sandbox_launch.start(["/no/such/program"], _setup(cgroups), **PLAIN)
    assert "/no/such/program" in str(raised.value)


def test_handed_descriptors_reach_the_command_and_the_error_pipe_does_not(cgroups, tmp_path):
    log = tmp_path / "log"
    fd = os.open(log, os.O_WRONLY | os.O_CREAT, 0o600)
    try:
        code = f"import os; os.write({fd}, b'handed\\n'); print(*os.listdir('/proc/self/fd'))"
        ourselves = Identity(os.getuid(), os.getgid())  # (nobody may not reach this Python)
        setup = _setup(cgroups, identity=ourselves)
        out = _output(sandbox_launch.start([sys.executable, "-I", "-S", "-c", code], setup, cwd="/", env={},
                                           pass_fds=(fd,)))
    finally:
        os.close(fd)
    assert log.read_text() == "handed\n"
    open_in_child = {int(name) for name in out.split()}
    assert {0, 1, 2, fd} <= open_in_child and len(open_in_child - {0, 1, 2, fd}) == 1, out  # the listing's own


def test_the_wait_ends_when_the_process_ends_not_at_the_timeout():
    process = subprocess.Popen(["/bin/sleep", "0.2"])
    with ExitWatch(process.pid) as exits:
        started = time.monotonic()
        assert exits.wait(0.05) is False
        while not exits.wait(10):
            pass
        assert time.monotonic() - started < 5
    assert process.wait(timeout=5) == 0  # left for subprocess to reap


def test_a_wake_ends_the_wait_early():
    process = subprocess.Popen(["/bin/sleep", "30"])
    try:
        with ExitWatch(process.pid) as exits:
            exits.wake()
            started = time.monotonic()
            assert exits.wait(20) is False
            assert time.monotonic() - started < 5
        exits.wake()  # after close: nothing happens
    finally:
        process.kill()
        process.wait()


def _launchers_running() -> list[int]:
    """Our launchers still alive (started by this process, not yet exec'd into anything else)."""
    found = []
    for entry in os.scandir("/proc"):
        try:
            if entry.name.isdigit() and Path(entry.path, "cmdline").read_bytes().split(b"\0")[0] == \
                    os.fsencode(sandbox_launch.launcher_path() or "-") and \
                    int(Path(entry.path, "stat").read_text().rsplit(")", 1)[1].split()[1]) == os.getpid():
                found.append(int(entry.name))
        except (OSError, ValueError, IndexError):
            continue
    return found


def _launcher_count_becomes(count: int) -> bool:
    """(A launcher busy joining its cgroups may not show its command line for a moment.)"""
    deadline = time.monotonic() + 5
    while len(_launchers_running()) != count:
        if time.monotonic() > deadline:
            return False
        time.sleep(0.01)
    return True


def _our_cgroups() -> set[str]:
    groups = set()
    for parent in ("pids", "memory"):
        for folder in Path("/sys/fs/cgroup", parent).rglob(f"traceeval-{os.getpid()}-*"):
            groups.add(str(folder))
    return groups


@pytest.mark.skipif(not BUILT, reason="the launcher is not built")
def test_a_spare_started_ahead_runs_one_program_in_its_own_fresh_cgroups():
    before = _our_cgroups()
    with sandbox_launch.prestarting():
        assert sandbox_launch.take_spare(16, 256) is None  # none before the first run of a thread
        sandbox_launch.prepare_next(16, 256)
        spare = sandbox_launch.take_spare(16, 256)
        assert spare is not None and spare.cgroups.procs_files
        first = _output(sandbox_launch.start(FIRST_LOOK, _setup(spare.cgroups), spare=spare, **PLAIN))
        names = {Path(procs).parent.name for procs in spare.cgroups.procs_files}
        assert all(any(line.endswith("/" + name) for line in first.splitlines()) for name in names), first
        with pytest.raises(subprocess.SubprocessError):  # one run only
            spare.run(FIRST_LOOK, _setup(spare.cgroups), **PLAIN)
        spare.cgroups.remove()
        sandbox_launch.prepare_next(16, 256)
        following = sandbox_launch.take_spare(16, 256)
        assert following is not None
        assert not names & {Path(procs).parent.name for procs in following.cgroups.procs_files}
        following.give_up()
        following.cgroups.remove()
        sandbox_launch.prepare_next(16, 256)
        assert _launcher_count_becomes(1)  # the next one, waiting
    assert _launchers_running() == []  # the batch's end stops it ...
    assert _our_cgroups() == before  # ... and removes its cgroups


@pytest.mark.skipif(not BUILT, reason="the launcher is not built")
def test_a_spare_made_for_other_limits_is_not_used():
    with sandbox_launch.prestarting():
        sandbox_launch.prepare_next(16, 256)
        assert sandbox_launch.take_spare(32, 256) is None
        assert _launchers_running() == []  # the one made for 16 tasks was stopped
        sandbox_launch.prepare_next(32, 256)
        spare = sandbox_launch.take_spare(32, 256)
        assert spare is not None and spare.cgroups.limits == (32, 256)
        spare.give_up()
        spare.cgroups.remove()
    assert _launchers_running() == []


def test_outside_a_batch_no_spare_is_started():
    sandbox_launch.prepare_next(16, 256)
    assert sandbox_launch.take_spare(16, 256) is None
    assert _launchers_running() == []


@pytest.mark.skipif(not BUILT, reason="the launcher is not built")
def test_a_run_from_a_spare_holds_the_same_limits(tmp_path):
    """The fork burst again, through the spare a batch gives its second run."""
    folder = _fork_burst(tmp_path)
    results = []
    with sandbox_launch.prestarting():
        for _ in range(2):
            with run_folder(folder) as run_in:
                results.append(run_sandboxed([sys.executable, "main.py"], run_in,
                                             read_only=install_root(sys.executable),
                                             limits=Limits(wall_s=10, processes=12)))
    for result in results:
        assert result.exit_code == 0, result.stderr
        assert int(result.stdout) < 12, result.stdout
    assert _launchers_running() == []


def test_the_program_folder_is_copied_with_its_modes_times_and_links(start_kind, tmp_path):
    """The program's own folder inside is what the run folder's copy holds, modes, times and links kept."""
    folder = tmp_path / "prog"
    (folder / "pkg").mkdir(parents=True)
    (folder / "pkg" / "data.txt").write_text("data")
    (folder / "pkg" / "data.txt").chmod(0o640)
    (folder / "link.txt").symlink_to("pkg/data.txt")
    names = (".", "pkg", "pkg/data.txt", "link.txt", "main.py")
    (folder / "main.py").write_text(
        f"import os\nfor name in {names!r}:\n"
        "    info = os.lstat(name)\n    print(name, oct(info.st_mode), info.st_mtime_ns)\n"
        "print(open('link.txt').read())\n")
    with run_folder(folder) as run_in:
        for name in ("pkg/data.txt", "pkg", "."):  # times the copy would not have by chance
            os.utime(run_in.program / name, ns=(1_000_000_000_123_456_789, 1_000_000_000_123_456_789))
        shown = [f"{name} {oct(info.st_mode)} {info.st_mtime_ns}" for name in names
                 if (info := os.lstat(run_in.program / name))]
        result = run_sandboxed([sys.executable, "main.py"], run_in, read_only=install_root(sys.executable),
                               limits=Limits(wall_s=10))
    assert result.exit_code == 0, result.stderr
    assert result.stdout.splitlines() == [*shown, "data"]
    assert "pkg/data.txt 0o100640 1000000000123456789" in shown


def test_a_retrace_batch_records_what_single_traces_record_and_leaves_nothing_behind(tmp_path):
    demo = Path(__file__).resolve().parents[2] / "resources" / "demo"
    ws, _ = open_dataset(demo, tmp_path / "w.sqlite")
    before = _our_cgroups()
    with ws:
        keys = [row.key for row in ws.instance_rows(["python", "javascript"])]
        report = retrace(ws, keys, batch="batch", jobs=2)
        assert report.traced == len(keys) and report.statuses == {"ok": len(keys)}
        for key in keys:
            batch_run = ws.run(ws.run_rows(key)[0].id)
            alone = trace_instance(ws.instance(key))
            assert [edge.edge for edge in batch_run.edges] == [edge.edge for edge in alone.edges], key
    assert _launchers_running() == []
    assert _our_cgroups() == before


@pytest.mark.skipif(not BUILT, reason="the launcher is not built")
def test_a_spare_killed_before_its_run_gives_way_to_a_launcher_started_then():
    with sandbox_launch.prestarting():
        sandbox_launch.prepare_next(16, 256)
        spare = sandbox_launch.take_spare(16, 256)
        assert spare is not None
        assert _launcher_count_becomes(1)
        os.kill(_launchers_running()[0], 9)
        assert _launcher_count_becomes(0)
        out = _output(sandbox_launch.start(FIRST_LOOK, _setup(spare.cgroups), spare=spare, **PLAIN))
        names = {Path(procs).parent.name for procs in spare.cgroups.procs_files}
        assert all(any(line.endswith("/" + name) for line in out.splitlines()) for name in names), out
        spare.cgroups.remove()


@pytest.mark.skipif(not BUILT, reason="the launcher is not built")
@pytest.mark.skipif(not sandbox_identity().switches, reason="only a run that drops to nobody stages")
def test_a_launcher_installed_where_nobody_can_reach_it_still_copies_the_program(tmp_path, monkeypatch):
    """An installed wheel or app under a root-only folder: the launcher shown inside the sandbox (it copies the
    program there) is staged as other unreachable files are, not bound from a path nobody cannot read."""
    import shutil

    hidden = tmp_path / "root-only"
    hidden.mkdir(mode=0o700)
    copy = hidden / sandbox_launch.LAUNCHER_NAME
    shutil.copy2(sandbox_launch.launcher_path(), copy)
    monkeypatch.setattr(sandbox_launch, "launcher_path", lambda: str(copy))
    folder = tmp_path / "prog"
    folder.mkdir()
    (folder / "main.py").write_text("print('copied and ran')\n")
    with run_folder(folder) as run_in:
        result = run_sandboxed([sys.executable, "main.py"], run_in, read_only=install_root(sys.executable),
                               limits=Limits(wall_s=10))
    assert (result.exit_code, result.stdout) == (0, "copied and ran\n"), result.stderr


@pytest.mark.skipif(not BUILT, reason="the launcher is not built")
def test_the_copy_step_runs_nothing_once_the_app_that_started_the_run_is_gone(tmp_path):
    """bubblewrap ties its sandbox to the app only once its setup is done; the copy step, the first thing run in
    the sandbox, checks that the app still holds its end of the lifeline (an app killed mid-setup left it running)."""
    (tmp_path / "source").mkdir()
    (tmp_path / "source" / "main.py").write_text("")

    def copy_and_run(target: str, app_alive: bool) -> subprocess.CompletedProcess:
        lifeline, alive = os.pipe()
        if not app_alive:
            os.close(alive)
        try:
            return subprocess.run([sandbox_launch.launcher_path(), "-l", str(lifeline), "-c", str(tmp_path / "source"),
                                   str(tmp_path / target), "--", "/bin/echo", "ran"], pass_fds=(lifeline,),
                                  capture_output=True, text=True, timeout=10, check=False)
        finally:
            os.close(lifeline)
            if app_alive:
                os.close(alive)

    (tmp_path / "alive").mkdir()
    (tmp_path / "gone").mkdir()
    assert copy_and_run("alive", app_alive=True).stdout == "ran\n"
    gone = copy_and_run("gone", app_alive=False)
    assert (gone.returncode, gone.stdout) == (1, "") and not (tmp_path / "gone" / "main.py").exists()


def test_a_launcher_whose_app_died_before_it_could_tie_itself_to_it_runs_nothing(start_kind, cgroups, tmp_path):
    """`-d PID`: the parent-death signal is set at once and again after the identity drop; a parent that is not PID
    any more ended before, and nothing runs."""
    marker = tmp_path / "ran"
    setup = sandbox_launch.ChildSetup(cgroups.procs_files, [], [], sandbox_identity(), parent=os.getpid() + 1)
    process = sandbox_launch.start(["/bin/sh", "-c", f"touch {marker}"], setup, **PLAIN)
    assert process.wait(timeout=10) == 127 and not marker.exists()
