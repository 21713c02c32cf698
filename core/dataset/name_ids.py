"""Names interned as integers, per language, and call edges stored compactly as pairs of them (issue #24).

Every name a ground truth or a prediction uses gets one id in the workspace's `names` table; a graph's edges are
kept beside its JSON as a blob of little-endian int32 (caller, callee) pairs. Scoring reads the
blobs and normalises each distinct name once (`core.scoring.edge_counts`), instead of decoding JSON and
normalising every name of every edge.

Ids never change and names are never removed, so several processes may intern at once: a new name is inserted
if absent and its id read back inside the caller's write transaction, and what a process remembers stays true.
Inside that transaction no other process inserts, so when every name of a run of new ones was inserted their ids
are the run after the table's largest (SQLite gives a new row the largest id plus one): only a run that met names
another process interned meanwhile reads its ids back by name (an answer of a million new names costs one pass).
"""
from __future__ import annotations

import sqlite3
from collections.abc import Iterable, Sequence
from functools import cache
from itertools import chain, repeat
from typing import TYPE_CHECKING

from core.records import CallGraph

if TYPE_CHECKING:
    import numpy as np


@cache
def edge_dtype() -> np.dtype:
    """Little-endian int32, the blobs' element (numpy is imported when edges are first stored or counted)."""
    import numpy as np

    return np.dtype("<i4")


_RUN = 50_000  # new names inserted at once


class NameIds:
    """The workspace's name -> id table, remembered per language as it is used."""

    def __init__(self, conn: sqlite3.Connection):
        self.conn = conn
        self.known: dict[str, dict[str, int]] = {}

    def edge_blob(self, language: str, graph: CallGraph) -> bytes:
        """The blob of a graph's edges; call inside a write transaction (new names are inserted)."""
        return self.edge_blobs(language, [graph.edge_ends()])[0]

    def edge_blobs(self, language: str, ends: Sequence[tuple[list[str], list[str]]]) -> list[bytes]:
        """One blob per graph given by its edges' callers and callees (`CallGraph.edge_ends`), interning new names
        once for all of them. An edge a graph's dict names twice is in its blob twice (scoring counts each edge
        once)."""
        import numpy as np

        ids = self._ids(language, dict.fromkeys(chain.from_iterable(chain.from_iterable(ends))))
        blobs = []
        for callers, callees in ends:
            pairs = np.empty((len(callers), 2), edge_dtype())
            pairs[:, 0] = np.fromiter(map(ids.__getitem__, callers), edge_dtype(), len(callers))
            pairs[:, 1] = np.fromiter(map(ids.__getitem__, callees), edge_dtype(), len(callees))
            blobs.append(pairs.tobytes())
        return blobs

    def _ids(self, language: str, names: Iterable[str]) -> dict[str, int]:
        """Ids of `names`; new names get theirs in the order given (first seen), so the same data gives the same
        ids on every run."""
        known = self.known.setdefault(language, {})
        new = [name for name in names if name not in known]
        for start in range(0, len(new), _RUN):
            run = new[start:start + _RUN]
            before = self.conn.total_changes
            self.conn.executemany("insert or ignore into names (language, name) values (?, ?)",
                                  zip(repeat(language), run))
            if self.conn.total_changes - before == len(run):  # all new: the ids that follow the largest before
                (last,) = self.conn.execute("select max(id) from names").fetchone()
                known.update(zip(run, range(last - len(run) + 1, last + 1)))
                continue
            for at in range(0, len(run), 500):  # some were interned by another process: read them back by name
                chunk = run[at:at + 500]
                marks = ",".join("?" * len(chunk))
                known.update(self.conn.execute(f"select name, id from names where language = ? and name in ({marks})",
                                               [language, *chunk]))
        return known
