"""The response cache: one SQLite file shared by all workspaces, keyed by prompt and decoding.

Only successful HTTP answers are kept (an empty answer is a successful one). The key covers the
prompt hash (both messages and the wording's tag, a release's sha256), the endpoint URL, the
model id, the temperature and the token limit, so a changed prompt text, release or setting never
reuses an old answer; each answer also records its prompt's wording tag. The cache is a convenience: when its file is
corrupt or unwritable a warning is logged and the run goes on without it.
"""
from __future__ import annotations

import hashlib
import json
import logging
import sqlite3
from dataclasses import dataclass
from pathlib import Path

from core.dataset.workspace_db import connect
from core.llm.endpoints import RunSettings
from core.user_folders import writable_cache_dir
from core.verdicts import now_iso

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class CachedAnswer:
    content: str | None
    finish_reason: str | None = None
    tokens_in: int | None = None
    tokens_out: int | None = None
    latency_s: float | None = None
    created_at: str = ""
    prompt_wording: str = ""  # `PromptWording.tag` of the prompt answered
    reasoning: str | None = None  # the model's thinking beside the answer (`core.llm.chat.ChatAnswer`)
    reasoning_tokens: int | None = None


def default_cache_path() -> Path:
    return writable_cache_dir() / "answers.sqlite"


def cache_key(prompt_hash: str, settings: RunSettings) -> str:
    identity = {"prompt_hash": prompt_hash, "base_url": settings.base_url, "model": settings.model,
                "temperature": settings.temperature, "max_tokens": settings.max_tokens}
    if settings.seed is not None:  # a seeded run's answers are its own (older keys, without a seed, stay the same)
        identity["seed"] = settings.seed
    return hashlib.sha256(json.dumps(identity, sort_keys=True).encode("utf-8")).hexdigest()


class AnswerCache:
    """Not thread-safe: use it from the thread that made it (the runner does). Every process shares the file."""

    def __init__(self, path: str | Path | None = None):
        self.path = Path(path) if path is not None else default_cache_path()
        self._db: sqlite3.Connection | None = None
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            db = connect(self.path)
            db.execute("PRAGMA journal_mode=WAL")
            db.execute("create table if not exists answers (key text primary key, content text, "
                       "finish_reason text, tokens_in integer, tokens_out integer, latency_s real, created_at text)")
            columns = {row[1] for row in db.execute("pragma table_info(answers)")}
            if "prompt_wording" not in columns:
                db.execute("alter table answers add column prompt_wording text not null default ''")
            if "reasoning" not in columns:  # answers cached before reasoning was kept have none
                db.execute("alter table answers add column reasoning text")
                db.execute("alter table answers add column reasoning_tokens integer")
            db.commit()
            self._db = db
        except (OSError, sqlite3.Error) as error:
            self._disable(error)

    @property
    def available(self) -> bool:
        return self._db is not None

    def get(self, key: str) -> CachedAnswer | None:
        if self._db is None:
            return None
        try:
            row = self._db.execute("select content, finish_reason, tokens_in, tokens_out, latency_s, created_at, "
                                   "prompt_wording, reasoning, reasoning_tokens from answers where key = ?",
                                   [key]).fetchone()
        except sqlite3.Error as error:
            self._disable(error)
            return None
        return CachedAnswer(*row) if row else None

    def put(self, key: str, answer: CachedAnswer) -> None:
        if self._db is None:
            return
        try:
            with self._db:
                self._db.execute("insert or replace into answers (key, content, finish_reason, tokens_in, tokens_out, "
                                 "latency_s, created_at, prompt_wording, reasoning, reasoning_tokens) "
                                 "values (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                                 [key, answer.content, answer.finish_reason, answer.tokens_in, answer.tokens_out,
                                  answer.latency_s, answer.created_at or now_iso(), answer.prompt_wording,
                                  answer.reasoning, answer.reasoning_tokens])
        except sqlite3.Error as error:
            self._disable(error)

    def close(self) -> None:
        if self._db is not None:
            self._db.close()
            self._db = None

    def __enter__(self) -> AnswerCache:
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    def _disable(self, error: Exception) -> None:
        log.warning("%s: answer cache unusable, going on without it (%s)", self.path, error)
        if self._db is not None:
            try:
                self._db.close()
            except sqlite3.Error:
                pass
        self._db = None
