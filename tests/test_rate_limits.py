"""Pacing from the providers' rate-limit headers: read as OpenAI and Anthropic send them, and a run against
the local server whose budget drains that slows down before a 429 and reports the rate it achieved."""
from datetime import UTC, datetime

import pytest

from core.dataset.indexing import open_dataset
from core.llm.endpoints import RunSettings
from core.llm.prompts import build_prompt
from core.llm.rate_limits import MAX_WAIT_S, Pacer, RateBudget, read_budget, reset_seconds
from core.llm.runner import run_model
from resources import DEMO_DATASET
from tests.cli_run import run as cli
from tests.llm_server import FakeChatServer, RateLimited, answer_text, ok, request_prompt_hash

NOW = datetime(2026, 11, 25, 17, 0, 0, tzinfo=UTC).timestamp()


@pytest.mark.parametrize(("text", "seconds"), [
    ("6m0s", 360.0), ("1s", 1.0), ("20ms", 0.02), ("1h2m3.5s", 3723.5), ("0.5", 0.5), ("2", 2.0),
    ("2026-11-25T17:00:30Z", 30.0), ("2026-11-25T16:59:00Z", 0.0), ("2026-11-25T17:00:30+00:00", 30.0),
    ("soon", None), ("", None), ("2026-11-25T17:00:30", None), ("5 parsecs", None), ("9" * 100, None),
])
def test_reset_times_as_providers_write_them(text, seconds):
    assert reset_seconds(text, NOW) == (pytest.approx(seconds) if seconds is not None else None)


def test_budgets_from_openai_and_anthropic_headers():
    openai_style = {"X-RateLimit-Limit-Requests": "60", "x-ratelimit-remaining-requests": "59",
                    "x-ratelimit-remaining-tokens": "149984", "x-ratelimit-reset-requests": "1s",
                    "x-ratelimit-reset-tokens": "6m0s"}
    assert read_budget(openai_style, NOW) == RateBudget(59, 149984, 1.0, 360.0, None, 60)
    anthropic_style = {"anthropic-ratelimit-requests-remaining": "10",
                       "anthropic-ratelimit-requests-reset": "2026-11-25T17:00:05Z",
                       "anthropic-ratelimit-input-tokens-remaining": "30000",
                       "anthropic-ratelimit-output-tokens-remaining": "8000",
                       "anthropic-ratelimit-output-tokens-reset": "2026-11-25T17:00:12Z", "retry-after": "3"}
    assert read_budget(anthropic_style, NOW) == RateBudget(10, 8000, 5.0, 12.0, 3.0)
    assert read_budget({"content-type": "application/json"}, NOW) is None
    assert read_budget({"x-ratelimit-remaining-requests": "-3", "x-ratelimit-reset-requests": "later"}, NOW) is None


def test_the_pacer_holds_requests_once_the_budget_is_spent():
    clock = [100.0]
    pacer = Pacer(clock=lambda: clock[0])
    pacer.in_flight = 3  # three requests went out before any answer said anything
    pacer.done({"x-ratelimit-remaining-requests": "3", "x-ratelimit-reset-requests": "2s",
                "x-ratelimit-limit-requests": "4"}, 120)
    assert pacer.wait_s() == 0  # 3 left, 2 still in flight (perhaps not counted yet): one more may start
    pacer._taken += 1
    assert pacer.wait_s() == pytest.approx(2.0)
    pacer.done({"x-ratelimit-remaining-requests": "2", "x-ratelimit-reset-requests": "1000ms"}, 120)
    assert pacer.budget.remaining_requests == 3  # an answer from an earlier window is not believed
    pacer.done({"x-ratelimit-remaining-requests": "3", "x-ratelimit-reset-requests": "2s"}, 120)
    assert pacer.wait_s() == pytest.approx(2.0)  # nor one from an earlier moment of this window
    pacer.in_flight += 1  # one more request went out before the budget was spent
    clock[0] += 1.5
    assert pacer.wait_s() == pytest.approx(0.5)
    clock[0] += 0.5
    assert pacer.wait_s() == 0 and pacer.budget.remaining_requests == 4  # reset: full again, the limit known
    assert pacer._taken == 1  # the request still in flight may count in the new window
    pacer.done({"x-ratelimit-remaining-tokens": "200", "x-ratelimit-reset-tokens": "20ms"}, 120)
    assert pacer.wait_s() == 0  # 200 tokens left, 120 expected per request, nothing in flight
    pacer._taken += 1
    assert pacer.wait_s() == pytest.approx(0.02)
    pacer.in_flight = 1
    pacer.done({"x-ratelimit-remaining-requests": "0", "x-ratelimit-reset-requests": "999999h"}, None)
    assert pacer.wait_s() == MAX_WAIT_S  # a reset beyond reason is waited for a minute at most


def demo_answers(ws):
    table = {build_prompt(ws.instance(r.key)).hash: answer_text(ws.instance(r.key).ground_truth)
             for r in ws.instance_rows()}
    return lambda request, attempt: ok(table[request_prompt_hash(request)], delay_s=0.02)


@pytest.mark.parametrize("style", ["openai", "anthropic"])
def test_a_draining_budget_slows_the_run_before_any_429_and_the_rate_is_reported(ws, style):
    keys = [row.key for row in ws.instance_rows()]
    limited = RateLimited(demo_answers(ws), limit=4, window_s=0.6 if style == "openai" else 1.0, style=style)
    with FakeChatServer(limited) as server:
        report = run_model(ws, RunSettings(server.base_url, "fake-model", concurrency=4, timeout_s=5.0, retries=3),
                           keys, backoff_base_s=0.01)
        codes = len(server.chat_requests())
    assert (report.answered, report.failed, limited.refused) == (15, [], 0)  # not one 429
    assert codes == 15
    assert report.paced_s > 0 and report.requests_per_min is not None and report.tokens_per_min is not None
    assert report.wall_s >= 3 * limited.window_s  # 15 requests, 4 a window: the run spans at least 3 windows
    assert "requests/min" in report.rate_text() and "held back" in report.rate_text()


def test_without_headers_the_same_budget_is_overrun(ws):
    """The control: the server counts the same budget but says nothing, so requests run into its 429s."""
    keys = [row.key for row in ws.instance_rows()]
    silent = RateLimited(demo_answers(ws), limit=4, window_s=0.6, headers=False)
    with FakeChatServer(silent) as server:
        report = run_model(ws, RunSettings(server.base_url, "fake-model", concurrency=4, timeout_s=5.0, retries=8),
                           keys, backoff_base_s=0.01)
    assert silent.refused > 0 and report.answered == 15  # 429s, retried (their retry-after holds the others)


def test_predict_prints_the_achieved_rate(tmp_path, capsys):
    path = tmp_path / "demo.sqlite"
    workspace, _ = open_dataset(DEMO_DATASET, path)
    with workspace:
        responder = RateLimited(demo_answers(workspace), limit=8, window_s=0.5)
    with FakeChatServer(responder) as server:
        code, _out, err = cli(capsys, "predict", "--workspace", path, "--model", "fake-model", "--base-url",
                              server.base_url, "--split", "all", "--no-results-files")
    assert code == 0, err
    assert "rate: " in err and "requests/min" in err and responder.refused == 0
