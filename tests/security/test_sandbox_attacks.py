"""Issue #18's attacks on the sandbox, each a real traced program run by the real tracers (as root in CI)."""
import json
import os
import socket
import sys
import uuid
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

from core import traces
from tests.security.sandbox_attacks import (
    HostCanary,
    cgroups_here,
    java_main,
    needs_memory_cgroup,
    needs_sandbox,
    program,
    trace,
)

pytestmark = needs_sandbox
MARK = Path("/usr/local") / f"traceeval-escape-{os.getpid()}"  # on the host, outside /tmp


@pytest.fixture(autouse=True)
def no_escape_mark():
    yield
    assert not MARK.exists(), "a traced program wrote to the host file system"
    MARK.unlink(missing_ok=True)


def test_python_cannot_remount_the_host_read_write(tmp_path):
    source = ("import ctypes\nlibc = ctypes.CDLL(None, use_errno=True)\n"
              "for target in (b'/', b'/usr', b'/usr/local'):\n"
              "    print('remount', target, libc.mount(None, target, None, 0x20 | 0x1000, None), ctypes.get_errno())\n"
              "print('tmpfs', libc.mount(b'none', b'/usr/local', b'tmpfs', 0, None))\n"
              f"try:\n    open({str(MARK)!r}, 'w').write('escaped')\n    print('written')\n"
              "except OSError as error:\n    print('refused', error)\n")
    run = trace(program(tmp_path / "remount_0001", "python", source), "python")
    assert run.status == traces.OK, run.message + run.stderr_tail
    assert "written" not in run.stdout_tail and run.stdout_tail.count(" -1 1") == 3  # EPERM, each time


def test_node_cannot_remount_the_host_through_child_process(tmp_path):
    source = ("const { execSync } = require('child_process');\n"
              f"for (const command of ['mount -o remount,rw /', 'mount -o remount,rw /usr', 'touch {MARK}']) {{\n"
              "  try { execSync(command, { stdio: 'pipe' }); console.log('done: ' + command); }\n"
              "  catch (error) { console.log('failed: ' + command); }\n}\n")
    run = trace(program(tmp_path / "remount_0002", "javascript", source), "javascript")
    assert run.status == traces.OK, run.message + run.stderr_tail
    assert "done:" not in run.stdout_tail and run.stdout_tail.count("failed:") == 3


def test_java_cannot_remount_the_host_through_process_builder(tmp_path):
    body = (f'        String[] commands = {{"mount -o remount,rw /", "mount -o remount,rw /usr", "touch {MARK}"}};\n'
            "        for (String command : commands) {\n"
            '            Process p = new ProcessBuilder("sh", "-c", command).redirectErrorStream(true).start();\n'
            "            p.getInputStream().readAllBytes();\n"
            '            System.out.println((p.waitFor() == 0 ? "done: " : "failed: ") + command);\n'
            "        }")
    run = trace(program(tmp_path / "remount_0003", "java", java_main(body)), "java")
    assert run.status == traces.OK, run.message + run.stderr_tail
    assert "done:" not in run.stdout_tail and run.stdout_tail.count("failed:") == 3


def test_the_dataset_and_its_workspace_are_not_there_to_rewrite(tmp_path):
    dataset = Path("/var/tmp") / f"traceeval-dataset-{uuid.uuid4().hex[:8]}"
    workspace = dataset / "traceeval-workspace.sqlite"
    try:
        folder = program(dataset / "python" / "rewrite_0001", "python", "")
        workspace.write_bytes(b"SQLite format 3\0original")
        (folder / "main.py").write_text(
            f"import os\nfor path in ({str(workspace)!r}, {str(dataset)!r}, '/var/tmp', '/var'):\n"
            "    print(path, os.path.exists(path))\n"
            f"try:\n    open({str(workspace)!r}, 'wb').write(b'junk')\n    print('rewritten')\n"
            "except OSError as error:\n    print('refused', error.strerror)\n")
        run = trace(folder, "python")
        assert run.status == traces.OK, run.message + run.stderr_tail
        assert " True" not in run.stdout_tail and "rewritten" not in run.stdout_tail
        assert workspace.read_bytes() == b"SQLite format 3\0original"
    finally:
        import shutil
        shutil.rmtree(dataset, ignore_errors=True)


