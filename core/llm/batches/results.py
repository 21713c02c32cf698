"""Reading a provider's batch results, line by line, as hostile input: each good line becomes a `BatchAnswer`,
each bad one a one-line problem naming the file (or batch) and the line; nothing else on the page is lost.

- OpenAI and vLLM (output and error files): `{"custom_id", "response": {"status_code", "body": <chat
  completion>}, "error": null | {"code", "message"}}`; `batch_expired` and `batch_cancelled` errors are the
  requests the window or a cancel left undone.
- Anthropic: `{"custom_id", "result": {"type": "succeeded" | "errored" | "canceled" | "expired", "message" |
  "error"}}`; the text blocks of a succeeded message are its answer (its thinking blocks, the reasoning kept
  beside it), `stop_reason: max_tokens` is a cut-off.

A results file is hostile input: `read_results_file` opens it with `core.safe_files.open_bytes` (a regular file,
at most RESULTS_CAP_BYTES), a line longer than an endpoint's answer may be (`MAX_LINE_BYTES`) is that line's problem
and never held whole, and each line is JSON under `core.safe_files.parse_json`'s bounds.
"""
from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

from core.llm.chat import MalformedAnswer, clip, completion_from, valid_text  # read as predict does
from core.llm.response_limits import RESPONSE_BYTES_CAP
from core.safe_files import bounded_lines, open_bytes, parse_json, refusal, size_text

SUCCEEDED, ERRORED, EXPIRED, CANCELED, MISSING = "succeeded", "errored", "expired", "canceled", "missing"
RETRYABLE = (ERRORED, EXPIRED, CANCELED, MISSING)  # what a resubmission asks again
RESULTS_CAP_BYTES = 2 * 1024 ** 3  # results of the largest batch (256 MB of prompts) with room for the answers
MAX_LINE_BYTES = RESPONSE_BYTES_CAP + 64 * 1024  # one result: what an endpoint may answer, in its envelope
_OPENAI_UNDONE = {"batch_expired": EXPIRED, "batch_cancelled": CANCELED}
_STOP_REASONS = {"end_turn": "stop", "stop_sequence": "stop", "max_tokens": "length"}


@dataclass(frozen=True)
class BatchAnswer:
    custom_id: str
    status: str  # succeeded | errored | expired | canceled
    content: str | None = None
    finish_reason: str | None = None
    tokens_in: int | None = None
    tokens_out: int | None = None
    error: str = ""  # one line, when not succeeded
    reasoning: str | None = None  # the model's thinking, kept beside the answer (core.llm.chat reads it)
    reasoning_tokens: int | None = None


def read_results(provider: str, data: bytes, source: str) -> tuple[list[BatchAnswer], list[str]]:
    """Every result line of `data` (JSONL, as a provider sent it) and the problems of the lines that could not be
    read."""
    lines = ((number, raw if len(raw) <= MAX_LINE_BYTES else None)
             for number, raw in enumerate(data.split(b"\n"), start=1))
    return _read_lines(provider, lines, source)


def read_results_file(provider: str, path: Path) -> tuple[list[BatchAnswer], list[str]]:
    """`read_results` of a results file (a `vllm run-batch` output), read a line at a time within its bounds;
    an OSError (a `RefusedFile`: not a regular file, too large) when it cannot be read."""
    with open_bytes(path, RESULTS_CAP_BYTES) as handle:
        return _read_lines(provider, bounded_lines(handle, MAX_LINE_BYTES, RESULTS_CAP_BYTES), str(path))


