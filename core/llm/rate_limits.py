"""Pacing from a provider's rate-limit headers: slow down before the budget runs out, not after a 429.

Providers say with every answer how much of their budget is left and when it fills up again:
OpenAI (and vLLM's, Together's, Groq's... OpenAI-compatible servers) `x-ratelimit-remaining-requests`,
`x-ratelimit-remaining-tokens`, `x-ratelimit-reset-requests` and `-tokens` as durations (`6m0s`, `1s`,
`20ms`, `1h2m3.5s`); Anthropic `anthropic-ratelimit-requests-remaining`, `-tokens-remaining` (and
`-input-tokens-`/`-output-tokens-`), with RFC 3339 reset times; any of them `retry-after`. `read_budget` reads
them (a value it cannot read is left unknown, never an error). `Pacer` keeps the latest budget and lets a
request start only while the budget holds one more: the requests started since the budget was read (and
those in flight then) are taken from what is left, and each request is expected to use the mean tokens of
the answers so far. When nothing is left it waits for the reset (at most `MAX_WAIT_S`), so the
runner's workers run fewer at once as the budget drains. It also counts what was sent, for the achieved rate.
"""
from __future__ import annotations

import asyncio
import re
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from datetime import datetime

MAX_WAIT_S = 60.0  # the longest wait for a reset: a later one (a hostile or broken header) is taken as this
POLL_S = 0.05
SAME_WINDOW_S = 0.05  # two answers whose requests resets are this close describe the same window
_DURATION_PART = re.compile(r"(\d+(?:\.\d+)?)(ms|h|m|s)")


@dataclass(frozen=True)
class RateBudget:
    """What one answer's headers say is left; None for what they do not say. Resets are seconds from then."""

    remaining_requests: int | None = None
    remaining_tokens: int | None = None
    requests_reset_s: float | None = None
    tokens_reset_s: float | None = None
    retry_after_s: float | None = None
    limit_requests: int | None = None  # the whole budget, what a reset fills it up to
    limit_tokens: int | None = None

    def refilled(self) -> RateBudget | None:
        """The budget after its resets: full when the limits are known, else unknown (None)."""
        if self.limit_requests is None and self.limit_tokens is None:
            return None
        return RateBudget(self.limit_requests, self.limit_tokens, limit_requests=self.limit_requests,
                          limit_tokens=self.limit_tokens)


def read_budget(headers: Mapping[str, str], now: float | None = None) -> RateBudget | None:
    """The budget in `headers` (case-insensitive names), or None when they carry no rate-limit header.
    `now` (epoch seconds) turns an RFC 3339 reset time into seconds from now."""
    lower = {name.lower(): value for name, value in headers.items()}
    now = time.time() if now is None else now

    def first(*names: str) -> str | None:
        return next((lower[name] for name in names if name in lower), None)

    budget = RateBudget(
        _count(first("x-ratelimit-remaining-requests", "anthropic-ratelimit-requests-remaining")),
        _smallest(_count(first("x-ratelimit-remaining-tokens", "anthropic-ratelimit-tokens-remaining")),
                  _count(first("anthropic-ratelimit-input-tokens-remaining")),
                  _count(first("anthropic-ratelimit-output-tokens-remaining"))),
        reset_seconds(first("x-ratelimit-reset-requests", "anthropic-ratelimit-requests-reset"), now),
        _largest(reset_seconds(first("x-ratelimit-reset-tokens", "anthropic-ratelimit-tokens-reset"), now),
                 reset_seconds(first("anthropic-ratelimit-input-tokens-reset"), now),
                 reset_seconds(first("anthropic-ratelimit-output-tokens-reset"), now)),
        reset_seconds(first("retry-after"), now),
        _count(first("x-ratelimit-limit-requests", "anthropic-ratelimit-requests-limit")),
        _smallest(_count(first("x-ratelimit-limit-tokens", "anthropic-ratelimit-tokens-limit")),
                  _count(first("anthropic-ratelimit-input-tokens-limit")),
                  _count(first("anthropic-ratelimit-output-tokens-limit"))))
    return None if budget == RateBudget() else budget


def reset_seconds(text: str | None, now: float) -> float | None:
    """Seconds until a reset: a duration (`6m0s`, `20ms`, `1h2m3.5s`), a number of seconds, or an RFC 3339 time
    (`2026-11-25T17:00:30Z`); None when it is none of these. Never below 0."""
    if not text or len(text) > 64:
        return None
    text = text.strip()
    try:
        return max(0.0, float(text))
    except ValueError:
        pass
    if _DURATION_PART.fullmatch(text) or re.fullmatch(rf"(?:{_DURATION_PART.pattern})+", text):
        scale = {"h": 3600.0, "m": 60.0, "s": 1.0, "ms": 0.001}
        return sum(float(amount) * scale[unit] for amount, unit in _DURATION_PART.findall(text))
    try:
        when = datetime.fromisoformat(text.replace("Z", "+00:00"))
    except ValueError:
        return None
    return None if when.tzinfo is None else max(0.0, when.timestamp() - now)


