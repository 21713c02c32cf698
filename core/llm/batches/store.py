"""The workspace's record of batches: one `batches` row per batch (provider, remote ids, state, counts, times) and one
`batch_requests` row per request (its custom_id, program, prompt hash, question keys and how it ended). Every
change is committed at once, so a crash or a restart finds each batch where it was.

Local states: `prepared` (the input file is written, nothing sent), `submitted` (the provider has it),
`collected` (its results are stored), `failed` (the provider refused the whole batch), `cancelled`.
"""
from __future__ import annotations

import json
import os
import socket
import time
import uuid
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from core.dataset.workspace import Workspace
from core.errors import UsageError, WorkspaceError
from core.llm.batches.request_lines import RequestLine
from core.llm.batches.results import RETRYABLE
from core.verdicts import now_iso

PREPARED, SUBMITTED, COLLECTED, FAILED, CANCELLED = "prepared", "submitted", "collected", "failed", "cancelled"
OPEN_STATES = (PREPARED, SUBMITTED)  # a program in such a batch is not asked again
PENDING = "pending"  # a request with no result yet
FOREIGN_CLAIM_S = 3600.0  # a claim from another machine is taken over after this long


@dataclass(frozen=True)
class BatchRow:
    id: int
    model: str  # the stored name
    provider: str
    endpoint_model: str
    base_url: str
    params: dict
    input_path: str
    requests: int
    bytes: int
    input_file_id: str
    remote_id: str
    remote_status: str
    state: str
    output_file_id: str
    error_file_id: str
    succeeded: int
    errored: int
    expired: int
    canceled: int
    message: str
    created_at: str
    submitted_at: str
    ended_at: str
    collected_at: str
    claim: str  # "host:pid:time:token" of the process submitting it now, or ""


@dataclass(frozen=True)
class BatchRequestRow:
    batch_id: int
    custom_id: str
    instance_key: str
    prompt_hash: str
    keys: tuple[str, ...]
    status: str
    error: str
    finish_reason: str
    tokens_in: int | None
    tokens_out: int | None
    collected_at: str


