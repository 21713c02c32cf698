"""Run a model over benchmark programs through any OpenAI-compatible chat-completions endpoint.

`run_model` asks one request per program (the TraceEval prompt), parses each answer with the
paper's parser and stores it in the workspace as soon as it arrives, with a `model_requests`
row and its cached scores. It runs on the calling thread, which owns the workspace; inside,
asyncio keeps `concurrency` requests in flight.

Retries are our own (the client's are off) so every wait can be cancelled: 429 (honouring
Retry-After), 5xx, timeouts, connection errors and answers that are not chat-completion JSON
are retried with exponential backoff and jitter; a 400 fails that program only; 401/403/404
stop the run, as does a streak of programs failing for transport reasons (the circuit
breaker). Nothing finished is ever lost: a rerun with the same stored name skips what is
answered. Failed programs are not stored as predictions, so a rerun retries them.
"""
from __future__ import annotations

import asyncio
import email.utils
import json
import logging
import random
import threading
import time
from dataclasses import dataclass, field
from typing import Callable, Sequence

import openai

from core.answer_cache import AnswerCache, CachedAnswer, cache_key
from core.answers import parse_answer
from core.endpoints import RunSettings
from core.errors import EndpointError, TraceEvalError
from core.metrics import count_edges
from core.model import Instance, Prediction
from core.normalise import MODES, normalise_edges
from core.prices import PriceTable
from core.prompts import Prompt, build_prompt
from core.scoring import NormalisedTruths, scoring_key
from core.verdicts import now_iso
from core.workspace import Workspace

log = logging.getLogger(__name__)

BACKOFF_BASE_S = 0.5  # first retry waits 0.25-0.5 s, then doubling...
BACKOFF_CAP_S = 30.0  # ...up to this
RETRY_AFTER_CAP_S = 60.0  # the longest Retry-After honoured
POLL_S = 0.05  # how often the cancel event is looked at
RETRIED_STATUS = {408, 409, 425, 429}  # and every 5xx
CUT_OFF_PROBLEM = "answer cut off at max_tokens (finish_reason=length)"
NO_PLACEHOLDER_KEY = "not-needed"  # what the client sends when a local server needs no key

Progress = Callable[[int, int, str], None]


@dataclass(frozen=True)
class RequestOutcome:
    instance_key: str
    status: str  # "answered" | "cached" | "failed"
    prediction: Prediction | None  # None when failed
    error: str = ""  # one line, for failed
    attempts: int = 0
    finish_reason: str | None = None
    tokens_in: int | None = None
    tokens_out: int | None = None
    latency_s: float | None = None
    cost_usd: float | None = None


@dataclass
class RunReport:
    run_id: int
    model: str  # stored name
    requested: int  # keys asked for
    skipped: int  # already answered (resume)
    answered: int  # fresh answers stored (incl. unparseable ones)
    cached: int  # answers taken from the cache and stored
    failed: list[tuple[str, str]]  # (instance_key, one-line error), not stored: a rerun retries them
    status: str  # finished | cancelled | stopped | interrupted
    message: str  # one line: why it stopped, or ""
    tokens_in: int = 0  # spent by this run's fresh answers (cached ones cost nothing now)
    tokens_out: int = 0
    cost_usd: float | None = None  # None without a price table or a priced answer
    wall_s: float = 0.0

    def outcome_text(self) -> str:
        """`15 answered, 2 from the cache, 3 already answered, 1 failed in 4.2 s` (zero counts left out)."""
        parts = [f"{self.answered:,} answered"]
        for count, what in ((self.cached, "from the cache"), (self.skipped, "already answered"),
                            (len(self.failed), "failed")):
            if count:
                parts.append(f"{count:,} {what}")
        return f"{', '.join(parts)} in {self.wall_s:.1f} s"


def pending_keys(ws: Workspace, settings: RunSettings, keys: Sequence[str], redo: bool = False) -> list[str]:
    """The keys (in order, once each) not yet answered under `settings.stored_name`; all of them with `redo`."""
    unique = list(dict.fromkeys(keys))
    if redo:
        return unique
    answered = ws.predicted_keys(settings.stored_name)
    return [key for key in unique if key not in answered]


