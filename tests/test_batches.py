"""Provider batches end to end: the real `traceeval batch` commands, the real `openai` client and plain HTTP talking to
a local server that implements OpenAI's files and batches endpoints and Anthropic's Message Batches
(tests/batch_server.py). Nothing of ours is replaced: prompts, custom_ids, splitting, the workspace, the parser and
the scorer are the ones `predict` uses."""
from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from sqlite_utils import Database

from core.dataset.workspace import Workspace
from core.dataset.workspace_schema import MIGRATIONS
from core.llm.batches import custom_ids
from core.llm.batches.request_lines import Limits, RequestLine, limits, split
from core.llm.batches.results import read_results
from core.llm.batches.store import BatchStore
from core.llm.prompts import build_prompt
from core.records import Prediction
from tests.batch_server import FakeBatchServer
from tests.cli_run import run
from tests.llm_server import demo_answers_and_keys

ROOT = Path(__file__).resolve().parent.parent
HASH = "0123456789abcdef" * 4


@pytest.fixture
def demo(tmp_path):
    """The demo dataset's workspace path, per prompt hash the answer that matches the truth, and the keys."""
    path = tmp_path / "demo.sqlite"
    answers, keys = demo_answers_and_keys(path)
    return path, answers, keys


# -- the parts --------------------------------------------------------------------------------------------------
@pytest.mark.parametrize("key", ["python/calcpad_0001", "java/Activiti-core_0001", "python/repo.with.dots_0002",
                                 "javascript/ünïcode_0001", "python/" + "x" * 60 + "_0001"])
def test_a_custom_id_fits_anthropics_rule_and_gives_the_program_back(key):
    custom_id = custom_ids.encode(key, HASH)
    assert len(custom_id) <= 64 and all(c.isascii() and (c.isalnum() or c in "_-") for c in custom_id)
    decoded = custom_ids.decode(custom_id)
    assert decoded is not None and decoded.prompt_hash_prefix == HASH[:16]
    if len(key) < 50:
        assert decoded.key == key
    else:  # too long for the id itself: its digest, resolved through the workspace's request rows
        assert decoded.key is None and decoded.key_digest == custom_ids.key_digest(key)
    assert custom_ids.decode("not-one-of-ours") is None and custom_ids.decode(custom_id + "!") is None


def test_splitting_respects_the_count_and_the_bytes():
    lines = [RequestLine(f"id{n}", f"python/p_{n}", HASH, ("k",), b"x" * 99) for n in range(10)]  # 100 bytes each
    assert [len(part) for part in split(lines, Limits(4, None))] == [4, 4, 2]
    assert [len(part) for part in split(lines, Limits(None, 350))] == [3, 3, 3, 1]
    assert limits("openai").requests == 50_000 and limits("anthropic").requests == 100_000
    assert limits("openai", 6).requests == 6 and limits("anthropic", 10**6).requests == 100_000
    with pytest.raises(Exception, match="p_0: its request is 100 bytes"):
        split(lines, Limits(None, 50))


