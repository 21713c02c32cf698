"""Run a model over benchmark programs through any OpenAI-compatible chat-completions endpoint.

`run_model` asks one request per program (the TraceEval prompt, in the given wording: the user's
release or the studio's), parses each answer with the paper's parser and stores it in the
workspace as soon as it arrives, with the wording's tag, a `model_requests` row and its cached
scores. The run's record keeps the wording, the release file and the rule set. It runs on the
calling thread, which owns the workspace; inside, asyncio keeps `concurrency` requests in flight.

Requests are paced by the endpoint's rate-limit headers (`core.llm.rate_limits`: fewer start as the
budget drains, none while it is spent) and the report gives the rate achieved.
Requests and their retries are `core.llm.chat`'s (429 honouring Retry-After, 5xx, timeouts,
connection errors and answers that are not chat-completion JSON are retried with exponential
backoff and jitter, each wait cancellable); a 400 fails that program only; 401/403/404
stop the run, as does a streak of programs failing for transport reasons (the circuit
breaker). Nothing finished is ever lost: a rerun with the same stored name skips what is
answered. Failed programs are not stored as predictions, so a rerun retries them.
"""
from __future__ import annotations

import asyncio
import logging
import threading
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

import openai

from core.dataset.workspace import Workspace
from core.errors import TraceEvalError
from core.llm.answer_cache import AnswerCache, cache_key
from core.llm.chat import BACKOFF_BASE_S, ChatAnswer, ChatFailure, ChatRequester, clip, from_cache, to_cache
from core.llm.endpoints import RunSettings
from core.llm.prices import PriceTable
from core.llm.prompt_wording import STUDIO_WORDING, PromptWording
from core.llm.prompts import Prompt, build_prompt
from core.llm.stored_answers import CUT_OFF_PROBLEM as CUT_OFF_PROBLEM  # where it was before the helpers moved
from core.llm.stored_answers import answer_prediction, cache_answer_counts
from core.records import Instance, Prediction
from core.scoring.normalise import MODES
from core.scoring.scores import NormalisedTruths

log = logging.getLogger(__name__)

POLL_S = 0.05  # how often the cancel event is looked at

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
    requests_per_min: float | None = None  # achieved by the requests sent (None: too few to tell)
    tokens_per_min: float | None = None  # tokens in + out the endpoint reported, per minute
    paced_s: float = 0.0  # how long requests were held back by the endpoint's rate-limit headers (summed)

    def rate_text(self) -> str:
        """`42 requests/min, 12,345 tokens/min (held back 3.2 s by the endpoint's rate limits)`, or ""."""
        if self.requests_per_min is None:
            return ""
        text = f"{self.requests_per_min:,.1f} requests/min"
        if self.tokens_per_min is not None:
            text += f", {self.tokens_per_min:,.0f} tokens/min"
        if self.paced_s:
            text += f" (held back {self.paced_s:.1f} s by the endpoint's rate limits)"
        return text

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
              backoff_base_s: float | None = None, wording: PromptWording = STUDIO_WORDING) -> RunReport:
    """Ask the model for every key not yet answered (every key with `redo`) and store the answers.

    With `settings.use_cache` a cached answer is stored without a request; fresh answers always
    go into `cache` when one is given. `progress(done, total, message)` and `on_outcome` are
    called on this thread after each outcome is stored. Ctrl-C ends the run as "interrupted"
    and the report is returned (the caller decides the exit code).
    """
    backoff = BACKOFF_BASE_S if backoff_base_s is None else backoff_base_s
    if _event_loop_running():
        return _run_on_own_thread(ws.path, settings, keys, api_key, prices, cache, redo, progress, cancel, on_outcome,
                                  backoff, wording)
    run = _ModelRun(ws, settings, api_key, prices, cache, progress, cancel, on_outcome, backoff, wording)
    return run.execute(keys, redo)


def _event_loop_running() -> bool:
    try:
        asyncio.get_running_loop()
    except RuntimeError:
        return False
    return True


def _run_on_own_thread(path, settings, keys, api_key, prices, cache, redo, progress, cancel, on_outcome, backoff,
                       wording) -> RunReport:
    """The run when this thread already runs an event loop (a notebook's kernel), where `asyncio.run` cannot
    start: on a thread of its own, with its own connection to the workspace (SQLite connections belong to one
    thread); this thread waits, and Ctrl-C (the kernel's interrupt) cancels the run as in a terminal.
    `progress` and `on_outcome` are called on that thread."""
    cancel = cancel or threading.Event()
    outcome: dict[str, object] = {}

    def work() -> None:
        try:
            with Workspace(path) as own:
                outcome["report"] = _ModelRun(own, settings, api_key, prices, cache, progress, cancel, on_outcome,
                                              backoff, wording).execute(keys, redo)
        except BaseException as error:  # noqa: BLE001 - raised again on the calling thread
            outcome["error"] = error

    worker = threading.Thread(target=work, name="model-run", daemon=True)
    worker.start()
    try:
        while worker.is_alive():
            worker.join(POLL_S)
    except KeyboardInterrupt:
        cancel.set()
        worker.join()
    if "error" in outcome:
        raise outcome["error"]  # type: ignore[misc]
    report = outcome["report"]
    assert isinstance(report, RunReport)
    return report


