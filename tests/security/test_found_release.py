"""Issue #36 item 1: a TraceEval release found next to a dataset (a downloaded `TraceEva/` layout) is used for
prompts or parity only once the user confirms it, remembered by the sha256 of its scripts. Off a terminal every
command that would use it stops with one line saying how to confirm it; on a terminal it asks (answered here
through a real pty); `--release` names it, which confirms it. (The window's dialog: test_found_release_window.py.)"""
import io
import json
import os
import pty
import select
import subprocess
import sys
import time
from pathlib import Path

import pytest

from core.errors import ReleaseError
from core.release.confirmed import confirmed_path, scripts_digest
from resources import DEMO_DATASET
from tests.cli_run import run
from tests.release_standin import write_release
from tests.security.sandbox_attacks import needs_sandbox

ROOT = Path(__file__).resolve().parents[2]
NOT_CONFIRMED = "a TraceEval release found next to the dataset, not confirmed"
QUESTION = b"Use it, and remember it by this sha256? [y/N] "


@pytest.fixture
def checkout(tmp_path, monkeypatch):
    """A downloaded-looking `TraceEva/`: the demo corpus with a stand-in release's scripts beside it. The commands
    run here in-process read no terminal (even under `pytest -s`); the pty tests start their own."""
    monkeypatch.setattr(sys, "stdin", io.StringIO())
    return write_release(tmp_path / "TraceEva", with_data=DEMO_DATASET)


def commands(checkout: Path, tmp_path: Path) -> dict[str, list]:
    """Every command that builds prompts or runs the release, on the checkout, with nothing to say where it is."""
    return {
        "parity": ["parity", checkout],
        "prompt": ["prompt", "calcpad_0001", "--dataset", checkout],
        "predict --dry-run": ["predict", checkout, "--model", "m", "--base-url", "http://127.0.0.1:9/v1",
                              "--dry-run"],
        "finetune-set": ["finetune-set", checkout, "--out", tmp_path / "train.jsonl"],
        "batch prepare": ["batch", "prepare", checkout, "--provider", "openai", "--model", "m", "--out",
                          tmp_path / "batches"],
    }


def test_off_a_terminal_every_command_that_would_use_it_stops_with_one_line(checkout, tmp_path, capsys):
    sha256 = scripts_digest(checkout / "scripts").sha256
    for name, argv in commands(checkout, tmp_path).items():
        code, out, err = run(capsys, *argv)
        lines = err.strip().splitlines()
        assert code == 2 and out == "" and len(lines) == 1, (name, out, err)
        assert NOT_CONFIRMED in lines[0] and sha256[:16] in lines[0] and f"give --release {checkout}" in lines[0]
    assert not (tmp_path / "train.jsonl").exists() and not (tmp_path / "batches").exists()
    assert not confirmed_path().exists()
    code, out, _ = run(capsys, "info", checkout)  # it builds no prompt: it says which words they would have
    assert code == 0 and "studio wording, not the paper's" in out and NOT_CONFIRMED in out


def test_naming_it_confirms_it_and_it_is_remembered_until_a_script_changes(checkout, tmp_path, capsys):
    code, out, err = run(capsys, "prompt", "calcpad_0001", "--dataset", checkout, "--release", checkout,
                         "--format", "json")
    assert code == 0 and json.loads(out)["wording_tag"].startswith("release:"), err
    digest = scripts_digest(checkout / "scripts")
    assert set(json.loads(confirmed_path().read_text())) == {digest.sha256}
    assert os.stat(confirmed_path()).st_mode & 0o077 == 0
    code, out, err = run(capsys, "prompt", "calcpad_0001", "--dataset", checkout, "--format", "json")
    assert code == 0 and json.loads(out)["wording_tag"].startswith("release:"), err  # remembered
    with (checkout / "scripts" / "run_llm.py").open("a") as script:
        script.write("\n# changed upstream\n")
    code, out, err = run(capsys, "prompt", "calcpad_0001", "--dataset", checkout)
    assert code == 2 and NOT_CONFIRMED in err and scripts_digest(checkout / "scripts").sha256[:16] in err
    (checkout / "scripts" / "helper.py").write_text("x = 1\n")  # a new script is a change too
    assert scripts_digest(checkout / "scripts").sha256 not in confirmed_path().read_text()


def test_an_unreadable_confirmations_file_only_means_asking_again(checkout, capsys):
    confirmed_path().parent.mkdir(parents=True, exist_ok=True)
    confirmed_path().write_text("[" * 100_000)
    code, _, err = run(capsys, "prompt", "calcpad_0001", "--dataset", checkout)
    assert code == 2 and NOT_CONFIRMED in err and "Traceback" not in err


def in_a_terminal(argv: list, answer: bytes | None, timeout_s: float = 120) -> tuple[int, str, str]:
    """`traceeval ARGV` with stdin and stderr on a real pty (stdout a pipe); `answer` typed when it asks.
    Returns the exit status, stdout, and what the terminal showed."""
    primary, secondary = pty.openpty()
    process = subprocess.Popen([sys.executable, "-m", "traceeval_gui.cli.main", *map(str, argv)], stdin=secondary,
                               stdout=subprocess.PIPE, stderr=secondary, cwd=ROOT, env=os.environ.copy())
    os.close(secondary)
    shown, deadline = b"", time.monotonic() + timeout_s
    try:
        while process.poll() is None and time.monotonic() < deadline:
            if select.select([primary], [], [], 0.2)[0]:
                try:
                    shown += os.read(primary, 65536)
                except OSError:  # the terminal closed: the command ended
                    break
                if answer is not None and shown.endswith(QUESTION):
                    os.write(primary, answer)
                    answer = None
        out = process.communicate(timeout=max(1.0, deadline - time.monotonic()))[0].decode()
    finally:
        if process.poll() is None:
            process.kill()
        os.close(primary)
    return process.returncode, out, shown.decode(errors="replace")


@needs_sandbox
def test_on_a_terminal_it_asks_naming_the_folder_and_sha256_and_a_yes_is_remembered(checkout, capsys):
    sha256 = scripts_digest(checkout / "scripts").sha256
    code, out, shown = in_a_terminal(["parity", checkout], b"y\n")
    assert code == 0 and out.rstrip().endswith("Result: full agreement"), out + shown
    assert f"found next to the dataset: {checkout}" in shown and f"sha256 {sha256} (3 files)" in shown
    code, out, err = run(capsys, "parity", checkout)  # remembered: no terminal needed any more
    assert code == 0 and out.rstrip().endswith("Result: full agreement"), err


def test_on_a_terminal_a_no_stops_and_nothing_is_remembered(checkout):
    code, out, shown = in_a_terminal(["prompt", "calcpad_0001", "--dataset", checkout], b"n\n")
    assert code == 2 and out == "" and NOT_CONFIRMED in shown
    assert not confirmed_path().exists()


def test_inspect_ai_takes_its_words_only_when_it_is_named(checkout):
    pytest.importorskip("inspect_ai")
    from core.inspect_task import traceeval

    with pytest.raises(ReleaseError, match=f"not confirmed .*: name it with -T release={checkout}"):
        traceeval(dataset=str(checkout))
    task = traceeval(dataset=str(checkout), release=str(checkout))
    assert all(sample.metadata["wording"].startswith("release:") for sample in task.dataset)