def test_the_home_folder_credentials_and_root_only_files_cannot_be_read(tmp_path):
    with HostCanary(Path.home() / f".traceeval-canary-{os.getpid()}" / ".ssh") as key, \
            HostCanary(Path.home() / f".traceeval-canary-{os.getpid()}-config", "credentials.json") as credentials:
        gone = [key.path, credentials.path, key.folder.parent, "/home", "/etc/shadow", "/etc/ssh", "/run",
                "/var/run", "/var/lib", "/sys"]
        source = ("import json, os\nseen = {}\n"
                  f"for path in {[str(p) for p in gone] + [str(Path.home())]!r}:\n"
                  "    try:\n"
                  "        seen[path] = sorted(os.listdir(path)) if os.path.isdir(path) else open(path).read()\n"
                  "    except OSError as error:\n"
                  "        seen[path] = error.strerror\n"
                  "seen['init'] = open('/proc/1/environ').read()\n"
                  "print(json.dumps(seen))\n")
        run = trace(program(tmp_path / "secrets_0001", "python", source), "python")
    assert run.status == traces.OK, run.message + run.stderr_tail
    seen = json.loads(run.stdout_tail)
    assert all(seen[str(path)] == "No such file or directory" for path in gone), seen
    toolchain = {Path(p).relative_to(Path.home()).parts[0] for p in (sys.prefix, sys.base_prefix)
                 if Path(p).is_relative_to(Path.home())}
    home = seen[str(Path.home())]  # at most the way down to a toolchain folder (a pyenv Python)
    assert home == "No such file or directory" or set(home) <= toolchain, home
    assert "OPENAI" not in seen["init"] and "sk-" not in seen["init"]  # the sandbox's own init: scrubbed


def test_host_unix_sockets_and_localhost_cannot_be_reached(tmp_path):
    path = Path("/var/tmp") / f"traceeval-test-{os.getpid()}.sock"  # on the host, outside /tmp
    abstract = f"traceeval-test-{uuid.uuid4().hex[:8]}"
    listeners = []
    for family, address in ((socket.AF_UNIX, str(path)), (socket.AF_UNIX, "\0" + abstract),
                            (socket.AF_INET, ("127.0.0.1", 0))):
        listener = socket.socket(family, socket.SOCK_STREAM)
        listener.bind(address)
        listener.listen(4)
        listener.setblocking(False)
        listeners.append(listener)
    port = listeners[-1].getsockname()[1]
    source = ("import socket\n"
              f"for family, address in ((socket.AF_UNIX, {str(path)!r}), (socket.AF_UNIX, '\\0' + {abstract!r}),"
              f" (socket.AF_INET, ('127.0.0.1', {port}))):\n"
              "    s = socket.socket(family, socket.SOCK_STREAM)\n    s.settimeout(2)\n"
              "    try:\n        s.connect(address)\n        print('connected', address)\n"
              "    except OSError as error:\n        print('NOT REACHED', error.strerror)\n")
    try:
        run = trace(program(tmp_path / "sockets_0001", "python", source), "python")
        for listener in listeners:
            with pytest.raises(BlockingIOError):
                listener.accept()
    finally:
        for listener in listeners:
            listener.close()
        path.unlink(missing_ok=True)
    assert run.status == traces.OK and run.stdout_tail.count("NOT REACHED") == 3, run.stdout_tail + run.stderr_tail


