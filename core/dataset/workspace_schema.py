"""Workspace schema steps, applied in order by sqlite-utils' Migrations. Never edit a released
step: add a new one (an older workspace is upgraded by running the steps it lacks)."""
from sqlite_utils import Migrations

MIGRATIONS = Migrations("traceeval-workspace")


@MIGRATIONS()
def m001_index_and_predictions(db):
    db["settings"].create({"key": str, "value": str}, pk="key")
    db["instances"].create({
        "key": str, "id": str, "language": str, "split": str, "repo": str, "folder": str,
        "files": str, "entry_point": str, "functions": int, "edges": int, "lines": int,
        "bytes": int, "n_files": int, "source_url": str, "original_file": str,
        "ground_truth": str, "fingerprint": str,
    }, pk="key")
    db["instances"].create_index(["language", "split"])
    db["instances"].create_index(["repo"])
    db["instances"].create_index(["folder"])
    db["problems"].create({"folder": str, "path": str, "message": str, "severity": str, "instance_id": str})
    db["problems"].create_index(["folder"])
    db["models"].create({"name": str, "illustrative": int, "note": str, "sources": str,
                         "imported_at": float}, pk="name")
    db["predictions"].create({
        "model": str, "instance_key": str, "instance_id": str, "language": str, "graph": str,
        "raw_response": str, "parse_problems": str, "prompt_hash": str, "tokens_in": int,
        "tokens_out": int, "latency_s": float, "cost_usd": float, "source": str,
    }, pk=("model", "instance_key"))


@MIGRATIONS()
def m002_score_cache(db):
    db["scores"].create({"model": str, "instance_key": str, "scoring": str, "tp": int, "fp": int, "fn": int},
                        pk=("model", "scoring", "instance_key"))
    db["scores"].create_index(["instance_key"])


@MIGRATIONS()
def m003_trace_runs(db):
    """Every tracer run, kept (never overwritten); `batch` names the retrace it belongs to."""
    db["runs"].create({
        "id": int, "instance_key": str, "language": str, "tracer": str, "tracer_version": str,
        "started_at": str, "duration_s": float, "status": str, "message": str, "edges": int,
        "batch": str, "run": str,
    }, pk="id")
    db["runs"].create_index(["instance_key"])
    db["runs"].create_index(["batch", "instance_key"])


@MIGRATIONS()
def m004_verdicts(db):
    """Auditors' verdicts on edges, kept (a later verdict on the same edge supersedes, never overwrites)."""
    db["verdicts"].create({
        "id": int, "instance_key": str, "caller": str, "callee": str, "auditor": str, "label": str,
        "note": str, "created_at": str, "audit": str,
    }, pk="id")
    db["verdicts"].create_index(["instance_key"])


@MIGRATIONS()
def m005_model_runs(db):
    """Model runs against an endpoint, and every request they made (answered, cached or failed)."""
    db["model_runs"].create({
        "id": int, "model": str, "endpoint_model": str, "base_url": str, "params": str, "started_at": str,
        "finished_at": str, "status": str, "message": str, "requested": int, "skipped": int, "answered": int,
        "cached": int, "failed": int, "tokens_in": int, "tokens_out": int, "cost_usd": float,
    }, pk="id")
    db["model_runs"].create_index(["model"])
    db["model_requests"].create({
        "id": int, "run_id": int, "model": str, "instance_key": str, "status": str, "error": str, "attempts": int,
        "finish_reason": str, "tokens_in": int, "tokens_out": int, "latency_s": float, "cost_usd": float,
        "prompt_hash": str, "created_at": str,
    }, pk="id")
    db["model_requests"].create_index(["model", "instance_key"])
    db["model_requests"].create_index(["run_id"])


