"""The model runner against a real HTTP server (tests/llm_server.py), through the real openai
client and a real workspace on the bundled demo dataset."""
import json
import logging
import os
import signal
import threading
import time

import pytest

from core.llm.answer_cache import AnswerCache
from core.llm.endpoints import RunSettings
from core.llm.prices import PriceTable
from core.llm.prompts import build_prompt
from core.llm.runner import CUT_OFF_PROBLEM, pending_keys, run_model
from core.scoring.normalise import MODES
from core.scoring.scores import Selection, instance_counts, score_table, scoring_key
from tests.llm_server import FakeChatServer, answer_text, empty, hang, ok, raw, status, truncated, truth_answers
from tests.llm_server import request_prompt_hash as server_hash

FAST = 0.01  # backoff base for tests
SECRET = "sk-test-Zq8Xw1SECRETkey42"


@pytest.fixture
def answers(ws, keys):
    """prompt hash -> the perfect answer, for every demo program."""
    return {prompt_of(ws, key).hash: answer_text(ws.instance(key).ground_truth) for key in keys}


def prompt_of(ws, key):
    return build_prompt(ws.instance(key))


def settings(server, **options) -> RunSettings:
    options.setdefault("timeout_s", 2.0)
    options.setdefault("retries", 2)
    return RunSettings(server.base_url, options.pop("model", "fake-model"), **options)


def run(ws, server, keys, **options):
    keywords = {name: options.pop(name) for name in ("api_key", "prices", "cache", "redo", "progress", "cancel",
                                                     "on_outcome") if name in options}
    return run_model(ws, settings(server, **options), keys, backoff_base_s=FAST, **keywords)


def first_then(first, answers):
    """The first attempt at each prompt gets `first`, later attempts the right answer."""
    right = truth_answers(answers)
    return lambda request, attempt: first if attempt == 1 else right(request, attempt)


# -- answers stored and scored -----------------------------------------------------------------
def test_correct_answers_are_stored_and_scored(ws, keys, answers):
    seen = []
    with FakeChatServer(truth_answers(answers)) as server:
        report = run(ws, server, keys, progress=lambda done, total, message: seen.append((done, total, message)))
    assert (report.status, report.message, report.requested, report.skipped) == ("finished", "", 15, 0)
    assert (report.answered, report.cached, report.failed) == (15, 0, [])
    assert (report.tokens_in, report.tokens_out) == (15 * 100, 15 * 20)
    assert seen[0][:2] == (0, 15) and seen[-1][:2] == (15, 15) and "answered" in seen[-1][2]
    row = score_table(ws, ["fake-model"], Selection()).rows[0]
    assert all(result.scores.f1 == 1.0 and result.programs == 5 for result in row.languages.values())
    prediction = ws.predictions("fake-model", [keys[0]])[keys[0]]
    assert prediction.prompt_hash == prompt_of(ws, keys[0]).hash
    assert prediction.parse_problems == () and prediction.tokens_in == 100 and prediction.latency_s > 0
    assert prediction.source == f"run {report.run_id}: {server.base_url}"
    (run_row,) = ws.model_run_rows("fake-model")
    assert (run_row.status, run_row.answered, run_row.requested, run_row.endpoint_model) == ("finished", 15, 15,
                                                                                             "fake-model")
    assert run_row.params["base_url"] == server.base_url and run_row.finished_at
    (request,) = ws.request_rows("fake-model", keys[0])
    assert (request.status, request.attempts, request.finish_reason, request.run_id) == ("answered", 1, "stop",
                                                                                         report.run_id)


def test_cached_counts_match_what_scoring_computes(ws, keys, answers):
    wrong = dict.fromkeys(list(answers)[:5], "1. main.nothing\n2. none")
    with FakeChatServer(truth_answers({**answers, **wrong})) as server:
        run(ws, server, keys)
    key = scoring_key(frozenset(MODES))
    stored = ws.cached_counts("fake-model", key)
    assert len(stored) == 15
    ws.db.execute("delete from scores where model = 'fake-model'")
    assert instance_counts(ws, "fake-model", ws.instance_rows(), frozenset(MODES)) == stored


