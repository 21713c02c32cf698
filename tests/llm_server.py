"""A real HTTP server speaking the OpenAI chat-completions API, for tests of the model runner.

    with FakeChatServer(truth_answers(answers)) as server:
        run_model(ws, RunSettings(server.base_url, "fake-model"), keys)

Each request is answered by `responder(request, attempt) -> Reply`, where `attempt` counts how
often the same prompt (system + user message) has been seen, from 1. Replies: `ok`, `counted` (usage counted
as the dry run estimates), `status`, `hang`, `raw`, `truncated`, `empty`; `seeded_answers` answers by the
request's seed. Every request is recorded (body, headers, arrival time)
and the largest number of requests in flight at once is kept.
"""
from __future__ import annotations

import dataclasses
import json
import math
import threading
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

from core.dataset.indexing import open_dataset
from core.llm.prompts import approximate_tokens, build_prompt, prompt_hash
from core.records import CallGraph
from resources import DEMO_DATASET


@dataclass(frozen=True)
class Reply:
    status: int = 200
    body: bytes = b""
    content_type: str = "application/json"
    headers: Mapping[str, str] = field(default_factory=dict)
    delay_s: float = 0.0  # wait before answering (a hang)
    content_length: int | None = None  # a lying Content-Length makes a truncated body


Responder = Callable[[dict, int], Reply]


def ok(content: str | None, finish_reason: str = "stop", usage: tuple[int, int] | None = (100, 20),
       model: str = "fake-model", delay_s: float = 0.0, message: Mapping[str, object] | None = None,
       reasoning_tokens: int | None = None, headers: Mapping[str, str] | None = None,
       total_tokens: int | None = None) -> Reply:
    """A proper chat.completion; `message` adds fields to the message (`reasoning`, `reasoning_content`), and
    `reasoning_tokens` goes into `usage.completion_tokens_details` as OpenAI reports it; `total_tokens` overrides
    the usage's total (a gateway counting the reasoning tokens outside `completion_tokens`)."""
    body: dict = {"id": "chatcmpl-fake", "object": "chat.completion", "created": int(time.time()), "model": model,
                  "choices": [{"index": 0, "message": {"role": "assistant", "content": content, **(message or {})},
                               "finish_reason": finish_reason}]}
    if usage is not None:
        body["usage"] = {"prompt_tokens": usage[0], "completion_tokens": usage[1],
                         "total_tokens": sum(usage) if total_tokens is None else total_tokens}
        if reasoning_tokens is not None:
            body["usage"]["completion_tokens_details"] = {"reasoning_tokens": reasoning_tokens}
    return Reply(200, json.dumps(body).encode(), delay_s=delay_s, headers=dict(headers or {}))


def counted(content: str, request: dict, finish_reason: str = "stop") -> Reply:
    """`ok` with usage counted as the dry run estimates it (core.llm.dry_run): the approximate tokens of each message,
    summed, in; the answer's approximate tokens out."""
    prompt = sum(approximate_tokens(len(m.get("content") or "")) for m in request.get("messages", []))
    return ok(content, finish_reason, (prompt, approximate_tokens(len(content))))


def seeded_answers(answers: Mapping[str, str], vary: Callable[[int | None, str, str], str]) -> Responder:
    """Answer prompts by their hash as `truth_answers` does, the text passed through `vary(seed, prompt hash, text)`
    (the request's `seed`, None without one), with usage `counted`: a model whose answers change with the seed."""
    def respond(request: dict, attempt: int) -> Reply:
        key = request_prompt_hash(request)
        text = answers.get(key)
        if text is None:
            return status(400, {"error": {"message": "unknown prompt", "type": "invalid_request_error"}})
        seed = request.get("seed")
        return counted(vary(seed if isinstance(seed, int) else None, key, text), request)
    return respond


def empty(null: bool = False) -> Reply:
    """A successful answer with no text ("" or null content)."""
    return ok(None if null else "")


def status(code: int, body: dict | str | None = None, headers: Mapping[str, str] | None = None) -> Reply:
    """An error status; the default body is an OpenAI-style error JSON."""
    if body is None:
        body = {"error": {"message": f"fake error {code}", "type": "fake_error", "param": None, "code": None}}
    data = body.encode() if isinstance(body, str) else json.dumps(body).encode()
    return Reply(code, data, headers=dict(headers or {}))


def hang(seconds: float, then: Reply | None = None) -> Reply:
    """Wait `seconds` before answering (to trigger client timeouts)."""
    then = then or ok("1. too late")
    return Reply(then.status, then.body, then.content_type, then.headers, delay_s=seconds)


def raw(body: bytes, content_type: str = "application/json", status_code: int = 200) -> Reply:
    """Any bytes (malformed JSON, a wrong content type...)."""
    return Reply(status_code, body, content_type)


