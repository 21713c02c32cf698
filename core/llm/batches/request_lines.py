"""Batch request lines from the exact prompts `predict` sends, and their split into batches within each API's limits.

- openai and vllm (`vllm run-batch` reads the same format): `{"custom_id", "method": "POST",
  "url": "/v1/chat/completions", "body": {model, messages, temperature, max_tokens, max_completion_tokens}}`,
  both token limits as the paper sends them (one alone when chosen, or when the endpoint is known to refuse one);
- anthropic: `{"custom_id", "params": {model, max_tokens, temperature, system, messages}}`, the system message
  in `system`, the user message as the one message.
OpenAI takes up to 50,000 requests and 200 MB per input file, Anthropic up to 100,000 requests and 256 MB per
batch; vLLM reads one file of any size.
"""
from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass

from core.errors import UsageError
from core.llm.endpoints import BOTH_LIMITS, MAX_COMPLETION_TOKENS, MAX_TOKENS
from core.llm.prompts import Prompt

CHAT_URL = "/v1/chat/completions"


@dataclass(frozen=True)
class Limits:
    requests: int | None
    bytes: int | None


PROVIDERS = {
    "openai": Limits(50_000, 200 * 1024 * 1024),
    "anthropic": Limits(100_000, 256 * 1024 * 1024),
    "vllm": Limits(None, None),
}
DEFAULT_URLS = {"openai": "https://api.openai.com/v1", "anthropic": "https://api.anthropic.com/v1"}
ANTHROPIC_BODY_OVERHEAD = len(b'{"requests":[]}')


@dataclass(frozen=True)
class RequestLine:
    """One request of a batch: its custom_id, the program and prompt it asks, and its JSONL line (no newline)."""

    custom_id: str
    instance_key: str
    prompt_hash: str
    keys: tuple[str, ...]
    line: bytes


def request_line(provider: str, custom_id: str, prompt: Prompt, model: str, temperature: float,
                 max_tokens: int, limit_field: str = BOTH_LIMITS) -> RequestLine:
    """One request; `limit_field` names the chat request's output-limit field(s) (both, as the paper sends them,
    unless the endpoint is known to refuse one: `core.llm.endpoints`); Anthropic's is always `max_tokens`."""
    if provider == "anthropic":
        record: dict = {"custom_id": custom_id, "params": {
            "model": model, "max_tokens": max_tokens, "temperature": temperature, "system": prompt.system,
            "messages": [{"role": "user", "content": prompt.user}]}}
    else:
        limits_sent = {field: max_tokens for field in (MAX_TOKENS, MAX_COMPLETION_TOKENS)
                       if limit_field in (BOTH_LIMITS, field)}
        record = {"custom_id": custom_id, "method": "POST", "url": CHAT_URL, "body": {
            "model": model, "messages": prompt.messages, "temperature": temperature, **limits_sent}}
    line = json.dumps(record, ensure_ascii=False, separators=(",", ":")).encode("utf-8")
    return RequestLine(custom_id, prompt.instance_key, prompt.hash, tuple(prompt.keys), line)


def limits(provider: str, max_requests: int | None = None) -> Limits:
    """The provider's limits, with at most `max_requests` per batch when given (a lower quota, or smaller batches
    that finish sooner)."""
    if provider not in PROVIDERS:
        raise UsageError(f"unknown batch provider {provider!r} (choose from {', '.join(PROVIDERS)})")
    own = PROVIDERS[provider]
    if max_requests is None:
        return own
    if max_requests < 1:
        raise UsageError(f"--max-requests must be at least 1 (got {max_requests})")
    return Limits(min(max_requests, own.requests) if own.requests else max_requests, own.bytes)


def split(lines: Sequence[RequestLine], bounds: Limits, provider: str = "openai") -> list[list[RequestLine]]:
    """The lines in order, cut into batches of at most `bounds.requests` lines and `bounds.bytes` bytes (a JSONL
    file's bytes; Anthropic's JSON body adds a comma per request and its wrapper). A single request larger than the
    limit is a UsageError naming its program."""
    overhead = ANTHROPIC_BODY_OVERHEAD if provider == "anthropic" else 0
    parts: list[list[RequestLine]] = []
    current: list[RequestLine] = []
    size = overhead
    for line in lines:
        cost = len(line.line) + 1
        if bounds.bytes is not None and overhead + cost > bounds.bytes:
            raise UsageError(f"{line.instance_key}: its request is {cost:,} bytes, more than a {provider} batch "
                             f"takes ({bounds.bytes:,} bytes)")
        full = (bounds.requests is not None and len(current) >= bounds.requests) or \
               (bounds.bytes is not None and size + cost > bounds.bytes)
        if current and full:
            parts.append(current)
            current, size = [], overhead
        current.append(line)
        size += cost
    if current:
        parts.append(current)
    return parts
