"""TP/FP/FN of many programs at once from interned edges (`core.dataset.name_ids`), under the paper's rules.

Each distinct name is normalised once per (workspace, language, modes): an array maps every name id to the id of
its normalised name, or -1 when the `stdlib` mode drops it. A program's edges then become int64 codes
(program, normalised caller, normalised callee); `np.unique` makes them the sets the paper's metric compares, and
one intersection over all programs gives every program's TP. The counts are the ones `count_edges` gives on the
normalised string sets (tests/test_edge_counts.py compares them on every rule the parity vectors cover).
"""
from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING
from weakref import WeakKeyDictionary

from core.dataset.name_ids import edge_dtype
from core.dataset.workspace import Workspace
from core.scoring.metrics import Counts
from core.scoring.normalise import normalise_name

if TYPE_CHECKING:
    import numpy as np

_CODE_LIMIT = 2 ** 62  # codes stay below this (int64)


@dataclass
class _NameMap:
    """Name id -> normalised-name index (-1: dropped, or not a name of this language) for the ids up to `last_id`."""

    ids: np.ndarray
    last_id: int = 0
    normalised: dict[str, int] = field(default_factory=dict)


_MAPS: WeakKeyDictionary[Workspace, dict[tuple[str, frozenset[str]], _NameMap]] = WeakKeyDictionary()


def count_blobs(ws: Workspace, languages: Mapping[str, str], truths: Mapping[str, bytes],
                predictions: Mapping[str, bytes], modes: frozenset[str]) -> dict[str, Counts]:
    """Counts of each key of `predictions` (edge blobs) against its ground truth's blob in `truths`, normalised with
    the paper's rules and `modes`; `languages` gives each key's language."""
    import numpy as np

    by_language: dict[str, list[str]] = {}
    for key in predictions:
        by_language.setdefault(languages[key], []).append(key)
    counts: dict[str, Counts] = {}
    for language, keys in by_language.items():
        name_map = _name_map(ws, language, modes)
        size = len(name_map.normalised) + 1
        step = max(1, _CODE_LIMIT // (size * size))  # programs per pass, so codes fit in int64
        for start in range(0, len(keys), step):
            chunk = keys[start:start + step]
            truth = _codes([truths[k] for k in chunk], name_map.ids, size)
            predicted = _codes([predictions[k] for k in chunk], name_map.ids, size)
            per_program = size * size
            both = _common(truth, predicted)
            tp = np.bincount(both // per_program, minlength=len(chunk)).tolist()
            in_truth = np.bincount(truth // per_program, minlength=len(chunk)).tolist()
            in_predicted = np.bincount(predicted // per_program, minlength=len(chunk)).tolist()
            for number, key in enumerate(chunk):
                counts[key] = Counts(tp[number], in_predicted[number] - tp[number], in_truth[number] - tp[number])
    return counts


def _codes(blobs: Sequence[bytes], ids: np.ndarray, size: int) -> np.ndarray:
    """The sorted, distinct codes program * size² + caller * size + callee of the normalised edges of the blobs
    (program = the blob's position); an edge with a dropped end is left out."""
    import numpy as np

    pairs = np.frombuffer(b"".join(blobs), edge_dtype()).reshape(-1, 2)
    program = np.repeat(np.arange(len(blobs), dtype=np.int64), [len(blob) // 8 for blob in blobs])
    mapped = ids[pairs]
    kept = (mapped >= 0).all(axis=1)
    mapped, program = mapped[kept], program[kept]
    # stable (timsort) finds the runs the program-major order leaves: about twice as fast as the default here
    codes = np.sort((program * size + mapped[:, 0]) * size + mapped[:, 1], kind="stable")
    # distinct by hand: np.unique (numpy 2.4, hashing) is about 30 times slower on these arrays than a sort
    distinct = np.ones(len(codes), bool)
    distinct[1:] = codes[1:] != codes[:-1]
    return codes[distinct]


def _common(first: np.ndarray, second: np.ndarray) -> np.ndarray:
    """The values in both sorted, distinct arrays, by binary search of the first (np.intersect1d sorts both
    together again: about 5 times slower)."""
    import numpy as np

    if not len(first):
        return first
    found = np.searchsorted(first, second)
    found[found == len(first)] = 0
    return second[first[found] == second]


def _name_map(ws: Workspace, language: str, modes: frozenset[str]) -> _NameMap:
    """The language's map, brought up to date with the names interned since (by this process or another)."""
    import numpy as np

    maps = _MAPS.setdefault(ws, {})
    name_map = maps.get((language, modes)) or maps.setdefault((language, modes), _NameMap(np.full(1, -1, np.int64)))
    new = ws.names_after(language, name_map.last_id)
    if new:
        top = new[-1][0]
        if top >= len(name_map.ids):
            grown = np.full(max(top + 1, 2 * len(name_map.ids)), -1, np.int64)
            grown[:len(name_map.ids)] = name_map.ids
            name_map.ids = grown
        normalised = name_map.normalised
        for name_id, name in new:
            value = normalise_name(name, language, modes)
            name_map.ids[name_id] = -1 if value is None else normalised.setdefault(value, len(normalised))
        name_map.last_id = top
    return name_map
