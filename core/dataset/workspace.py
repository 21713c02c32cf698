"""The workspace: one SQLite file (WAL) holding the instance index, predictions and cached scores.

Every write is committed when the call returns, so a crash loses nothing already stored. Trace runs are
kept, never overwritten, up to `runs_kept()` per program (the oldest go first, and `store_run` says so).
The dataset folder itself is never modified. The schema is versioned with sqlite-utils
migrations; opening an older workspace upgrades it, a newer one is refused.
"""
from __future__ import annotations

import json
import os
import sqlite3
import time
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from core.dataset.name_ids import NameIds
from core.errors import UsageError, WorkspaceError
from core.problems import Problem
from core.records import CallGraph, Instance, Prediction, Provenance
from core.scoring.answers import given_graph_problems
from core.scoring.metrics import Counts
from core.traces import TraceRun
from core.user_folders import workspace_dir
from core.verdicts import Verdict, now_iso

if TYPE_CHECKING:
    from sqlite_utils.db import Table  # the database layer loads with the first connection, not with this module

ROW_COLUMNS = ("key, id, language, split, repo, folder, files, entry_point, functions, edges, lines, "
               "source_url, original_file")
KEEP_RUNS_ENV = "TRACEEVAL_KEEP_RUNS"
DEFAULT_KEEP_RUNS = 20  # trace runs kept per program: a run is at most a few MiB (tracers.trace_records' bounds)


def runs_kept() -> int:
    """How many runs of one program a workspace keeps: `$TRACEEVAL_KEEP_RUNS`, else DEFAULT_KEEP_RUNS."""
    text = os.environ.get(KEEP_RUNS_ENV, "").strip()
    if not text:
        return DEFAULT_KEEP_RUNS
    if not text.isdigit() or int(text) < 1:
        raise UsageError(f"${KEEP_RUNS_ENV} must be a whole number of at least 1, got {text[:40]!r}")
    return int(text)


@dataclass(frozen=True)
class InstanceRow:
    """The indexed facts about one instance: enough to filter, sort and score without the files."""

    key: str
    id: str
    language: str
    split: str
    repo: str
    folder: str  # relative to the dataset root
    files: tuple[str, ...]
    entry_point: str
    functions: int
    edges: int
    lines: int
    source_url: str
    original_file: str


@dataclass(frozen=True)
class ModelRow:
    name: str
    illustrative: bool
    note: str
    predictions: int
    sources: tuple[str, ...]
    imported_at: float


def _inserted_id(table: Table) -> int:
    """The id sqlite-utils recorded for the row just inserted into `table`."""
    if table.last_pk is None:
        raise WorkspaceError(f"the row inserted into {table.name} has no id")
    return table.last_pk


def default_workspace_path(dataset_root: Path) -> Path:
    """Where a dataset's workspace lives unless the user picks one: the user data directory
    (never inside the dataset, which may be read-only or shared), one file per dataset path."""
    import hashlib

    digest = hashlib.sha1(str(dataset_root.resolve()).encode()).hexdigest()[:10]
    return workspace_dir() / f"{dataset_root.resolve().name}-{digest}.sqlite"


