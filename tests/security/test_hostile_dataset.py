"""Hostile dataset files (issue #18, items 3-4): links out of a program, FIFOs, devices, sockets, oversized
and absurdly nested files, each met by the real `traceeval` in a subprocess with a timeout, so a reader
that blocks fails the test instead of hanging it."""
import json
import os
import socket
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

from core.records import CallGraph
from core.safe_files import MAX_GROUND_TRUTH_BYTES, MAX_SOURCE_BYTES
from tests.builders import PY_GRAPH, PY_MAIN, released_dataset
from tests.llm_server import FakeChatServer, answer_text, ok
from tests.release_standin import write_release

ROOT = Path(__file__).resolve().parents[2]
CANARY = "TRACEEVAL_CANARY_7f3a9c"
SECRET = "s3cret-value-never-in-a-prompt"
TIMEOUT_S = 120


def run_cli(*argv, env: dict | None = None, cwd: Path | None = None) -> subprocess.CompletedProcess:
    """`traceeval ARGV...` in its own process, killed after TIMEOUT_S: a hang fails instead of blocking."""
    environment = {**os.environ, "PYTHONPATH": str(ROOT), **(env or {})}
    done = subprocess.run([sys.executable, "-m", "traceeval_gui.cli.main", *map(str, argv)], env=environment, cwd=cwd,
                          capture_output=True, text=True, timeout=TIMEOUT_S, check=False)
    assert "Traceback" not in done.stderr, done.stderr
    return done


def problem_lines(output: str, name: str) -> list[str]:
    return [line for line in output.splitlines() if name in line]


@pytest.fixture
def dataset(tmp_path):
    """good_0001 and inner_0001 (a link that stays inside its program) load; each other program holds one
    hostile file."""
    root = released_dataset(tmp_path / "data", {"python": ["good_0001", "inner_0001", "environ_0001", "zero_0001",
                                                           "usrtree_0001", "fifotruth_0001", "fifomain_0001",
                                                           "socket_0001", "deep_0001", "hugetruth_0001",
                                                           "hugesource_0001"]})
    programs = root / "benchmark" / "python"
    (programs / "inner_0001" / "lib").mkdir()
    (programs / "inner_0001" / "lib" / "real_helper.py").write_text("def helper():\n    return 'inner helper'\n")
    os.symlink("lib/real_helper.py", programs / "inner_0001" / "helper.py")
    os.symlink("/proc/self/environ", programs / "environ_0001" / "settings.py")
    os.symlink("/dev/zero", programs / "zero_0001" / "zeros.py")
    os.symlink("/usr", programs / "usrtree_0001" / "usr")  # a folder link inside a program: never walked
    os.symlink("/usr", programs / "usr_0001")  # a program folder that is a link out of the dataset
    (programs / "fifotruth_0001" / "callgraph.json").unlink()
    os.mkfifo(programs / "fifotruth_0001" / "callgraph.json")
    (programs / "fifomain_0001" / "main.py").unlink()
    os.mkfifo(programs / "fifomain_0001" / "main.py")
    listener = socket.socket(socket.AF_UNIX)
    listener.bind(str(programs / "socket_0001" / "helper.py"))
    (programs / "deep_0001" / "callgraph.json").write_text("[" * 100_000 + "]" * 100_000)
    with open(programs / "hugetruth_0001" / "callgraph.json", "r+b") as handle:
        handle.truncate(MAX_GROUND_TRUTH_BYTES + 1)  # sparse: the size alone refuses it
    with open(programs / "hugesource_0001" / "big.py", "wb") as handle:
        handle.truncate(MAX_SOURCE_BYTES + 1)
    yield root
    listener.close()


EXPECTED = {  # program -> the one problem line naming its hostile file
    "environ_0001": "environ_0001/settings.py: a link to /proc/",
    "zero_0001": "zero_0001/zeros.py: a link to /dev/zero, outside zero_0001/; not read",
    "usr_0001": "benchmark/python/usr_0001: a link leaving the dataset (to /usr); not followed",
    "fifotruth_0001": "fifotruth_0001/callgraph.json: not a regular file (a FIFO); not read",
    "fifomain_0001": "fifomain_0001/main.py: not a regular file (a FIFO); not read",
    "socket_0001": "socket_0001/helper.py: not a regular file (a socket); not read",
    "deep_0001": "deep_0001/callgraph.json: not read: nested deeper than 64 levels",
    "hugetruth_0001": f"hugetruth_0001/callgraph.json: {MAX_GROUND_TRUTH_BYTES + 1:,} bytes, over the bound of "
                      "64 MiB; not read",
    "hugesource_0001": f"hugesource_0001/big.py: {MAX_SOURCE_BYTES + 1:,} bytes, over the bound of 4 MiB; not read",
}


