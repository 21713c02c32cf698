"""Terminal control sequences in model names, answers, program folders and endpoint messages never reach
the terminal raw (issue #18, item 7): the real CLI prints them as visible escapes, keeps JSON output
valid and exact, and writes `-o` files byte for byte."""
import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from core.dataset.indexing import open_dataset
from core.report.terminal_text import SafeTerminalStream, visible
from resources import DEMO_DATASET
from tests.cli_run import run
from tests.llm_server import FakeChatServer, ok, status

ROOT = Path(__file__).resolve().parents[2]
# clear the screen, write the clipboard (OSC 52), ring, go back over the line, a C1 CSI, a bidi override
HOSTILE = "\x1b[2J\x1b]52;c;ZXZpbA==\x07\rX\x08\x9b31m\u202e"
EVIL_MODEL = f"evil{HOSTILE}model"
RAW_CONTROL = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069]")


def assert_terminal_safe(*texts: str) -> None:
    for text in texts:
        assert RAW_CONTROL.search(text.replace("\r\n", "\n")) is None, repr(text[:400])


def test_visible_keeps_lines_and_tabs_and_shows_every_other_control():
    assert visible("a\tb\nc\r\nd") == "a\tb\nc\r\nd"
    assert visible(HOSTILE) == "\\u001b[2J\\u001b]52;c;ZXZpbA==\\u0007\\u000dX\\u0008\\u009b31m\\u202e"
    assert visible("\ud800") == "\\ud800"
    assert json.loads(f'"{visible(chr(0x9b) + chr(0x7f))}"') == "\x9b\x7f"  # still a valid JSON string


@pytest.fixture
def evil_workspace(tmp_path, capsys):
    """The demo workspace with results of a model whose name and answer hold control sequences."""
    path = tmp_path / "demo.sqlite"
    ws, _ = open_dataset(DEMO_DATASET, path)
    with ws:
        instance = ws.instance("python/calcpad_0001")
    answer = "\n".join(f"{n}. main.{HOSTILE}f, main.g" for n in range(1, len(instance.ground_truth.keys) + 1))
    results = tmp_path / "evil.jsonl"
    results.write_text(json.dumps({"instance_id": instance.id, "model": EVIL_MODEL, "raw_response": answer}) + "\n")
    code, out, err = run(capsys, "import-results", DEMO_DATASET, results, "--workspace", path)
    assert code == 0, err
    assert_terminal_safe(out, err)
    return path, answer


@pytest.mark.parametrize("command", [
    ("models",), ("answer", "python/calcpad_0001", "--model", EVIL_MODEL), ("diff", "python/calcpad_0001", "--model",
                                                                              EVIL_MODEL),
    ("score", "--split", "all"), ("graph", "python/calcpad_0001", "--model", EVIL_MODEL, "--format", "dot"),
    ("answer", "python/calcpad_0001", "--model", f"{EVIL_MODEL}-unknown"),
])
def test_names_and_answers_with_control_sequences_print_as_visible_escapes(evil_workspace, capsys, command):
    path, _ = evil_workspace
    code, out, err = run(capsys, *command, "--workspace", path)
    assert code in (0, 1, 2), err
    assert_terminal_safe(out, err)
    assert "evil\\u001b[2J\\u001b]52;c;ZXZpbA==\\u0007" in out + err  # shown, not hidden


def test_json_output_stays_json_and_exact(evil_workspace, capsys):
    path, answer = evil_workspace
    code, out, err = run(capsys, "answer", "python/calcpad_0001", "--model", EVIL_MODEL, "--workspace", path,
                         "--format", "json")
    assert code == 0, err
    assert_terminal_safe(out)
    data = json.loads(out)
    assert data["model"] == EVIL_MODEL and "\n".join(line["text"] for line in data["lines"]) == answer


def test_files_written_with_output_keep_their_exact_content(evil_workspace, tmp_path, capsys):
    path, _ = evil_workspace
    target = tmp_path / "graph.dot"
    code, _out, err = run(capsys, "graph", "python/calcpad_0001", "--model", EVIL_MODEL, "--workspace", path,
                         "--format", "dot", "-o", target)
    assert code == 0, err
    assert HOSTILE.replace("\r", "") in target.read_text(encoding="utf-8")  # DOT drops \r itself


def test_predict_shows_a_hostile_model_name_and_endpoint_message_as_escapes(tmp_path, capsys):
    path = tmp_path / "demo.sqlite"
    def respond(request, attempt):
        if "calcpad" in json.dumps(request):
            return status(400, {"error": {"message": f"refused {HOSTILE}"}})
        return ok(f"1. main.{HOSTILE}f")
    with FakeChatServer(respond) as server:
        code, out, err = run(capsys, "predict", "--workspace", path, "--model", "m", "--name", EVIL_MODEL,
                             "--base-url", server.base_url, "--split", "all", "--out", tmp_path / "results")
    assert code == 1, err
    assert_terminal_safe(out, err)
    assert f"{visible(EVIL_MODEL)}: finished:" in err
    assert "refused \\u001b[2J" in err
    code, out, err = run(capsys, "runs", "--workspace", path)
    assert_terminal_safe(out, err)


def test_a_traced_program_in_a_hostile_folder_printing_control_sequences(tmp_path):
    """The real `traceeval trace` as a child process: the bytes on its stdout and stderr hold no control."""
    program = tmp_path / f"prog{HOSTILE.replace(chr(8), '')}"
    program.mkdir()
    (program / "main.py").write_text(f"def shout():\n    print({HOSTILE!r})\n\n\ndef main():\n    shout()\n"
                                     f"    raise SystemExit({HOSTILE!r})\n\n\nmain()\n")
    env = {**os.environ, "PYTHONIOENCODING": "utf-8"}
    done = subprocess.run([sys.executable, "-m", "traceeval_gui.cli.main", "trace", str(program),
                           "--language", "python",
                           "--workspace", str(tmp_path / "trace.sqlite")], cwd=ROOT, env=env, capture_output=True,
                          timeout=300, check=False)
    out, err = done.stdout.decode("utf-8"), done.stderr.decode("utf-8")
    assert done.returncode in (0, 1), err
    assert "Traceback" not in err
    assert_terminal_safe(out, err)
    assert '"main.shout"' in out  # the graph of what ran is still printed
    assert "prog\\u001b[2J" in out + err


def test_flushing_the_wrapper_of_a_closed_stream_is_harmless(tmp_path):
    """Python 3.13 finalises the wrapper after the stream beneath is closed (pytest's capture, exit)."""
    with open(tmp_path / "out.txt", "w", encoding="utf-8") as beneath:
        stream = SafeTerminalStream(beneath)
        stream.write("done\n")
    stream.flush()
    stream.close()
    assert (tmp_path / "out.txt").read_text(encoding="utf-8") == "done\n"
