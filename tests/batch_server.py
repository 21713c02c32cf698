"""A real HTTP server speaking OpenAI's files and batches endpoints and Anthropic's Message Batches, for the batch
tests (the sibling of tests/llm_server.py, which speaks chat completions).

    with FakeBatchServer(demo_truth_answers(ws_path)) as server:
        traceeval batch prepare --provider openai --base-url server.base_url ...

- OpenAI: `POST /v1/files` (multipart upload, purpose batch), `GET /v1/files/{id}/content`, `POST /v1/batches`,
  `GET /v1/batches` (the list), `GET /v1/batches/{id}`, `POST /v1/batches/{id}/cancel`. Each retrieve is a poll:
  `validating`, then `in_progress`, then `completed` with an output file (answers) and an error file (errored,
  expired or cancelled requests).
- Anthropic: `POST /v1/messages/batches`, `GET /v1/messages/batches/{id}`, `GET .../{id}/results`,
  `POST .../{id}/cancel`: `in_progress` until `ended`, results as JSONL of succeeded / errored / expired / canceled.
Each request is answered from `answers` (prompt hash -> text); `fate(custom_id)` can make one errored or expired,
and a model in `refuses_max_tokens` refuses a request that sends `max_tokens` (OpenAI's o-series do).
Batch n (from 0) ends after `ends_after + n * stagger` polls. Inputs are checked as the services check them (an
Anthropic custom_id is 1-64 characters of [A-Za-z0-9_-], unique in its batch; an OpenAI line names POST and the
batch's endpoint), and a bad one is refused the way each service refuses it.
"""
from __future__ import annotations

import email.parser
import email.policy
import json
import re
import threading
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

from core.llm.prompts import prompt_hash
from tests.llm_server import request_prompt_hash

ANTHROPIC_ID = re.compile(r"[a-zA-Z0-9_-]{1,64}")
USAGE = (100, 20)


@dataclass
class _Batch:
    id: str
    kind: str  # openai | anthropic
    number: int
    requests: list[dict]
    input_file_id: str = ""
    polls: int = 0
    status: str = ""
    cancelled: bool = False
    errors: list[dict] = field(default_factory=list)
    output_file_id: str = ""
    error_file_id: str = ""
    results: bytes = b""