class BatchStore:
    def __init__(self, ws: Workspace):
        self.ws, self.db = ws, ws.db

    def create(self, model: str, provider: str, endpoint_model: str, base_url: str, params: dict,
               lines: Sequence[RequestLine]) -> int:
        """A prepared batch of `lines` (its input file is written by the caller, see `set_input`); returns its id."""
        with self.db.atomic():
            table = self.db.table("batches")
            table.insert({"model": model, "provider": provider, "endpoint_model": endpoint_model,
                          "base_url": base_url, "params": json.dumps(params, sort_keys=True), "input_path": "",
                          "requests": len(lines), "bytes": sum(len(line.line) + 1 for line in lines),
                          "input_file_id": "", "remote_id": "", "remote_status": "", "state": PREPARED,
                          "output_file_id": "", "error_file_id": "", "succeeded": 0, "errored": 0, "expired": 0,
                          "canceled": 0, "message": "", "created_at": now_iso(), "submitted_at": "", "ended_at": "",
                          "collected_at": "", "claim": ""})
            batch_id = table.last_pk
            if batch_id is None:
                raise WorkspaceError("the batch row has no id")
            self.db.table("batch_requests").insert_all(
                ({"batch_id": batch_id, "custom_id": line.custom_id, "instance_key": line.instance_key,
                  "prompt_hash": line.prompt_hash, "keys": json.dumps(list(line.keys)), "status": PENDING,
                  "error": "", "finish_reason": None, "tokens_in": None, "tokens_out": None, "collected_at": ""}
                 for line in lines), batch_size=500)
        return int(batch_id)

    def claim(self, batch: BatchRow) -> str | None:
        """Take a prepared batch for submitting it: the claim's text, or None when a live process holds it. A claim
        left by a process that died (on this machine) is taken over; the compare-and-set makes one process win."""
        if batch.state != PREPARED or (batch.claim and claim_alive(batch.claim)):
            return None
        mine = f"{socket.gethostname()}:{os.getpid()}:{time.time():.0f}:{uuid.uuid4().hex[:8]}"
        cursor = self.db.execute("update batches set claim = ? where id = ? and state = ? and claim = ?",
                                 [mine, batch.id, PREPARED, batch.claim])
        self.db.conn.commit()
        return mine if cursor.rowcount == 1 else None

    def release(self, batch_id: int, claim: str) -> None:
        self.db.execute("update batches set claim = '' where id = ? and claim = ?", [batch_id, claim])
        self.db.conn.commit()

    def update(self, batch_id: int, **fields) -> BatchRow:
        self.db.table("batches").update(batch_id, fields)
        return self.get(batch_id)

    def get(self, batch_id: int) -> BatchRow:
        rows = list(self.db.query("select * from batches where id = ?", [batch_id]))
        if not rows:
            raise UsageError(f"no batch {batch_id} in this workspace (see 'traceeval batch status')")
        return _batch(rows[0])

    def batches(self, model: str | None = None, states: Iterable[str] | None = None) -> list[BatchRow]:
        where, params = [], []
        if model is not None:
            where.append("model = ?")
            params.append(model)
        if states is not None:
            states = list(states)
            where.append(f"state in ({','.join('?' * len(states))})")
            params += states
        sql = "select * from batches" + (f" where {' and '.join(where)}" if where else "") + " order by id"
        return [_batch(r) for r in self.db.query(sql, params)]

    def requests(self, batch_id: int) -> list[BatchRequestRow]:
        rows = self.db.query("select * from batch_requests where batch_id = ? order by rowid", [batch_id])
        return [_request(r) for r in rows]

    def requests_with(self, custom_id: str) -> list[BatchRequestRow]:
        return [_request(r) for r in self.db.query("select * from batch_requests where custom_id = ?", [custom_id])]

    def open_keys(self, model: str) -> set[str]:
        """Programs in a batch of `model` not yet ended (prepared or submitted)."""
        marks = ",".join("?" * len(OPEN_STATES))
        return {key for (key,) in self.db.execute(
            "select r.instance_key from batch_requests r join batches b on b.id = r.batch_id "
            f"where b.model = ? and b.state in ({marks})", [model, *OPEN_STATES])}

    def unanswered_failures(self, model: str, batch_ids: Iterable[int] | None = None) -> list[BatchRequestRow]:
        """Requests of ended batches that errored, expired, were cancelled or came back with nothing, for
        programs the model has no answer for now (a later batch or `predict` may have answered them)."""
        ids = None if batch_ids is None else list(batch_ids)
        answered = self.ws.predicted_keys(model)
        rows = [row for batch in self.batches(model, (COLLECTED, FAILED, CANCELLED))
                if ids is None or batch.id in ids for row in self.requests(batch.id)
                if row.status in RETRYABLE and row.instance_key not in answered]
        return list({row.instance_key: row for row in rows}.values())

    def set_request(self, batch_id: int, custom_id: str, **fields) -> None:
        self.db.table("batch_requests").update((batch_id, custom_id), {**fields, "collected_at": now_iso()})


def claim_alive(claim: str) -> bool:
    """Whether the process named in a claim may still be submitting: alive on this machine, or a recent claim made
    on another one (whose processes cannot be seen from here)."""
    host, _, rest = claim.partition(":")
    pid_text, _, rest = rest.partition(":")
    made = rest.partition(":")[0]
    if host != socket.gethostname():
        try:
            return time.time() - float(made) < FOREIGN_CLAIM_S
        except ValueError:
            return False
    try:
        os.kill(int(pid_text), 0)
    except ProcessLookupError:
        return False
    except PermissionError:  # alive, another user's
        return True
    except (ValueError, OverflowError, OSError):
        return False
    return True


def _batch(r: dict) -> BatchRow:
    return BatchRow(**{**r, "params": json.loads(r["params"] or "{}")})


def _request(r: dict) -> BatchRequestRow:
    return BatchRequestRow(**{**r, "keys": tuple(json.loads(r["keys"] or "[]")), "error": r["error"] or "",
                              "finish_reason": r["finish_reason"] or ""})
