"""The two batch services: OpenAI's Batch API through the `openai` client (files and batches endpoints) and
Anthropic's Message Batches over plain HTTP (urllib: three JSON endpoints do not need the SDK as a dependency).

Each gives the same small surface: `submit` (the input file in, the remote batch out; OpenAI uploads the file
first, and `on_uploaded` lets the caller keep the file id before the batch exists), `retrieve`, `results` (the raw
JSONL of the output and error files) and `cancel`. The API key only goes to the server; every message is one line
without it, and so is every answer read back (`redact`). What a server says is hostile: ids are checked before they
go into a URL, downloads are bounded.
"""
from __future__ import annotations

import re
import urllib.error
import urllib.request
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from functools import cached_property
from pathlib import Path

from core.errors import EndpointError
from core.llm.batches.request_lines import PROVIDERS
from core.llm.batches.results import RESULTS_CAP_BYTES, BatchAnswer
from core.llm.chat import NO_PLACEHOLDER_KEY, clip, server_message
from core.llm.redaction import Secrets
from core.safe_files import open_bytes, parse_json, read_bytes, why_unreadable

ANTHROPIC_VERSION = "2023-06-01"
ADOPT_LOOKBACK = 100  # how many of the latest batches are searched for one made from our upload
OPENAI_ENDED = ("completed", "failed", "expired", "cancelled")
_REMOTE_ID = re.compile(r"[A-Za-z0-9_-]{1,200}")


@dataclass(frozen=True)
class RemoteBatch:
    remote_id: str
    status: str  # the provider's word (validating, in_progress, completed, ...; in_progress, canceling, ended)
    ended: bool
    counts: dict[str, int] = field(default_factory=dict)
    output_file_id: str = ""
    error_file_id: str = ""
    message: str = ""  # why the whole batch failed, when it did


class BatchService:
    provider = ""

    def __init__(self, base_url: str, api_key: str | None, timeout_s: float = 300.0):
        self.base_url, self.timeout_s = base_url.rstrip("/"), timeout_s
        self._api_key = api_key
        self.secrets = Secrets([api_key], ignored=[NO_PLACEHOLDER_KEY])

    def submit(self, input_path: Path, local_id: int, input_file_id: str,
               on_uploaded: Callable[[str], None]) -> RemoteBatch:
        raise NotImplementedError

    def retrieve(self, remote_id: str) -> RemoteBatch:
        raise NotImplementedError

    def results(self, batch: RemoteBatch) -> list[tuple[str, bytes]]:
        raise NotImplementedError

    def cancel(self, remote_id: str) -> RemoteBatch:
        raise NotImplementedError

    def one_line(self, text: str) -> str:
        return clip(" ".join(self.secrets.redact(text).split()), 300)

    def redacted(self, answer: BatchAnswer) -> BatchAnswer:
        """`answer` without the key in any of its texts (a server may echo it)."""
        redact = self.secrets.redact_optional
        return replace(answer, custom_id=self.secrets.redact(answer.custom_id), content=redact(answer.content),
                       finish_reason=redact(answer.finish_reason), error=self.secrets.redact(answer.error),
                       reasoning=redact(answer.reasoning))


def service(provider: str, base_url: str, api_key: str | None, timeout_s: float = 300.0) -> BatchService:
    if provider == "openai":
        return OpenAIBatches(base_url, api_key, timeout_s)
    if provider == "anthropic":
        return AnthropicBatches(base_url, api_key, timeout_s)
    raise EndpointError(f"{provider} batches are not sent to a server: run them with `vllm run-batch`, then "
                        "`traceeval batch collect --file OUTPUT`")


def _input_bound(provider: str) -> int:
    """The largest input file `prepare` writes for `provider` (the service's own limit)."""
    return PROVIDERS[provider].bytes or RESULTS_CAP_BYTES


def checked_id(value, what: str) -> str:
    if not isinstance(value, str) or not _REMOTE_ID.fullmatch(value):
        raise EndpointError(f"the server sent a {what} that is not an id: {clip(repr(value), 60)}")
    return value


