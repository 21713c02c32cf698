"""A repository handed to `traceeval build` runs none of its own commands on the host (issue #36): git, asked for
the provenance (remote, commit, uncommitted changes), would run the repository's fsmonitor hook and its filter
drivers (a `clean` command and a long-running `process` filter) from its own `.git/config`."""
from __future__ import annotations

import os
import re
import shutil
import subprocess
import time
from pathlib import Path

import pytest

from core.instances.candidates import find_candidates
from tests.cli_run import run
from tests.harness_server import HARNESSES, repo

pytestmark = pytest.mark.skipif(shutil.which("git") is None, reason="git is not installed")


def git(folder: Path, *args: str) -> None:
    environment = {**os.environ, "GIT_CONFIG_GLOBAL": os.devnull, "GIT_CONFIG_NOSYSTEM": "1",
                   "GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@example.org", "GIT_COMMITTER_NAME": "t",
                   "GIT_COMMITTER_EMAIL": "t@example.org"}
    subprocess.run(["git", "-C", str(folder), *args], check=True, capture_output=True, timeout=60, env=environment)


def hostile_checkout(tmp_path: Path) -> tuple[Path, Path]:
    """textstats as a git checkout whose config names a command for each way git runs one; the commands leave a
    file in the returned folder when they run. Its files are touched after the commit, so `git status` must look
    at their contents (through the filters)."""
    ran = tmp_path / "ran"
    ran.mkdir()
    command = tmp_path / "command.sh"
    command.write_text(f"#!/bin/sh\ntouch {ran}/\"$(basename \"$0\")-$$\"\ncat\n")
    command.chmod(0o755)
    checkout = tmp_path / "textstats"
    shutil.copytree(repo("python", "textstats"), checkout)
    (checkout / ".gitattributes").write_text("*.py filter=evil\n*.md filter=daemon\n")
    git(checkout, "init", "-q")
    git(checkout, "add", "-A")
    git(checkout, "commit", "-qm", "first")
    for key in ("core.fsmonitor", "filter.evil.clean", "filter.evil.smudge", "filter.daemon.process"):
        git(checkout, "config", key, str(command))
    git(checkout, "config", "filter.evil.required", "true")
    time.sleep(1.1)  # (a new mtime git must look behind)
    for path in checkout.rglob("*"):
        if path.is_file() and ".git" not in path.parts:
            os.utime(path)
    return checkout, ran


def test_a_build_runs_no_command_of_the_repositorys_git_config(tmp_path, capsys):
    checkout, ran = hostile_checkout(tmp_path)
    target = find_candidates(checkout, "python")[0][0].name
    code, _, err = run(capsys, "build", checkout, "--language", "python", "--out", tmp_path / "built", "--target",
                       target, "--harness", HARNESSES / "python" / "textstats" / f"{target}.txt")
    assert code == 0, err
    assert sorted(path.name for path in ran.iterdir()) == []
    readme = (next((tmp_path / "built" / "benchmark" / "python").iterdir()) / "README.md").read_text()
    commit = re.search(r"^Commit: ([0-9a-f]{40})$", readme, re.M)  # the same files as committed: not dirty
    assert commit is not None, readme