def run_model(ws: Workspace, settings: RunSettings, keys: Sequence[str], *, api_key: str | None = None,
              prices: PriceTable | None = None, cache: AnswerCache | None = None, redo: bool = False,
              progress: Progress | None = None, cancel: threading.Event | None = None,
              on_outcome: Callable[[RequestOutcome], None] | None = None,
              backoff_base_s: float | None = None) -> RunReport:
    """Ask the model for every key not yet answered (every key with `redo`) and store the answers.

    With `settings.use_cache` a cached answer is stored without a request; fresh answers always
    go into `cache` when one is given. `progress(done, total, message)` and `on_outcome` are
    called on this thread after each outcome is stored. Ctrl-C ends the run as "interrupted"
    and the report is returned (the caller decides the exit code).
    """
    run = _ModelRun(ws, settings, api_key, prices, cache, progress, cancel, on_outcome,
                    BACKOFF_BASE_S if backoff_base_s is None else backoff_base_s)
    return run.execute(keys, redo)


@dataclass
class _Answer:
    """One successful HTTP answer (fresh or from the cache)."""

    content: str | None
    finish_reason: str | None
    tokens_in: int | None
    tokens_out: int | None
    latency_s: float | None
    attempts: int = 0


class _Failure(Exception):
    """A request that will not succeed. kind: "instance" (this program only), "rejected" (a 4xx
    for this program; the same one for a streak of programs stops the run), "transport" (retries
    used up: counts towards the circuit breaker) or "fatal" (stop the run)."""

    def __init__(self, kind: str, message: str, attempts: int):
        super().__init__(message)
        self.kind, self.message, self.attempts = kind, message, attempts


class _Malformed(Exception):
    """A 200 answer that is not a chat completion."""


@dataclass
class _Totals:
    answered: int = 0
    cached: int = 0
    failed: list[tuple[str, str]] = field(default_factory=list)
    tokens_in: int = 0
    tokens_out: int = 0
    cost_usd: float | None = None