def test_prose_and_code_fences_around_the_answers_are_ignored(ws, keys, answers):
    def chatty(request, attempt):
        text = truth_answers(answers)(request, attempt)
        inner = json.loads(text.body)["choices"][0]["message"]["content"]
        return ok(f"Sure! Here are the calls:\n\n```text\n{inner}\n```\n\nLet me know if you need more.")
    with FakeChatServer(chatty) as server:
        report = run(ws, server, keys[:3])
    assert report.answered == 3
    for prediction in ws.predictions("fake-model", keys[:3]).values():
        assert prediction.graph.edge_set == ws.instance(prediction.key).ground_truth.edge_set
        assert "```" in prediction.raw_response


# -- retries -------------------------------------------------------------------------------------
def test_429_waits_for_retry_after_then_succeeds(ws, keys, answers):
    with FakeChatServer(first_then(status(429, headers={"Retry-After": "0.4"}), answers)) as server:
        report = run(ws, server, keys[:1])
    assert report.answered == 1
    first, second = server.chat_requests()
    assert second.arrived - first.arrived >= 0.38
    assert ws.request_rows("fake-model", keys[0])[0].attempts == 2


@pytest.mark.parametrize("first", [status(500, "upstream exploded"), status(503), hang(3.0)],
                         ids=["500", "503", "timeout"])
def test_transient_failures_are_retried(ws, keys, answers, first):
    with FakeChatServer(first_then(first, answers)) as server:
        started = time.monotonic()
        report = run(ws, server, keys[:2], timeout_s=0.3)
    assert (report.answered, report.failed) == (2, [])
    assert time.monotonic() - started < 2.5
    assert len(server.chat_requests()) == 4
    assert ws.predictions("fake-model", keys[:1])[keys[0]].parse_problems == ()


MALFORMED = {"not json": raw(b'{"choices": [{"message": '), "truncated": truncated(),
             "no choices": raw(b'{"id": "x", "object": "chat.completion"}'), "text/plain": raw(b"hello", "text/plain"),
             "error in a 200": raw(b'{"error": {"message": "overloaded"}}')}


@pytest.mark.parametrize("bad", MALFORMED.values(), ids=MALFORMED.keys())
def test_malformed_answer_is_retried(ws, keys, answers, bad):
    with FakeChatServer(first_then(bad, answers)) as server:
        report = run(ws, server, keys[:2])
    assert (report.answered, report.failed) == (2, [])


def test_always_malformed_fails_that_program_only(ws, keys, answers):
    broken = prompt_of(ws, keys[1]).hash
    right = truth_answers(answers)

    def responder(request, attempt):
        return raw(b"<html>oops</html>") if server_hash(request) == broken else right(request, attempt)

    with FakeChatServer(responder) as server:
        report = run(ws, server, keys[:4], retries=2)
    assert report.status == "finished" and report.answered == 3
    ((key, error),) = report.failed
    assert key == keys[1] and "not JSON" in error and "3 attempts" in error and "\n" not in error
    assert keys[1] not in ws.predicted_keys("fake-model")
    (request,) = ws.request_rows("fake-model", keys[1])
    assert (request.status, request.attempts) == ("failed", 3) and request.error == error


# -- odd answers are stored as the paper scores them ----------------------------------------------
@pytest.mark.parametrize("null", [False, True], ids=["empty string", "null"])
def test_empty_answer_is_stored_as_an_empty_prediction(ws, keys, null):
    with FakeChatServer(lambda request, attempt: empty(null)) as server:
        report = run(ws, server, keys[:2])
    assert report.answered == 2
    prediction = ws.predictions("fake-model", keys[:1])[keys[0]]
    assert prediction.graph.edges == () and prediction.parse_problems == ("empty response",)
    assert prediction.raw_response == (None if null else "")