def _count(text: str | None) -> int | None:
    if text is None or not text.strip().isdigit() or len(text.strip()) > 18:
        return None
    return int(text.strip())


def _smallest(*values: int | None) -> int | None:
    known = [value for value in values if value is not None]
    return min(known) if known else None


def _largest(*values: float | None) -> float | None:
    known = [value for value in values if value is not None]
    return max(known) if known else None


class Pacer:
    """When the next request may start, from the latest budget; shared by every worker of one event loop."""

    def __init__(self, clock: Callable[[], float] = time.monotonic):
        self.clock = clock
        self.budget: RateBudget | None = None
        self._read_at = 0.0  # clock() when the budget was read
        self._taken = 0  # requests counted against the budget: in flight when it was read, and started since
        self.in_flight = 0
        self.sent = 0  # requests started
        self.tokens = 0  # tokens the answers reported (in + out)
        self._answers_with_tokens = 0
        self.waited_s = 0.0  # time requests were held back
        self.first_sent: float | None = None
        self.last_done: float | None = None

    async def turn(self) -> None:
        """Wait until the budget holds one more request, then count it as started."""
        while (wait := self.wait_s()) > 0:
            self.waited_s += wait
            await asyncio.sleep(wait)
        self._taken += 1
        self.in_flight += 1
        self.sent += 1
        if self.first_sent is None:
            self.first_sent = self.clock()

    def done(self, headers: Mapping[str, str] | None, tokens: int | None) -> None:
        """A request ended (answered or not) with these response headers (None: no response)."""
        self.in_flight -= 1
        self.last_done = self.clock()
        if tokens is not None:
            self.tokens += tokens
            self._answers_with_tokens += 1
        budget = read_budget(headers) if headers is not None else None
        if budget is not None and self._believed(budget):
            self.budget, self._read_at, self._taken = budget, self.clock(), self.in_flight

    def _believed(self, budget: RateBudget) -> bool:
        """Whether an answer's budget replaces the kept one. Answers overtake each other: one describing an
        earlier window (its requests reset comes sooner than the kept one's) or an earlier moment of the same
        window (it leaves more than the kept one still does) is not believed."""
        kept = self.budget
        if kept is None or budget.requests_reset_s is None or kept.requests_reset_s is None:
            return True
        kept_reset = kept.requests_reset_s - (self.clock() - self._read_at)
        if abs(budget.requests_reset_s - kept_reset) > SAME_WINDOW_S:
            return budget.requests_reset_s > kept_reset
        if budget.remaining_requests is None or kept.remaining_requests is None:
            return True
        return budget.remaining_requests - self.in_flight <= kept.remaining_requests - self._taken

    def rates(self) -> tuple[float | None, float | None]:
        """(requests, tokens) per minute achieved from the first request sent to the last one ended."""
        if self.first_sent is None or self.last_done is None or self.last_done <= self.first_sent:
            return None, None
        minutes = (self.last_done - self.first_sent) / 60
        return self.sent / minutes, (self.tokens / minutes if self._answers_with_tokens else None)

    def wait_s(self) -> float:
        """Seconds the next request would wait now (0: it may start)."""
        budget = self.budget
        if budget is None:
            return 0.0
        elapsed = self.clock() - self._read_at
        waits = []
        if budget.retry_after_s is not None and elapsed < budget.retry_after_s:
            waits.append(budget.retry_after_s - elapsed)
        if budget.remaining_requests is not None and budget.remaining_requests - self._taken <= 0:
            waits.append(self._until_reset(budget.requests_reset_s, elapsed))
        expected = self.tokens / self._answers_with_tokens if self._answers_with_tokens else 0.0
        if budget.remaining_tokens is not None and budget.remaining_tokens - self._taken * expected < max(expected, 1):
            waits.append(self._until_reset(budget.tokens_reset_s, elapsed))
        wait = max(waits, default=0.0)
        if wait <= 0 and waits:  # the reset has passed: the budget is full again (requests in flight may count)
            self.budget, self._read_at, self._taken = budget.refilled(), self.clock(), self.in_flight
            return self.wait_s() if self.budget is not None else 0.0
        return wait

    def _until_reset(self, reset_s: float | None, elapsed: float) -> float:
        """Seconds left until a reset; with no reset time given, one second at a time until an answer says more."""
        if reset_s is None:
            return max(0.0, 1.0 - elapsed) if self.in_flight == 0 else POLL_S
        return max(0.0, min(reset_s, MAX_WAIT_S) - elapsed)
