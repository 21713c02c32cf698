"""A batch from start to end: `prepare` writes the request files and records them, `submit` hands prepared batches to
the provider, `collect` reads the state of submitted ones and stores the answers of each that ended (waiting when
asked), `collect_file` reads a `vllm run-batch` output file, `failed_keys` lists what to ask again.

Every step leaves the workspace consistent at once: the file id is kept before the batch is created, the remote id
as soon as it exists, and each ended batch's answers in one transaction with its new state. A crash or a restart
resumes from the workspace: a fresh `collect` gets whatever finished.
"""
from __future__ import annotations

import logging
import os
import re
import threading
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from core.dataset.workspace import Workspace
from core.errors import TraceEvalError, UsageError
from core.llm.batches import custom_ids
from core.llm.batches.providers import BatchService, RemoteBatch, service
from core.llm.batches.request_lines import RequestLine, limits, request_line, split
from core.llm.batches.results import MISSING, SUCCEEDED, BatchAnswer, read_results, read_results_file
from core.llm.batches.store import CANCELLED, COLLECTED, FAILED, PREPARED, SUBMITTED, BatchRow, BatchStore
from core.llm.endpoints import RunSettings, resolve_api_key, token_limit_field_for
from core.llm.prices import PriceTable
from core.llm.prompt_wording import PromptWording
from core.llm.prompts import build_prompt
from core.llm.stored_answers import answer_prediction, cache_answer_counts
from core.safe_files import why_unreadable
from core.verdicts import now_iso

log = logging.getLogger(__name__)

Progress = Callable[[str], None]
KeyFor = Callable[["BatchRow"], "str | None"]  # the API key for a batch (see `api_key_for`)
ANTHROPIC_KEY_ENV = "ANTHROPIC_API_KEY"


@dataclass(frozen=True)
class BatchSettings:
    provider: str  # openai | anthropic | vllm
    model: str  # the id sent
    name: str  # the stored name
    base_url: str = ""
    temperature: float = 0.0
    max_tokens: int = 4096
    rules: str = "paper"
    api_key_env: str | None = None
    token_limit_field: str = ""  # "" : both unless the endpoint is known to refuse one (core.llm.endpoints)


@dataclass
class PrepareReport:
    batches: list[BatchRow] = field(default_factory=list)
    requests: int = 0
    answered: int = 0  # already answered: not asked
    in_batches: int = 0  # already in a prepared or submitted batch: not asked
    failed: list[tuple[str, str]] = field(default_factory=list)  # (program, why no prompt)


@dataclass
class CollectReport:
    collected: list[BatchRow] = field(default_factory=list)  # ended and stored in this call
    waiting: list[BatchRow] = field(default_factory=list)  # still running at the provider
    problems: list[str] = field(default_factory=list)  # result lines that could not be read, one line each
    stored: int = 0  # answers stored
    interrupted: bool = False


def prepare(ws: Workspace, settings: BatchSettings, keys: Sequence[str], wording: PromptWording, out_dir: Path,
            max_requests: int | None = None, redo: bool = False) -> PrepareReport:
    """Build the prompt of every program not answered and not in an open batch; write and record the batches."""
    store = BatchStore(ws)
    bounds = limits(settings.provider, max_requests)
    report = PrepareReport()
    unique = list(dict.fromkeys(keys))
    answered = set() if redo else ws.predicted_keys(settings.name)
    waiting = store.open_keys(settings.name)
    limit_field = token_limit_field_for(settings.base_url, settings.model, settings.token_limit_field)
    lines: list[RequestLine] = []
    for key in unique:
        if key in answered:
            report.answered += 1
            continue
        if key in waiting:
            report.in_batches += 1
            continue
        instance = ws.instance(key)
        if instance is None:
            report.failed.append((key, "not in the workspace index"))
            continue
        try:
            prompt = build_prompt(instance, wording=wording, rules=settings.rules)
        except (TraceEvalError, OSError, ValueError) as error:
            report.failed.append((key, " ".join(str(error).split())))
            continue
        lines.append(request_line(settings.provider, custom_ids.encode(key, prompt.hash), prompt, settings.model,
                                  settings.temperature, settings.max_tokens, limit_field))
    params = {"temperature": settings.temperature, "max_tokens": settings.max_tokens, "rules": settings.rules,
              "prompt_wording": wording.tag, "release": wording.path, "api_key_env": settings.api_key_env,
              "token_limit_field": settings.token_limit_field, "token_limit_sent": limit_field}
    out_dir.mkdir(parents=True, exist_ok=True)
    for part in split(lines, bounds, settings.provider):
        batch_id = store.create(settings.name, settings.provider, settings.model, settings.base_url, params, part)
        path = out_dir / f"{_slug(settings.name)}-{settings.provider}-batch{batch_id}.jsonl"
        try:
            path.write_bytes(b"".join(line.line + b"\n" for line in part))
        except OSError as error:
            store.update(batch_id, state=CANCELLED, message=f"{path}: cannot write: {error.strerror}")
            raise UsageError(f"{path}: cannot write the batch input file: {error.strerror}") from None
        report.batches.append(store.update(batch_id, input_path=str(path.resolve())))
        report.requests += len(part)
    return report