def test_hostile_result_lines_are_named_and_the_good_ones_kept():
    good = {"custom_id": "a", "response": {"status_code": 200, "body": {
        "choices": [{"message": {"role": "assistant", "content": "1. main.f", "reasoning": "f is called"},
                     "finish_reason": "length"}],
        "usage": {"prompt_tokens": 7, "completion_tokens": 3}}}, "error": None}
    data = b"\n".join([json.dumps(good).encode(), b"{not json", json.dumps({"response": {}}).encode(),
                       json.dumps({"custom_id": "b", "response": {"status_code": 200,
                                                                  "body": {"choices": []}}}).encode(),
                       json.dumps({"custom_id": "c", "error": {"code": "batch_expired", "message": "late"}}).encode(),
                       json.dumps({"custom_id": "d", "response": {"status_code": 429, "body": {
                           "error": {"message": "slow down"}}}}).encode()])
    answers, problems = read_results("openai", data, "out.jsonl")
    assert problems == ["out.jsonl: line 2: not JSON (Expecting property name enclosed in double quotes: line 1 "
                        "column 2 (char 1))", "out.jsonl: line 3: no custom_id"]
    by_id = {a.custom_id: a for a in answers}
    assert (by_id["a"].status, by_id["a"].content, by_id["a"].finish_reason, by_id["a"].tokens_in) == \
        ("succeeded", "1. main.f", "length", 7)
    assert by_id["a"].reasoning == "f is called"
    assert by_id["b"].status == "errored" and "out.jsonl: line 4" in by_id["b"].error
    assert by_id["c"].status == "expired" and by_id["d"].status == "errored" and "HTTP 429" in by_id["d"].error
    anthropic = b"\n".join(json.dumps(r).encode() for r in [
        {"custom_id": "e", "result": {"type": "succeeded", "message": {
            "content": [{"type": "thinking", "thinking": "a calls b", "signature": "x"},
                        {"type": "text", "text": "1. a"}, {"type": "text", "text": "\n2. b"}],
            "stop_reason": "max_tokens", "usage": {"input_tokens": 5, "output_tokens": 2}}}},
        {"custom_id": "f", "result": {"type": "errored", "error": {"type": "error", "error": {
            "type": "overloaded_error", "message": "busy"}}}},
        {"custom_id": "g", "result": {"type": "canceled"}},
        {"custom_id": "h", "result": {"type": "weird"}}])
    answers, problems = read_results("anthropic", anthropic, "results")
    by_id = {a.custom_id: a for a in answers}
    assert by_id["e"].content == "1. a\n2. b" and by_id["e"].finish_reason == "length"
    assert by_id["e"].reasoning == "a calls b"  # kept beside the answer, never parsed
    assert by_id["f"].error == "overloaded_error: busy" and by_id["g"].status == "canceled"
    assert by_id["h"].status == "errored" and "unknown result type" in by_id["h"].error and not problems


def test_an_older_workspace_gains_the_batch_tables_and_keeps_its_answers(tmp_path):
    path = tmp_path / "old.sqlite"
    db = Database(path)
    MIGRATIONS.apply(db, stop_before="m011_batches")
    db.close()
    with Workspace(path) as ws:
        ws.store_predictions("m", [Prediction("p_0001", "m", "python", build_graph())])
    db = Database(path)
    db.execute("delete from _sqlite_migrations where name = 'm011_batches'")
    db["batch_requests"].drop()
    db["batches"].drop()
    db.conn.commit()
    db.close()
    with Workspace(path) as ws:
        assert {"batches", "batch_requests"} <= set(ws.db.table_names())
        assert ws.predicted_keys("m") == {"python/p_0001"} and BatchStore(ws).batches() == []


def build_graph():
    from core.records import CallGraph

    return CallGraph(("main",), ())


