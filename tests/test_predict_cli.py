"""`traceeval predict | prompt | answer | runs` end to end: the real CLI, the real openai client and a
chat-completions server on 127.0.0.1 started by the test (tests/llm_server.py)."""
import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from core.dataset.indexing import open_dataset
from core.llm.prompts import build_prompt
from resources import DEMO_DATASET
from tests.cli_run import run
from tests.llm_server import FakeChatServer, demo_answers_and_keys, hang, ok, status, truth_answers

ROOT = Path(__file__).resolve().parent.parent


@pytest.fixture
def demo(tmp_path):
    """The demo dataset's workspace path, per prompt hash the answer that matches the truth, and the keys."""
    path = tmp_path / "demo.sqlite"
    answers, keys = demo_answers_and_keys(path)
    return path, answers, keys


def test_predict_on_the_demo_stores_scores_and_writes_released_files(demo, tmp_path, capsys):
    path, answers, _keys = demo
    with FakeChatServer(truth_answers(answers)) as server:
        code, out, err = run(capsys, "predict", "--workspace", path, "--model", "fake-model",
                             "--base-url", server.base_url, "--split", "all", "--jobs", "4", "--out", tmp_path / "res")
    assert code == 0, err
    assert "15 program(s) selected, 0 already answered, 15 to ask" in err
    assert "prompts: studio wording, not the paper's; paper rules" in err
    assert "fake-model: finished: 15 answered" in err
    bodies = [request.body for request in server.chat_requests()]  # both token limits, as the paper sends them
    assert all(body["max_tokens"] == body["max_completion_tokens"] == 4096 and body["temperature"] == 0
               for body in bodies)
    assert "100.0" in out and "fake-model" in out  # the final score table: perfect answers
    files = sorted(p.name for p in (tmp_path / "res").iterdir())
    assert files == ["fake-model_java_t0.0_r0.json", "fake-model_javascript_t0.0_r0.json",
                     "fake-model_python_t0.0_r0.json"]
    released = json.loads((tmp_path / "res" / "fake-model_python_t0.0_r0.json").read_text())
    assert released["metadata"]["num_benchmarks"] == 5 and released["metadata"]["aggregate_metrics"]["f1"] == 1.0
    record = next(iter(released["results"].values()))
    assert record["raw_response"] and record["metrics"]["f1"] == 1.0
    # the workbench's scorer sees the model, and the released files import back to the same numbers
    code, out, _ = run(capsys, "score", "--workspace", path, "--split", "all")
    assert code == 0 and "fake-model" in out
    code, out, _ = run(capsys, "score", "--workspace", tmp_path / "other.sqlite", "--split", "all",
                       "--results", tmp_path / "res")
    assert code == 0 and "fake-model" in out and out.count("100.0") >= 9


def test_a_second_run_skips_what_is_answered_and_limit_picks_the_first_programs(demo, tmp_path, capsys):
    path, answers, _keys = demo
    with FakeChatServer(truth_answers(answers)) as server:
        code, _, err = run(capsys, "predict", "--workspace", path, "--model", "m", "--base-url", server.base_url,
                           "--split", "all", "--limit", "4", "--no-results-files")
        assert code == 0 and "4 to ask" in err
        code, _, err = run(capsys, "predict", "--workspace", path, "--model", "m", "--base-url", server.base_url,
                           "--split", "all", "--no-results-files")
        assert code == 0 and "15 program(s) selected, 4 already answered, 11 to ask" in err
        assert len(server.chat_requests()) == 15
        code, out, _ = run(capsys, "runs", "--workspace", path)
    assert code == 0
    assert out.count("finished") == 2 and "11 answered" in out and "4 skipped" in out


def test_failures_are_named_and_a_rerun_asks_only_them(demo, capsys):
    path, answers, keys = demo
    failing = {build_prompt_hash(path, keys[0])}
    right = truth_answers(answers)

    def respond(request, attempt):
        if _hash(request) in failing:
            return status(400, {"error": {"message": "context too long"}})
        return right(request, attempt)

    with FakeChatServer(respond) as server:
        code, _, err = run(capsys, "predict", "--workspace", path, "--model", "m", "--base-url", server.base_url,
                           "--split", "all", "--no-results-files")
        assert code == 1
        assert f"failed: {keys[0]}: the endpoint rejected the request (400)" in err
        assert "run the same command again" in err
        failing.clear()
        code, _, err = run(capsys, "predict", "--workspace", path, "--model", "m", "--base-url", server.base_url,
                           "--split", "all", "--no-results-files")
    assert code == 0 and "14 already answered, 1 to ask" in err