class _ModelRun:
    def __init__(self, ws, settings, api_key, prices, cache, progress, cancel, on_outcome, backoff_base_s):
        self.ws, self.settings, self.prices = ws, settings, prices
        self.cache = cache if cache is not None and cache.available else None
        self.progress, self.cancel, self.on_outcome = progress, cancel, on_outcome
        self.backoff_base_s = backoff_base_s
        self._api_key = api_key
        self.name = settings.stored_name
        self.totals = _Totals()
        self.pending: list[RequestOutcome] = []  # arrived, not yet stored
        self.done = 0
        self.total = 0
        self.stop_status: str | None = None
        self.stop_message = ""
        self._streak = 0  # programs in a row failed for transport reasons
        self._rejections = (0, "")  # programs in a row rejected with the very same error, and that error
        self._breaker = max(3, settings.concurrency)
        self._truths = NormalisedTruths(ws, frozenset(MODES))
        self._arrived: asyncio.Event | None = None

    # -- the run, on the calling thread ---------------------------------------------------------
    def execute(self, keys: Sequence[str], redo: bool) -> RunReport:
        started = time.perf_counter()
        requested = len(dict.fromkeys(keys))
        todo = pending_keys(self.ws, self.settings, keys, redo)
        skipped = requested - len(todo)
        self.total = len(todo)
        self.run_id = self.ws.start_model_run(self.name, self.settings.model, self.settings.base_url,
                                              self.settings.public_params(), requested=requested, skipped=skipped)
        self.source = f"run {self.run_id}: {self.settings.base_url}"
        log.info("model run %d: %s at %s, %d to ask, %d already answered", self.run_id, self.settings.model,
                 self.settings.base_url, len(todo), skipped)
        if self.progress:
            self.progress(0, self.total, f"{len(todo)} to ask, {skipped} already answered")
        try:
            if todo:
                asyncio.run(self._drive(todo))
        except KeyboardInterrupt:
            self._stop("interrupted", "interrupted; a rerun resumes where this one stopped")
        except BaseException as error:
            message = str(error) if isinstance(error, TraceEvalError) else f"internal error: {error!r}"
            self._stop("stopped", self._one_line(message))
            self._finish(requested, skipped)
            raise
        self._finish(requested, skipped)
        status = self.stop_status or "finished"
        return RunReport(self.run_id, self.name, requested, skipped, self.totals.answered, self.totals.cached,
                         list(self.totals.failed), status, self.stop_message, self.totals.tokens_in,
                         self.totals.tokens_out, self.totals.cost_usd, time.perf_counter() - started)

    def _finish(self, requested: int, skipped: int) -> None:
        self._flush()  # whatever arrived while the loop was being torn down
        t = self.totals
        self.ws.finish_model_run(self.run_id, status=self.stop_status or "finished", message=self.stop_message,
                                 requested=requested, skipped=skipped, answered=t.answered, cached=t.cached,
                                 failed=len(t.failed), tokens_in=t.tokens_in, tokens_out=t.tokens_out,
                                 cost_usd=t.cost_usd)
        log.info("model run %d %s: %d answered, %d cached, %d failed%s", self.run_id, self.stop_status or "finished",
                 t.answered, t.cached, len(t.failed), f" ({self.stop_message})" if self.stop_message else "")

    def _stop(self, status: str, message: str) -> None:
        if self.stop_status is None:  # the first reason wins
            self.stop_status, self.stop_message = status, message

    def _flush(self) -> None:
        """Store every arrived outcome in one transaction, then report them."""
        if not self.pending:
            return
        batch = list(self.pending)
        predictions = [o.prediction for o in batch if o.prediction is not None]
        with self.ws.transaction():
            if predictions:
                self.ws.store_predictions(self.name, predictions, sources=[self.source])
                self._store_counts(predictions)
            for o in batch:
                self.ws.store_request(self.run_id, self.name, o.instance_key, o.status, error=o.error,
                                      attempts=o.attempts, finish_reason=o.finish_reason, tokens_in=o.tokens_in,
                                      tokens_out=o.tokens_out, latency_s=o.latency_s, cost_usd=o.cost_usd,
                                      prompt_hash=o.prediction.prompt_hash if o.prediction else "")
        del self.pending[:len(batch)]
        for outcome in batch:
            self._count(outcome)
            self.done += 1
            if self.progress:
                self.progress(self.done, self.total, _progress_message(outcome))
            if self.on_outcome:
                self.on_outcome(outcome)

    def _store_counts(self, predictions: list[Prediction]) -> None:
        """Cache each answer's counts as `core.scoring.instance_counts` computes them (all modes on),
        from the predictions in hand: instance_counts would re-read every prediction of the model."""
        modes = frozenset(MODES)
        languages = {p.key: p.language for p in predictions}
        truths = self._truths(list(languages), languages)
        counts = {p.key: count_edges(truths.get(p.key, frozenset()), normalise_edges(p.graph.edges, p.language, modes))
                  for p in predictions}
        self.ws.store_counts(self.name, scoring_key(modes), counts)

    def _count(self, outcome: RequestOutcome) -> None:
        t = self.totals
        if outcome.status == "failed":
            t.failed.append((outcome.instance_key, outcome.error))
        elif outcome.status == "cached":
            t.cached += 1
        else:
            t.answered += 1
            t.tokens_in += outcome.tokens_in or 0
            t.tokens_out += outcome.tokens_out or 0
            if outcome.cost_usd is not None:
                t.cost_usd = (t.cost_usd or 0.0) + outcome.cost_usd

    # -- the event loop -----------------------------------------------------------------------
    async def _drive(self, todo: list[str]) -> None:
        self._arrived = asyncio.Event()
        keys = iter(todo)
        try:
            client = openai.AsyncOpenAI(base_url=self.settings.base_url, api_key=self._api_key or NO_PLACEHOLDER_KEY,
                                        max_retries=0, timeout=self.settings.timeout_s)
        except openai.OpenAIError as error:
            raise EndpointError(self._one_line(f"{self.settings.base_url}: cannot use the endpoint: {error}")) from None
        workers = [asyncio.create_task(self._worker(client, keys))
                   for _ in range(min(self.settings.concurrency, len(todo)))]
        try:
            while True:
                self._flush()
                if self.stop_status is not None or all(worker.done() for worker in workers) or _crashed(workers):
                    break
                if self.cancel is not None and self.cancel.is_set():
                    self._stop("cancelled", "cancelled; a rerun resumes where this one stopped")
                    break
                try:
                    async with asyncio.timeout(POLL_S):
                        await self._arrived.wait()
                except TimeoutError:
                    pass
                self._arrived.clear()
        except asyncio.CancelledError:  # Ctrl-C: asyncio.run cancels this task
            self._stop("interrupted", "interrupted; a rerun resumes where this one stopped")
        finally:
            for worker in workers:
                worker.cancel()  # abandons requests in flight
            results = await asyncio.gather(*workers, return_exceptions=True)
            await client.close()
        for result in results:
            if isinstance(result, Exception) and not isinstance(result, asyncio.CancelledError):
                raise result

    async def _worker(self, client: openai.AsyncOpenAI, keys) -> None:
        for key in keys:
            outcome, failure_kind = await self._ask(client, key)
            self._arrive(outcome, failure_kind)
            if self.stop_status is not None or (self.cancel is not None and self.cancel.is_set()):
                return

    def _arrive(self, outcome: RequestOutcome, failure_kind: str | None) -> None:
        self.pending.append(outcome)
        if self._arrived is not None:
            self._arrived.set()
        if failure_kind == "fatal":
            self._stop("stopped", outcome.error)
        elif failure_kind == "transport":
            self._streak += 1
            if self._streak >= self._breaker:
                self._stop("stopped", self._one_line(
                    f"{self.settings.base_url}: {self._streak} programs in a row failed ({outcome.error}); "
                    "stopped, a rerun resumes where this one stopped"))
        elif failure_kind == "rejected":  # the endpoint answers, but e.g. refuses a parameter of every request
            self._streak = 0
            count, last = self._rejections
            self._rejections = (count + 1 if outcome.error == last else 1, outcome.error)
            if self._rejections[0] >= self._breaker:
                self._stop("stopped", self._one_line(
                    f"{self.settings.base_url}: {self._rejections[0]} programs in a row rejected with the same "
                    f"error ({outcome.error}); stopped, a rerun resumes where this one stopped"))
        elif failure_kind is None:  # an answer (a program that could not be read says nothing about the endpoint)
            self._streak, self._rejections = 0, (0, "")

    async def _ask(self, client: openai.AsyncOpenAI, key: str) -> tuple[RequestOutcome, str | None]:
        """One program: from the cache, or asked with retries. Never raises (but CancelledError)."""
        try:
            instance = self.ws.instance(key)
            if instance is None:
                return _failed(key, f"{key}: not in the workspace index"), "instance"
            prompt = build_prompt(instance)
        except TraceEvalError as error:
            return _failed(key, self._one_line(str(error))), "instance"
        except (OSError, ValueError) as error:
            return _failed(key, self._one_line(f"{key}: cannot build the prompt: {error}")), "instance"
        identity = cache_key(prompt.hash, self.settings)
        if self.cache is not None and self.settings.use_cache:
            hit = self.cache.get(identity)
            if hit is not None:
                log.debug("%s: answer from the cache", key)
                answer = _Answer(hit.content, hit.finish_reason, hit.tokens_in, hit.tokens_out, hit.latency_s)
                return self._answered(instance, prompt, answer, "cached"), None
        try:
            answer = await self._request(client, prompt)
        except _Failure as failure:
            return _failed(key, self._one_line(failure.message), failure.attempts), failure.kind
        if self.cache is not None:
            self.cache.put(identity, CachedAnswer(answer.content, answer.finish_reason, answer.tokens_in,
                                                  answer.tokens_out, answer.latency_s, now_iso()))
        return self._answered(instance, prompt, answer, "answered"), None

    def _answered(self, instance: Instance, prompt: Prompt, answer: _Answer, status: str) -> RequestOutcome:
        parsed = parse_answer(answer.content, prompt.keys)
        problems = parsed.problems + ((CUT_OFF_PROBLEM,) if answer.finish_reason == "length" else ())
        cost = self.prices.cost(self.settings.model, answer.tokens_in, answer.tokens_out) if self.prices else None
        prediction = Prediction(instance_id=instance.id, model=self.name, language=instance.language,
                                graph=parsed.graph, raw_response=answer.content, parse_problems=problems,
                                prompt_hash=prompt.hash, tokens_in=answer.tokens_in, tokens_out=answer.tokens_out,
                                latency_s=answer.latency_s, cost_usd=cost, source=self.source)
        return RequestOutcome(instance.key, status, prediction, attempts=answer.attempts,
                              finish_reason=answer.finish_reason, tokens_in=answer.tokens_in,
                              tokens_out=answer.tokens_out, latency_s=answer.latency_s, cost_usd=cost)

    async def _request(self, client: openai.AsyncOpenAI, prompt: Prompt) -> _Answer:
        """The HTTP request with our retries; raises _Failure when it will not succeed."""
        settings, key = self.settings, prompt.instance_key
        attempt = 0
        while True:
            attempt += 1
            log.debug("%s: request %d to %s (model %s)", key, attempt, settings.base_url, settings.model)
            started = time.perf_counter()
            wait = None
            try:
                async with asyncio.timeout(settings.timeout_s + 1.0):  # the client's own timeout comes first
                    response = await client.chat.completions.with_raw_response.create(
                        model=settings.model, messages=prompt.messages, temperature=settings.temperature,
                        max_tokens=settings.max_tokens)
                answer = _read_completion(response.http_response.content)
                answer.latency_s, answer.attempts = time.perf_counter() - started, attempt
                log.debug("%s: answered in %.2f s (finish_reason=%s)", key, answer.latency_s, answer.finish_reason)
                return answer
            except openai.APIStatusError as error:
                code = error.status_code
                if code in (401, 403):
                    raise _Failure("fatal", f"{settings.base_url}: the endpoint refused the API key ({code})",
                                   attempt) from None
                if code == 404:
                    raise _Failure("fatal", self._not_found(error), attempt) from None
                if code < 500 and code not in RETRIED_STATUS:
                    raise _Failure("rejected", f"the endpoint rejected the request ({code}): "
                                               f"{_server_message(error)}", attempt) from None
                problem, wait = f"HTTP {code}: {_server_message(error)}", _retry_after(error.response.headers)
            except (openai.APITimeoutError, TimeoutError):
                problem = f"no answer within {settings.timeout_s:g} s"
            except openai.APIConnectionError as error:
                cause = error.__cause__ or error
                problem = f"cannot reach {settings.base_url} ({type(cause).__name__}: {cause})"
            except _Malformed as error:
                problem = str(error)
            except openai.OpenAIError as error:  # anything else the client raises: this program only
                raise _Failure("instance", f"the client failed: {type(error).__name__}: {error}", attempt) from None
            problem = self._one_line(problem)
            if attempt > settings.retries:
                raise _Failure("transport", f"{problem} (gave up after {attempt} attempts)", attempt)
            delay = wait if wait is not None else _backoff(attempt, self.backoff_base_s)
            log.warning("%s: %s; retry %d of %d in %.2f s", key, problem, attempt, settings.retries, delay)
            await asyncio.sleep(delay)

    def _not_found(self, error: openai.APIStatusError) -> str:
        message = _server_message(error)
        if error.code == "model_not_found" or "model" in message.lower():
            return f"model '{self.settings.model}' not found at {self.settings.base_url} (404: {message})"
        return (f"{self.settings.base_url}/chat/completions: not found (404); check the endpoint URL "
                "(it usually ends in /v1)")

    def _one_line(self, text: str) -> str:
        """One line, not too long, and never the API key (a server may echo it)."""
        if self._api_key:
            text = text.replace(self._api_key, "***")
        return _clip(" ".join(text.split()), 300)