@dataclass
class _Totals:
    answered: int = 0
    cached: int = 0
    failed: list[tuple[str, str]] = field(default_factory=list)
    tokens_in: int = 0
    tokens_out: int = 0
    cost_usd: float | None = None


class _ModelRun:
    def __init__(self, ws, settings, api_key, prices, cache, progress, cancel, on_outcome, backoff_base_s, wording):
        self.ws, self.settings, self.prices, self.wording = ws, settings, prices, wording
        self.cache = cache if cache is not None and cache.available else None
        self.progress, self.cancel, self.on_outcome = progress, cancel, on_outcome
        self.backoff_base_s = backoff_base_s
        self.requester = ChatRequester(settings, api_key, backoff_base_s)
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
        self.started = started = time.perf_counter()
        requested = len(dict.fromkeys(keys))
        todo = pending_keys(self.ws, self.settings, keys, redo)
        skipped = requested - len(todo)
        self.total = len(todo)
        params = {**self.settings.public_params(), "prompt_wording": self.wording.tag, "release": self.wording.path}
        self.run_id = self.ws.start_model_run(self.name, self.settings.model, self.settings.base_url, params,
                                              requested=requested, skipped=skipped)
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
        pacer = self.requester.pacer
        requests_per_min, tokens_per_min = pacer.rates()
        return RunReport(self.run_id, self.name, requested, skipped, self.totals.answered, self.totals.cached,
                         list(self.totals.failed), status, self.stop_message, self.totals.tokens_in,
                         self.totals.tokens_out, self.totals.cost_usd, time.perf_counter() - started,
                         requests_per_min, tokens_per_min, pacer.waited_s)

    def _finish(self, requested: int, skipped: int) -> None:
        self._flush()  # whatever arrived while the loop was being torn down
        t = self.totals
        self.ws.finish_model_run(self.run_id, status=self.stop_status or "finished", message=self.stop_message,
                                 requested=requested, skipped=skipped, answered=t.answered, cached=t.cached,
                                 failed=len(t.failed), tokens_in=t.tokens_in, tokens_out=t.tokens_out,
                                 cost_usd=t.cost_usd, wall_s=time.perf_counter() - self.started)
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
        cache_answer_counts(self.ws, self.name, predictions, self._truths)

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
        client = self.requester.open_client()
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
            prompt = build_prompt(instance, wording=self.wording, rules=self.settings.rules)
        except TraceEvalError as error:
            return _failed(key, self._one_line(str(error))), "instance"
        except (OSError, ValueError) as error:
            return _failed(key, self._one_line(f"{key}: cannot build the prompt: {error}")), "instance"
        identity = cache_key(prompt.hash, self.settings)
        if self.cache is not None and self.settings.use_cache:
            hit = self.cache.get(identity)
            if hit is not None:
                log.debug("%s: answer from the cache", key)
                answer = from_cache(hit)
                return self._answered(instance, prompt, answer, "cached"), None
        try:
            answer = await self.requester.request(client, prompt.messages, key)
        except ChatFailure as failure:
            return _failed(key, self._one_line(failure.message), failure.attempts), failure.kind
        if self.cache is not None:
            self.cache.put(identity, to_cache(answer, prompt.wording))
        return self._answered(instance, prompt, answer, "answered"), None

    def _answered(self, instance: Instance, prompt: Prompt, answer: ChatAnswer, status: str) -> RequestOutcome:
        cost = self.prices.cost(self.settings.model, answer.tokens_in, answer.tokens_out) if self.prices else None
        prediction = answer_prediction(instance, prompt.keys, answer.content, model=self.name,
                                       finish_reason=answer.finish_reason, prompt_hash=prompt.hash,
                                       prompt_wording=prompt.wording, source=self.source, tokens_in=answer.tokens_in,
                                       tokens_out=answer.tokens_out, latency_s=answer.latency_s, cost_usd=cost,
                                       reasoning=answer.reasoning, reasoning_tokens=answer.reasoning_tokens)
        return RequestOutcome(instance.key, status, prediction, attempts=answer.attempts,
                              finish_reason=answer.finish_reason, tokens_in=answer.tokens_in,
                              tokens_out=answer.tokens_out, latency_s=answer.latency_s, cost_usd=cost)

    def _one_line(self, text: str) -> str:
        return self.requester.one_line(text)


def _crashed(workers: list[asyncio.Task]) -> bool:
    """A worker ended with an exception (a bug): stop at once, the exception is raised after cleanup."""
    return any(worker.done() and not worker.cancelled() and worker.exception() is not None for worker in workers)


def _failed(key: str, error: str, attempts: int = 0) -> RequestOutcome:
    return RequestOutcome(key, "failed", None, error=error, attempts=attempts)


def _progress_message(outcome: RequestOutcome) -> str:
    if outcome.status == "failed":
        return f"{outcome.instance_key} failed: {clip(outcome.error, 80)}"
    if outcome.status == "cached":
        return f"{outcome.instance_key} cached"
    return f"{outcome.instance_key} answered ({outcome.latency_s or 0:.1f} s)"