def test_answer_cut_off_at_max_tokens_is_recorded(ws, keys):
    with FakeChatServer(lambda request, attempt: ok("1. main.run\n2. main.hel", finish_reason="length")) as server:
        run(ws, server, keys[:1], max_tokens=50)
        assert server.chat_requests()[0].body["max_tokens"] == 50
        assert server.chat_requests()[0].body["temperature"] == 0.0
    prediction = ws.predictions("fake-model", keys[:1])[keys[0]]
    assert CUT_OFF_PROBLEM in prediction.parse_problems
    assert ws.request_rows("fake-model", keys[0])[0].finish_reason == "length"


def test_missing_usage_gives_unknown_tokens(ws, keys):
    with FakeChatServer(lambda request, attempt: ok("1.", usage=None)) as server:
        report = run(ws, server, keys[:1])
    prediction = ws.predictions("fake-model", keys[:1])[keys[0]]
    assert prediction.tokens_in is None and prediction.tokens_out is None and report.tokens_in == 0


# -- errors that are not retried -------------------------------------------------------------------
def test_bad_request_fails_that_program_and_the_run_goes_on(ws, keys, answers):
    too_long = prompt_of(ws, keys[0]).hash
    error = status(400, {"error": {"message": f"context too long for key {SECRET}", "type": "invalid_request_error"}})
    right = truth_answers(answers)
    with FakeChatServer(lambda request, attempt: error if server_hash(request) == too_long
                        else right(request, attempt)) as server:
        report = run(ws, server, keys[:5], api_key=SECRET)
        assert len(server.chat_requests()) == 5  # not retried
    assert report.status == "finished" and report.answered == 4
    ((key, message),) = report.failed
    assert key == keys[0] and "(400)" in message and "context too long" in message and SECRET not in message


def test_the_same_rejection_for_every_program_stops_the_run(ws, keys):
    unsupported = status(400, {"error": {"message": "Unsupported parameter: 'temperature'", "code": "unsupported"}})
    with FakeChatServer(lambda request, attempt: unsupported) as server:
        report = run(ws, server, keys, concurrency=1)
        assert len(server.chat_requests()) == 3
    assert report.status == "stopped" and len(report.failed) == 3
    assert "3 programs in a row rejected with the same error" in report.message
    assert "Unsupported parameter" in report.message


def test_refused_key_stops_the_run_and_keeps_what_was_answered(ws, keys, answers):
    right = truth_answers(answers)
    refuse = status(401, {"error": {"message": f"Incorrect API key provided: {SECRET}"}})
    with FakeChatServer(lambda request, attempt: right(request, attempt)) as server:
        def refuse_after_three(outcome, count=[0]):  # noqa: B006 - the call count lives across calls
            count[0] += 1
            if count[0] == 3:
                server.responder = lambda request, attempt: refuse
        report = run(ws, server, keys, concurrency=1, api_key=SECRET, on_outcome=refuse_after_three)
        assert len(server.chat_requests()) == 4  # the refusal is not retried and nothing is asked after it
    assert report.status == "stopped"
    assert report.message == f"{server.base_url}: the endpoint refused the API key (401)"
    assert report.answered == 3 and len(ws.predicted_keys("fake-model")) == 3
    assert ws.model_run_rows("fake-model")[0].status == "stopped"


def test_unknown_model_stops_the_run(ws, keys):
    missing = status(404, {"error": {"message": "The model `nope` does not exist", "code": "model_not_found"}})
    with FakeChatServer(lambda request, attempt: missing) as server:
        report = run(ws, server, keys, model="nope", concurrency=2)
        assert len(server.chat_requests()) <= 2
    assert report.status == "stopped"
    assert report.message.startswith(f"model 'nope' not found at {server.base_url}")


def test_unknown_instance_fails_and_the_run_goes_on(ws, keys, answers):
    with FakeChatServer(truth_answers(answers)) as server:
        report = run(ws, server, ["python/nowhere_0001", *keys[:2]])
    assert report.answered == 2
    assert report.failed == [("python/nowhere_0001", "python/nowhere_0001: not in the workspace index")]