def submit(ws: Workspace, api_key: KeyFor, batch_ids: Sequence[int] | None = None,
           progress: Progress | None = None) -> list[BatchRow]:
    """Hand each prepared batch (those named, else every prepared OpenAI or Anthropic batch) to its provider."""
    store = BatchStore(ws)
    chosen = [store.get(i) for i in batch_ids] if batch_ids else [
        b for b in store.batches(states=(PREPARED,)) if b.provider != "vllm"]
    sent = []
    for batch in chosen:
        if batch.state != PREPARED:
            sent.append(batch)
            continue
        claim = store.claim(batch)
        if claim is None:
            if progress:
                holder = store.get(batch.id).claim.split(":")
                progress(f"batch {batch.id}: being submitted by another process (host {holder[0]}, pid "
                         f"{holder[1] if len(holder) > 1 else '?'}); left to it")
            continue
        remote_service = service(batch.provider, batch.base_url, api_key(batch))

        def keep_file_id(file_id: str, batch_id: int = batch.id) -> None:
            store.update(batch_id, input_file_id=file_id)

        try:
            remote = remote_service.submit(Path(batch.input_path), batch.id, store.get(batch.id).input_file_id,
                                           keep_file_id)
        except BaseException:
            store.release(batch.id, claim)
            raise
        row = store.update(batch.id, remote_id=remote.remote_id, remote_status=remote.status, state=SUBMITTED,
                           submitted_at=now_iso(), claim="")
        if progress:
            progress(f"batch {batch.id}: submitted to {batch.provider} as {remote.remote_id} ({batch.requests:,} "
                     "requests)")
        sent.append(row)
    return sent


def collect(ws: Workspace, api_key: KeyFor, batch_ids: Sequence[int] | None = None, *, wait: bool = False,
            poll_s: float = 30.0, prices: PriceTable | None = None, cancel: threading.Event | None = None,
            progress: Progress | None = None) -> CollectReport:
    """Look at each submitted batch (those named, else all); store the answers of each that ended. With `wait`,
    keep looking every `poll_s` until none is running or `cancel` is set."""
    store = BatchStore(ws)
    report = CollectReport()
    while True:
        chosen = [store.get(i) for i in batch_ids] if batch_ids else store.batches(states=(SUBMITTED,))
        running = []
        for batch in (b for b in chosen if b.state == SUBMITTED):
            remote_service = service(batch.provider, batch.base_url, api_key(batch))
            remote = remote_service.retrieve(batch.remote_id)
            if not remote.ended:
                running.append(store.update(batch.id, remote_status=remote.status))
                continue
            row = _store_results(ws, store, batch, remote, remote_service, prices, report)
            report.collected.append(row)
            if progress:
                progress(f"batch {batch.id}: {remote.status}: {_counts_text(row)}")
        report.waiting = running
        if not wait or not running:
            return report
        if progress:
            progress(f"{len(running)} batch(es) still running ({', '.join(b.remote_status for b in running)}); "
                     f"looking again in {poll_s:g} s")
        if cancel is not None and cancel.wait(poll_s):
            report.interrupted = True
            return report
        if cancel is None:
            time.sleep(poll_s)


def collect_file(ws: Workspace, path: Path, batch_id: int | None = None, prices: PriceTable | None = None) \
        -> CollectReport:
    """Store the answers of a `vllm run-batch` output file (OpenAI's output format) into its prepared batch: the one
    named, else the batch whose requests the file's custom_ids belong to."""
    store = BatchStore(ws)
    try:
        answers, problems = read_results_file("vllm", path)
    except OSError as error:
        raise UsageError(f"{path}: the batch output file: {why_unreadable(error)}") from None
    if batch_id is None:
        ids = {r.batch_id for a in answers for r in store.requests_with(a.custom_id)}
        if len(ids) != 1:
            raise UsageError(f"{path}: its custom_ids belong to {len(ids)} batches of this workspace; "
                             "name one with --batch")
        batch_id = ids.pop()
    batch = store.get(batch_id)
    if batch.state == COLLECTED:
        raise UsageError(f"batch {batch.id} is already collected")
    report = CollectReport(problems=list(problems))
    report.collected.append(_store_answers(ws, store, batch, answers, "completed", prices, report, str(path)))
    return report


