"""One workspace, many processes (issue #18): real `traceeval` processes writing one workspace at once
all finish with their work stored, and a lock that never clears is a one-line error, not a traceback."""
import sqlite3
import subprocess
import sys

import pytest

from core.dataset.indexing import open_dataset
from resources import DEMO_DATASET
from tests.llm_server import FakeChatServer, demo_truth_answers, truth_answers
from tests.security.workspace_processes import cli, finish, released_results

ROUNDS = 3
DEMO_PROGRAMS = 15


@pytest.fixture
def demo(tmp_path, capsys):
    """The demo dataset's workspace, the truth answers per prompt and released results files of one model."""
    path = tmp_path / "demo.sqlite"
    answers = demo_truth_answers(path)
    return path, answers, released_results(capsys, path, answers, tmp_path / "results")


def test_two_predicts_and_two_imports_at_once_all_finish_with_their_work_stored(demo, tmp_path):
    """Each round starts on a new workspace, so the processes also race to create, index and upgrade it."""
    _, answers, results = demo
    names = ("predict-a", "predict-b", "import-a", "import-b")
    with FakeChatServer(truth_answers(answers)) as server:
        for round_ in range(ROUNDS):
            path = tmp_path / f"shared-{round_}.sqlite"
            predict = ("predict", "--workspace", path, "--model", "fake-model", "--base-url", server.base_url,
                       "--split", "all", "--jobs", "4", "--no-results-files", "--name")
            imports = ("import-results", DEMO_DATASET, results, "--workspace", path, "--model")
            processes = {name: cli(*(predict if name.startswith("predict") else imports), name) for name in names}
            for name, process in processes.items():
                code, output = finish(process)
                assert "Traceback" not in output and "locked" not in output, f"round {round_}, {name}:\n{output}"
                assert code == 0, f"round {round_}, {name}:\n{output}"
            ws, _ = open_dataset(DEMO_DATASET, path)
            with ws:
                stored = {model.name: model.predictions for model in ws.models()}
                runs = [run.status for run in ws.model_run_rows()]
            assert all(stored.get(name) == DEMO_PROGRAMS for name in names), (round_, stored)
            assert runs == ["finished", "finished"], (round_, runs)


def test_a_lock_that_never_clears_is_a_one_line_error(demo):
    """Another process holds the write lock for longer than a command waits: the command says so in one line."""
    path, _, results = demo
    holder = subprocess.Popen(
        [sys.executable, "-c", "import sqlite3, sys; db = sqlite3.connect(sys.argv[1], isolation_level=None); "
                               "db.execute('begin immediate'); print('locked', flush=True); sys.stdin.read()",
         str(path)], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    try:
        assert holder.stdout.readline().strip() == "locked"
        code, output = finish(cli("import-results", DEMO_DATASET, results, "--model", "late", "--workspace", path,
                                  TRACEEVAL_LOCK_WAIT_S="1"))
    finally:
        holder.stdin.close()
        holder.wait(timeout=30)
    assert code == 2, output
    assert "Traceback" not in output
    lines = output.strip().splitlines()
    assert lines[-1].startswith(f"traceeval: error: {path}: busy: ") and "for over 1 s" in lines[-1], output
    assert len([line for line in lines if "error:" in line]) == 1
    with sqlite3.connect(path) as db:  # nothing half-stored, and the workspace still works
        assert db.execute("select count(*) from predictions where model = 'late'").fetchone()[0] == 0