class FakeBatchServer:
    def __init__(self, answers: Mapping[str, str], *, ends_after: int = 3, stagger: int = 0,
                 fate: Callable[[str], str] | None = None, api_key: str | None = None,
                 refuses_max_tokens: tuple[str, ...] = ()):
        self.answers, self.ends_after, self.stagger = dict(answers), ends_after, stagger
        self.fate = fate or (lambda custom_id: "succeeded")
        self.api_key = api_key
        self.refuses_max_tokens = refuses_max_tokens  # models that refuse `max_tokens`, as OpenAI's o-series do
        # a hostile server: (method, path) -> (status, headers, body) replaces the service's own answer when not None
        self.override: Callable[[str, str], tuple[int, dict[str, str], bytes] | None] = lambda method, path: None
        self.files: dict[str, bytes] = {}
        self.batches: dict[str, _Batch] = {}
        self.log: list[tuple[str, str, dict[str, str]]] = []  # (method, path, headers)
        self._lock = threading.Lock()
        self._httpd = ThreadingHTTPServer(("127.0.0.1", 0), _handler_class(self))
        self._httpd.daemon_threads = True
        self._thread = threading.Thread(target=self._httpd.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True)
        self._thread.start()

    @property
    def base_url(self) -> str:
        host, port = self._httpd.server_address[:2]
        return f"http://{host}:{port}/v1"

    def polls(self) -> int:
        with self._lock:
            return sum(b.polls for b in self.batches.values())

    def __enter__(self) -> FakeBatchServer:
        return self

    def __exit__(self, *exc) -> None:
        self._httpd.shutdown()
        self._httpd.server_close()

    # -- the services, under the lock ------------------------------------------------------------------------
    def upload(self, data: bytes) -> dict:
        file_id = f"file-{len(self.files) + 1:04d}"
        self.files[file_id] = data
        return _file(file_id, len(data))

    def create_openai(self, body: dict) -> tuple[int, dict]:
        file_id = body.get("input_file_id")
        if file_id not in self.files:
            return 404, _error(f"No such File object: {file_id}")
        if body.get("endpoint") != "/v1/chat/completions" or body.get("completion_window") != "24h":
            return 400, _error("endpoint must be /v1/chat/completions and completion_window 24h")
        batch = _Batch(f"batch_{len(self.batches) + 1:04d}", "openai", len(self.batches), [], file_id,
                       status="validating")
        seen = set()
        for number, line in enumerate(self.files[file_id].splitlines(), start=1):
            try:
                record = json.loads(line)
                custom_id = record["custom_id"]
                assert isinstance(custom_id, str) and custom_id not in seen
                assert record["method"] == "POST" and record["url"] == "/v1/chat/completions"
                assert isinstance(record["body"]["messages"], list) and record["body"]["model"]
            except (ValueError, KeyError, TypeError, AssertionError):
                batch.errors.append({"code": "invalid_request", "message": f"line {number} is not a valid request",
                                     "line": number})
                continue
            seen.add(custom_id)
            batch.requests.append(record)
        self.batches[batch.id] = batch
        return 200, self._openai_view(batch)

    def create_anthropic(self, body: dict) -> tuple[int, dict]:
        requests = body.get("requests")
        if not isinstance(requests, list) or not requests:
            return 400, _anthropic_error("requests: a non-empty list is required")
        seen = set()
        for request in requests:
            custom_id = request.get("custom_id") if isinstance(request, dict) else None
            if not isinstance(custom_id, str) or not ANTHROPIC_ID.fullmatch(custom_id):
                return 400, _anthropic_error(f"requests.custom_id: String should match pattern "
                                             f"'^[a-zA-Z0-9_-]{{1,64}}$' ({custom_id!r})")
            params = request.get("params")
            if custom_id in seen or not isinstance(params, dict) or not isinstance(params.get("max_tokens"), int) \
                    or not isinstance(params.get("messages"), list) or not params.get("model"):
                return 400, _anthropic_error(f"request {custom_id}: invalid or duplicate")
            seen.add(custom_id)
        batch = _Batch(f"msgbatch_{len(self.batches) + 1:04d}", "anthropic", len(self.batches), requests,
                       status="in_progress")
        self.batches[batch.id] = batch
        return 200, self._anthropic_view(batch)

    def poll(self, batch: _Batch) -> None:
        batch.polls += 1
        ended = batch.cancelled or (batch.status not in ("failed",) and
                                    batch.polls >= self.ends_after + batch.number * self.stagger)
        if batch.kind == "openai":
            if batch.status in ("completed", "failed", "cancelled"):
                return
            if batch.errors:
                batch.status = "failed"
            elif ended:
                self._finish_openai(batch)
            elif batch.polls >= 1:
                batch.status = "in_progress"
        elif batch.status != "ended" and ended:
            self._finish_anthropic(batch)

    def _answer(self, custom_id: str, phash: str) -> tuple[str, str | None]:
        fate = self.fate(custom_id)
        text = self.answers.get(phash)
        if fate == "succeeded" and text is None:
            return "errored", None
        return fate, text

    def _finish_openai(self, batch: _Batch) -> None:
        output, errors = [], []
        for n, record in enumerate(batch.requests):
            custom_id = record["custom_id"]
            fate, text = ("cancelled", None) if batch.cancelled else self._answer(
                custom_id, request_prompt_hash(record["body"]))
            line = {"id": f"batch_req_{n}", "custom_id": custom_id}
            if record["body"]["model"] in self.refuses_max_tokens and "max_tokens" in record["body"]:
                errors.append({**line, "response": {"status_code": 400, "request_id": f"req_{n}", "body": {"error": {
                    "message": "Unsupported parameter: 'max_tokens' is not supported with this model. Use "
                               "'max_completion_tokens' instead.", "type": "invalid_request_error"}}}, "error": None})
                continue
            if fate == "succeeded":
                output.append({**line, "response": {"status_code": 200, "request_id": f"req_{n}", "body": _completion(
                    text, record["body"]["model"])}, "error": None})
            elif fate == "errored":
                errors.append({**line, "response": {"status_code": 400, "request_id": f"req_{n}", "body": {
                    "error": {"message": "unknown prompt", "type": "invalid_request_error"}}}, "error": None})
            else:
                code = "batch_cancelled" if fate == "cancelled" else "batch_expired"
                errors.append({**line, "response": None, "error": {"code": code, "message": f"request {fate}"}})
        if output:
            batch.output_file_id = self.upload(_jsonl(output))["id"]
        if errors:
            batch.error_file_id = self.upload(_jsonl(errors))["id"]
        batch.status = "cancelled" if batch.cancelled else "completed"

    def _finish_anthropic(self, batch: _Batch) -> None:
        lines = []
        for request in batch.requests:
            params = request["params"]
            fate, text = ("canceled", None) if batch.cancelled else self._answer(
                request["custom_id"], prompt_hash(params.get("system", ""), params["messages"][0]["content"]))
            if fate == "succeeded":
                result = {"type": "succeeded", "message": {
                    "id": "msg_fake", "type": "message", "role": "assistant", "model": params["model"],
                    "content": [{"type": "text", "text": text}], "stop_reason": "end_turn", "stop_sequence": None,
                    "usage": {"input_tokens": USAGE[0], "output_tokens": USAGE[1]}}}
            elif fate == "errored":
                result = {"type": "errored", "error": {"type": "error", "error": {
                    "type": "invalid_request_error", "message": "unknown prompt"}}}
            else:
                result = {"type": "canceled" if fate in ("canceled", "cancelled") else "expired"}
            lines.append({"custom_id": request["custom_id"], "result": result})
        batch.results = _jsonl(lines)
        batch.status = "ended"

    def _openai_view(self, batch: _Batch) -> dict:
        done = batch.status in ("completed", "cancelled")
        failed = sum(1 for line in self.files.get(batch.error_file_id, b"").splitlines())
        total = len(batch.requests)
        return {"id": batch.id, "object": "batch", "endpoint": "/v1/chat/completions",
                "errors": {"object": "list", "data": batch.errors} if batch.errors else None,
                "input_file_id": batch.input_file_id, "completion_window": "24h", "status": batch.status,
                "output_file_id": batch.output_file_id or None, "error_file_id": batch.error_file_id or None,
                "created_at": int(time.time()), "request_counts": {
                    "total": total, "completed": total - failed if done else 0, "failed": failed},
                "metadata": None}

    def _anthropic_view(self, batch: _Batch) -> dict:
        ended = batch.status == "ended"
        counts = {"processing": 0 if ended else len(batch.requests), "succeeded": 0, "errored": 0, "canceled": 0,
                  "expired": 0}
        for line in batch.results.splitlines():
            counts[json.loads(line)["result"]["type"]] += 1
        return {"id": batch.id, "type": "message_batch", "processing_status": batch.status,
                "request_counts": counts, "ended_at": "2026-01-01T00:00:00Z" if ended else None,
                "created_at": "2026-01-01T00:00:00Z", "expires_at": "2026-01-02T00:00:00Z",
                "cancel_initiated_at": None, "archived_at": None,
                "results_url": f"{self.base_url}/messages/batches/{batch.id}/results" if ended else None}


