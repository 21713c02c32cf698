"""One chat-completion request to an OpenAI-compatible endpoint, with our own retries.

Shared by the model runner (`llm_runner`, many programs at once) and the instance builder
(`build.harness`, one harness at a time). Retries are ours (the client's are off) so every
wait can be cancelled: 429 (honouring Retry-After), 5xx, timeouts, connection errors and
answers that are not chat-completion JSON are retried with exponential backoff and jitter.
The API key is only handed to the client, and every text that comes back (the answer, its reasoning, every
failure's message) has the keys the client sent taken out before anyone stores or prints it
(`core.llm.redaction`): an endpoint may echo them.
"""
from __future__ import annotations

import asyncio
import email.utils
import logging
import random
import re
import threading
import time
from dataclasses import dataclass, replace
from typing import cast, overload

import openai

from core.errors import EndpointError
from core.llm.answer_cache import AnswerCache, CachedAnswer, cache_key
from core.llm.endpoints import (
    BOTH_LIMITS,
    MAX_COMPLETION_TOKENS,
    MAX_TOKENS,
    RunSettings,
    remember_token_limit_field,
    token_limit_field_for,
)
from core.llm.prompts import prompt_hash
from core.llm.rate_limits import Pacer
from core.llm.redaction import Secrets
from core.llm.response_limits import ResponseLimitExceeded, bounded_http_client
from core.safe_files import INT64, parse_json
from core.scoring.answers import REPLACEMENT_CHARACTER
from core.scoring.thinking import thinking_text
from core.verdicts import now_iso

log = logging.getLogger(__name__)

BACKOFF_BASE_S = 0.5  # first retry waits 0.25-0.5 s, then doubling...
BACKOFF_CAP_S = 30.0  # ...up to this
RETRY_AFTER_CAP_S = 60.0  # the longest Retry-After honoured
RETRIED_STATUS = {408, 409, 425, 429}  # and every 5xx
NO_PLACEHOLDER_KEY = "not-needed"  # what the client sends when a local server needs no key
POLL_S = 0.05  # how often a cancel event is looked at
# how servers say a parameter itself is refused (not its value): OpenAI, vLLM, LiteLLM, pydantic-based servers
_PARAMETER_REFUSED = re.compile(r"unsupported|not supported|unrecogni[sz]ed|unknown|not allowed|not permitted|"
                                r"extra (?:inputs|fields)|(?:cannot|can't|can not) (?:both|be used together|be set "
                                r"together)|only one of|mutually exclusive|deprecated|use '?max_", re.IGNORECASE)
REASONING_FIELDS = ("reasoning", "reasoning_content")  # message fields holding the thinking, first found wins
_LONE_SURROGATE = re.compile("[\ud800-\udfff]")  # json.loads pairs escaped surrogate pairs; these are alone


@dataclass
class ChatAnswer:
    """One successful HTTP answer (fresh or from the cache)."""

    content: str | None
    finish_reason: str | None
    tokens_in: int | None
    tokens_out: int | None
    latency_s: float | None
    attempts: int = 0
    reasoning: str | None = None  # the model's thinking: `reasoning`, `reasoning_content` or content's think block
    reasoning_tokens: int | None = None  # usage.completion_tokens_details.reasoning_tokens (part of tokens_out)


class ChatFailure(Exception):
    """A request that will not succeed. kind: "instance" (this request only), "rejected" (a 4xx
    for this request), "transport" (retries used up), "fatal" (the endpoint cannot be used at all:
    refused key, unknown model, wrong URL) or "cancelled"."""

    def __init__(self, kind: str, message: str, attempts: int):
        super().__init__(message)
        self.kind, self.message, self.attempts = kind, message, attempts


class MalformedAnswer(Exception):
    """A 200 answer (or a batch result line) that is not a chat completion."""