def _read_lines(provider: str, lines: Iterable[tuple[int, bytes | None]], source: str) \
        -> tuple[list[BatchAnswer], list[str]]:
    answers, problems = [], []
    reader = _anthropic_line if provider == "anthropic" else _openai_line
    for number, raw in lines:
        where = f"{source}: line {number}"
        if raw is None:
            problems.append(f"{where}: longer than {size_text(MAX_LINE_BYTES)}, more than an endpoint may answer; "
                            "not read")
            continue
        if not raw.strip():
            continue
        try:
            record = parse_json(raw.decode("utf-8"))
        except UnicodeDecodeError as error:
            problems.append(f"{where}: not valid UTF-8 (byte {error.start})")
            continue
        except ValueError as error:
            problems.append(f"{where}: not JSON ({clip(str(error), 80)})")
            continue
        custom_id = record.get("custom_id") if isinstance(record, dict) else None
        if not isinstance(record, dict) or not isinstance(custom_id, str) or not custom_id or refusal(custom_id):
            problems.append(f"{where}: no custom_id")
            continue
        try:
            answers.append(reader(custom_id, record))
        except MalformedAnswer as error:
            why = refusal(record)  # a value nested too deep or a number too long: named beside what is missing
            problem = f"{where}: {error}" + (f" ({why})" if why else "")
            answers.append(BatchAnswer(custom_id, ERRORED, error=clip(problem, 300)))
    return answers, problems


def _openai_line(custom_id: str, record: dict) -> BatchAnswer:
    error = record.get("error")
    if isinstance(error, dict) and error:
        code = str(error.get("code") or "")
        status = _OPENAI_UNDONE.get(code, ERRORED)
        return BatchAnswer(custom_id, status, error=_one_line(f"{code}: {error.get('message') or 'no message'}"))
    response = record.get("response")
    if not isinstance(response, dict):
        raise MalformedAnswer("neither a response nor an error")
    status_code, body = response.get("status_code"), response.get("body")
    if status_code != 200:
        message = body.get("error", {}).get("message") if isinstance(body, dict) and \
            isinstance(body.get("error"), dict) else None
        return BatchAnswer(custom_id, ERRORED, error=_one_line(f"HTTP {status_code}: {message or 'no message'}"))
    if not isinstance(body, dict):
        raise MalformedAnswer("the response has no body")
    answer = completion_from(body)
    return BatchAnswer(custom_id, SUCCEEDED, answer.content, answer.finish_reason, answer.tokens_in,
                       answer.tokens_out, reasoning=answer.reasoning, reasoning_tokens=answer.reasoning_tokens)


def _anthropic_line(custom_id: str, record: dict) -> BatchAnswer:
    result = record.get("result")
    kind = result.get("type") if isinstance(result, dict) else None
    if kind in (EXPIRED, CANCELED):
        return BatchAnswer(custom_id, kind, error=kind)
    if kind == ERRORED:
        error = result.get("error") if isinstance(result, dict) else None
        inner = error.get("error") if isinstance(error, dict) and isinstance(error.get("error"), dict) else error
        message = inner.get("message") if isinstance(inner, dict) else None
        kind_name = inner.get("type") if isinstance(inner, dict) else None
        return BatchAnswer(custom_id, ERRORED, error=_one_line(f"{kind_name or 'error'}: {message or 'no message'}"))
    if kind != SUCCEEDED:
        raise MalformedAnswer(f"unknown result type {clip(repr(kind), 40)}")
    message = result.get("message") if isinstance(result, dict) else None
    blocks = message.get("content") if isinstance(message, dict) else None
    if not isinstance(message, dict) or not isinstance(blocks, list):
        raise MalformedAnswer("the succeeded result has no message content")
    texts: list[str] = []
    thinking: list[str] = []  # extended thinking blocks: the reasoning, kept beside the answer
    for block in blocks:
        if isinstance(block, dict) and block.get("type") == "text":
            if not isinstance(block.get("text"), str):
                raise MalformedAnswer("a text block of the message is not text")
            texts.append(block["text"])
        elif isinstance(block, dict) and block.get("type") == "thinking" and isinstance(block.get("thinking"), str):
            thinking.append(block["thinking"])
    usage = message.get("usage")
    usage = usage if isinstance(usage, dict) else {}
    stop = message.get("stop_reason")
    return BatchAnswer(custom_id, SUCCEEDED, valid_text("".join(texts)) if texts else None,
                       _STOP_REASONS.get(stop, stop) if isinstance(stop, str) else None,
                       _count(usage.get("input_tokens")), _count(usage.get("output_tokens")),
                       reasoning=valid_text("\n\n".join(thinking)) if thinking else None)


def _count(value) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) and 0 <= value < 10**15 else None


def _one_line(text: str) -> str:
    return clip(" ".join(valid_text(text).split()), 300)