def _file(file_id: str, size: int) -> dict:
    return {"id": file_id, "object": "file", "bytes": size, "created_at": int(time.time()), "filename": "input.jsonl",
            "purpose": "batch", "status": "processed"}


def _completion(text: str | None, model: str) -> dict:
    return {"id": "chatcmpl-fake", "object": "chat.completion", "created": int(time.time()), "model": model,
            "choices": [{"index": 0, "message": {"role": "assistant", "content": text}, "finish_reason": "stop"}],
            "usage": {"prompt_tokens": USAGE[0], "completion_tokens": USAGE[1], "total_tokens": sum(USAGE)}}


def _jsonl(records: list[dict]) -> bytes:
    return b"".join(json.dumps(r).encode() + b"\n" for r in records)


def _error(message: str) -> dict:
    return {"error": {"message": message, "type": "invalid_request_error", "param": None, "code": None}}


def _anthropic_error(message: str) -> dict:
    return {"type": "error", "error": {"type": "invalid_request_error", "message": message}}


def _multipart_file(content_type: str, body: bytes) -> tuple[bytes | None, str | None]:
    """The `file` part and the `purpose` field of a multipart/form-data upload."""
    message = email.parser.BytesParser(policy=email.policy.HTTP).parsebytes(
        f"Content-Type: {content_type}\r\n\r\n".encode() + body)
    data, purpose = None, None
    for part in message.iter_parts():
        name = part.get_param("name", header="content-disposition")
        if name == "file":
            data = part.get_payload(decode=True)
        elif name == "purpose":
            purpose = part.get_content().strip()
    return data, purpose