def test_a_program_cannot_move_out_of_its_pids_cgroup(tmp_path):
    source = ("import os\n"
              "for path in ('/sys/fs/cgroup/pids/cgroup.procs', '/sys/fs/cgroup/cgroup.procs',"
              " '/sys/fs/cgroup/pids/tasks'):\n"
              "    try:\n        open(path, 'w').write(str(os.getpid()))\n        print('moved', path)\n"
              "    except OSError as error:\n        print('refused', error.strerror)\n"
              "import ctypes\nlibc = ctypes.CDLL(None, use_errno=True)\n"
              "print('mount cgroup', libc.mount(b'cgroup', b'/tmp', b'cgroup', 0, b'pids'), ctypes.get_errno())\n")
    run = trace(program(tmp_path / "cgroup_0001", "python", source), "python")
    assert run.status == traces.OK and "moved" not in run.stdout_tail, run.stdout_tail + run.stderr_tail
    assert run.stdout_tail.count("refused") == 3 and "mount cgroup -1 1" in run.stdout_tail
    if "pids" in cgroups_here():
        assert "pids cgroup" in run.sandbox


def test_links_out_of_the_program_folder_are_not_followed(tmp_path, monkeypatch):
    monkeypatch.setenv("OPENAI_API_KEY", f"sk-canary-{os.getpid()}")
    folder = program(tmp_path / "links_0001", "python",
                     "import os\nfor name in sorted(os.listdir('.')):\n"
                     "    try:\n        print(name, open(name, 'rb').read(64))\n"
                     "    except OSError as error:\n        print(name, error.strerror)\n")
    (folder / "helper.txt").write_text("inside")
    os.symlink("/proc/self/environ", folder / "environ")
    os.symlink("/usr", folder / "usr")
    os.symlink("/dev/zero", folder / "zero")
    os.symlink("helper.txt", folder / "alias.txt")
    os.symlink("../..", folder / "up")
    run = trace(folder, "python")
    assert run.status == traces.OK, run.message + run.stderr_tail
    assert "sk-canary" not in run.stdout_tail and "alias.txt b'inside'" in run.stdout_tail
    notes = "\n".join(run.warnings)
    for name in ("environ", "usr", "zero", "up"):
        assert f"{name}: not copied: a link to" in notes, notes
    assert "alias.txt" not in notes  # a link that stays inside is kept


def test_fifos_devices_and_sockets_in_the_program_folder_do_not_hang_the_copy(tmp_path):
    folder = program(tmp_path / "fifo_0001", "python", "print('ran')\n")
    os.mkfifo(folder / "pipe")
    with socket.socket(socket.AF_UNIX) as server:
        server.bind(str(folder / "socket"))
        with ThreadPoolExecutor(1) as pool:
            run = pool.submit(trace, folder, "python").result(timeout=60)
    assert run.status == traces.OK and run.stdout_tail == "ran\n"
    notes = "\n".join(run.warnings)
    assert "pipe: not copied: a FIFO" in notes and "socket: not copied: a socket" in notes


def test_a_huge_program_folder_is_copied_only_up_to_the_bound(tmp_path):
    folder = program(tmp_path / "huge_0001", "python", "import os\nprint(len(os.listdir('data')))\n")
    (folder / "data").mkdir()
    for index in range(3):
        with open(folder / "data" / f"blob{index}.bin", "wb") as handle:
            handle.truncate(40 * 2**20)  # sparse: 120 MiB in all, over the 64 MiB bound
    run = trace(folder, "python")
    assert sum("would take the copy over 64 MiB" in note for note in run.warnings) == 2, run.warnings
    assert run.stdout_tail.strip() == "1", run.message + run.stderr_tail


def test_a_folder_of_too_many_files_stops_the_copy_with_a_note(tmp_path):
    folder = program(tmp_path / "many_0001", "python", "print('ran')\n")
    (folder / "zz").mkdir()
    for index in range(20_010):
        (folder / "zz" / str(index)).touch()
    run = trace(folder, "python")
    assert run.stdout_tail == "ran\n" and any("20,000 files" in note for note in run.warnings), run.warnings