def truncated(reply: Reply | None = None, keep: int = 20) -> Reply:
    """The start of a reply with a Content-Length for all of it: the connection closes early."""
    reply = reply or ok("1. main.run")
    return Reply(reply.status, reply.body[:keep], reply.content_type, reply.headers,
                 content_length=len(reply.body))


PAIR_REFUSED = "max_tokens and max_completion_tokens cannot both be set"  # a provider refusing the paper's pair


def refusing(field: str, then: Responder, message: str | None = None) -> Responder:
    """A server that answers 400 to every request naming token limit `field` ("both": naming both at once),
    as OpenAI's o-series and GPT-5 do (`param` set: "Unsupported parameter: 'max_tokens' is not supported with
    this model. Use 'max_completion_tokens' instead.") or, with `message` (and for "both"), with a message only;
    other requests go to `then`."""
    def respond(request: dict, attempt: int) -> Reply:
        named = {"max_tokens", "max_completion_tokens"} & set(request)
        if named == {"max_tokens", "max_completion_tokens"} if field == "both" else field in named:
            if field == "both" or message:
                error = {"message": message or PAIR_REFUSED, "type": "invalid_request_error"}
            else:
                other = "max_tokens" if field == "max_completion_tokens" else "max_completion_tokens"
                error = {"message": f"Unsupported parameter: '{field}' is not supported with this model. Use "
                                    f"'{other}' instead.", "type": "invalid_request_error", "param": field,
                         "code": "unsupported_parameter"}
            return status(400, {"error": error})
        return then(request, attempt)
    return respond


class RateLimited:
    """A provider's request budget in front of `then`: `limit` requests per fixed window of `window_s` seconds.
    Every answer says what is left, in OpenAI's headers (`x-ratelimit-remaining-requests` falling as requests
    arrive, `x-ratelimit-reset-requests` as `NNNms`) or Anthropic's (`anthropic-ratelimit-requests-*`, the reset
    an RFC 3339 time); with `headers=False` it says nothing. A request over the budget gets a 429 (counted in
    `refused`) with `retry-after`."""

    def __init__(self, then: Responder, limit: int, window_s: float, style: str = "openai", headers: bool = True):
        self.then, self.limit, self.window_s, self.style, self.headers = then, limit, window_s, style, headers
        self.refused = 0
        self._lock = threading.Lock()
        self._window_start = time.monotonic()
        self._count = 0

    def __call__(self, request: dict, attempt: int) -> Reply:
        with self._lock:
            now = time.monotonic()
            if now - self._window_start >= self.window_s:
                self._window_start += (now - self._window_start) // self.window_s * self.window_s
                self._count = 0
            self._count += 1
            remaining = self.limit - self._count
            reset_s = self._window_start + self.window_s - now
            if remaining < 0:
                self.refused += 1
        said = self._said(max(remaining, 0), reset_s) if self.headers else {}
        if remaining < 0:
            return status(429, {"error": {"message": "Rate limit reached for requests", "type": "requests"}},
                          headers={**said, "retry-after": f"{reset_s:.3f}"})
        reply = self.then(request, attempt)
        return dataclasses.replace(reply, headers={**reply.headers, **said})

    def _said(self, remaining: int, reset_s: float) -> dict[str, str]:
        if self.style == "anthropic":
            reset = datetime.now(UTC) + timedelta(seconds=reset_s)
            return {"anthropic-ratelimit-requests-limit": str(self.limit),
                    "anthropic-ratelimit-requests-remaining": str(remaining),
                    "anthropic-ratelimit-requests-reset": reset.isoformat().replace("+00:00", "Z")}
        return {"x-ratelimit-limit-requests": str(self.limit), "x-ratelimit-remaining-requests": str(remaining),
                "x-ratelimit-reset-requests": f"{math.ceil(reset_s * 1000)}ms"}


@dataclass(frozen=True)
class RecordedRequest:
    path: str
    body: dict
    headers: dict[str, str]
    arrived: float  # time.monotonic()
    attempt: int
    prompt_hash: str


def request_prompt_hash(body: dict) -> str:
    """The prompt hash of a chat request, as `core.llm.prompts.Prompt.hash` computes it (a "developer" message, as
    inspect_ai's OpenAI client sends the system message, counts as the system message)."""
    messages = {m.get("role"): m.get("content", "") for m in body.get("messages", [])}
    return prompt_hash(messages.get("system", messages.get("developer", "")), messages.get("user", ""))


def answer_text(graph: CallGraph) -> str:
    """The numbered answer a perfect model gives for a ground-truth graph."""
    mapping = graph.to_dict()
    return "\n".join(f"{n}. {', '.join(mapping[key])}".rstrip() for n, key in enumerate(graph.keys, start=1))


def demo_truth_answers(workspace: str | Path | None = None) -> dict[str, str]:
    """Per prompt hash of each demo program, the answer that matches its ground truth."""
    return demo_answers_and_keys(workspace)[0]


