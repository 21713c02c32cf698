"""The bill after a run: per model run, stored model and language, what was asked, what it took and what it cost.

Read from what the runner stores (`core.llm.runner`): one `model_requests` row per program asked (answered, from
the cache, or failed) and one `model_runs` row per run. Tokens and cost are those of fresh answers (an answer from
the cache cost nothing this time; its tokens are counted apart); `request_s` sums the answered requests' latencies;
`wall_s` is the run's own wall time as the run measured it (older runs: from their start and end times, to the
second), shared by the languages of one run (a run asks its languages at once). A run still running has none yet.
"""
from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from datetime import datetime

from core.dataset.workspace import ModelRunRow, Workspace

COLUMNS = ("run", "model", "endpoint_model", "language", "seed", "temperature", "requests", "answered", "cached",
           "failed", "attempts", "tokens_in", "tokens_out", "cached_tokens_in", "cached_tokens_out", "cost_usd",
           "request_s", "wall_s", "run_status")


@dataclass
class LedgerRow:
    run: int
    model: str  # the stored name (a repeated run's `name@r<i>`)
    endpoint_model: str
    language: str
    seed: int | None
    temperature: float | None
    requests: int = 0
    answered: int = 0
    cached: int = 0
    failed: int = 0
    attempts: int = 0
    tokens_in: int = 0  # fresh answers only
    tokens_out: int = 0
    cached_tokens_in: int = 0  # answers taken from the cache (not paid this time)
    cached_tokens_out: int = 0
    cost_usd: float | None = None  # fresh answers with a price; None when none had one
    request_s: float = 0.0
    wall_s: float | None = None
    run_status: str = ""

    @property
    def run_label(self) -> str:
        """The run's number, with its status when it did not finish."""
        return str(self.run) if self.run_status == "finished" else f"{self.run} ({self.run_status})"


def ledger(ws: Workspace, model: str | None = None) -> list[LedgerRow]:
    """One row per (run, stored model, language) with requests, in run order."""
    runs = {row.id: row for row in ws.model_run_rows(model)}
    rows: dict[tuple[int, str, str], LedgerRow] = {}
    for group in ws.request_totals(model):
        run = runs.get(group["run_id"])
        key = (group["run_id"], group["model"], group["language"])
        row = rows.get(key)
        if row is None:
            row = rows[key] = _new_row(group, run)
        _add(row, group)
    return list(rows.values())


def _new_row(group: dict, run: ModelRunRow | None) -> LedgerRow:
    params = run.params if run is not None else {}
    seed, temperature = params.get("seed"), params.get("temperature")
    return LedgerRow(group["run_id"], group["model"], run.endpoint_model if run else "", group["language"],
                     seed if isinstance(seed, int) else None,
                     float(temperature) if isinstance(temperature, (int, float)) else None,
                     wall_s=wall_seconds(run), run_status=run.status if run else "unknown")


def _add(row: LedgerRow, group: dict) -> None:
    n = group["n"]
    row.requests += n
    row.attempts += group["attempts"]
    if group["status"] == "answered":
        row.answered += n
        row.tokens_in += group["tokens_in"]
        row.tokens_out += group["tokens_out"]
        row.request_s += group["latency_s"]
        if group["cost_usd"] is not None:
            row.cost_usd = (row.cost_usd or 0.0) + group["cost_usd"]
    elif group["status"] == "cached":
        row.cached += n
        row.cached_tokens_in += group["tokens_in"]
        row.cached_tokens_out += group["tokens_out"]
    else:
        row.failed += n


def wall_seconds(run: ModelRunRow | None) -> float | None:
    """A finished run's wall time in seconds: as the run measured it, else (a run from before that was stored) from
    its start and end times, to the second; None while it runs."""
    if run is None or not run.finished_at:
        return None
    if run.wall_s is not None:
        return run.wall_s
    try:
        return (datetime.fromisoformat(run.finished_at) - datetime.fromisoformat(run.started_at)).total_seconds()
    except ValueError:
        return None


def totals(rows: Iterable[LedgerRow]) -> dict:
    """The sums over ledger rows (wall time counted once per run)."""
    rows = list(rows)
    walls = {row.run: row.wall_s for row in rows if row.wall_s is not None}
    costs = [row.cost_usd for row in rows if row.cost_usd is not None]
    return {"requests": sum(r.requests for r in rows), "answered": sum(r.answered for r in rows),
            "cached": sum(r.cached for r in rows), "failed": sum(r.failed for r in rows),
            "tokens_in": sum(r.tokens_in for r in rows), "tokens_out": sum(r.tokens_out for r in rows),
            "cached_tokens_in": sum(r.cached_tokens_in for r in rows),
            "cached_tokens_out": sum(r.cached_tokens_out for r in rows),
            "cost_usd": sum(costs) if costs else None, "request_s": sum(r.request_s for r in rows),
            "wall_s": sum(walls.values())}


def money(amount: float | None) -> str:
    """A cost as shown in the ledger: dollars to four places, "–" when unknown."""
    return "–" if amount is None else f"${amount:,.4f}"
