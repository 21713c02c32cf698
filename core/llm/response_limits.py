"""Bounds on what an endpoint can send back: a size cap and an overall deadline per request,
both enforced while the body is read.

The HTTP client's own timeout is per read, so a server that keeps sending (an endless JSON body,
endless SSE chunks, a slow trickle) would otherwise be read for ever into memory. `bounded_http_client`
is the client the openai library is given: it asks for uncompressed answers (a compressed body
could expand far past the cap) and wraps every response body in a stream that counts bytes and
watches the clock, raising `ResponseLimitExceeded` as soon as either bound is passed. It also tells
`secrets` (`core.llm.redaction`) the credential headers each request carries, so what comes back can be
redacted of them.
"""
from __future__ import annotations

import time

import openai

from core.llm.redaction import Secrets

try:  # openai 3 is built on httpx2, earlier releases on httpx
    import httpx2 as httpx
except ImportError:  # pragma: no cover - depends on the installed openai
    import httpx  # type: ignore[no-redef]  # the same transport under its name before openai 3

RESPONSE_BYTES_CAP = 16 * 1024 * 1024  # a 4,096-token answer is a few kB; 16 MiB leaves room for any token limit
_STARTED = "traceeval_started"  # request extension: when the request was sent (time.monotonic())


class ResponseLimitExceeded(Exception):
    """A response passed a bound. kind: "size" (too large or compressed) or "deadline" (too slow)."""

    def __init__(self, kind: str, message: str):
        super().__init__(message)
        self.kind, self.message = kind, message


def bounded_http_client(timeout_s: float, cap_bytes: int = RESPONSE_BYTES_CAP,
                        secrets: Secrets | None = None) -> httpx.AsyncClient:
    """The openai library's default async client, with every response bounded to `cap_bytes` and to
    `timeout_s` from the moment its request was sent; each request's credential headers go to `secrets`."""

    async def stamp(request) -> None:
        request.extensions[_STARTED] = time.monotonic()
        if secrets is not None:
            secrets.note_headers(request.headers)

    async def bound(response) -> None:
        encoding = response.headers.get("content-encoding", "identity").strip().lower()
        if encoding not in ("", "identity"):
            raise ResponseLimitExceeded("size", f"the endpoint sent a compressed answer ({encoding}) although "
                                                "none was asked for")
        declared = response.headers.get("content-length", "")
        if declared.isdigit() and len(declared) < 20 and int(declared) > cap_bytes:
            raise ResponseLimitExceeded("size", _too_large(cap_bytes))
        started = response.request.extensions.get(_STARTED, time.monotonic())
        response.stream = _BoundedStream(response.stream, cap_bytes, started + timeout_s, timeout_s)

    return openai.DefaultAsyncHttpxClient(timeout=timeout_s, headers={"Accept-Encoding": "identity"},
                                          event_hooks={"request": [stamp], "response": [bound]})


class _BoundedStream(httpx.AsyncByteStream):
    """A response body that stops at `cap_bytes` or at `deadline` (time.monotonic())."""

    def __init__(self, inner, cap_bytes: int, deadline: float, timeout_s: float):
        self._inner, self._cap, self._deadline, self._timeout_s = inner, cap_bytes, deadline, timeout_s

    async def __aiter__(self):
        read = 0
        async for chunk in self._inner:
            read += len(chunk)
            if read > self._cap:
                raise ResponseLimitExceeded("size", _too_large(self._cap))
            if time.monotonic() > self._deadline:
                raise ResponseLimitExceeded("deadline", f"no complete answer within {self._timeout_s:g} s "
                                                        f"({read:,} bytes read)")
            yield chunk

    async def aclose(self) -> None:
        await self._inner.aclose()


def _too_large(cap_bytes: int) -> str:
    return f"the answer is larger than {cap_bytes / 1024 / 1024:g} MiB; not read further"
