"""A `traceeval` killed with SIGKILL leaves nothing running behind it (issue #36): at each phase that starts other
processes (index workers and the results reader of a first contact, the instance builder's pool, the sandboxed
runs of a retrace, the Java compile server), the parent is killed while those processes are seen running, and
every process it had started must be gone within a few seconds."""
from __future__ import annotations

import os
import shutil
import signal
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

import pytest

from resources import DEMO_DATASET
from tests.bench.synthetic import generate, split_ids
from tests.harness_server import repo
from tests.llm_server import FakeChatServer, Reply

ROOT = Path(__file__).resolve().parents[2]
SEEN_WITHIN_S = 120  # how long a phase may take to be reached (the machine may be busy)
GONE_WITHIN_S = 10  # how long what the killed process started may outlive it
Process = tuple[int, str]  # (pid, start time): a pid is not reused for another process with the same start time


def _stat(pid: int) -> tuple[int, str, str] | None:
    """(parent pid, state, start time) of a process, or None when it is gone."""
    try:
        text = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return None
    fields = text[text.rindex(")") + 2:].split()
    return int(fields[1]), fields[0], fields[19]


def _cmdline(pid: int) -> str:
    try:
        return Path(f"/proc/{pid}/cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace")
    except OSError:
        return ""


def descendants(root: int) -> dict[Process, str]:
    """Every living process below `root`, with its command line."""
    children: dict[int, list[int]] = {}
    starts: dict[int, str] = {}
    for entry in os.listdir("/proc"):
        if entry.isdigit() and (info := _stat(int(entry))) is not None and info[1] != "Z":
            children.setdefault(info[0], []).append(int(entry))
            starts[int(entry)] = info[2]
    found: dict[Process, str] = {}
    pending = list(children.get(root, []))
    while pending:
        pid = pending.pop()
        found[(pid, starts[pid])] = _cmdline(pid)
        pending.extend(children.get(pid, []))
    return found


def alive(process: Process) -> bool:
    info = _stat(process[0])
    return info is not None and info[1] != "Z" and info[2] == process[1]


def killed_while(seen: Callable[[dict[Process, str]], bool], tmp_path: Path, *argv: str | Path,
                 **env: str) -> dict[Process, str]:
    """Start `traceeval ARGV...`, wait until `seen(its descendants)` holds, kill it with SIGKILL, and return what it
    had started. Its output goes to files: what outlives it would hold a pipe open."""
    log = tmp_path / "stderr.txt"
    with open(tmp_path / "stdout.txt", "wb") as out, open(log, "wb") as err:
        parent = subprocess.Popen([sys.executable, "-m", "traceeval_gui.cli.main", *map(str, argv)],
                                  env={**os.environ, "PYTHONPATH": str(ROOT), **env}, stdout=out, stderr=err)
    deadline = time.monotonic() + SEEN_WITHIN_S
    started: dict[Process, str] = {}
    try:
        while time.monotonic() < deadline and parent.poll() is None:
            now = descendants(parent.pid)
            started.update(now)
            if seen(now):
                parent.kill()
                parent.wait()
                return {**started, **descendants(parent.pid)}
            time.sleep(0.02)
    finally:
        if parent.poll() is None:
            parent.kill()
        parent.wait()
    assert_all_gone(started)
    pytest.fail(f"the phase was never seen (exit {parent.returncode}): {log.read_text()[-1500:]}")


def assert_all_gone(started: dict[Process, str]) -> None:
    deadline = time.monotonic() + GONE_WITHIN_S
    while time.monotonic() < deadline and any(alive(process) for process in started):
        time.sleep(0.1)
    left = {process: command for process, command in started.items() if alive(process)}
    for (pid, _), _command in left.items():  # (so a failure leaves nothing either)
        os.kill(pid, signal.SIGKILL)
    assert not left, f"still running after the parent was killed: {sorted(left.values())}"


def spawned_workers(processes: dict[Process, str]) -> set[Process]:
    return {process for process, command in processes.items() if "spawn_main" in command}


@pytest.fixture(scope="module")
def first_contact(tmp_path_factory) -> Path:
    """1,588 programs (indexed by worker processes from 1,500 on) and 42 MB of results (read by a reader process
    from 32 MB on)."""
    root = tmp_path_factory.mktemp("first-contact")
    generate(root, split_ids(None, 0.15), models=10)
    return root


def test_a_first_contact_killed_while_indexing_leaves_no_index_worker_or_resource_tracker(first_contact, tmp_path):
    started = killed_while(lambda now: len(spawned_workers(now)) >= 2, tmp_path, "score", first_contact, "--results",
                           first_contact / "results", "--workspace", tmp_path / "ws.sqlite", TRACEEVAL_JOBS="2")
    assert any("resource_tracker" in command for command in started.values())
    assert_all_gone(started)


def test_a_first_contact_killed_while_its_results_reader_runs_leaves_nothing(first_contact, tmp_path):
    indexing: set[Process] = set()

    def reading(now: dict[Process, str]) -> bool:
        workers = spawned_workers(now)
        if len(indexing) < 2:
            indexing.update(workers)
            return False
        return bool(workers - indexing)  # a spawned process that is not an index worker: the reader

    assert_all_gone(killed_while(reading, tmp_path, "score", first_contact, "--results", first_contact / "results",
                                 "--workspace", tmp_path / "ws.sqlite", TRACEEVAL_JOBS="2"))


def test_a_build_killed_while_its_workers_wait_for_the_model_leaves_no_worker(tmp_path):
    repos = []
    for name in ("geomkit", "textstats"):
        repos.append(tmp_path / name)
        shutil.copytree(repo("python", name), repos[-1])
    with FakeChatServer(lambda body, attempt: Reply(delay_s=60)) as server:  # a model that keeps them waiting
        started = killed_while(lambda now: len(spawned_workers(now)) >= 2, tmp_path, "build", *repos, "--language",
                               "python", "--out", tmp_path / "built", "--model", "fake-model", "--base-url",
                               server.base_url, "--jobs", "2")
    assert_all_gone(started)


def test_a_retrace_killed_mid_run_leaves_no_launcher_sandbox_or_program(tmp_path):
    started = killed_while(lambda now: any("main.py" in command for command in now.values()), tmp_path, "retrace",
                           DEMO_DATASET, "--workspace", tmp_path / "ws.sqlite", "--jobs", "2", "--languages", "python",
                           "--split", "all")
    assert_all_gone(started)


@pytest.mark.skipif(shutil.which("javac") is None, reason="needs a JDK")
def test_a_java_trace_killed_while_compiling_leaves_no_compile_server(tmp_path):
    program = next(path for path in sorted((DEMO_DATASET / "benchmark" / "java").iterdir()) if path.is_dir())
    started = killed_while(lambda now: any("CompileServer" in command for command in now.values()), tmp_path, "trace",
                           program, "--workspace", tmp_path / "ws.sqlite")
    assert_all_gone(started)