class ChatRequester:
    """Requests to one endpoint (`settings`) with retries; `backoff_base_s` is shortened by tests."""

    def __init__(self, settings: RunSettings, api_key: str | None = None, backoff_base_s: float = BACKOFF_BASE_S):
        self.settings, self.backoff_base_s = settings, backoff_base_s
        self._api_key = api_key
        self.secrets = Secrets([api_key], ignored=[NO_PLACEHOLDER_KEY])  # and each credential header sent
        # the output-token limit's field: forced, or both (the paper's) unless a refusal was remembered
        self.limit_field = token_limit_field_for(settings.base_url, settings.model, settings.token_limit_field)
        self._adapts = not settings.token_limit_field
        self._switched = False  # a field chosen after a refusal, remembered once a request succeeds with it
        self.pacer = Pacer()  # this endpoint's rate-limit budget, shared by every request made through this requester

    def open_client(self) -> openai.AsyncOpenAI:
        try:
            return openai.AsyncOpenAI(base_url=self.settings.base_url, api_key=self._api_key or NO_PLACEHOLDER_KEY,
                                      max_retries=0, timeout=self.settings.timeout_s,
                                      http_client=bounded_http_client(self.settings.timeout_s, secrets=self.secrets))
        except openai.OpenAIError as error:
            raise EndpointError(self.one_line(f"{self.settings.base_url}: cannot use the endpoint: {error}")) from None

    async def request(self, client: openai.AsyncOpenAI, messages: list[dict[str, str]], label: str) -> ChatAnswer:
        """The HTTP request with our retries; raises ChatFailure when it will not succeed. The answer's texts and the
        failure's message are redacted of the keys the client sent."""
        try:
            answer = await self._request(client, messages, label)
        except ChatFailure as failure:
            raise ChatFailure(failure.kind, self.secrets.redact(failure.message), failure.attempts) from None
        redact = self.secrets.redact_optional
        return replace(answer, content=redact(answer.content), finish_reason=redact(answer.finish_reason),
                       reasoning=redact(answer.reasoning))

    async def _request(self, client: openai.AsyncOpenAI, messages: list[dict[str, str]], label: str) -> ChatAnswer:
        settings = self.settings
        attempt = 0
        tried = {self.limit_field}
        while True:
            attempt += 1
            log.debug("%s: request %d to %s (model %s)", label, attempt, settings.base_url, settings.model)
            await self.pacer.turn()  # held back while the endpoint's rate-limit budget is spent
            started = time.perf_counter()
            wait, headers, used = None, None, None
            try:
                async with asyncio.timeout(settings.timeout_s + 1.0):  # the client's own timeout comes first
                    response = await client.chat.completions.with_raw_response.create(
                        model=settings.model, temperature=settings.temperature,
                        # our messages are system and user dicts of text, the shapes openai's params name
                        messages=cast("list[openai.types.chat.ChatCompletionMessageParam]", messages),
                        max_tokens=self._limit(MAX_TOKENS), max_completion_tokens=self._limit(MAX_COMPLETION_TOKENS),
                        seed=openai.omit if settings.seed is None else settings.seed)
                headers = response.http_response.headers
                answer = _read_completion(response.http_response.content)
                answer.latency_s, answer.attempts = time.perf_counter() - started, attempt
                used = (answer.tokens_in or 0) + (answer.tokens_out or 0) \
                    if answer.tokens_in is not None or answer.tokens_out is not None else None
                if self._switched:
                    self._switched = False
                    remember_token_limit_field(settings.base_url, settings.model, self.limit_field)
                log.debug("%s: answered in %.2f s (finish_reason=%s)", label, answer.latency_s,
                          self.secrets.redact_optional(answer.finish_reason))
                return answer
            except openai.APIStatusError as error:
                headers = error.response.headers
                code = error.status_code
                if code in (401, 403):
                    raise ChatFailure("fatal", f"{settings.base_url}: the endpoint refused the API key ({code})",
                                      attempt) from None
                if code == 404:
                    raise ChatFailure("fatal", self._not_found(error), attempt) from None
                switch = self._other_limit_field(error, tried) if code == 400 else None
                if switch is not None:  # not a failed attempt: the same request, named as the endpoint wants it
                    self._switch_limit_field(switch, error, label)
                    tried.add(switch)
                    attempt -= 1
                    continue
                if code < 500 and code not in RETRIED_STATUS:
                    raise ChatFailure("rejected", f"the endpoint rejected the request ({code}): "
                                                  f"{server_message(error)}", attempt) from None
                problem, wait = f"HTTP {code}: {server_message(error)}", _retry_after(error.response.headers)
            except ResponseLimitExceeded as error:
                if error.kind == "size":  # asking again would read the same flood
                    raise ChatFailure("instance", self.one_line(error.message), attempt) from None
                problem = error.message
            except (openai.APITimeoutError, TimeoutError):
                problem = f"no answer within {settings.timeout_s:g} s"
            except openai.APIConnectionError as error:
                cause = error.__cause__ or error
                problem = f"cannot reach {settings.base_url} ({type(cause).__name__}: {cause})"
            except MalformedAnswer as error:
                problem = str(error)
            except openai.OpenAIError as error:  # anything else the client raises: this request only
                raise ChatFailure("instance", f"the client failed: {type(error).__name__}: {error}", attempt) from None
            finally:
                self.pacer.done(headers, used)
            problem = self.one_line(problem)
            if attempt > settings.retries:
                raise ChatFailure("transport", f"{problem} (gave up after {attempt} attempts)", attempt)
            delay = wait if wait is not None else _backoff(attempt, self.backoff_base_s)
            log.warning("%s: %s; retry %d of %d in %.2f s", label, problem, attempt, settings.retries, delay)
            await asyncio.sleep(delay)

    def _limit(self, field: str) -> int | openai.Omit:
        """The output-token limit when `field` is sent (both are, as by the paper, by default), else left out."""
        return self.settings.max_tokens if self.limit_field in (BOTH_LIMITS, field) else openai.omit

    def _other_limit_field(self, error: openai.APIStatusError, tried: set[str]) -> str | None:
        """The field to send alone after a 400 that names a limit field, or None (no such 400, forced, or both
        fields alone already refused for this request)."""
        if not self._adapts:
            return None
        refused = refused_limit_field(error)
        if refused is None:
            return None
        other = MAX_COMPLETION_TOKENS if refused == MAX_TOKENS else MAX_TOKENS
        return None if other in tried else other

    def _switch_limit_field(self, field: str, error: openai.APIStatusError, label: str) -> None:
        if field != self.limit_field:
            log.warning("%s: %s refused the token limit as sent (%s); sending %s alone from now on (remembered for "
                        "%s once it is answered)", label, self.settings.base_url,
                        self.one_line(server_message(error)), field, self.settings.model)
            self.limit_field, self._switched = field, True

    def one_line(self, text: str) -> str:
        """One line, not too long, and never a key the client sent (a server may echo it)."""
        return clip(" ".join(valid_text(self.secrets.redact(text)).split()), 300)

    def _not_found(self, error: openai.APIStatusError) -> str:
        message = server_message(error)
        if error.code == "model_not_found" or "model" in message.lower():
            return f"model '{self.settings.model}' not found at {self.settings.base_url} (404: {message})"
        return (f"{self.settings.base_url}/chat/completions: not found (404); check the endpoint URL "
                "(it usually ends in /v1)")