# -- end to end, in process ---------------------------------------------------------------------------------------
@pytest.mark.parametrize("provider", ["openai", "anthropic"])
def test_expired_and_errored_requests_are_listed_and_a_resubmission_answers_them(provider, demo, tmp_path, capsys):
    path, answers, keys = demo
    unlucky = {keys[0]: "expired", keys[7]: "errored"}
    fates = {custom_ids.encode(key, _prompt_hash(path, key)): fate for key, fate in unlucky.items()}
    with FakeBatchServer(answers, ends_after=2, fate=lambda c: fates.get(c, "succeeded"), api_key="sk-test") as server:
        ws = ["--workspace", path]
        code, out, err = run(capsys, "batch", "prepare", *ws, "--provider", provider, "--model", "fake",
                             "--base-url", server.base_url, "--split", "all", "--max-requests", "6",
                             "--out", tmp_path / "in", "--api-key-env", "BATCH_KEY")
        assert code == 0, err
        assert "15 prepared in 3 batch(es)" in err and out.count("prepared") == 3
        lines = [json.loads(line) for f in sorted((tmp_path / "in").iterdir()) for line in f.read_text().splitlines()]
        assert len(lines) == 15
        if provider == "openai":
            body = lines[0]["body"]
            assert body["max_tokens"] == body["max_completion_tokens"] == 4096 and body["temperature"] == 0
            assert [m["role"] for m in body["messages"]] == ["system", "user"]
        else:
            params = lines[0]["params"]
            assert params["max_tokens"] == 4096 and params["temperature"] == 0 and params["system"]
            assert [m["role"] for m in params["messages"]] == ["user"]
        os.environ["BATCH_KEY"] = "sk-test"
        try:
            code, out, err = run(capsys, "batch", "submit", *ws, "--wait", "--poll-seconds", "0.01")
            assert code == 0, err
            assert "sk-test" not in out + err
            code, out, _ = run(capsys, "batch", "status", *ws)
            assert code == 0
            assert f"failed: batch 1: {keys[0]}: expired" in out and f"failed: batch 2: {keys[7]}: errored" in out
            assert "2 request(s) to ask again" in out
            with Workspace(path) as opened:
                assert len(opened.predicted_keys("fake")) == 13
            server.fate = lambda c: "succeeded"
            code, out, err = run(capsys, "batch", "resubmit", *ws, "--model", "fake", "--out", tmp_path / "in")
            assert code == 0, err
            assert "batch 4" in out and "submitted" in out
            code, out, err = run(capsys, "batch", "collect", *ws, "--wait", "--poll-seconds", "0.01",
                                 "--format", "json")
        finally:
            del os.environ["BATCH_KEY"]
    assert code == 0, err
    document = json.loads(out)
    assert document["schema"] == "traceeval.batch-collect" and document["stored"] == 2
    with Workspace(path) as opened:
        assert opened.predicted_keys("fake") == set(keys)
        prediction = opened.predictions("fake", [keys[0]])[keys[0]]
        assert prediction.source.startswith("batch 4:") and prediction.tokens_in == 100
    code, out, _ = run(capsys, "score", "--workspace", path, "--split", "all")
    assert code == 0 and out.count("100.0") >= 12
    # each collected batch is a model run (`traceeval runs`, the ledger): batches of 6, 6 and 3 less one failure
    # in each of the first two, then the 2 asked again
    code, out, _ = run(capsys, "runs", "--workspace", path, "--model", "fake", "--format", "json")
    document = json.loads(out)
    assert [run_row["params"]["batch"] for run_row in document["runs"]] == [provider] * 4
    assert sorted(run_row["answered"] for run_row in document["runs"]) == [2, 3, 5, 5]
    assert sorted(run_row["failed"] for run_row in document["runs"]) == [0, 0, 1, 1]
    bill = document["totals"]
    assert (bill["requests"], bill["answered"], bill["failed"]) == (17, 15, 2)
    assert (bill["tokens_in"], bill["tokens_out"]) == (15 * 100, 15 * 20)  # the server's usage per answer


def test_a_vllm_run_batch_output_file_is_collected(demo, tmp_path, capsys):
    path, answers, keys = demo
    code, _, err = run(capsys, "batch", "prepare", "--workspace", path, "--provider", "vllm", "--model", "qwen",
                       "--instances", ",".join(keys[:3]), "--out", tmp_path / "in")
    assert code == 0 and "vllm run-batch -i FILE" in err
    (infile,) = (tmp_path / "in").iterdir()
    output = []
    for n, line in enumerate(infile.read_text().splitlines()):
        request = json.loads(line)  # what `vllm run-batch` writes for each line it reads
        from tests.llm_server import request_prompt_hash
        text = answers[request_prompt_hash(request["body"])] if n else "1. **garbled"
        output.append({"id": f"vllm-{n}", "custom_id": request["custom_id"], "response": {
            "status_code": 200, "request_id": f"r{n}", "body": {"choices": [{"index": 0, "message": {
                "role": "assistant", "content": text}, "finish_reason": "stop"}]}}, "error": None})
    out_file = tmp_path / "out.jsonl"
    stray = {**output[1], "custom_id": custom_ids.encode("python/not_asked_0001", HASH)}  # a line of another file
    out_file.write_text("\n".join(json.dumps(o) for o in [*output, stray]) + "\n{broken\n")
    code, _, err = run(capsys, "batch", "collect", "--workspace", path, "--file", out_file)
    assert code == 1  # one unreadable line, named
    assert f"problem: {out_file}: line 5: not JSON" in err and "3 answer(s) stored" in err
    assert "(program python/not_asked_0001) is not a request of batch 1; ignored" in err
    with Workspace(path) as opened:
        stored = opened.predictions("qwen")
    assert set(stored) == set(keys[:3])
    assert stored[keys[0]].raw_response == "1. **garbled" and stored[keys[0]].parse_problems  # kept, with problem