def _crashed(workers: list[asyncio.Task]) -> bool:
    """A worker ended with an exception (a bug): stop at once, the exception is raised after cleanup."""
    return any(worker.done() and not worker.cancelled() and worker.exception() is not None for worker in workers)


def _failed(key: str, error: str, attempts: int = 0) -> RequestOutcome:
    return RequestOutcome(key, "failed", None, error=error, attempts=attempts)


def _read_completion(body: bytes) -> _Answer:
    """content, finish_reason and usage of choices[0]; _Malformed when it is not a chat completion."""
    try:
        data = json.loads(body)
    except ValueError:
        raise _Malformed(f"the answer is not JSON ({_clip(body.decode('utf-8', 'replace'), 80)!r})") from None
    if isinstance(data, dict) and "choices" not in data and isinstance(data.get("error"), (dict, str)):
        error = data["error"]
        detail = error.get("message") if isinstance(error, dict) else error
        raise _Malformed(f"the endpoint answered with an error: {detail}")
    choices = data.get("choices") if isinstance(data, dict) else None
    choice = choices[0] if isinstance(choices, list) and choices else None
    message = choice.get("message") if isinstance(choice, dict) else None
    if not isinstance(message, dict):
        raise _Malformed("the answer is not a chat completion (no choices[0].message)")
    content = message.get("content")
    if content is not None and not isinstance(content, str):
        raise _Malformed(f"the answer's content is a {type(content).__name__}, not text")
    finish_reason = choice.get("finish_reason")
    usage = data.get("usage") if isinstance(data.get("usage"), dict) else {}
    return _Answer(content, finish_reason if isinstance(finish_reason, str) else None,
                   _count_or_none(usage.get("prompt_tokens")), _count_or_none(usage.get("completion_tokens")), None)


