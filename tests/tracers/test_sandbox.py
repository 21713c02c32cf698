"""The shared sandbox: untrusted code cannot hang, flood, escape into the host or read our secrets."""
import os
import sys
import time
from pathlib import Path

import pytest

from tracers.sandbox import Limits, bwrap_path, program_copy, run_sandboxed

needs_bwrap = pytest.mark.skipif(bwrap_path() is None, reason="bubblewrap (bwrap) is not installed")


def run(tmp_path: Path, code: str, **limits):
    folder = tmp_path / "prog"
    folder.mkdir(exist_ok=True)
    (folder / "main.py").write_text(code)
    with program_copy(folder) as copy:
        result = run_sandboxed([sys.executable, "main.py"], copy, limits=Limits(**{"wall_s": 5, **limits}))
        leftovers = list(copy.iterdir())
    return result, leftovers


def test_a_normal_program_runs_with_its_output_kept(tmp_path):
    result, _ = run(tmp_path, "print('hello'); import sys; print('oops', file=sys.stderr)")
    assert (result.exit_code, result.signal, result.limit_reason) == (0, None, None)
    assert result.stdout == "hello\n" and result.stderr == "oops\n"


def test_exit_codes_are_reported(tmp_path):
    result, _ = run(tmp_path, "import sys; sys.exit(3)")
    assert result.exit_code == 3 and result.limit_reason is None


def test_an_infinite_loop_is_killed_at_the_wall_clock_limit(tmp_path):
    started = time.monotonic()
    result, _ = run(tmp_path, "while True: pass", wall_s=1)
    assert result.timed_out and result.limit_reason == "wall-clock time limit"
    assert time.monotonic() - started < 4


def test_a_flood_of_output_is_cut_and_only_a_tail_kept(tmp_path):
    result, _ = run(tmp_path, "import sys\nwhile True: sys.stdout.write('x' * 65536)", output_bytes=2**20)
    assert result.output_limited and result.limit_reason == "output size limit"
    assert len(result.stdout) < 10_000 and "bytes not kept" in result.stdout


def test_a_huge_file_stops_at_the_file_size_limit(tmp_path):
    code = "f = open('big', 'wb')\nwhile True:\n    f.write(b'x' * (1 << 20))\n"
    result, _ = run(tmp_path, code, file_mb=4)
    assert result.limit_reason == "file size limit" or "File too large" in result.stderr


def test_a_fork_bomb_is_contained_and_every_process_killed(tmp_path):
    marker = f"fork-bomb-{os.getpid()}"
    code = "import os, time\nwhile True:\n    try:\n        os.fork()\n    except OSError:\n        time.sleep(0.01)\n"
    folder = tmp_path / "prog"
    folder.mkdir()
    (folder / f"{marker}.py").write_text(code)
    with program_copy(folder) as copy:
        result = run_sandboxed([sys.executable, f"{marker}.py"], copy, limits=Limits(wall_s=2, processes=32))
    assert result.limit_reason in ("process limit", "wall-clock time limit")
    time.sleep(0.2)
    assert not _processes_running(marker), "a forked child survived the sandbox"


def test_a_detached_child_does_not_survive_the_run(tmp_path):
    code = ("import subprocess, sys\n"
            "subprocess.Popen([sys.executable, '-c', 'import time; time.sleep(60)  # detached-child'],"
            " start_new_session=True)\n")
    result, _ = run(tmp_path, code)
    assert result.exit_code == 0
    time.sleep(0.2)
    assert not _processes_running("detached-child")


def test_the_environment_holds_no_secrets_of_ours(tmp_path, monkeypatch):
    monkeypatch.setenv("OPENAI_API_KEY", "sk-secret")
    monkeypatch.setenv("GITHUB_TOKEN", "ghp-secret")
    result, _ = run(tmp_path, "import os, json; print(json.dumps(dict(os.environ)))")
    assert "secret" not in result.stdout
    assert "OPENAI_API_KEY" not in result.stdout and "GITHUB_TOKEN" not in result.stdout


def test_stdin_is_empty(tmp_path):
    result, _ = run(tmp_path, "import sys; print(repr(sys.stdin.read()))")
    assert result.stdout.strip() == "''"


@needs_bwrap
def test_writes_outside_the_program_copy_fail_and_the_original_is_untouched(tmp_path):
    outside = Path("/var/tmp") / f"traceeval-escape-{os.getpid()}.txt"  # on the host file system, not /tmp
    code = (f"open('inside.txt', 'w').write('ok')\n"
            f"open({str(outside)!r}, 'w').write('escaped')\n")
    result, leftovers = run(tmp_path, code)
    assert result.exit_code == 1 and "Read-only file system" in result.stderr
    assert not outside.exists()
    outside.unlink(missing_ok=True)
    assert "inside.txt" in [p.name for p in leftovers]  # the copy is writable...
    assert not (tmp_path / "prog" / "inside.txt").exists()  # ...the original folder is not touched


@needs_bwrap
def test_the_network_is_cut(tmp_path):
    code = ("import socket\n"
            "s = socket.socket()\n"
            "s.settimeout(2)\n"
            "s.connect(('1.1.1.1', 80))\n")
    result, _ = run(tmp_path, code)
    assert result.exit_code == 1 and "OSError" in result.stderr or "unreachable" in result.stderr


def test_the_copy_is_removed_afterwards(tmp_path):
    folder = tmp_path / "prog"
    folder.mkdir()
    (folder / "main.py").write_text("")
    with program_copy(folder) as copy:
        assert (copy / "main.py").exists() and (copy.parent / "out").is_dir()
    assert not copy.parent.exists()


def _processes_running(marker: str) -> bool:
    for entry in os.scandir("/proc"):
        if entry.name.isdigit():
            try:
                cmdline = Path(f"/proc/{entry.name}/cmdline").read_bytes()
            except OSError:
                continue
            if marker.encode() in cmdline and b"pytest" not in cmdline:
                return True
    return False


def test_files_named_on_the_command_line_stay_readable_under_the_private_tmp(tmp_path):
    """A runtime script (or a whole checkout, as in CI) under /tmp must not vanish behind the private /tmp."""
    helper = tmp_path / "runtime" / "helper.py"
    helper.parent.mkdir()
    helper.write_text("import os; print(os.getcwd().endswith('program'))")
    folder = tmp_path / "prog"
    folder.mkdir()
    with program_copy(folder) as copy:
        result = run_sandboxed([sys.executable, str(helper)], copy, limits=Limits(wall_s=5))
    assert (result.exit_code, result.stdout.strip()) == (0, "True"), result.stderr