def test_validate_names_each_hostile_file_on_one_line_and_loads_the_rest(dataset, tmp_path):
    done = run_cli("validate", dataset)
    assert done.returncode == 1, done.stderr
    for program, expected in EXPECTED.items():
        lines = problem_lines(done.stdout, program)
        assert len(lines) == 1 and expected in lines[0], (program, lines)
    assert "12 program folder(s)" not in done.stdout  # the /usr link is not a program
    assert "11 program folder(s), 3 loaded" in done.stdout, done.stdout
    assert not problem_lines(done.stdout, "good_0001") and not problem_lines(done.stdout, "inner_0001")
    assert not problem_lines(done.stdout, "usrtree_0001")  # its /usr link is not followed, nothing to report


def test_info_opens_the_dataset_without_blocking(dataset, tmp_path):
    done = run_cli("info", dataset, "--workspace", tmp_path / "ws.sqlite")
    assert done.returncode == 0, done.stderr
    assert "programs   3 " in done.stdout and "9 error(s)" in done.stdout, done.stdout


def test_score_opens_the_dataset_and_reads_results_beside_a_fifo_without_blocking(dataset, tmp_path):
    results = tmp_path / "results"
    results.mkdir()
    (results / "m.jsonl").write_text(json.dumps({"instance_id": "good_0001", "model": "m", "prediction": PY_GRAPH}))
    os.mkfifo(results / "waiting.json")
    done = run_cli("score", dataset, "--workspace", tmp_path / "ws.sqlite", "--split", "all", "--results", results)
    assert done.returncode == 0, done.stderr
    assert [line.split("|")[1].split() for line in done.stdout.splitlines() if line.startswith("m ")] == \
        [["100.0", "100.0", "100.0"]]
    assert problem_lines(done.stderr, "waiting.json") == [f"error: {results / 'waiting.json'}: not a regular file "
                                                           "(a FIFO); not read"]


def test_a_program_linked_to_the_environment_never_reaches_a_prompt(dataset, tmp_path):
    """The parent's environment (the canary) must not be in any prompt `predict` sends; the links that stay
    inside a program are followed, so the prompt has the inner helper."""
    with FakeChatServer(lambda request, attempt: ok("1. main.run")) as server:
        done = run_cli("predict", dataset, "--workspace", tmp_path / "ws.sqlite", "--model", "fake-model",
                       "--base-url", server.base_url, "--split", "all", "--no-results-files",
                       env={CANARY: SECRET, "TRACEEVAL_API_KEY": "test-key"})
        bodies = [json.dumps(request.body) for request in server.chat_requests()]
    assert done.returncode == 0, done.stderr
    assert len(bodies) == 3  # good_0001, inner_0001, usrtree_0001: nothing else loaded
    assert not any(SECRET in body or CANARY in body for body in bodies)
    assert sum("inner helper" in body for body in bodies) == 1
    assert not any("/usr/bin" in body for body in bodies)
    done = run_cli("validate", dataset, env={CANARY: SECRET})
    assert SECRET not in done.stdout + done.stderr
    assert len(problem_lines(done.stdout, "environ_0001")) == 1