def failed_keys(ws: Workspace, model: str, batch_ids: Sequence[int] | None = None) -> list[str]:
    """Programs whose batch request errored, expired, was cancelled or came back empty, still unanswered."""
    return [row.instance_key for row in BatchStore(ws).unanswered_failures(model, batch_ids)]


def cancel_batch(ws: Workspace, api_key: KeyFor, batch_id: int) -> BatchRow:
    """Ask the provider to stop a submitted batch (what finished stays collectable), or drop a prepared one."""
    store = BatchStore(ws)
    batch = store.get(batch_id)
    if batch.state == PREPARED:
        return store.update(batch.id, state=CANCELLED, message="cancelled before it was submitted")
    if batch.state != SUBMITTED:
        raise UsageError(f"batch {batch.id} is {batch.state}; only a prepared or submitted batch can be cancelled")
    remote = service(batch.provider, batch.base_url, api_key(batch)).cancel(batch.remote_id)
    return store.update(batch.id, remote_status=remote.status)


def api_key_for(batch: BatchRow, variable: str | None = None) -> str | None:
    """The key for a batch's provider: the variable named (here, else when the batch was prepared), else
    $ANTHROPIC_API_KEY for Anthropic, else what `predict` would use for its URL (core.llm.endpoints)."""
    variable = variable or batch.params.get("api_key_env")
    if not variable and batch.provider == "anthropic" and os.environ.get(ANTHROPIC_KEY_ENV):
        return os.environ[ANTHROPIC_KEY_ENV]
    return resolve_api_key(RunSettings(batch.base_url or "http://localhost", batch.endpoint_model,
                                       api_key_env=variable or None))


# -- storing results ------------------------------------------------------------------------------------------
def _store_results(ws, store, batch: BatchRow, remote: RemoteBatch, remote_service: BatchService, prices,
                   report: CollectReport) -> BatchRow:
    if batch.provider == "openai" and remote.status == "failed" and not remote.output_file_id:
        return store.update(batch.id, state=FAILED, remote_status=remote.status, ended_at=now_iso(),
                            message=remote.message or "the provider refused the batch",
                            errored=batch.requests)
    answers: list[BatchAnswer] = []
    store.update(batch.id, output_file_id=remote.output_file_id, error_file_id=remote.error_file_id)
    for label, data in remote_service.results(remote):
        read, problems = read_results(batch.provider, data, f"batch {batch.id} {label}")
        answers += map(remote_service.redacted, read)  # never the key, should the service echo it
        report.problems += map(remote_service.secrets.redact, problems)
    return _store_answers(ws, store, batch, answers, remote.status, prices, report,
                          f"batch {batch.id}: {batch.provider} {batch.remote_id}")


def _store_answers(ws: Workspace, store: BatchStore, batch: BatchRow, answers: list[BatchAnswer], status: str,
                   prices: PriceTable | None, report: CollectReport, source: str) -> BatchRow:
    rows = {row.custom_id: row for row in store.requests(batch.id)}
    seen: dict[str, BatchAnswer] = {}
    for answer in answers:
        if answer.custom_id not in rows:
            named = custom_ids.decode(answer.custom_id)
            what = f" (program {named.key})" if named is not None and named.key else ""
            report.problems.append(f"{source}: custom_id {answer.custom_id[:80]!r}{what} is not a request of batch "
                                   f"{batch.id}; ignored")
        elif answer.custom_id in seen and seen[answer.custom_id].status == SUCCEEDED:
            report.problems.append(f"{source}: custom_id {answer.custom_id} answered twice; the first answer kept")
        else:
            seen[answer.custom_id] = answer
    wording = str(batch.params.get("prompt_wording", ""))
    predictions, tally = [], {"succeeded": 0, "errored": 0, "expired": 0, "canceled": 0}
    with ws.transaction():
        run = _BatchRun(ws, batch, len(rows))
        for custom_id, row in rows.items():
            found = seen.get(custom_id)
            if found is None:
                store.set_request(batch.id, custom_id, status=MISSING, error="no result for this request")
                tally["errored"] += 1
                run.failed(row, "no result for this request")
                continue
            answer = found
            tally[answer.status] += 1
            store.set_request(batch.id, custom_id, status=answer.status, error=answer.error,
                              finish_reason=answer.finish_reason, tokens_in=answer.tokens_in,
                              tokens_out=answer.tokens_out)
            if answer.status != SUCCEEDED:
                run.failed(row, f"{answer.status}: {answer.error}" if answer.error != answer.status else answer.status)
                continue
            instance = ws.instance(row.instance_key)
            if instance is None:
                report.problems.append(f"{source}: {row.instance_key} is no longer in the workspace; its answer "
                                       "is not stored")
                run.failed(row, "no longer in the workspace")
                continue
            cost = _batch_cost(prices, batch, answer)
            predictions.append(answer_prediction(
                instance, row.keys, answer.content, model=batch.model, finish_reason=answer.finish_reason,
                prompt_hash=row.prompt_hash, prompt_wording=wording, source=source, tokens_in=answer.tokens_in,
                tokens_out=answer.tokens_out, cost_usd=cost, reasoning=answer.reasoning,
                reasoning_tokens=answer.reasoning_tokens))
            run.answered(row, answer, cost)
        if predictions:
            ws.store_predictions(batch.model, predictions, sources=[source])
            cache_answer_counts(ws, batch.model, predictions)
        run.finish()
        collected = store.update(batch.id, state=COLLECTED, remote_status=status, ended_at=now_iso(),
                                 collected_at=now_iso(), **tally)
    report.stored += len(predictions)
    return collected


