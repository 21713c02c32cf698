"""The README's user guide works as written: every command in its ```bash blocks runs, in order, one
workflow per test, from a folder that sees the repository's `resources/` and `tests/` as the guide
assumes. `traceeval` commands run in-process and must exit 0; `traceeval-gui` commands start the
real window with the same arguments and `--screenshot`. The one liberty taken: the guide's local
endpoint URL is pointed at a chat-completions server started here (tests/llm_server.py), which
answers the demo's prompts with their ground truth and harness prompts with the canned harnesses."""
from __future__ import annotations

import os
import re
import shlex
import subprocess
import sys
from pathlib import Path

import pytest

from tests.harness_server import harness_responder, prompt_target
from tests.llm_server import FakeChatServer, demo_truth_answers, truth_answers
from traceeval_gui.cli import main as traceeval

ROOT = Path(__file__).resolve().parent.parent
GUIDE_ENDPOINT = "http://localhost:11434/v1"
GUIDE_MODEL = "qwen2.5-coder:7b"


def guide_workflows() -> dict[str, list[list[str]]]:
    """Workflow title -> its commands (argument lists), in the order the guide gives them."""
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    guide = text.split("\n## User guide\n", 1)[1].split("\n## ", 1)[0]
    workflows = {}
    for section in guide.split("\n### ")[1:]:
        title, body = section.split("\n", 1)
        blocks = re.findall(r"```bash\n(.*?)```", body, re.S)
        lines = "\n".join(blocks).replace("\\\n", " ").splitlines()
        workflows[title] = [args for args in (shlex.split(line, comments=True) for line in lines) if args]
    return workflows


WORKFLOWS = guide_workflows()


def test_the_guide_has_every_workflow_the_issue_names_with_commands_and_a_screenshot():
    text = (ROOT / "README.md").read_text(encoding="utf-8").split("\n## User guide\n", 1)[1].split("\n## ", 1)[0]
    assert list(WORKFLOWS) == ["Visual diffing of predicted graphs", "Debugging a tracer", "A spot-check audit",
                               "Running a model", "Building instances"]
    for title, section in zip(WORKFLOWS, text.split("\n### ")[1:]):
        assert WORKFLOWS[title], f"{title}: no commands"
        for image in re.findall(r"\]\((resources/screenshots/[^)]+)\)", section) or pytest.fail(f"{title}: no image"):
            assert (ROOT / image).is_file(), image


def model_responder():
    """Harness prompts get their canned harness; the demo's prompts their ground truth."""
    harnesses, truths = harness_responder(), truth_answers(demo_truth_answers())
    return lambda body, attempt: (harnesses if prompt_target(body) else truths)(body, attempt)


@pytest.mark.parametrize("title", list(WORKFLOWS))
def test_the_workflow_runs_as_written(title, tmp_path, monkeypatch, capsys):
    for shared in ("resources", "tests"):
        (tmp_path / shared).symlink_to(ROOT / shared)
    env = {"TRACEEVAL_WORKSPACE_DIR": str(tmp_path / "workspaces"), "TRACEEVAL_CACHE_DIR": str(tmp_path / "cache")}
    for name, value in env.items():
        monkeypatch.setenv(name, value)
    monkeypatch.chdir(tmp_path)
    with FakeChatServer(model_responder(), models=(GUIDE_MODEL,)) as server:
        for args in WORKFLOWS[title]:
            args = [server.base_url if arg == GUIDE_ENDPOINT else arg for arg in args]
            if args[0] == "traceeval":
                code = traceeval(args[1:])
                out, err = capsys.readouterr()
                assert code == 0, f"{shlex.join(args)} exited {code}:\n{out[-2000:]}\n{err[-2000:]}"
            else:
                assert args[0] == "traceeval-gui", f"the guide runs something else: {shlex.join(args)}"
                shown = subprocess.run(
                    [sys.executable, "-m", "traceeval_gui.app", *args[1:], "--screenshot", "window.png"],
                    cwd=tmp_path, env={**os.environ, **env, "QT_QPA_PLATFORM": "offscreen"}, capture_output=True,
                    text=True, timeout=180)
                assert shown.returncode == 0, f"{shlex.join(args)}: {shown.stderr}"