@pytest.mark.parametrize("rules", ["paper", "studio"])
def test_a_file_swapped_for_a_link_after_indexing_fails_only_its_program(tmp_path, rules):
    """The index says the program is fine (its folder's time is put back); when `predict` builds the prompt
    the file is a link to the environment: that program fails with one line, the others are answered."""
    root = released_dataset(tmp_path / "data", {"python": ["good_0001", "swapped_0001"]})
    folder = root / "benchmark" / "python" / "swapped_0001"
    (folder / "extra.py").write_text("VALUE = 1\n")
    workspace = tmp_path / "ws.sqlite"
    assert run_cli("info", root, "--workspace", workspace).returncode == 0
    times = os.stat(folder)
    (folder / "extra.py").unlink()
    os.symlink("/proc/self/environ", folder / "extra.py")
    os.utime(folder, ns=(times.st_atime_ns, times.st_mtime_ns))
    answer = answer_text(CallGraph.from_dict(PY_GRAPH))
    with FakeChatServer(lambda request, attempt: ok(answer)) as server:
        done = run_cli("predict", root, "--workspace", workspace, "--model", "fake-model", "--base-url",
                       server.base_url, "--split", "all", "--no-results-files", "--rules", rules,
                       env={CANARY: SECRET, "TRACEEVAL_API_KEY": "test-key"})
        bodies = [json.dumps(request.body) for request in server.chat_requests()]
    assert len(bodies) == 1 and PY_MAIN.splitlines()[0] in json.loads(bodies[0])["messages"][-1]["content"]
    assert not any(SECRET in body for body in bodies)
    assert done.returncode == 1, done.stderr
    lines = problem_lines(done.stderr, "extra.py")
    assert len(lines) == 1 and "link" in lines[0], done.stderr
    assert SECRET not in done.stderr + done.stdout


def test_hostile_split_files_and_readme_are_one_line_each_and_the_programs_load(tmp_path):
    root = released_dataset(tmp_path / "data", {"python": ["good_0001", "readme_0001"]},
                            splits={"test": {"python": ["good_0001", "readme_0001"]}})
    splits = root / "traceeval_split"
    (splits / "test_ids.json").unlink()
    os.mkfifo(splits / "test_ids.json")
    (splits / "train_ids.json").write_text('{"python": ' + "[" * 100_000 + "]" * 100_000 + "}")
    (splits / "python_repo_assignment.json").unlink()
    os.symlink("/proc/self/environ", splits / "python_repo_assignment.json")
    readme = root / "benchmark" / "python" / "readme_0001" / "README.md"
    readme.unlink()
    os.mkfifo(readme)
    done = run_cli("validate", root, env={CANARY: SECRET})
    assert SECRET not in done.stdout + done.stderr
    assert "2 program folder(s), 2 loaded" in done.stdout, done.stdout
    for expected in ("traceeval_split/test_ids.json: not a regular file (a FIFO); not read",
                     "traceeval_split/train_ids.json: not read: nested deeper than 64 levels",
                     "traceeval_split/python_repo_assignment.json: a link to /proc/",
                     "readme_0001/README.md: not a regular file (a FIFO); not read; no provenance shown"):
        assert len(problem_lines(done.stdout, expected)) == 1, (expected, done.stdout)


def test_extracting_a_release_copies_only_the_regular_split_files(tmp_path):
    """`data/traceeval.zip` is extracted with the checkout's split files beside it; a split file linked to
    the environment or to /dev/zero, or a FIFO, is left behind (and reported as missing when loading)."""
    checkout = write_release(tmp_path / "TraceEva")
    archive = checkout / "data" / "traceeval.zip"
    archive.parent.mkdir(parents=True)
    with zipfile.ZipFile(archive, "w") as zipped:
        zipped.writestr("benchmark/python/good_0001/main.py", PY_MAIN)
        zipped.writestr("benchmark/python/good_0001/callgraph.json", json.dumps(PY_GRAPH))
    splits = checkout / "data" / "traceeval_split"
    splits.mkdir()
    (splits / "test_ids.json").write_text(json.dumps({"python": ["good_0001"]}))
    os.symlink("/proc/self/environ", splits / "train_ids.json")
    os.symlink("/dev/zero", splits / "python_repo_assignment.json")
    os.mkfifo(splits / "java_repo_assignment.json")
    done = run_cli("validate", checkout, env={CANARY: SECRET, "TRACEEVAL_CACHE_DIR": str(tmp_path / "cache")})
    assert "1 program folder(s), 1 loaded" in done.stdout, done.stdout + done.stderr
    copied = next((tmp_path / "cache" / "releases").glob("TraceEva-*")) / "traceeval_split"
    assert sorted(path.name for path in copied.iterdir()) == ["test_ids.json"]
    assert "traceeval_split/train_ids.json: missing split file" in done.stdout
    assert SECRET not in done.stdout + done.stderr