@MIGRATIONS()
def m006_audits(db):
    """Audits, their sampled items, adjudications and baseline answers; verdicts learn undo."""
    db["audits"].create({
        "name": str, "kind": str, "population": str, "model": str, "seed": int, "size": int, "requested_size": int,
        "margin": float, "confidence": float, "strata": str, "split": str, "languages": str, "modes": str,
        "population_size": int, "annotators": str, "fingerprint": str, "created_at": str,
    }, pk="name")
    db["audit_items"].create({
        "audit": str, "position": int, "instance_key": str, "instance_id": str, "language": str, "repo": str,
        "caller": str, "callee": str, "edge_class": str, "stratum": str, "stratum_size": int,
    }, pk=("audit", "position"))
    db["audit_items"].create_index(["audit", "instance_key"])
    # action: "verdict" (given, or a note changed) or "undo" (restores the state before row `undoes`).
    db["verdicts"].add_column("action", str, not_null_default="verdict")
    db["verdicts"].add_column("undoes", int)
    db["verdicts"].create_index(["audit", "auditor"])
    db.execute("update verdicts set label = 'wrong' where label = 'incorrect'")
    db["adjudications"].create({
        "id": int, "audit": str, "instance_key": str, "caller": str, "callee": str, "label": str,
        "adjudicator": str, "reason": str, "created_at": str,
    }, pk="id")
    db["adjudications"].create_index(["audit"])
    db["annotator_answers"].create({
        "id": int, "audit": str, "annotator": str, "instance_key": str, "caller": str, "callees": str,
        "created_at": str,
    }, pk="id")
    db["annotator_answers"].create_index(["audit", "annotator"])


@MIGRATIONS()
def m007_prompt_wording(db):
    """Which words a prompt was made from: `release:<sha256>` of the user's TraceEval release, or `studio`."""
    db["predictions"].add_column("prompt_wording", str, not_null_default="")


@MIGRATIONS()
def m008_blind_audits(db):
    """Whether an audit hides the edge class, models and scores from its annotators; older audits did not."""
    db["audits"].add_column("blind", int, not_null_default=0)


@MIGRATIONS()
def m009_model_run_wall_time(db):
    """A model run's wall time in seconds, measured by the run (its start and end times are to the second only); the
    ledger (`core.llm.ledger`) reads it. Older runs have none and fall back to their start and end times."""
    db["model_runs"].add_column("wall_s", float)


@MIGRATIONS()
def m010_reasoning(db):
    """A reasoning model's thinking and its token count, kept beside the answer; older answers have none."""
    db["predictions"].add_column("reasoning", str)
    db["predictions"].add_column("reasoning_tokens", int)


@MIGRATIONS()
def m011_batches(db):
    """Provider batches (OpenAI's Batch API, Anthropic's Message Batches, vLLM run-batch files): each batch's
    provider, remote ids and state, and one row per request with the program it asks about and how it ended."""
    db["batches"].create({
        "id": int, "model": str, "provider": str, "endpoint_model": str, "base_url": str, "params": str,
        "input_path": str, "requests": int, "bytes": int, "input_file_id": str, "remote_id": str,
        "remote_status": str, "state": str, "output_file_id": str, "error_file_id": str, "succeeded": int,
        "errored": int, "expired": int, "canceled": int, "message": str, "created_at": str, "submitted_at": str,
        "ended_at": str, "collected_at": str, "claim": str,
    }, pk="id")
    db["batches"].create_index(["model", "state"])
    db["batch_requests"].create({
        "batch_id": int, "custom_id": str, "instance_key": str, "prompt_hash": str, "keys": str, "status": str,
        "error": str, "finish_reason": str, "tokens_in": int, "tokens_out": int, "collected_at": str,
    }, pk=("batch_id", "custom_id"))
    db["batch_requests"].create_index(["instance_key"])
    db["batch_requests"].create_index(["custom_id"])


@MIGRATIONS()
def m012_child_processes(db):
    """How many processes each run's program started, and how many of them were traced (children of the
    program's own language); the run's JSON names them. Older runs have none."""
    db["runs"].add_column("children", int)
    db["runs"].add_column("traced_children", int)


@MIGRATIONS()
def m013_raw_unchecked(db):
    """Whether a stored prediction's raw response is still to be parsed for its problems (`Prediction.raw_unchecked`:
    an import leaves that to the first read). Older predictions were checked when stored."""
    db["predictions"].add_column("raw_unchecked", int, not_null_default=0)


@MIGRATIONS()
def m014_interned_edges(db):
    """Names interned as integers per language, and each prediction's and ground truth's edges as a blob of id
    pairs beside its JSON (`core.dataset.name_ids`), so scoring neither decodes JSON nor normalises a name twice.
    Older rows get their blob when first scored."""
    db["names"].create({"id": int, "language": str, "name": str}, pk="id")
    db["names"].create_index(["language", "name"], unique=True)
    db["predictions"].add_column("edges", bytes)
    db["instances"].add_column("truth_edges", bytes)


def latest_version() -> int:
    return len(MIGRATIONS._migrations)
