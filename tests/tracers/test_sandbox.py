"""The shared sandbox: untrusted code cannot hang, flood, escape into the host or read our secrets."""
import os
import sys
import tempfile
import time
from pathlib import Path

import pytest

from tests.security.sandbox_attacks import processes_running
from tracers.run_folder import run_folder
from tracers.sandbox import Limits, bwrap_path, run_sandboxed
from tracers.sandbox_view import install_root

PYTHON = install_root(sys.executable)

needs_bwrap = pytest.mark.skipif(bwrap_path() is None, reason="bubblewrap (bwrap) is not installed")


def run(tmp_path: Path, code: str, **limits):
    folder = tmp_path / "prog"
    folder.mkdir(exist_ok=True)
    (folder / "main.py").write_text(code)
    with run_folder(folder) as run_in:
        result = run_sandboxed([sys.executable, "main.py"], run_in, read_only=PYTHON,
                               limits=Limits(**{"wall_s": 5, **limits}))
        leftovers = list(run_in.program.iterdir())
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
    with run_folder(folder) as run_in:
        result = run_sandboxed([sys.executable, f"{marker}.py"], run_in, read_only=PYTHON,
                               limits=Limits(wall_s=2, processes=32))
    assert result.limit_reason in ("process limit", "wall-clock time limit")
    time.sleep(0.2)
    assert not processes_running(marker), "a forked child survived the sandbox"


def test_a_detached_child_does_not_survive_the_run(tmp_path):
    code = ("import subprocess, sys\n"
            "subprocess.Popen([sys.executable, '-c', 'import time; time.sleep(60)  # detached-child'],"
            " start_new_session=True)\n")
    result, _ = run(tmp_path, code)
    assert result.exit_code == 0
    time.sleep(0.2)
    assert not processes_running("detached-child")


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
def test_writes_outside_the_program_folder_fail_and_the_original_is_untouched(tmp_path):
    outside = Path(sys.prefix) / f"traceeval-escape-{os.getpid()}.txt"  # a folder the program sees, read-only
    code = (f"open('inside.txt', 'w').write('ok')\n"
            f"print(open('inside.txt').read())\n"
            f"open({str(outside)!r}, 'w').write('escaped')\n")
    result, leftovers = run(tmp_path, code)
    assert result.exit_code == 1, result.stderr
    assert "Read-only file system" in result.stderr or "Permission denied" in result.stderr
    assert result.stdout == "ok\n"  # the program's own folder is writable...
    assert not outside.exists()
    outside.unlink(missing_ok=True)
    assert "inside.txt" not in [p.name for p in leftovers]  # ...in the sandbox alone: the copy is untouched
    assert not (tmp_path / "prog" / "inside.txt").exists()  # and so is the original folder


@needs_bwrap
def test_the_network_is_cut(tmp_path):
    code = ("import socket\n"
            "s = socket.socket()\n"
            "s.settimeout(2)\n"
            "s.connect(('1.1.1.1', 80))\n")
    result, _ = run(tmp_path, code)
    assert (result.exit_code == 1 and "OSError" in result.stderr) or "unreachable" in result.stderr


def test_the_run_folder_is_removed_afterwards(tmp_path):
    folder = tmp_path / "prog"
    folder.mkdir()
    (folder / "main.py").write_text("")
    with run_folder(folder) as run_in:
        assert (run_in.program / "main.py").exists() and run_in.out.is_dir()
    assert not run_in.base.exists()


@needs_bwrap
def test_read_only_folders_under_tmp_are_shown_but_not_writable(tmp_path):
    """A runtime folder (or a whole checkout, as in CI) under /tmp stays visible behind the private /tmp."""
    helper = tmp_path / "runtime" / "helper.py"
    helper.parent.mkdir()
    helper.write_text("import os\nprint(os.getcwd().endswith('program'))\nopen(__file__, 'a').write('#')\n")
    folder = tmp_path / "prog"
    folder.mkdir()
    with run_folder(folder) as run_in:
        result = run_sandboxed([sys.executable, str(helper)], run_in, read_only=[*PYTHON, helper.parent],
                               limits=Limits(wall_s=5))
    assert result.stdout.strip() == "True", result.stderr
    assert "Read-only file system" in result.stderr or "Permission denied" in result.stderr


def test_a_private_temporary_folder_still_runs_programs(tmp_path, monkeypatch):
    """A `$TMPDIR` that others cannot pass through (pam_tmpdir's /tmp/user/0, `mktemp -d`): as root the program runs
    as nobody, who could not reach a run folder there (every run failed with bubblewrap's "Can't find source path")."""
    private = tmp_path / "private-tmp"
    private.mkdir(mode=0o700)
    monkeypatch.setattr(tempfile, "tempdir", str(private))
    result, _ = run(tmp_path, "print('hello')")
    assert (result.exit_code, result.stdout, result.stderr) == (0, "hello\n", "")