def _count_or_none(value) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) and value >= 0 else None


def _server_message(error: openai.APIStatusError) -> str:
    body = error.body
    if isinstance(body, dict):
        inner = body.get("error")
        message = body.get("message") or (inner.get("message") if isinstance(inner, dict) else inner)
        if message:
            return str(message)
    text = error.response.text if error.response is not None else ""
    return _clip(" ".join(text.split()), 120) or error.response.reason_phrase or "no details"


def _retry_after(headers) -> float | None:
    """Seconds to wait from `retry-after-ms` or `Retry-After` (seconds or an HTTP date), capped."""
    seconds = None
    if headers.get("retry-after-ms"):
        try:
            seconds = float(headers["retry-after-ms"]) / 1000
        except ValueError:
            pass
    value = headers.get("retry-after")
    if seconds is None and value:
        try:
            seconds = float(value)
        except ValueError:
            try:
                seconds = email.utils.parsedate_to_datetime(value).timestamp() - time.time()
            except (TypeError, ValueError, IndexError):
                return None
    return None if seconds is None else min(max(seconds, 0.0), RETRY_AFTER_CAP_S)


def _backoff(attempt: int, base_s: float) -> float:
    """Exponential backoff with jitter: half to all of base * 2^(attempt-1), capped."""
    return min(BACKOFF_CAP_S, base_s * 2 ** (attempt - 1)) * random.uniform(0.5, 1.0)


def _progress_message(outcome: RequestOutcome) -> str:
    if outcome.status == "failed":
        return f"{outcome.instance_key} failed: {_clip(outcome.error, 80)}"
    if outcome.status == "cached":
        return f"{outcome.instance_key} cached"
    return f"{outcome.instance_key} answered ({outcome.latency_s or 0:.1f} s)"


def _clip(text: str, limit: int) -> str:
    return text if len(text) <= limit else text[:limit - 1] + "…"