def _handler_class(server: FakeBatchServer) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        def log_message(self, *args) -> None:
            pass

        def do_GET(self) -> None:
            self._serve("GET", b"")

        def do_POST(self) -> None:
            length = int(self.headers.get("Content-Length") or 0)
            self._serve("POST", self.rfile.read(length) if length else b"")

        def _serve(self, method: str, body: bytes) -> None:
            path = self.path.split("?")[0].rstrip("/")
            headers = {k.lower(): v for k, v in self.headers.items()}
            with server._lock:
                server.log.append((method, path, headers))
                hostile = server.override(method, path)
                if hostile is not None:
                    code, extra, data = hostile
                    self._send(code, data, "application/json", extra)
                    return
                if server.api_key and not self._authorised(path, headers):
                    self._json(401, _error("invalid api key"))
                    return
                self._route(method, path, body, headers)

        def _authorised(self, path: str, headers: dict[str, str]) -> bool:
            if path.startswith("/v1/messages/"):
                return headers.get("x-api-key") == server.api_key and headers.get("anthropic-version") == "2023-06-01"
            return headers.get("authorization") == f"Bearer {server.api_key}"

        def _route(self, method: str, path: str, body: bytes, headers: dict[str, str]) -> None:
            parts = path.split("/")[2:]  # after /v1
            if method == "POST" and parts == ["files"]:
                data, purpose = _multipart_file(headers.get("content-type", ""), body)
                if data is None or purpose != "batch":
                    self._json(400, _error("a file and purpose=batch are required"))
                else:
                    self._json(200, server.upload(data))
            elif method == "GET" and len(parts) == 3 and parts[0] == "files" and parts[2] == "content":
                if parts[1] in server.files:
                    self._send(200, server.files[parts[1]], "application/octet-stream")
                else:
                    self._json(404, _error("no such file"))
            elif method == "GET" and parts == ["batches"]:  # newest first, as the service lists them
                views = [server._openai_view(b) for b in reversed(server.batches.values()) if b.kind == "openai"]
                self._json(200, {"object": "list", "data": views, "has_more": False,
                                 "first_id": views[0]["id"] if views else None,
                                 "last_id": views[-1]["id"] if views else None})
            elif method == "POST" and parts == ["batches"]:
                self._json(*server.create_openai(json.loads(body or b"{}")))
            elif parts[:1] == ["batches"] and len(parts) >= 2 and parts[1] in server.batches:
                batch = server.batches[parts[1]]
                if method == "POST" and parts[2:] == ["cancel"]:
                    batch.cancelled, batch.status = True, "cancelling"
                    self._json(200, server._openai_view(batch))
                else:
                    server.poll(batch)
                    self._json(200, server._openai_view(batch))
            elif method == "POST" and parts == ["messages", "batches"]:
                self._json(*server.create_anthropic(json.loads(body or b"{}")))
            elif parts[:2] == ["messages", "batches"] and len(parts) >= 3 and parts[2] in server.batches:
                batch = server.batches[parts[2]]
                if parts[3:] == ["results"]:
                    if batch.status != "ended":
                        self._json(400, _anthropic_error("the batch has not ended"))
                    else:
                        self._send(200, batch.results, "application/binary")
                elif method == "POST" and parts[3:] == ["cancel"]:
                    batch.cancelled = True
                    self._json(200, server._anthropic_view(batch))
                else:
                    server.poll(batch)
                    self._json(200, server._anthropic_view(batch))
            else:
                self._json(404, _error(f"no route {method} {path}"))

        def _json(self, code: int, data: dict) -> None:
            self._send(code, json.dumps(data).encode(), "application/json")

        def _send(self, code: int, data: bytes, content_type: str, extra: dict[str, str] | None = None) -> None:
            try:
                self.send_response(code)
                self.send_header("Content-Type", content_type)
                for name, value in (extra or {}).items():
                    self.send_header(name, value)
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)
            except (BrokenPipeError, ConnectionResetError):
                pass

    return Handler