class Workspace:
    """A thin typed layer over the workspace database. Not thread-safe: one per thread.
    Other processes may use the same file at once (see core/dataset/workspace_db.py)."""

    def __init__(self, path: str | Path):
        from core.dataset.workspace_db import WorkspaceDatabase

        self.path = Path(path).expanduser()
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            self.db = WorkspaceDatabase(self.path)
            self.db.enable_wal()
            self.db.execute("PRAGMA synchronous=NORMAL")
        except WorkspaceError:
            raise
        except (OSError, sqlite3.DatabaseError) as error:
            raise WorkspaceError(f"{self.path}: cannot open workspace: {error}") from None
        try:
            self._migrate()
        except WorkspaceError:
            self.db.close()
            raise
        self.names = NameIds(self.db.conn)

    def close(self) -> None:
        self.db.close()

    def __enter__(self) -> Workspace:
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    # -- schema ---------------------------------------------------------------------------
    # sqlite-utils (the database class, the schema steps) is imported when a workspace is opened, not with this
    # module: commands that open none start without it (tests/test_cli_startup.py).
    def _migrate(self) -> None:
        from core.dataset.workspace_schema import MIGRATIONS

        if not self._pending_steps():
            return
        with self.db.atomic():  # one process upgrades; the others wait for it, then find nothing to do
            if self._pending_steps():
                MIGRATIONS.apply(self.db)

    def _pending_steps(self) -> bool:
        """Whether schema steps are missing; WorkspaceError for a file that is no workspace of this version."""
        from core.dataset.workspace_schema import MIGRATIONS

        try:
            applied = [m.name for m in MIGRATIONS.applied(self.db)]
            tables = self.db.table_names()
        except WorkspaceError:
            raise
        except sqlite3.DatabaseError as error:
            raise WorkspaceError(f"{self.path}: not a TraceEval workspace ({error})") from None
        known = [m.name for m in MIGRATIONS._migrations]
        unknown = [name for name in applied if name not in known]
        if unknown:
            raise WorkspaceError(f"{self.path}: made by a newer TraceEval Studio (schema step {unknown[0]!r}); "
                                 "upgrade the tool to open it")
        if not applied and tables and "_sqlite_migrations" not in tables:
            raise WorkspaceError(f"{self.path}: not a TraceEval workspace (it has other tables)")
        return len(applied) < len(known)

    @property
    def schema_version(self) -> int:
        from core.dataset.workspace_schema import MIGRATIONS

        return len(MIGRATIONS.applied(self.db))

    # -- settings -------------------------------------------------------------------------
    def setting(self, key: str, default: str | None = None) -> str | None:
        rows = list(self.db.query("select value from settings where key = ?", [key]))
        return rows[0]["value"] if rows else default

    def set_setting(self, key: str, value: str) -> None:
        self.db.table("settings").upsert({"key": key, "value": value}, pk="key")

    # -- dataset index --------------------------------------------------------------------
    def update_index(self, rows: Iterable[dict], removed_folders: Iterable[str],
                     problems: Iterable[tuple[str, Problem]], meta: Mapping[str, str] = {}) -> None:
        """Store (re)loaded instances and forget removed ones, in one transaction.

        `rows` replace the instances of their folders; `problems` are (folder, problem) pairs and
        replace the problems of every folder touched ("" = the dataset itself); cached scores of
        touched instances are dropped.
        """
        rows = list(rows)
        problems = list(problems)
        touched = sorted({r["folder"] for r in rows} | set(removed_folders) | {f for f, _ in problems} | {""})
        with self.db.atomic():
            for chunk in _chunks(touched, 500):
                marks = ",".join("?" * len(chunk))
                self.db.execute(f"delete from scores where instance_key in "
                                f"(select key from instances where folder in ({marks}))", chunk)
                self.db.execute(f"delete from instances where folder in ({marks})", chunk)
                self.db.execute(f"delete from problems where folder in ({marks})", chunk)
            self._insert_or_replace("instances", rows)
            self.db.table("problems").insert_all(
                ({"folder": folder, "path": p.path, "message": p.message, "severity": p.severity,
                  "instance_id": p.instance_id} for folder, p in problems), batch_size=1000)
            for key, value in meta.items():
                self.set_setting(key, value)

    def _insert_or_replace(self, table: str, rows: list[dict]) -> None:
        """Rows with the same columns in one executemany (sqlite_utils' insert_all checked and converted every value:
        about 0.1 s at 10k rows); call inside a transaction."""
        if rows:
            columns = list(rows[0])
            self.db.conn.executemany(f"insert or replace into {table} ({', '.join(columns)}) values "
                                     f"({', '.join('?' * len(columns))})",
                                     [tuple(row[column] for column in columns) for row in rows])

    def index_state(self) -> dict[str, tuple[str, str]]:
        """folder -> (instance key, fingerprint) for every indexed instance."""
        rows = self.db.execute("select folder, key, fingerprint from instances").fetchall()
        return {folder: (key, fingerprint) for folder, key, fingerprint in rows}

    def has_instance(self, key: str) -> bool:
        return self.db.execute("select 1 from instances where key = ?", [key]).fetchone() is not None

    def program_key(self, given: str) -> str:
        """The key (`language/id`) of the program named by `language/id` or by a bare id that names one program;
        a `UsageError` otherwise (ids alone are not unique: the release has `cli_0003` in two languages)."""
        from core.languages import registry

        if "/" in given and registry.is_known(given.split("/", 1)[0]):
            if not self.has_instance(given):
                raise UsageError(f"no program {given} in the dataset")
            return given
        keys = [f"{language}/{given}" for language in registry.names() if self.has_instance(f"{language}/{given}")]
        if not keys:
            raise UsageError(f"no program {given!r} in the dataset")
        if len(keys) > 1:
            raise UsageError(f"{given} exists in {' and '.join(k.split('/')[0] for k in keys)}; write it as {keys[0]}")
        return keys[0]

    def split_names(self) -> set[str]:
        return {row[0] for row in self.db.execute("select distinct split from instances")}

    def instance_keys(self) -> list[str]:
        """Every instance's key ("<language>/<id>"), without reading the rows."""
        return [key for (key,) in self.db.execute("select key from instances")]

    def instance_count(self) -> int:
        return self.db.execute("select count(*) from instances").fetchone()[0]

    def instance_rows(self, languages: Iterable[str] | None = None, split: str | None = None) -> list[InstanceRow]:
        sql, params = f"select {ROW_COLUMNS} from instances", []
        clauses = []
        if languages is not None:
            languages = list(languages)
            clauses.append(f"language in ({','.join('?' * len(languages))})")
            params.extend(languages)
        if split:
            clauses.append("split = ?")
            params.append(split)
        if clauses:
            sql += " where " + " and ".join(clauses)
        sql += " order by language, id"
        return [_instance_row(r) for r in self.db.query(sql, params)]

    def instance(self, key: str) -> Instance | None:
        rows = list(self.db.query("select * from instances where key = ?", [key]))
        if not rows:
            return None
        r = rows[0]
        root = Path(self.setting("dataset_root") or ".")
        return Instance(id=r["id"], language=r["language"], root=root / r["folder"],
                        files=tuple(json.loads(r["files"])), entry_point=r["entry_point"],
                        ground_truth=CallGraph.from_dict(json.loads(r["ground_truth"])),
                        split=r["split"], provenance=Provenance(r["source_url"], r["original_file"]))

    def ground_truths(self, keys: Iterable[str] | None = None) -> dict[str, CallGraph]:
        return {key: CallGraph.from_dict(mapping) for key, mapping in self.ground_truth_mappings(keys).items()}

    def problems(self) -> list[Problem]:
        """The index's problems: the dataset's own first, then the programs' in the order they were met."""
        return [Problem(r["path"], r["message"], r["severity"], r["instance_id"])
                for r in self.db.query("select * from problems order by folder != '', rowid")]

    # -- models and predictions -----------------------------------------------------------
    def store_predictions(self, model: str, predictions: Iterable[Prediction], *, sources: Iterable[str] = (),
                          illustrative: bool = False, note: str = "") -> int:
        """Insert or replace a model's predictions (one per instance) and drop their cached scores."""
        return self.store_prepared(model, list(map(prepared_prediction, predictions)), sources=sources,
                                   illustrative=illustrative, note=note)

    def store_prepared(self, model: str, prepared: list[PreparedPrediction], *, sources: Iterable[str] = (),
                       illustrative: bool = False, note: str = "") -> int:
        """`store_predictions` of predictions already made rows (`prepared_prediction`, maybe in another process)."""
        rows = [row for row, _, _ in prepared]
        now = time.time()
        with self.db.atomic():
            by_language: dict[str, list[int]] = {}
            for number, row in enumerate(rows):
                by_language.setdefault(row["language"], []).append(number)
            for language, numbers in by_language.items():
                blobs = self.names.edge_blobs(language, [prepared[n][1:] for n in numbers])
                for number, blob in zip(numbers, blobs, strict=True):
                    rows[number]["edges"] = blob
            existing = list(self.db.query("select sources from models where name = ?", [model]))
            known_sources = json.loads(existing[0]["sources"]) if existing else []
            all_sources = list(dict.fromkeys([*known_sources, *sources]))
            self.db.table("models").upsert({"name": model, "illustrative": int(illustrative), "note": note,
                                           "sources": json.dumps(all_sources), "imported_at": now}, pk="name")
            self._insert_or_replace("predictions", rows)
            for chunk in _chunks([r["instance_key"] for r in rows], 500):
                marks = ",".join("?" * len(chunk))
                self.db.execute(f"delete from scores where model = ? and instance_key in ({marks})", [model, *chunk])
        return len(rows)

    def models(self) -> list[ModelRow]:
        rows = self.db.query("select m.*, (select count(*) from predictions p where p.model = m.name) as n "
                             "from models m order by m.name")
        return [ModelRow(r["name"], bool(r["illustrative"]), r["note"], r["n"], tuple(json.loads(r["sources"])),
                         r["imported_at"]) for r in rows]

    def model_names(self, models: Iterable[str] | str | None = None) -> list[str]:
        """The models named (a string is one model), each checked (an unknown one is a `UsageError`); every model
        of the workspace, sorted, when None."""
        known = [name for (name,) in self.db.execute("select name from models")]
        if models is None:
            return sorted(known)
        names = [models] if isinstance(models, str) else list(models)
        unknown = [name for name in names if name not in known]
        if unknown:
            raise UsageError(f"{self.path}: no model named {unknown[0]!r} "
                             f"(known: {', '.join(sorted(known)) or 'none'})")
        return names

    def remove_model(self, model: str) -> None:
        with self.db.atomic():
            for table in ("predictions", "scores"):
                self.db.execute(f"delete from {table} where model = ?", [model])
            self.db.execute("delete from models where name = ?", [model])

    def predictions(self, model: str, keys: Iterable[str] | None = None, *, checked: bool = True
                    ) -> dict[str, Prediction]:
        """The model's predictions (of `keys`, or all). `checked`: a prediction whose raw response was not parsed
        at import (`Prediction.raw_unchecked`) gets its problems now; a reader of graphs only passes False and
        keeps `raw_unchecked` set."""
        if keys is None:
            rows = list(self.db.query("select * from predictions where model = ?", [model]))
        else:  # by primary key: one instance costs microseconds, not a scan of 10k rows
            rows = []
            for chunk in _chunks(list(keys), 500):
                rows += self.db.query(f"select * from predictions where model = ? and instance_key in "
                                      f"({','.join('?' * len(chunk))})", [model, *chunk])
        unchecked = [r["instance_key"] for r in rows if r["raw_unchecked"]] if checked else []
        keys_of = {key: tuple(mapping) for key, mapping in self.ground_truth_mappings(unchecked).items()}
        return {r["instance_key"]: _prediction(r, keys_of.get(r["instance_key"])) for r in rows}

    def predicted_keys(self, model: str) -> set[str]:
        """The instances `model` has a prediction for (without reading the predictions)."""
        return {key for (key,) in self.db.execute("select instance_key from predictions where model = ?", [model])}

    def predicted_keys_from(self, model: str, source: str) -> set[str]:
        """The instances `model` has a prediction for that came from `source` (without reading the predictions)."""
        return {key for (key,) in self.db.execute("select instance_key from predictions where model = ? and source = ?",
                                                  [model, source])}

    def answer_sizes(self, model: str | None = None) -> list[tuple[int | None, int, int]]:
        """(output tokens the endpoint reported or None, answer characters, questions) of every stored
        answer of `model` (of every model when None): what an estimate of a new run's output starts from."""
        query = ("select p.tokens_out, length(coalesce(p.raw_response, '')), i.functions from predictions p "
                 "join instances i on i.key = p.instance_key")
        rows = self.db.execute(query + " where p.model = ?", [model]) if model is not None else self.db.execute(query)
        return [(tokens, chars, questions) for tokens, chars, questions in rows]

    def prediction_mappings(self, model: str, keys: Iterable[str] | None = None) -> dict[str, dict[str, list[str]]]:
        """Only the `{caller: [callees]}` of each prediction (of `keys`, or all): the cheap form for scoring."""
        return {key: json.loads(text) for key, text in self._model_rows("graph", model, keys)}

    def ground_truth_mappings(self, keys: Iterable[str] | None = None) -> dict[str, dict[str, list[str]]]:
        """The stored `{caller: [callees]}` of the given instances (all when `keys` is None)."""
        sql = "select key, ground_truth from instances"
        rows = self.db.execute(sql).fetchall() if keys is None else self._rows_of_keys(sql + " where key in", [], keys)
        return {key: json.loads(text) for key, text in rows}

    def prediction_edges(self, model: str, keys: Iterable[str]) -> dict[str, bytes]:
        """The edge blob (`core.dataset.name_ids`) of each of the model's predictions of `keys` it has."""
        return self._edge_blobs(self._model_rows("language, edges, graph", model, keys),
                                "update predictions set edges = ? where model = ? and instance_key = ?", [model])

    def truth_edges(self, keys: Iterable[str]) -> dict[str, bytes]:
        """The edge blob of the ground truth of each of the instances `keys`."""
        return self._edge_blobs(self._rows_of_keys("select key, language, truth_edges, ground_truth from instances "
                                                   "where key in", [], keys),
                                "update instances set truth_edges = ? where key = ?", [])

    def _edge_blobs(self, rows: list[tuple], update: str, parameters: list) -> dict[str, bytes]:
        """Blobs of (key, language, blob, JSON) rows as stored; a row stored before blobs were gets its blob now
        (from its JSON), and keeps it."""
        blobs, missing = {}, []
        for key, language, blob, text in rows:
            if blob is None:
                missing.append((key, language, text))
            else:
                blobs[key] = blob
        if missing:
            with self.db.atomic():
                for key, language, text in missing:
                    blobs[key] = blob = self.names.edge_blob(language, CallGraph.from_dict(json.loads(text)))
                    self.db.execute(update, [blob, *parameters, key])
        return blobs

    def _model_rows(self, columns: str, model: str, keys: Iterable[str] | None) -> list[tuple]:
        """(instance_key, *columns) of the model's predictions of `keys` (all when None). Asked for more than
        MANY_KEYS, one scan of the model's rows, filtered, beats asking 500 at a time."""
        sql = f"select instance_key, {columns} from predictions where model = ?"
        if keys is not None:
            keys = list(keys)
            if len(keys) <= MANY_KEYS:
                return self._rows_of_keys(sql + " and instance_key in", [model], keys)
        rows = self.db.execute(sql, [model]).fetchall()
        if keys is None:
            return rows
        wanted = set(keys)
        return [row for row in rows if row[0] in wanted]

    def names_after(self, language: str, after: int) -> list[tuple[int, str]]:
        """(id, name) of the language's interned names with ids above `after`, by id."""
        return self.db.execute("select id, name from names where language = ? and id > ? order by id",
                               [language, after]).fetchall()

    def _rows_of_keys(self, sql: str, parameters: list, keys: Iterable[str]) -> list[tuple]:
        """The rows of `sql`, which ends in `in`, for `keys`, asked 500 at a time (SQLite's limit on variables)."""
        rows = []
        for chunk in _chunks(list(keys), 500):
            rows += self.db.execute(f"{sql} ({','.join('?' * len(chunk))})", [*parameters, *chunk]).fetchall()
        return rows

    # -- cached scores --------------------------------------------------------------------
    def cached_counts(self, model: str, scoring_key: str) -> dict[str, Counts]:
        rows = self.db.execute("select instance_key, tp, fp, fn from scores where model = ? and scoring = ?",
                               [model, scoring_key]).fetchall()
        return {key: Counts(tp, fp, fn) for key, tp, fp, fn in rows}

    def store_counts(self, model: str, scoring_key: str, counts: Mapping[str, Counts]) -> None:
        with self.db.atomic():
            self.db.conn.executemany(
                "insert or replace into scores (model, instance_key, scoring, tp, fp, fn) values (?, ?, ?, ?, ?, ?)",
                [(model, key, scoring_key, c.tp, c.fp, c.fn) for key, c in counts.items()])


    # -- tracer runs ----------------------------------------------------------------------
    def store_run(self, run: TraceRun, batch: str = "", keep: int | None = None) -> StoredRun:
        """Keep a finished run (committed at once) and remove the oldest runs of its program past the newest
        `keep` (default `runs_kept()`): says how many it removed."""
        keep = runs_kept() if keep is None else keep
        if keep < 1:
            raise UsageError(f"a workspace keeps at least 1 run of a program, not {keep}")
        with self.db.atomic():
            table = self.db.table("runs")
            table.insert({
                "instance_key": run.instance_key, "language": run.language, "tracer": run.tracer,
                "tracer_version": run.tracer_version, "started_at": run.started_at, "duration_s": run.duration_s,
                "status": run.status, "message": run.message, "edges": len(run.edges), "batch": batch,
                "run": json.dumps(run.to_dict()), "children": len(run.children),
                "traced_children": sum(child.traced for child in run.children),
            })
            run_id = _inserted_id(table)
            pruned = self.db.execute(
                "delete from runs where instance_key = ? and id not in "
                "(select id from runs where instance_key = ? order by id desc limit ?)",
                [run.instance_key, run.instance_key, keep]).rowcount
        return StoredRun(run_id, max(pruned, 0), keep)

    def run_rows(self, instance_key: str) -> list[RunRow]:
        """The runs of one instance, newest first (without their full records)."""
        rows = self.db.query("select id, instance_key, tracer, started_at, duration_s, status, message, edges, "
                             "batch from runs where instance_key = ? order by id desc", [instance_key])
        return [RunRow(**r) for r in rows]

    def run(self, run_id: int) -> TraceRun | None:
        rows = self.db.execute("select run from runs where id = ?", [run_id]).fetchall()
        return TraceRun.from_dict(json.loads(rows[0][0])) if rows else None

    def latest_runs(self, batch: str | None = None) -> dict[str, TraceRun]:
        """The newest run of every traced instance (of one batch when given)."""
        where, params = ("where batch = ?", [batch]) if batch is not None else ("", [])
        rows = self.db.execute(f"select instance_key, run from runs where id in (select max(id) from runs {where} "
                               "group by instance_key)", params).fetchall()
        return {key: TraceRun.from_dict(json.loads(text)) for key, text in rows}

    def traced_keys(self, batch: str) -> set[str]:
        """Instances that already have a run in `batch` (what a resumed retrace skips)."""
        return {key for (key,) in self.db.execute("select distinct instance_key from runs where batch = ?", [batch])}

    # -- model runs (requests to an endpoint) ------------------------------------------------
    def transaction(self):
        """Group several writes into one commit (nesting is fine): `with ws.transaction(): ...`."""
        return self.db.atomic()

    def start_model_run(self, model: str, endpoint_model: str, base_url: str, params: Mapping, *,
                        requested: int = 0, skipped: int = 0) -> int:
        """Record a model run as "running" (committed at once); returns its id. `params` holds no secret."""
        table = self.db.table("model_runs")
        table.insert({"model": model, "endpoint_model": endpoint_model, "base_url": base_url,
                      "params": json.dumps(dict(params), sort_keys=True), "started_at": now_iso(), "finished_at": None,
                      "status": "running", "message": "", "requested": requested, "skipped": skipped, "answered": 0,
                      "cached": 0, "failed": 0, "tokens_in": 0, "tokens_out": 0, "cost_usd": None})
        return _inserted_id(table)

    def finish_model_run(self, run_id: int, *, status: str, message: str = "", **totals) -> None:
        """Close a model run: its final status ("finished", "cancelled", "stopped", "interrupted"),
        a one-line message and its totals (requested, skipped, answered, cached, failed, tokens_in,
        tokens_out, cost_usd, wall_s)."""
        unknown = set(totals) - set(MODEL_RUN_TOTALS)
        if unknown:
            raise ValueError(f"unknown model run total {sorted(unknown)[0]!r}")
        self.db.table("model_runs").update(run_id, {"status": status, "message": message, "finished_at": now_iso(),
                                                   **totals})

    def store_request(self, run_id: int, model: str, instance_key: str, status: str, *, error: str = "",
                      attempts: int = 0, finish_reason: str | None = None, tokens_in: int | None = None,
                      tokens_out: int | None = None, latency_s: float | None = None, cost_usd: float | None = None,
                      prompt_hash: str = "") -> int:
        """Keep one request of a model run ("answered", "cached" or "failed"); returns its id."""
        table = self.db.table("model_requests")
        table.insert({"run_id": run_id, "model": model, "instance_key": instance_key, "status": status,
                      "error": error, "attempts": attempts, "finish_reason": finish_reason, "tokens_in": tokens_in,
                      "tokens_out": tokens_out, "latency_s": latency_s, "cost_usd": cost_usd,
                      "prompt_hash": prompt_hash, "created_at": now_iso()})
        return _inserted_id(table)

    def model_run_rows(self, model: str | None = None) -> list[ModelRunRow]:
        """Model runs (of one stored model name when given), newest first."""
        where, params = ("where model = ?", [model]) if model is not None else ("", [])
        rows = self.db.query(f"select * from model_runs {where} order by id desc", params)
        return [ModelRunRow(**{**r, "params": json.loads(r["params"] or "{}")}) for r in rows]

    def request_totals(self, model: str | None = None) -> list[dict]:
        """Requests of model runs summed per run, stored model, language and status: `n`, `attempts`, `tokens_in`,
        `tokens_out`, `cost_usd` (None when no request of the group has a cost), `latency_s`."""
        where, params = ("where model = ?", [model]) if model is not None else ("", [])
        return list(self.db.query(
            "select run_id, model, substr(instance_key, 1, instr(instance_key, '/') - 1) as language, status, "
            "count(*) as n, coalesce(sum(attempts), 0) as attempts, coalesce(sum(tokens_in), 0) as tokens_in, "
            "coalesce(sum(tokens_out), 0) as tokens_out, sum(cost_usd) as cost_usd, "
            f"coalesce(sum(latency_s), 0.0) as latency_s from model_requests {where} "
            "group by run_id, model, language, status order by run_id, model, language, status", params))

    def request_rows(self, model: str, instance_key: str) -> list[RequestRow]:
        """Every request made for one instance by one stored model name, newest first."""
        rows = self.db.query("select * from model_requests where model = ? and instance_key = ? order by id desc",
                             [model, instance_key])
        return [RequestRow(**r) for r in rows]

    # -- verdicts -------------------------------------------------------------------------
    def store_verdict(self, verdict: Verdict) -> Verdict:
        """Keep a verdict (committed at once); returns it with its time filled in."""
        stored = Verdict(verdict.instance_key, verdict.caller, verdict.callee, verdict.auditor, verdict.label,
                         verdict.note, verdict.created_at or now_iso(), verdict.audit)
        self.db.table("verdicts").insert({field: getattr(stored, field) for field in
                                         ("instance_key", "caller", "callee", "auditor", "label", "note",
                                          "created_at", "audit")})
        return stored

    def latest_verdicts(self, instance_key: str, auditor: str | None = None) -> dict[tuple[str, str], Verdict]:
        """The newest verdict on each edge of an instance (of one auditor when given; withdrawn ones left out)."""
        where, params = ("and auditor = ?", [instance_key, auditor]) if auditor else ("", [instance_key])
        rows = self.db.query(f"select * from verdicts where instance_key = ? {where} order by created_at, id", params)
        newest = {(r["caller"], r["callee"]): r for r in rows}
        verdicts = (Verdict(r["instance_key"], r["caller"], r["callee"], r["auditor"], r["label"], r["note"],
                            r["created_at"], r["audit"]) for r in newest.values())
        return {v.edge: v for v in verdicts if not v.cleared}


