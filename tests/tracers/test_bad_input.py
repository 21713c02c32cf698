"""Hostile or broken programs, traced end to end: each gives a run with a clear status and message,
keeps the edges seen before things went wrong, and leaves the program folder untouched."""
import hashlib
import os
import shutil
from pathlib import Path

import pytest

from core import traces
from core.dataset.layout import load_program
from tracers import trace_instance
from tracers.base import TraceOptions
from tracers.sandbox import Limits, bwrap_path

PRELUDE = "def first():\n    return 1\n\n\ndef second():\n    return 2\n\n\nfirst()\n"


def trace_code(tmp_path: Path, body: str, **limits):
    folder = tmp_path / "prog_0001"
    folder.mkdir(parents=True)
    (folder / "main.py").write_text(PRELUDE + body)
    before = _digest(folder)
    instance, _ = load_program(folder, "python", [], require_ground_truth=False)
    run = trace_instance(instance, TraceOptions(Limits(**{"wall_s": 5, **limits})))
    assert _digest(folder) == before, "the program folder was modified"
    assert run.message and "\n" not in run.message
    assert ("main", "main.first") in {e.edge for e in run.edges}, "edges seen before the failure were lost"
    return run


def test_uncaught_exception(tmp_path):
    run = trace_code(tmp_path, "raise ValueError('bad input')\n")
    assert run.status == traces.EXCEPTION and "ValueError: bad input" in run.message
    assert "ValueError" in run.stderr_tail


def test_sys_exit_with_a_code(tmp_path):
    run = trace_code(tmp_path, "import sys\nsys.exit(3)\n")
    assert (run.status, run.exit_code) == (traces.EXIT_CODE, 3) and "code 3" in run.message


def test_infinite_loop(tmp_path):
    run = trace_code(tmp_path, "while True:\n    second()\n", wall_s=1.5)
    assert run.status == traces.TIMEOUT and "1.5 s" in run.message
    assert ("main", "main.second") in {e.edge for e in run.edges}


def test_fork_bomb(tmp_path):
    body = "import os\nwhile True:\n    try:\n        os.fork()\n    except OSError:\n        pass\n"
    run = trace_code(tmp_path, body, wall_s=2, processes=32)
    assert run.status in (traces.LIMIT, traces.TIMEOUT)


def test_ten_gigabytes_of_output(tmp_path):
    body = "import sys\nfor _ in range(10 * 1024 * 1024):\n    sys.stdout.write('x' * 1024)\n"
    run = trace_code(tmp_path, body, output_bytes=4 * 2**20)
    assert run.status == traces.LIMIT and "MiB" in run.message
    assert len(run.stdout_tail) < 10_000


@pytest.mark.skipif(bwrap_path() is None, reason="bubblewrap (bwrap) is not installed")
def test_writes_outside_the_program_folder(tmp_path):
    target = Path("/var/tmp") / f"traceeval-escape-{os.getpid()}"
    run = trace_code(tmp_path, f"open({str(target)!r}, 'w').write('x')\n")
    assert run.status == traces.EXCEPTION and "No such file or directory" in run.message  # /var is not there
    run = trace_code(tmp_path / "second", "open('/usr/traceeval-escape', 'w').write('x')\n")
    assert run.status == traces.EXCEPTION  # read-only, and (as root) not ours either
    assert "Read-only file system" in run.message or "Permission denied" in run.message
    assert not target.exists()


def test_reading_secrets_from_the_environment(tmp_path, monkeypatch):
    monkeypatch.setenv("OPENAI_API_KEY", "sk-live-secret")
    run = trace_code(tmp_path, "import os\nprint(sorted(os.environ))\nprint(os.environ.get('OPENAI_API_KEY'))\n")
    assert run.status == traces.OK
    assert "sk-live-secret" not in run.stdout_tail and "OPENAI_API_KEY" not in run.stdout_tail


def test_syntax_error_means_nothing_ran(tmp_path):
    folder = tmp_path / "broken_0001"
    folder.mkdir()
    (folder / "main.py").write_text("def f(:\n    pass\n")
    instance, _ = load_program(folder, "python", [], require_ground_truth=False)
    run = trace_instance(instance)
    assert run.status == traces.COMPILE_ERROR and "main.py:1" in run.message and run.edges == ()


def _digest(folder: Path) -> str:
    digest = hashlib.sha256()
    for path in sorted(folder.rglob("*")):
        digest.update(str(path.relative_to(folder)).encode())
        if path.is_file():
            digest.update(path.read_bytes())
    return digest.hexdigest()


@pytest.mark.parametrize("language, entry", [("python", "main.py"), ("javascript", "main.js"), ("java", "Main.java")])
def test_a_tracer_that_fails_gives_a_tracer_error_run_not_an_exception(tmp_path, language, entry):
    folder = tmp_path / "gone_0001"
    folder.mkdir()
    (folder / entry).write_text("")
    instance, _ = load_program(folder, language, [], require_ground_truth=False)
    shutil.rmtree(folder)  # the program vanished between indexing and tracing
    run = trace_instance(instance)
    assert run.status == traces.TRACER_ERROR and "FileNotFoundError" in run.message
    assert "Traceback" in run.stderr_tail