# -- killed mid-way, resumed --------------------------------------------------------------------------------------
@pytest.mark.parametrize("provider", ["openai", "anthropic"])
def test_a_batch_killed_mid_way_is_resumed_and_every_answer_scored(provider, demo, tmp_path):
    """A real `traceeval batch submit --wait` process is killed (SIGKILL: no clean-up) while its batches are in
    progress, with the first one already collected; a fresh `collect --wait` gets the rest."""
    path, answers, keys = demo
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    base = [sys.executable, "-m", "traceeval_gui.cli.main", "batch"]
    ws = ["--workspace", str(path)]
    with FakeBatchServer(answers, ends_after=3, stagger=1000) as server:
        prepared = subprocess.run(base + ["prepare", *ws, "--provider", provider, "--model", "fake", "--base-url",
                                          server.base_url, "--split", "all", "--max-requests", "5",
                                          "--out", str(tmp_path / "in")],
                                  env=env, cwd=tmp_path, capture_output=True, text=True, timeout=60, check=False)
        assert prepared.returncode == 0, prepared.stderr
        process = subprocess.Popen(base + ["submit", *ws, "--wait", "--poll-seconds", "0.02"], env=env,
                                   cwd=tmp_path, stderr=subprocess.PIPE, text=True)
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline and _collected(path) < 5:
            time.sleep(0.02)
        assert _collected(path) == 5, "the first batch should end and be collected"
        assert server.polls() > 3
        process.kill()
        process.communicate(timeout=20)
        assert process.returncode == -signal.SIGKILL
        with Workspace(path) as opened:
            states = sorted(b.state for b in BatchStore(opened).batches())
            assert states == ["collected", "submitted", "submitted"]
            assert len(opened.predicted_keys("fake")) == 5
        server.stagger = 0  # the provider finishes the others while nobody is watching
        done = subprocess.run(base + ["collect", *ws, "--wait", "--poll-seconds", "0.02"], env=env, cwd=tmp_path,
                              capture_output=True, text=True, timeout=60, check=False)
        assert done.returncode == 0, done.stderr
        assert "10 answer(s) stored; 0 batch(es) still running" in done.stderr
        uploads = [entry for entry in server.log if entry[0] == "POST" and entry[1].endswith(("/files", "/batches"))]
        assert len(uploads) == (6 if provider == "openai" else 3)  # nothing was sent twice
    scored = subprocess.run([sys.executable, "-m", "traceeval_gui.cli.main", "score", *ws, "--split", "all",
                             "--format", "json"], env=env, cwd=tmp_path, capture_output=True, text=True,
                            timeout=60, check=False)
    table = json.loads(scored.stdout)
    row = next(r for r in table["rows"] if r["model"] == "fake")
    assert all(row["languages"][lang]["f1"] == 1.0 and not row["languages"][lang]["missing"]
               for lang in ("python", "javascript", "java")), row
    with Workspace(path) as opened:
        assert opened.predicted_keys("fake") == set(keys)


def _collected(path) -> int:
    with Workspace(path) as ws:
        return len(ws.predicted_keys("fake"))


def _prompt_hash(path, key) -> str:
    with Workspace(path) as ws:
        return build_prompt(ws.instance(key)).hash


def test_cancelling_a_batch_lists_its_requests_as_cancelled(demo, tmp_path, capsys):
    path, answers, keys = demo
    ws = ["--workspace", path]
    with FakeBatchServer(answers, ends_after=50) as server:
        run(capsys, "batch", "prepare", *ws, "--provider", "openai", "--model", "fake", "--base-url", server.base_url,
            "--instances", ",".join(keys[:4]), "--out", tmp_path / "in")
        run(capsys, "batch", "prepare", *ws, "--provider", "vllm", "--model", "local", "--instances", keys[0],
            "--out", tmp_path / "in")
        code, _, err = run(capsys, "batch", "submit", *ws, "--batch", "1")
        assert code == 0, err
        code, out, err = run(capsys, "batch", "cancel", "1", *ws, "--format", "json")
        assert code == 0, err
        assert json.loads(out)["schema"] == "traceeval.batch-cancel"
        code, out, _ = run(capsys, "batch", "cancel", "2", *ws)
        assert code == 0 and "cancelled" in out
        code, out, err = run(capsys, "batch", "collect", *ws, "--wait", "--poll-seconds", "0.01")
        assert code == 0, err
    assert "0 succeeded" in out and "4 canceled" in out
    code, out, _ = run(capsys, "batch", "status", *ws, "--model", "fake", "--format", "json")
    assert {row["status"] for row in json.loads(out)["failed"]} == {"canceled"}
    code, _, err = run(capsys, "batch", "cancel", "1", *ws)
    assert code == 2 and "only a prepared or submitted batch" in err