@dataclass(frozen=True)
class StoredRun:
    """A run just stored: its id, and how many older runs of its program were removed to keep `kept`."""

    id: int
    pruned: int
    kept: int

    def pruned_note(self, instance_key: str) -> str:
        """One line saying what was removed ('' when nothing was)."""
        if not self.pruned:
            return ""
        return (f"{instance_key}: removed the {self.pruned} oldest run(s), keeping the newest {self.kept} "
                f"(--keep-runs, ${KEEP_RUNS_ENV})")


@dataclass(frozen=True)
class RunRow:
    id: int
    instance_key: str
    tracer: str
    started_at: str
    duration_s: float
    status: str
    message: str
    edges: int
    batch: str


MODEL_RUN_TOTALS = ("requested", "skipped", "answered", "cached", "failed", "tokens_in", "tokens_out", "cost_usd",
                    "wall_s")


@dataclass(frozen=True)
class ModelRunRow:
    id: int
    model: str  # the stored name
    endpoint_model: str  # the id sent to the endpoint
    base_url: str
    params: dict
    started_at: str
    finished_at: str | None
    status: str  # running | finished | cancelled | stopped | interrupted
    message: str
    requested: int
    skipped: int
    answered: int
    cached: int
    failed: int
    tokens_in: int
    tokens_out: int
    cost_usd: float | None
    wall_s: float | None = None  # measured by the run (schema step m009); None for older runs