def test_filling_tmp_stops_at_its_size(tmp_path):
    source = ("written = 0\nblock = b'x' * (16 << 20)\n"
              "try:\n    with open('/tmp/fill', 'wb') as f:\n        while written < (4 << 30):\n"
              "            f.write(block)\n            written += len(block)\n            f.flush()\n"
              "except OSError as error:\n    print('stopped', written >> 20, error.strerror)\n")
    run = trace(program(tmp_path / "tmpfill_0001", "python", source), "python", tmp_mb=128, file_mb=8192)
    assert "stopped" in run.stdout_tail and "No space left on device" in run.stdout_tail, run.message
    assert int(run.stdout_tail.split()[1]) <= 128


@needs_memory_cgroup
def test_shared_memory_past_the_limit_gets_the_run_killed(tmp_path):
    source = ("import mmap\nm = mmap.mmap(-1, 4 << 30, flags=mmap.MAP_SHARED)\n"
              "for i in range(0, 4 << 30, 4096):\n    m[i] = 1\nprint('mapped 4 GiB')\n")
    run = trace(program(tmp_path / "mmap_0001", "python", source), "python", memory_mb=512)
    assert run.status == traces.LIMIT and "memory limit" in run.message, run.message
    assert "mapped" not in run.stdout_tail


def test_many_files_in_the_program_folder_are_bounded_in_total(tmp_path):
    source = ("written = 0\nblock = b'x' * (1 << 20)\n"
              "try:\n    for n in range(100):\n        with open(f'file{n}', 'wb') as f:\n"
              "            for _ in range(30):\n                f.write(block)\n                written += 1\n"
              "except OSError as error:\n    print('stopped', written, error.strerror)\n")
    run = trace(program(tmp_path / "disk_0001", "python", source), "python", write_mb=64, file_mb=32)
    assert "No space left on device" in run.stdout_tail, run.message + run.stdout_tail
    assert int(run.stdout_tail.split()[1]) <= 65


def test_the_sandboxs_own_root_and_dev_are_not_writable(tmp_path):
    """bubblewrap builds the root and /dev as tmpfs of no size of their own: left writable, a program could fill
    them past every bound (as an unprivileged user without a memory cgroup, the host's memory)."""
    source = ("for path in ('/x', '/dev/x', '/etc/x', '/usr/x'):\n"
              "    try:\n        open(path, 'w').write('x' * 4096)\n        print('written', path)\n"
              "    except OSError as error:\n        print('refused', path, error.strerror)\n"
              "open('/tmp/x', 'w').write('x')\nopen('x', 'w').write('x')\nprint('tmp and own folder written')\n")
    run = trace(program(tmp_path / "root_0001", "python", source), "python")
    assert "written" not in run.stdout_tail.replace("tmp and own folder written", ""), run.stdout_tail
    assert run.stdout_tail.count("Read-only file system") == 4 and "tmp and own folder written" in run.stdout_tail


FORK_BOMB = """
import os, time
children = []
try:
    while len(children) < 10_000:
        pid = os.fork()
        if pid == 0:
            time.sleep(1)
            os._exit(0)
        children.append(pid)
except OSError as error:
    print('stopped after', len(children), error.strerror, flush=True)
for pid in children:
    os.waitpid(pid, 0)
print('all ended', flush=True)
"""


def test_a_fork_bomb_stopped_by_the_process_limit_is_a_limit_not_ok(tmp_path):
    """As root the pids cgroup stops it; as an unprivileged user without one RLIMIT_NPROC does, and the supervisor
    counts the user's tasks to say so (a program that catches the failing forks and exits 0 was `ok`)."""
    run = trace(program(tmp_path / "forkbomb_0001", "python", FORK_BOMB), "python", processes=32, wall_s=30)
    assert "stopped after" in run.stdout_tail or run.status == traces.LIMIT, run.stdout_tail
    assert run.status == traces.LIMIT and "more than 32 processes/threads" in run.message, run.message
    bounded_by = "pids cgroup" if "pids cgroup" in run.sandbox else "RLIMIT_NPROC"
    print(f"fork bomb ({'root' if os.getuid() == 0 else 'unprivileged'}, {bounded_by}): {run.message}")