# -- stopping, resuming --------------------------------------------------------------------------
def test_vanished_endpoint_stops_the_run_and_a_rerun_resumes(ws, keys, answers):
    server = FakeChatServer(truth_answers(answers))
    with server:
        def vanish_after_five(outcome, count=[0]):  # noqa: B006 - the call count lives across calls
            count[0] += 1
            if count[0] == 5:
                server.stop()
        report = run(ws, server, keys, concurrency=1, retries=1, on_outcome=vanish_after_five)
    assert report.status == "stopped" and report.answered == 5
    assert server.base_url in report.message and "3 programs in a row failed" in report.message
    assert "rerun resumes" in report.message and "\n" not in report.message
    assert len(report.failed) == 3 and len(ws.predicted_keys("fake-model")) == 5
    with FakeChatServer(truth_answers(answers)) as again:
        second = run(ws, again, keys)
        assert len(again.chat_requests()) == 10
    assert (second.status, second.skipped, second.answered) == ("finished", 5, 10)
    assert ws.predicted_keys("fake-model") == set(keys)
    assert [r.status for r in ws.model_run_rows("fake-model")] == ["finished", "stopped"]


def test_repeated_server_errors_trip_the_circuit_breaker(ws, keys):
    with FakeChatServer(lambda request, attempt: status(502)) as server:
        report = run(ws, server, keys, concurrency=1, retries=1)
        assert len(server.chat_requests()) == 6  # 3 programs x 2 attempts
    assert report.status == "stopped" and len(report.failed) == 3
    assert "HTTP 502" in report.message


def test_cancel_stops_quickly_and_a_rerun_resumes(ws, keys, answers):
    quick = {prompt_of(ws, key).hash for key in keys[:3]}
    right = truth_answers(answers)
    cancel = threading.Event()
    cancelled_at = []

    def respond(request, attempt):
        return right(request, attempt) if server_hash(request) in quick else hang(30, right(request, attempt))

    def cancel_after_three(outcome, count=[0]):  # noqa: B006 - the call count lives across calls
        count[0] += 1
        if count[0] == 3:
            threading.Timer(0.2, lambda: (cancelled_at.append(time.monotonic()), cancel.set())).start()

    with FakeChatServer(respond) as server:
        report = run(ws, server, keys[:8], concurrency=2, timeout_s=30, cancel=cancel, on_outcome=cancel_after_three)
        returned = time.monotonic()
    assert report.status == "cancelled" and report.answered >= 3
    assert returned - cancelled_at[0] < 2.0
    assert ws.model_run_rows("fake-model")[0].status == "cancelled"
    assert pending_keys(ws, settings(server), keys[:8]) == keys[3:8]
    with FakeChatServer(right) as again:
        second = run(ws, again, keys[:8])
    assert (second.skipped, second.answered) == (3, 5)


def test_keyboard_interrupt_in_a_callback_ends_the_run_as_interrupted(ws, keys, answers):
    def interrupt(outcome, count=[0]):  # noqa: B006 - the call count lives across calls
        count[0] += 1
        if count[0] == 2:
            raise KeyboardInterrupt
    with FakeChatServer(truth_answers(answers)) as server:
        report = run(ws, server, keys, concurrency=1, on_outcome=interrupt)
    assert report.status == "interrupted" and report.answered == 2
    assert ws.model_run_rows("fake-model")[0].status == "interrupted"
    assert len(ws.predicted_keys("fake-model")) == 2


@pytest.mark.skipif(threading.current_thread() is not threading.main_thread(), reason="needs the main thread")
def test_ctrl_c_ends_the_run_as_interrupted(ws, keys, answers):
    right = truth_answers(answers)
    with FakeChatServer(lambda request, attempt: hang(0.15, right(request, attempt))) as server:
        timer = threading.Timer(0.6, lambda: os.kill(os.getpid(), signal.SIGINT))
        timer.start()
        try:
            report = run(ws, server, keys, concurrency=1)
        finally:
            timer.cancel()
    assert report.status == "interrupted" and 1 <= report.answered < 15
    assert len(ws.predicted_keys("fake-model")) == report.answered