@dataclass(frozen=True)
class RequestRow:
    id: int
    run_id: int
    model: str
    instance_key: str
    status: str  # answered | cached | failed
    error: str
    attempts: int
    finish_reason: str | None
    tokens_in: int | None
    tokens_out: int | None
    latency_s: float | None
    cost_usd: float | None
    prompt_hash: str
    created_at: str


def _instance_row(r: dict) -> InstanceRow:
    return InstanceRow(key=r["key"], id=r["id"], language=r["language"], split=r["split"], repo=r["repo"],
                       folder=r["folder"], files=tuple(json.loads(r["files"])), entry_point=r["entry_point"],
                       functions=r["functions"], edges=r["edges"], lines=r["lines"], source_url=r["source_url"],
                       original_file=r["original_file"])


# A prediction as stored: its row (without the edge blob) and its edges' callers and callees (`CallGraph.edge_ends`).
PreparedPrediction = tuple[dict, list[str], list[str]]


def prepared_prediction(p: Prediction) -> PreparedPrediction:
    return (_prediction_row(p), *p.graph.edge_ends())


def _prediction_row(p: Prediction) -> dict:
    return {"model": p.model, "instance_key": p.key, "instance_id": p.instance_id, "language": p.language,
            "graph": json.dumps(p.graph.to_dict()), "raw_response": p.raw_response,
            "parse_problems": json.dumps(list(p.parse_problems)), "prompt_hash": p.prompt_hash,
            "prompt_wording": p.prompt_wording,
            "tokens_in": p.tokens_in, "tokens_out": p.tokens_out, "latency_s": p.latency_s,
            "cost_usd": p.cost_usd, "source": p.source, "reasoning": p.reasoning,
            "reasoning_tokens": p.reasoning_tokens, "raw_unchecked": int(p.raw_unchecked)}


