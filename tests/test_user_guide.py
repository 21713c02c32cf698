"""The user guide (docs/user-guide.md) works as written: every command in its ```bash blocks runs, in order, one
workflow per test, from a folder that sees the repository's `resources/` and `tests/` as the guide
assumes. `traceeval` commands run in-process and must exit 0; `traceeval-gui` commands start the
real window with the same arguments and `--screenshot`. The one liberty taken: the guide's local
endpoint URL is pointed at a chat-completions server started here (tests/llm_server.py), which
answers the demo's prompts with their ground truth and harness prompts with the canned harnesses."""
from __future__ import annotations

import os
import re
import shlex
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from resources import DEMO_DATASET
from tests.harness_server import harness_responder, prompt_target
from tests.llm_server import FakeChatServer, demo_truth_answers, truth_answers
from tests.release_standin import write_release
from traceeval_gui.cli.main import main as traceeval

ROOT = Path(__file__).resolve().parent.parent
GUIDE = ROOT / "docs" / "user-guide.md"
GUIDE_ENDPOINT = "http://localhost:11434/v1"
GUIDE_MODEL = "qwen2.5-coder:7b"


def guide_section(title: str) -> str:
    return GUIDE.read_text(encoding="utf-8").split(f"\n## {title}\n", 1)[1].split("\n## ", 1)[0]


def commands_in(text: str) -> list[list[str]]:
    """The argument lists of every line of the ```bash blocks in `text`, in order."""
    blocks = re.findall(r"```bash\n(.*?)```", text, re.S)
    lines = "\n".join(blocks).replace("\\\n", " ").splitlines()
    return [args for args in (shlex.split(line, comments=True) for line in lines) if args]


def guide_workflows() -> dict[str, list[list[str]]]:
    """Workflow title -> its commands (argument lists), in the order the guide gives them."""
    workflows = {}
    for section in guide_section("Workflows").split("\n### ")[1:]:
        title, body = section.split("\n", 1)
        workflows[title] = commands_in(body)
    return workflows


WORKFLOWS = guide_workflows()


def test_the_guide_has_every_workflow_the_issue_names_with_commands_and_a_screenshot():
    text = guide_section("Workflows")
    assert list(WORKFLOWS) == ["Visual diffing of predicted graphs", "Debugging a tracer", "A spot-check audit",
                               "Running a model", "Building instances"]
    for title, section in zip(WORKFLOWS, text.split("\n### ")[1:]):
        assert WORKFLOWS[title], f"{title}: no commands"
        images = re.findall(r"\]\((\.\./resources/screenshots/[^)]+)\)", section)
        for image in images or pytest.fail(f"{title}: no image"):
            assert (GUIDE.parent / image).is_file(), image


def model_responder():
    """Harness prompts get their canned harness; the demo's prompts their ground truth."""
    harnesses, truths = harness_responder(), truth_answers(demo_truth_answers())
    return lambda body, attempt: (harnesses if prompt_target(body) else truths)(body, attempt)


@pytest.mark.parametrize("title", list(WORKFLOWS))
def test_the_workflow_runs_as_written(title, tmp_path, monkeypatch, capsys):
    with FakeChatServer(model_responder(), models=(GUIDE_MODEL,)) as server:
        run_as_written(WORKFLOWS[title], tmp_path, monkeypatch, capsys, {GUIDE_ENDPOINT: server.base_url})


def test_the_paper_parity_section_runs_as_written(tmp_path, monkeypatch, capsys):
    """Against a stand-in checkout `TraceEva/` (the real release is not here) holding the demo corpus only as
    data/traceeval.zip, and the demo's results as `my-results/`."""
    checkout = write_release(tmp_path / "TraceEva")
    archive = checkout / "data" / "traceeval.zip"
    archive.parent.mkdir(parents=True)
    shutil.make_archive(str(archive.with_suffix("")), "zip", DEMO_DATASET, "benchmark")
    shutil.copytree(DEMO_DATASET / "traceeval_split", checkout / "data" / "traceeval_split")
    shutil.copytree(DEMO_DATASET / "results", tmp_path / "my-results")
    commands = commands_in(guide_section("Paper parity"))
    assert [args[:2] for args in commands] == [["traceeval", "info"], ["traceeval", "import-results"],
                                               ["traceeval", "score"], ["traceeval", "parity"], ["traceeval-gui",
                                                                                                 "TraceEva/"]]
    outputs = run_as_written(commands, tmp_path, monkeypatch, capsys)
    assert "Result: full agreement" in outputs[3]


def run_as_written(commands: list[list[str]], tmp_path, monkeypatch, capsys, replace: dict | None = None) -> list[str]:
    """Run each command from `tmp_path` (which sees `resources/` and `tests/`): `traceeval` in this process, where
    it must exit 0; `traceeval-gui` as a real window with `--screenshot`. Returns what each printed."""
    for shared in ("resources", "tests"):
        (tmp_path / shared).symlink_to(ROOT / shared)
    env = {"TRACEEVAL_WORKSPACE_DIR": str(tmp_path / "workspaces"), "TRACEEVAL_CACHE_DIR": str(tmp_path / "cache")}
    for name, value in env.items():
        monkeypatch.setenv(name, value)
    monkeypatch.chdir(tmp_path)
    outputs = []
    for args in commands:
        args = [(replace or {}).get(arg, arg) for arg in args]
        if args[0] == "traceeval":
            code = traceeval(args[1:])
            out, err = capsys.readouterr()
            assert code == 0, f"{shlex.join(args)} exited {code}:\n{out[-2000:]}\n{err[-2000:]}"
            outputs.append(out)
        else:
            assert args[0] == "traceeval-gui", f"the guide runs something else: {shlex.join(args)}"
            shown = subprocess.run(
                [sys.executable, "-m", "traceeval_gui.app", *args[1:], "--screenshot", "window.png"],
                cwd=tmp_path, env={**os.environ, **env, "QT_QPA_PLATFORM": "offscreen"}, capture_output=True,
                text=True, timeout=180, check=False)
            assert shown.returncode == 0, f"{shlex.join(args)}: {shown.stderr}"
            outputs.append(shown.stdout)
    return outputs