def test_a_batch_created_just_before_a_crash_is_adopted_not_sent_again(demo, tmp_path, capsys):
    """The process stopped after OpenAI created the batch but before the workspace recorded its id: the next
    submit finds the batch made from the recorded upload and adopts it."""
    from core.llm.batches.providers import OpenAIBatches

    path, answers, keys = demo
    ws = ["--workspace", path]
    with FakeBatchServer(answers, ends_after=2) as server:
        run(capsys, "batch", "prepare", *ws, "--provider", "openai", "--model", "fake", "--base-url", server.base_url,
            "--instances", ",".join(keys[:3]), "--out", tmp_path / "in")
        with Workspace(path) as opened:
            store = BatchStore(opened)
            batch = store.get(1)
            OpenAIBatches(server.base_url, None).submit(Path(batch.input_path), 1, "",
                                                        lambda file_id: store.update(1, input_file_id=file_id))
            assert store.get(1).state == "prepared" and store.get(1).input_file_id  # the crash: no remote id
        code, _, err = run(capsys, "batch", "submit", *ws, "--wait", "--poll-seconds", "0.01")
        assert code == 0, err
        assert len(server.batches) == 1 and len(server.files) == 2  # the one upload and its output file
    with Workspace(path) as opened:
        assert opened.predicted_keys("fake") == set(keys[:3])


def test_a_batch_another_live_process_is_submitting_is_left_to_it_and_a_dead_ones_is_taken_over(demo, tmp_path,
                                                                                                   capsys):
    import socket

    path, answers, keys = demo
    ws = ["--workspace", path]
    finished = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"], capture_output=True, text=True,
                              check=True)
    dead_pid = int(finished.stdout)  # a process that has ended
    with FakeBatchServer(answers, ends_after=1) as server:
        run(capsys, "batch", "prepare", *ws, "--provider", "anthropic", "--model", "fake", "--base-url",
            server.base_url, "--instances", ",".join(keys[:2]), "--out", tmp_path / "in")
        with Workspace(path) as opened:
            BatchStore(opened).update(1, claim=f"{socket.gethostname()}:{os.getpid()}:{time.time():.0f}:other")
        code, _, err = run(capsys, "batch", "submit", *ws)
        assert code == 0 and "batch 1: being submitted by another process" in err and not server.batches
        with Workspace(path) as opened:
            BatchStore(opened).update(1, claim=f"{socket.gethostname()}:{dead_pid}:{time.time():.0f}:crashed")
        code, out, err = run(capsys, "batch", "submit", *ws)
        assert code == 0, err
        assert len(server.batches) == 1 and "submitted" in out
    with Workspace(path) as opened:
        assert BatchStore(opened).get(1).claim == "" and BatchStore(opened).get(1).state == "submitted"


