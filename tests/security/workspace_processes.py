"""For the one-workspace-many-processes tests: real `traceeval` processes and released results to import."""
import os
import subprocess
import sys
from pathlib import Path

from tests.cli_run import run
from tests.llm_server import FakeChatServer, truth_answers

ROOT = Path(__file__).resolve().parents[2]


def released_results(capture, workspace: Path, answers: dict[str, str], out: Path) -> Path:
    """Released results files of a model that answers every demo program right (model "seed" in `workspace`);
    `capture` is pytest's capsys or capfd."""
    with FakeChatServer(truth_answers(answers)) as server:
        code, _, err = run(capture, "predict", "--workspace", workspace, "--model", "fake-model", "--name", "seed",
                           "--base-url", server.base_url, "--split", "all", "--out", out)
    assert code == 0, err
    return out


def cli(*argv: str | Path, **env: str) -> subprocess.Popen:
    """`traceeval ARGV...` started as its own process."""
    return subprocess.Popen([sys.executable, "-m", "traceeval_gui.cli.main", *map(str, argv)],
                            env={**os.environ, "PYTHONPATH": str(ROOT), **env},
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)


def finish(process: subprocess.Popen) -> tuple[int, str]:
    """Exit status and all output of a process started by `cli`."""
    out, err = process.communicate(timeout=240)
    return process.returncode, out + err