def test_a_refused_key_stops_with_one_line_and_the_key_is_not_shown(demo, capsys, monkeypatch):
    path, _, _ = demo
    monkeypatch.setenv("MY_KEY", "sk-do-not-print-me")
    with FakeChatServer(lambda request, attempt: status(401, {"error": {"message": "bad key sk-do-not-print-me"}})) \
            as server:
        code, out, err = run(capsys, "predict", "--workspace", path, "--model", "m", "--base-url", server.base_url,
                             "--split", "all", "--api-key-env", "MY_KEY", "--no-results-files")
        assert server.chat_requests()[0].headers["authorization"] == "Bearer sk-do-not-print-me"
    assert code == 1
    assert "stopped: " in err and "refused the API key (401)" in err
    assert "sk-do-not-print-me" not in out + err
    assert b"sk-do-not-print-me" not in Path(path).read_bytes()


def test_dry_run_sends_nothing(demo, capsys):
    path, _, _ = demo
    code, out, _err = run(capsys, "predict", "--workspace", path, "--model", "m", "--base-url", "http://127.0.0.1:9/v1",
                         "--split", "all", "--dry-run")
    assert code == 0
    assert "dry run: 15 prompt(s)" in out and "input tokens" in out


def test_bad_options_are_one_line_errors(demo, capsys):
    path, _, _ = demo
    code, _, err = run(capsys, "predict", "--workspace", path, "--model", "m", "--base-url", "localhost:8000")
    assert code == 2 and err.count("\n") == 1 and "http://" in err
    code, _, err = run(capsys, "predict", "--workspace", path, "--model", "m", "--base-url", "http://x/v1",
                       "--instances", "nosuch_0001")
    assert code == 2 and "no program 'nosuch_0001'" in err


def test_prompt_and_answer_commands(demo, capsys):
    path, _answers, _keys = demo
    code, out, _ = run(capsys, "prompt", "calcpad_0001", "--workspace", path)
    assert code == 0 and out.startswith("[wording] studio wording, not the paper's; paper rules\n\n"
                                        "[system]\nYou are an expert in Python programming")
    assert '1. What are the module-level function calls in the file "main.py"?' in out
    code, out, _ = run(capsys, "prompt", "python/calcpad_0001", "--workspace", path, "--format", "json")
    prompt = json.loads(out)
    assert prompt["keys"][0] == "main" and len(prompt["hash"]) == 64 and prompt["messages"][0]["role"] == "system"
    assert (prompt["wording"], prompt["wording_tag"], prompt["rules"]) == ("studio wording, not the paper's", "studio",
                                                                           "paper")
    reply = "Sure! Here you go:\n```\n1. main.main\n2. print\n2. main.Token.__repr__\n99. x\n```"
    with FakeChatServer(lambda request, attempt: ok(reply)) as server:
        run(capsys, "predict", "--workspace", path, "--model", "m", "--base-url", server.base_url,
            "--instances", "calcpad_0001", "--no-results-files")
    code, out, _ = run(capsys, "answer", "calcpad_0001", "--model", "m", "--workspace", path)
    assert code == 0
    assert "1 | Sure! Here you go:" in out
    assert "3 | 1. main.main    [-> main]" in out
    assert "answer 2 given twice" in out and "answer 99 has no question" in out
    assert "no answer line for question 3: main.Token.__repr__" in out
    code, out, _ = run(capsys, "answer", "calcpad_0001", "--model", "m", "--workspace", path, "--format", "json")
    data = json.loads(out)
    assert [line["kind"] for line in data["lines"]][:4] == ["ignored", "ignored", "answer", "superseded"]


def test_ctrl_c_keeps_finished_answers_and_the_rerun_resumes(demo, tmp_path):
    """A real SIGINT to a real `traceeval predict` process while answers are slow to come."""
    path, answers, _keys = demo
    right = truth_answers(answers)

    def slow(request, attempt):
        return hang(0.3, right(request, attempt))

    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    command = [sys.executable, "-m", "traceeval_gui.cli.main", "predict", "--workspace", str(path), "--model", "m",
               "--split", "all", "--jobs", "1", "--no-results-files"]
    with FakeChatServer(slow) as server:
        process = subprocess.Popen(command + ["--base-url", server.base_url], env=env, cwd=tmp_path,
                                   stderr=subprocess.PIPE, text=True)
        deadline = time.monotonic() + 20
        while len(server.chat_requests()) < 4 and time.monotonic() < deadline:
            time.sleep(0.05)
        process.send_signal(signal.SIGINT)
        _, err = process.communicate(timeout=20)
        assert process.returncode == 130, err
        assert "stopping: finished answers are kept" in err and "a rerun resumes" in err
        ws, _ = open_dataset(DEMO_DATASET, path)
        with ws:
            kept = ws.predicted_keys("m")
        assert 3 <= len(kept) < 15
        done = subprocess.run(command + ["--base-url", server.base_url], env=env, cwd=tmp_path,
                              stderr=subprocess.PIPE, text=True, timeout=60, check=False)
    assert done.returncode == 0, done.stderr
    assert f"{len(kept)} already answered, {15 - len(kept)} to ask" in done.stderr


def build_prompt_hash(path, key):
    ws, _ = open_dataset(DEMO_DATASET, path)
    with ws:
        return build_prompt(ws.instance(key)).hash


def _hash(request):
    from tests.llm_server import request_prompt_hash
    return request_prompt_hash(request)