def ask(settings: RunSettings, messages: list[dict[str, str]], *, api_key: str | None = None,
        cache: AnswerCache | None = None, label: str = "request", cancel: threading.Event | None = None,
        backoff_base_s: float = BACKOFF_BASE_S) -> tuple[ChatAnswer, bool]:
    """One request on the calling thread: (answer, whether it came from the cache). Raises ChatFailure.

    Caching follows the model runner: keyed by the messages' hash, URL, model, temperature and
    token limit; read only with `settings.use_cache`, always written after a fresh answer.
    """
    system = next((m["content"] for m in messages if m["role"] == "system"), "")
    user = "\n".join(m["content"] for m in messages if m["role"] != "system")
    identity = cache_key(prompt_hash(system, user), settings)
    cache = cache if cache is not None and cache.available else None
    if cache is not None and settings.use_cache:
        hit = cache.get(identity)
        if hit is not None:
            return from_cache(hit), True
    requester = ChatRequester(settings, api_key, backoff_base_s)
    answer = asyncio.run(_ask_cancellable(requester, messages, label, cancel))
    if cache is not None:
        cache.put(identity, to_cache(answer))
    return answer, False


def from_cache(hit: CachedAnswer) -> ChatAnswer:
    return ChatAnswer(hit.content, hit.finish_reason, hit.tokens_in, hit.tokens_out, hit.latency_s,
                      reasoning=hit.reasoning, reasoning_tokens=hit.reasoning_tokens)


def to_cache(answer: ChatAnswer, prompt_wording: str = "") -> CachedAnswer:
    return CachedAnswer(answer.content, answer.finish_reason, answer.tokens_in, answer.tokens_out, answer.latency_s,
                        now_iso(), prompt_wording, answer.reasoning, answer.reasoning_tokens)


async def _ask_cancellable(requester: ChatRequester, messages, label: str,
                           cancel: threading.Event | None) -> ChatAnswer:
    client = requester.open_client()
    try:
        task = asyncio.create_task(requester.request(client, messages, label))
        while not task.done():
            if cancel is not None and cancel.is_set():
                task.cancel()
                raise ChatFailure("cancelled", "cancelled", 0)
            await asyncio.wait({task}, timeout=POLL_S)
        return task.result()
    finally:
        await client.close()


def _read_completion(body: bytes) -> ChatAnswer:
    try:
        data = parse_json(body.decode("utf-8"))  # never a RecursionError, whatever the nesting
    except ValueError:  # UnicodeDecodeError too
        raise MalformedAnswer(f"the answer is not JSON ({clip(body.decode('utf-8', 'replace'), 80)!r})") from None
    return completion_from(data)


