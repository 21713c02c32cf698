"""Keys never kept or shown: an endpoint may echo the key it was sent (in its answer, its reasoning, an error
message), so every text that comes back from an endpoint is redacted before it is stored (workspace, answer cache,
results files) or printed (messages, logs).

`Secrets` holds what a client sent: the API key it was given, and the value of every credential header of each
request (`note_headers`, called by the HTTP client as the request leaves: `Authorization`, `x-api-key`, ...).
"""
from __future__ import annotations

import re
from collections.abc import Iterable, Mapping

REDACTED = "***"
MIN_SECRET = 8  # shorter values (a placeholder, an empty key) are not secrets worth hiding every occurrence of
_CREDENTIAL_HEADER = re.compile(r"authorization|api[-_]?key|token|secret|password|cookie", re.IGNORECASE)
_SCHEME = re.compile(r"(?:bearer|basic|token)\s+(\S+)", re.IGNORECASE)


class Secrets:
    """The secrets one client sent; `redact` takes every one of them out of a text."""

    def __init__(self, known: Iterable[str | None] = (), ignored: Iterable[str] = ()):
        self._ignored = set(ignored)
        self._values: set[str] = set()
        for value in known:
            self.add(value)

    def add(self, value: str | None) -> None:
        if value and len(value) >= MIN_SECRET and value not in self._ignored:
            self._values.add(value)

    def note_headers(self, headers: Mapping[str, str]) -> None:
        """Keep the values of a request's credential headers (and the token after `Bearer`, `Basic`, `Token`)."""
        for name, value in headers.items():
            if _CREDENTIAL_HEADER.search(name):
                scheme = _SCHEME.fullmatch(value.strip())
                self.add(scheme.group(1) if scheme else value.strip())

    def redact(self, text: str) -> str:
        for secret in sorted(self._values, key=len, reverse=True):  # a longer secret holding a shorter one first
            text = text.replace(secret, REDACTED)
        return text

    def redact_optional(self, text: str | None) -> str | None:
        return None if text is None else self.redact(text)