class OpenAIBatches(BatchService):
    provider = "openai"

    @cached_property
    def _client(self):
        """One client (one connection pool) for every call of this service."""
        import openai

        return openai.OpenAI(base_url=self.base_url, api_key=self._api_key or NO_PLACEHOLDER_KEY, max_retries=2,
                             timeout=self.timeout_s)

    def _call(self, what: str, call):
        import openai

        try:
            return call(self._client)
        except openai.APIStatusError as error:
            raise EndpointError(self.one_line(f"{self.base_url}: {what} refused ({error.status_code}): "
                                              f"{server_message(error)}")) from None
        except openai.OpenAIError as error:
            raise EndpointError(self.one_line(f"{self.base_url}: {what} failed: {type(error).__name__}: {error}")) \
                from None

    def submit(self, input_path, local_id, input_file_id, on_uploaded):
        if not input_file_id:
            try:
                handle = open_bytes(input_path, _input_bound(self.provider))  # closed below, after the upload
            except OSError as error:
                raise EndpointError(f"{input_path}: the batch input file: {why_unreadable(error)}") from None
            with handle:
                uploaded = self._call("uploading the input file", lambda client: client.files.create(
                    file=(input_path.name, handle), purpose="batch"))
            input_file_id = checked_id(uploaded.id, "file id")
            on_uploaded(input_file_id)
        else:  # uploaded before a crash: the batch may exist already, made just before the crash
            existing = self._batch_of_file(input_file_id)
            if existing is not None:
                return existing
        created = self._call("creating the batch", lambda client: client.batches.create(
            input_file_id=input_file_id, endpoint="/v1/chat/completions", completion_window="24h",
            metadata={"traceeval_batch": str(local_id)}))
        return self._remote(created)

    def retrieve(self, remote_id):
        return self._remote(self._call("reading the batch", lambda client: client.batches.retrieve(remote_id)))

    def _batch_of_file(self, input_file_id: str) -> RemoteBatch | None:
        """The newest batch made from `input_file_id` among the account's latest ones, if any: an upload is made for
        one batch only, so such a batch is ours, created by a process that stopped before it could record it."""
        page = self._call("listing the batches", lambda client: client.batches.list(limit=ADOPT_LOOKBACK))
        found = next((batch for batch in page.data if batch.input_file_id == input_file_id), None)
        return None if found is None else self._remote(found)

    def cancel(self, remote_id):
        return self._remote(self._call("cancelling the batch", lambda client: client.batches.cancel(remote_id)))

    def results(self, batch):
        files = []
        for file_id, name in ((batch.output_file_id, "output"), (batch.error_file_id, "error")):
            if file_id:
                data = self._call(f"downloading the {name} file", lambda client, f=file_id: _bounded(
                    client.files.with_streaming_response.content(f), f"{self.base_url} file {f}"))
                files.append((f"{name} file {file_id}", data))
        return files

    def _remote(self, batch) -> RemoteBatch:
        remote_id = checked_id(batch.id, "batch id")
        counts = batch.request_counts
        errors = [e.message for e in (batch.errors.data or [])] if batch.errors is not None else []
        return RemoteBatch(
            remote_id, str(batch.status), batch.status in OPENAI_ENDED,
            {"total": counts.total, "completed": counts.completed, "failed": counts.failed} if counts else {},
            checked_id(batch.output_file_id, "file id") if batch.output_file_id else "",
            checked_id(batch.error_file_id, "file id") if batch.error_file_id else "",
            self.one_line("; ".join(str(e) for e in errors if e)))


def _bounded(streaming, label: str) -> bytes:
    with streaming as response:
        chunks, total = [], 0
        for chunk in response.iter_bytes():
            total += len(chunk)
            if total > RESULTS_CAP_BYTES:
                raise EndpointError(f"{label}: larger than {RESULTS_CAP_BYTES:,} bytes; not read")
            chunks.append(chunk)
    return b"".join(chunks)