def demo_answers_and_keys(workspace: str | Path | None = None) -> tuple[dict[str, str], list[str]]:
    """`demo_truth_answers`, and the demo's program keys in the workspace's order."""
    ws, _ = open_dataset(DEMO_DATASET, workspace)
    with ws:
        instances = [ws.instance(row.key) for row in ws.instance_rows()]
    answers = {build_prompt(instance).hash: answer_text(instance.ground_truth) for instance in instances}
    return answers, [instance.key for instance in instances]


def truth_answers(answers: Mapping[str, str], otherwise: Reply | None = None) -> Responder:
    """Answer prompts by their hash (`build_prompt(instance).hash` -> answer text); an unknown
    prompt gets `otherwise` (a 400 by default)."""
    def respond(request: dict, attempt: int) -> Reply:
        text = answers.get(request_prompt_hash(request))
        if text is None:
            return otherwise or status(400, {"error": {"message": "unknown prompt", "type": "invalid_request_error"}})
        return ok(text)
    return respond


class _Listener(ThreadingHTTPServer):
    request_queue_size = 128  # the default backlog of 5 drops connections with 16 clients at once


class FakeChatServer:
    """`ThreadingHTTPServer` on 127.0.0.1 (a free port) in a daemon thread; a context manager."""

    def __init__(self, responder: Responder | None = None, models: tuple[str, ...] = ("fake-model",)):
        self.responder: Responder = responder or (lambda request, attempt: ok("1."))
        self.models = models
        self.requests: list[RecordedRequest] = []
        self.in_flight = 0
        self.max_in_flight = 0
        self._attempts: dict[str, int] = {}
        self._lock = threading.Lock()
        self._stopping = threading.Event()
        self._httpd = _Listener(("127.0.0.1", 0), _handler_class(self))
        self._httpd.daemon_threads = True
        self._thread = threading.Thread(target=self._httpd.serve_forever, kwargs={"poll_interval": 0.05},
                                        daemon=True)
        self._thread.start()
        self._stopped = False

    @property
    def base_url(self) -> str:
        host, port = self._httpd.server_address[:2]
        return f"http://{host}:{port}/v1"

    def chat_requests(self) -> list[RecordedRequest]:
        with self._lock:
            return [r for r in self.requests if r.path.endswith("/chat/completions")]

    def stop(self) -> None:
        """Close the listening socket: the endpoint vanishes (hanging replies end at once)."""
        if self._stopped:
            return
        self._stopped = True
        self._stopping.set()
        self._httpd.shutdown()
        self._httpd.server_close()

    def __enter__(self) -> FakeChatServer:
        return self

    def __exit__(self, *exc) -> None:
        self.stop()

    # -- called by the handler threads -------------------------------------------------------
    def _record(self, path: str, body: dict, headers: dict[str, str]) -> RecordedRequest:
        key = request_prompt_hash(body)
        with self._lock:
            self._attempts[key] = attempt = self._attempts.get(key, 0) + 1
            record = RecordedRequest(path, body, headers, time.monotonic(), attempt, key)
            self.requests.append(record)
            self.in_flight += 1
            self.max_in_flight = max(self.max_in_flight, self.in_flight)
        return record

    def _done(self) -> None:
        with self._lock:
            self.in_flight -= 1


def _handler_class(server: FakeChatServer) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        def log_message(self, *args) -> None:  # keep test output quiet
            pass

        def do_GET(self) -> None:
            if self.path.rstrip("/").endswith("/models"):
                data = {"object": "list", "data": [{"id": m, "object": "model", "created": 0, "owned_by": "fake"}
                                                   for m in server.models]}
                self._send(Reply(200, json.dumps(data).encode()))
            else:
                self._send(status(404))

        def do_POST(self) -> None:
            length = int(self.headers.get("Content-Length") or 0)
            text = self.rfile.read(length) if length else b""
            if not self.path.rstrip("/").endswith("/chat/completions"):
                self._send(status(404))
                return
            try:
                body = json.loads(text or b"{}")
            except ValueError:
                self._send(status(400, {"error": {"message": "request is not JSON"}}))
                return
            record = server._record(self.path, body, {k.lower(): v for k, v in self.headers.items()})
            try:
                reply = server.responder(body, record.attempt)
                if reply.delay_s and server._stopping.wait(reply.delay_s):
                    return  # the server stopped while this reply hung: drop the connection
                self._send(reply)
            finally:
                server._done()

        def _send(self, reply: Reply) -> None:
            try:
                self.send_response(reply.status)
                self.send_header("Content-Type", reply.content_type)
                for name, value in reply.headers.items():
                    self.send_header(name, value)
                length = reply.content_length if reply.content_length is not None else len(reply.body)
                self.send_header("Content-Length", str(length))
                self.end_headers()
                self.wfile.write(reply.body)
                self.wfile.flush()
            except (BrokenPipeError, ConnectionResetError):
                pass  # the client gave up (timeout or cancel)

    return Handler