@pytest.mark.parametrize("provider, reply, expected", [
    ("anthropic", (200, {}, b'{"id": "../../v1/admin", "processing_status": "in_progress"}'),
     "the server sent a batch id that is not an id"),
    ("anthropic", (401, {}, b'{"error": {"message": "bad key sk-secret"}}'), "refused the API key (401)"),
    ("anthropic", (302, {"Location": "http://127.0.0.1:9/steal"}, b""), "creating the batch refused (302)"),
    ("anthropic", (200, {}, b"<html>not json</html>"), "creating the batch: the answer is not JSON"),
    ("openai", (500, {}, b'{"error": {"message": "boom"}}'), "uploading the input file"),
    ("openai", (200, {}, b'{"id": "file id with spaces", "object": "file", "bytes": 1, "created_at": 0, '
                        b'"filename": "x", "purpose": "batch", "status": "processed"}'),
     "the server sent a file id that is not an id"),
], ids=["bad-id", "401", "redirect", "not-json", "openai-500", "openai-bad-file-id"])
def test_a_hostile_server_gets_one_line_and_the_batch_stays_prepared(provider, reply, expected, demo, tmp_path,
                                                                      capsys):
    path, answers, keys = demo
    ws = ["--workspace", path]
    with FakeBatchServer(answers) as server:
        run(capsys, "batch", "prepare", *ws, "--provider", provider, "--model", "fake", "--base-url", server.base_url,
            "--instances", keys[0], "--out", tmp_path / "in", "--api-key-env", "HOSTILE_KEY")
        server.override = lambda method, route: reply if method == "POST" else None
        os.environ["HOSTILE_KEY"] = "sk-secret"
        try:
            code, out, err = run(capsys, "batch", "submit", *ws)
        finally:
            del os.environ["HOSTILE_KEY"]
        assert not any(route.endswith("/steal") for _, route, _ in server.log)  # a redirect is not followed
    assert code == 2 and expected in err and err.count("\n") == 1, err
    assert "sk-secret" not in out + err
    with Workspace(path) as opened:
        batch = BatchStore(opened).get(1)
    assert batch.state == "prepared" and batch.claim == ""  # the next submit tries again


def test_batch_answers_are_priced_with_the_price_tables_batch_discount(demo, tmp_path, capsys):
    path, answers, keys = demo
    prices = tmp_path / "prices.json"
    prices.write_text(json.dumps({"fake": {"input_per_mtok": 10, "output_per_mtok": 20, "batch_discount": 0.25}}))
    with FakeBatchServer(answers, ends_after=1) as server:
        run(capsys, "batch", "prepare", "--workspace", path, "--provider", "anthropic", "--model", "fake",
            "--base-url", server.base_url, "--instances", ",".join(keys[:2]), "--out", tmp_path / "in")
        code, _, err = run(capsys, "batch", "submit", "--workspace", path, "--wait", "--poll-seconds", "0.01",
                           "--prices", prices)
    assert code == 0, err
    with Workspace(path) as opened:
        costs = [p.cost_usd for p in opened.predictions("fake").values()]
    assert costs == [pytest.approx((100 * 10 + 20 * 20) / 1e6 * 0.75)] * 2  # the server's usage: 100 in, 20 out


def test_the_token_limit_field_can_be_one_alone_and_a_resubmission_can_change_it(demo, tmp_path, capsys):
    """A model that refuses `max_tokens` errors every request of a batch that sends both; the resubmission sends
    `max_completion_tokens` alone."""
    path, answers, keys = demo
    ws = ["--workspace", path]

    with FakeBatchServer(answers, ends_after=1, refuses_max_tokens=("o-fake",)) as server:
        run(capsys, "batch", "prepare", *ws, "--provider", "openai", "--model", "o-fake", "--base-url",
            server.base_url, "--instances", ",".join(keys[:2]), "--out", tmp_path / "in")
        code, _, err = run(capsys, "batch", "submit", *ws, "--wait", "--poll-seconds", "0.01")
        assert code == 0, err
        code, out, _ = run(capsys, "batch", "status", *ws)
        assert out.count("Unsupported parameter: 'max_tokens'") == 2
        code, _, err = run(capsys, "batch", "resubmit", *ws, "--model", "o-fake", "--out", tmp_path / "again",
                             "--token-limit-field", "max_completion_tokens")
        assert code == 0, err
        bodies = [json.loads(line)["body"] for f in (tmp_path / "again").iterdir()
                  for line in f.read_text().splitlines()]
        assert bodies and all("max_tokens" not in b and b["max_completion_tokens"] == 4096 for b in bodies)
        first = [json.loads(line)["body"] for f in (tmp_path / "in").iterdir()
                 for line in f.read_text().splitlines()]
        assert all(b["max_tokens"] == b["max_completion_tokens"] == 4096 for b in first)
        code, _, err = run(capsys, "batch", "collect", *ws, "--wait", "--poll-seconds", "0.01")
    assert code == 0, err
    with Workspace(path) as opened:
        assert opened.predicted_keys("o-fake") == set(keys[:2])