class AnthropicBatches(BatchService):
    provider = "anthropic"

    def submit(self, input_path, local_id, input_file_id, on_uploaded):
        try:
            lines = read_bytes(input_path, _input_bound(self.provider)).splitlines()
        except OSError as error:
            raise EndpointError(f"{input_path}: the batch input file: {why_unreadable(error)}") from None
        body = b'{"requests":[' + b",".join(line for line in lines if line.strip()) + b"]}"
        return self._remote(self._json("POST", "/messages/batches", "creating the batch", body))

    def retrieve(self, remote_id):
        return self._remote(self._json("GET", f"/messages/batches/{remote_id}", "reading the batch"))

    def cancel(self, remote_id):
        return self._remote(self._json("POST", f"/messages/batches/{remote_id}/cancel", "cancelling the batch"))

    def results(self, batch):
        data = self._request("GET", f"/messages/batches/{batch.remote_id}/results", "downloading the results")
        return [(f"results of {batch.remote_id}", data)]

    def _json(self, method: str, path: str, what: str, body: bytes | None = None) -> dict:
        data = self._request(method, path, what, body)
        try:
            answer = parse_json(data.decode("utf-8"))
        except ValueError:  # UnicodeDecodeError too
            raise EndpointError(f"{self.base_url}{path}: {what}: the answer is not JSON") from None
        if not isinstance(answer, dict):
            raise EndpointError(f"{self.base_url}{path}: {what}: the answer is not a JSON object")
        return answer

    def _request(self, method: str, path: str, what: str, body: bytes | None = None) -> bytes:
        headers = {"anthropic-version": ANTHROPIC_VERSION, "content-type": "application/json",
                   "accept-encoding": "identity"}
        if self._api_key:
            headers["x-api-key"] = self._api_key
        request = urllib.request.Request(self.base_url + path, data=body, method=method, headers=headers)
        try:
            with _OPENER.open(request, timeout=self.timeout_s) as response:
                data = response.read(RESULTS_CAP_BYTES + 1)
        except urllib.error.HTTPError as error:
            detail = _anthropic_message(error.read(64 * 1024))
            if error.code in (401, 403):
                raise EndpointError(f"{self.base_url}: the server refused the API key ({error.code})") from None
            raise EndpointError(self.one_line(f"{self.base_url}{path}: {what} refused ({error.code}): {detail}")) \
                from None
        except (urllib.error.URLError, OSError, ValueError) as error:
            reason = getattr(error, "reason", error)
            raise EndpointError(self.one_line(f"{self.base_url}{path}: {what} failed: {reason}")) from None
        if len(data) > RESULTS_CAP_BYTES:
            raise EndpointError(f"{self.base_url}{path}: larger than {RESULTS_CAP_BYTES:,} bytes; not read")
        return data

    def _remote(self, answer: dict) -> RemoteBatch:
        remote_id = checked_id(answer.get("id"), "batch id")
        status = answer.get("processing_status")
        if not isinstance(status, str):
            raise EndpointError(f"{self.base_url}: batch {remote_id} has no processing_status")
        counts = answer.get("request_counts")
        counts = counts if isinstance(counts, dict) else {}
        return RemoteBatch(remote_id, status, status == "ended",
                           {k: v for k, v in counts.items() if isinstance(k, str) and isinstance(v, int)})


def _opener() -> urllib.request.OpenerDirector:
    """urllib with redirects refused (an HTTPError): following one would send the API key wherever it points."""
    refusing = urllib.request.HTTPRedirectHandler()
    setattr(refusing, "redirect_request", lambda *_args: None)  # noqa: B010 - an override vulture would call unused
    return urllib.request.build_opener(refusing)


_OPENER = _opener()


def _anthropic_message(data: bytes) -> str:
    try:
        body = parse_json(data.decode("utf-8"))
    except ValueError:
        return clip(data.decode("utf-8", "replace"), 120) or "no details"
    error = body.get("error") if isinstance(body, dict) else None
    return str(error.get("message")) if isinstance(error, dict) and error.get("message") else "no details"