class _BatchRun:
    """A collected batch as a model run (`model_runs` and `model_requests`, as `predict` records its runs), so
    `traceeval runs` and the ledger (`core.llm.ledger`) count its requests, tokens and cost like any run's. Its wall
    time runs from the submission to the collection (a vLLM file's: unknown)."""

    def __init__(self, ws: Workspace, batch: BatchRow, requested: int):
        self.ws, self.batch = ws, batch
        params = {**batch.params, "batch": batch.provider, "batch_id": batch.id, "remote_id": batch.remote_id}
        self.id = ws.start_model_run(batch.model, batch.endpoint_model, batch.base_url or f"{batch.provider} file",
                                     params, requested=requested)
        self.totals = {"answered": 0, "failed": 0, "tokens_in": 0, "tokens_out": 0}
        self.cost: float | None = None

    def answered(self, row, answer: BatchAnswer, cost: float | None) -> None:
        self.ws.store_request(self.id, self.batch.model, row.instance_key, "answered", attempts=1,
                              finish_reason=answer.finish_reason, tokens_in=answer.tokens_in,
                              tokens_out=answer.tokens_out, cost_usd=cost, prompt_hash=row.prompt_hash)
        self.totals["answered"] += 1
        self.totals["tokens_in"] += answer.tokens_in or 0
        self.totals["tokens_out"] += answer.tokens_out or 0
        if cost is not None:
            self.cost = (self.cost or 0.0) + cost

    def failed(self, row, error: str) -> None:
        self.ws.store_request(self.id, self.batch.model, row.instance_key, "failed", error=error, attempts=1,
                              prompt_hash=row.prompt_hash)
        self.totals["failed"] += 1

    def finish(self) -> None:
        self.ws.finish_model_run(self.id, status="finished", message=f"batch {self.batch.id}"
                                 + (f" ({self.batch.provider} {self.batch.remote_id})" if self.batch.remote_id else ""),
                                 requested=self.totals["answered"] + self.totals["failed"], cost_usd=self.cost,
                                 wall_s=_seconds_since(self.batch.submitted_at), **self.totals)


def _seconds_since(stamp: str) -> float | None:
    from datetime import datetime

    try:
        started = datetime.fromisoformat(stamp)
    except ValueError:
        return None
    now = datetime.now(started.tzinfo) if started.tzinfo else datetime.now()
    return max(0.0, (now - started).total_seconds())


def _batch_cost(prices: PriceTable | None, batch: BatchRow, answer: BatchAnswer) -> float | None:
    """What the answer cost: the price table's, less the model's batch discount (`core.llm.prices`); a local
    vLLM run is not priced."""
    if prices is None or batch.provider == "vllm":
        return None
    return prices.cost(batch.endpoint_model, answer.tokens_in, answer.tokens_out, batch=True)


def _counts_text(row: BatchRow) -> str:
    parts = [f"{row.succeeded:,} succeeded"] + [f"{n:,} {what}" for n, what in
                                               ((row.errored, "errored"), (row.expired, "expired"),
                                                (row.canceled, "canceled")) if n]
    return ", ".join(parts)


def _slug(name: str) -> str:
    return re.sub(r"[^A-Za-z0-9._-]+", "_", name).strip("._") or "model"