def _prediction(r: dict, keys: tuple[str, ...] | None = None) -> Prediction:
    """The stored prediction; one whose raw response is unchecked (`Prediction.raw_unchecked`) gets the response's
    problems now, read against the question `keys`."""
    graph = CallGraph.from_dict(json.loads(r["graph"]))
    problems = tuple(json.loads(r["parse_problems"]))
    unchecked = bool(r["raw_unchecked"])
    if unchecked and keys is not None:
        problems += tuple(given_graph_problems(r["raw_response"], graph, keys))
        unchecked = False
    return Prediction(instance_id=r["instance_id"], model=r["model"], language=r["language"],
                      graph=graph, raw_response=r["raw_response"], parse_problems=problems,
                      prompt_hash=r["prompt_hash"] or "", prompt_wording=r.get("prompt_wording") or "",
                      tokens_in=r["tokens_in"], tokens_out=r["tokens_out"], latency_s=r["latency_s"],
                      cost_usd=r["cost_usd"], source=r["source"] or "", reasoning=r.get("reasoning"),
                      reasoning_tokens=r.get("reasoning_tokens"), raw_unchecked=unchecked)


MANY_KEYS = 1000  # asked for more rows of a model than this, read them all


def _chunks(items: list, size: int) -> Iterator[list]:
    for start in range(0, len(items), size):
        yield items[start:start + size]


__all__ = ["InstanceRow", "ModelRow", "ModelRunRow", "PreparedPrediction", "RequestRow", "Workspace",
           "default_workspace_path", "prepared_prediction"]