# -- cache, redo, concurrency, prices -----------------------------------------------------------
def test_cache_hit_makes_no_request(ws, keys, answers, tmp_path):
    cache = AnswerCache(tmp_path / "answers.sqlite")
    with FakeChatServer(truth_answers(answers)) as server:
        first = run(ws, server, keys[:4], cache=cache)
        second = run(ws, server, keys[:4], name="again", cache=cache)
        assert len(server.chat_requests()) == 4
        third = run(ws, server, keys[:2], name="fresh", cache=cache, use_cache=False)
        assert len(server.chat_requests()) == 6
    assert (first.answered, second.cached, second.answered, third.answered) == (4, 4, 0, 2)
    assert ws.request_rows("again", keys[0])[0].status == "cached"
    assert ws.predictions("again", keys[:1])[keys[0]].graph == ws.predictions("fake-model", keys[:1])[keys[0]].graph
    assert score_table(ws, ["again"]).rows[0].languages["java"].scores.f1 == 1.0


def test_redo_asks_again_and_resume_skips(ws, keys, answers):
    with FakeChatServer(truth_answers(answers)) as server:
        run(ws, server, keys[:3])
        resumed = run(ws, server, keys[:3])
        assert len(server.chat_requests()) == 3
        redone = run(ws, server, keys[:3], redo=True)
        assert len(server.chat_requests()) == 6
    assert (resumed.skipped, resumed.answered, redone.skipped, redone.answered) == (3, 0, 0, 3)
    assert pending_keys(ws, RunSettings("http://x/v1", "fake-model"), [*keys[:4], keys[0]]) == [keys[3]]
    assert pending_keys(ws, RunSettings("http://x/v1", "fake-model"), keys[:2], redo=True) == keys[:2]


def test_concurrency_limit_is_respected_and_reached(ws, keys, answers):
    right = truth_answers(answers)
    with FakeChatServer(lambda request, attempt: hang(0.2, right(request, attempt))) as server:
        started = time.monotonic()
        report = run(ws, server, keys[:9], concurrency=3)
        elapsed = time.monotonic() - started
    assert report.answered == 9
    assert server.max_in_flight == 3
    assert elapsed < 1.5


def test_prices_give_costs(ws, keys, answers, tmp_path):
    table = tmp_path / "prices.json"
    table.write_text('{"fake-*": {"input_per_mtok": 3.0, "output_per_mtok": 15.0}}')
    with FakeChatServer(truth_answers(answers)) as server:
        report = run(ws, server, keys[:2], prices=PriceTable.load(table))
    each = (100 * 3.0 + 20 * 15.0) / 1e6
    assert report.cost_usd == pytest.approx(2 * each)
    assert ws.predictions("fake-model", keys[:1])[keys[0]].cost_usd == pytest.approx(each)
    assert ws.model_run_rows()[0].cost_usd == pytest.approx(2 * each)


# -- the API key ----------------------------------------------------------------------------------
def test_api_key_is_sent_and_never_stored_or_logged(ws, keys, answers, tmp_path, caplog):
    caplog.set_level(logging.DEBUG)
    cache_path = tmp_path / "answers.sqlite"
    with AnswerCache(cache_path) as cache, FakeChatServer(first_then(status(500), answers)) as server:
        report = run(ws, server, keys[:3], api_key=SECRET, cache=cache)
        assert {r.headers["authorization"] for r in server.chat_requests()} == {f"Bearer {SECRET}"}
    assert report.answered == 3
    assert caplog.records and SECRET not in caplog.text
    ws.close()
    for path in (tmp_path / "ws.sqlite", tmp_path / "ws.sqlite-wal", cache_path, tmp_path / "answers.sqlite-wal"):
        if path.exists():
            assert SECRET.encode() not in path.read_bytes(), path


def test_no_key_sends_a_placeholder(ws, keys, answers, monkeypatch):
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    with FakeChatServer(truth_answers(answers)) as server:
        run(ws, server, keys[:1])
        assert server.chat_requests()[0].headers["authorization"] == "Bearer not-needed"