def completion_from(data: object) -> ChatAnswer:
    """content, finish_reason and usage of choices[0] of a decoded completion (`core.safe_files.parse_json`: a number
    too long to read is a `Refused` marker, and no count); MalformedAnswer when it is not a chat completion."""
    if isinstance(data, dict) and "choices" not in data and isinstance(data.get("error"), (dict, str)):
        error = data["error"]
        detail = error.get("message") if isinstance(error, dict) else error
        raise MalformedAnswer(f"the endpoint answered with an error: {detail}")
    choices = data.get("choices") if isinstance(data, dict) else None
    choice = choices[0] if isinstance(choices, list) and choices else None
    message = choice.get("message") if isinstance(choice, dict) else None
    if not isinstance(data, dict) or not isinstance(choice, dict) or not isinstance(message, dict):
        raise MalformedAnswer("the answer is not a chat completion (no choices[0].message)")
    content = message.get("content")
    if content is not None and not isinstance(content, str):
        raise MalformedAnswer(f"the answer's content is a {type(content).__name__}, not text")
    finish_reason = choice.get("finish_reason")
    usage: dict = data["usage"] if isinstance(data.get("usage"), dict) else {}
    details = usage.get("completion_tokens_details")
    reasoning_tokens = _count_or_none(details.get("reasoning_tokens")) if isinstance(details, dict) else None
    tokens_in, tokens_out = _count_or_none(usage.get("prompt_tokens")), _count_or_none(usage.get("completion_tokens"))
    return ChatAnswer(valid_text(content), valid_text(finish_reason) if isinstance(finish_reason, str) else None,
                      tokens_in, _output_tokens(tokens_in, tokens_out, reasoning_tokens, usage.get("total_tokens")),
                      None, reasoning=_reasoning(message, content), reasoning_tokens=reasoning_tokens)


def _output_tokens(tokens_in: int | None, completion: int | None, reasoning: int | None, total) -> int | None:
    """Every generated token, thinking included, counted once: `completion_tokens` holds the reasoning tokens
    (OpenAI, vLLM, DeepSeek), except from gateways that leave them out (Gemini's thoughts through some proxies),
    which shows as total_tokens = prompt + completion + reasoning; their reasoning tokens are then added."""
    total = _count_or_none(total)
    if tokens_in is None or completion is None or not reasoning or total is None:
        return completion
    return completion + reasoning if total == tokens_in + completion + reasoning else completion


def _reasoning(message: dict, content: str | None) -> str | None:
    """The thinking beside the answer: vLLM's `reasoning` (`reasoning_content` before vLLM 0.10), DeepSeek's and
    LM Studio's `reasoning_content`, else a leading think block inside `content` (servers without a reasoning
    parser). A field that is not text is ignored; empty thinking is None."""
    for name in REASONING_FIELDS:
        value = message.get(name)
        if isinstance(value, str) and value.strip():
            return valid_text(value)
    return valid_text(thinking_text(content)) or None


@overload
def valid_text(text: str) -> str: ...
@overload
def valid_text(text: None) -> None: ...
def valid_text(text: str | None) -> str | None:
    """`text` with every lone surrogate (a JSON `\\ud800` escape with no pair) replaced by U+FFFD:
    such text cannot be encoded, stored or printed. `core.scoring.answers` reports the replacements."""
    return text if text is None else _LONE_SURROGATE.sub(REPLACEMENT_CHARACTER, text)


def _count_or_none(value) -> int | None:
    """A token count, or None for what is not one (not an integer, negative, or past what SQLite stores)."""
    return value if isinstance(value, int) and not isinstance(value, bool) and 0 <= value <= INT64[1] else None


def server_message(error: openai.APIStatusError) -> str:
    """What a refusing server said: its JSON error message, else the start of its body, else the HTTP reason."""
    body = error.body
    if isinstance(body, dict):
        inner = body.get("error")
        message = body.get("message") or (inner.get("message") if isinstance(inner, dict) else inner)
        if message:
            return str(message)
    text = error.response.text if error.response is not None else ""
    return clip(" ".join(text.split()), 120) or error.response.reason_phrase or "no details"


def refused_limit_field(error: openai.APIStatusError) -> str | None:
    """The token limit field a 400 refuses as a parameter: its `param` when that is one, else the first of the
    two its message names ("Unsupported parameter: 'max_tokens' ... Use 'max_completion_tokens' instead",
    "max_tokens and max_completion_tokens cannot both be set"); None for any other 400, also one naming a field
    for its value ("max_tokens is too large": the other field would carry the same value)."""
    body: dict = error.body if isinstance(error.body, dict) else {}
    inner = body.get("error")
    details = inner if isinstance(inner, dict) else body
    message = server_message(error)
    if not (_PARAMETER_REFUSED.search(message) or details.get("code") == "unsupported_parameter"):
        return None
    param = details.get("param")
    if param in (MAX_TOKENS, MAX_COMPLETION_TOKENS):
        return str(param)
    found = {name: match.start() for name in (MAX_TOKENS, MAX_COMPLETION_TOKENS)
             if (match := re.search(rf"\b{name}\b", message)) is not None}
    return min(found, key=found.__getitem__) if found else None


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


def clip(text: str, limit: int) -> str:
    return text if len(text) <= limit else text[:limit - 1] + "…"
