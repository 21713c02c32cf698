"""Near-duplicate programs of one language: token 5-shingles, MinHash + LSH for candidates, exact Jaccard decides.

A program is the concatenation (in sorted path order) of its files' tokens, with comments and
whitespace dropped (the leaves of the tree-sitter parse, a string literal being one token, so
docstrings stay; about ten times faster than a pygments lexer). Its shingles are
the runs of `SHINGLE_SIZE` consecutive tokens; a program with fewer tokens than that has one
shingle, all of its tokens. Shingles are stored as 64-bit hashes (blake2b of each token, chained
through a mixing function), so "exact" Jaccard is exact up to a 64-bit hash collision.

MinHash signatures (fixed seed) are cut into LSH bands chosen for the threshold so that a pair
at the threshold is missed with probability below `MISS_PROBABILITY`; only pairs sharing a band
are compared exactly. Programs with identical shingle sets are grouped first, so a thousand
copies of one program cost one comparison each, not half a million.
"""
from __future__ import annotations

import hashlib
from collections.abc import Iterable, Mapping, MutableMapping, Sequence
from dataclasses import dataclass
from functools import lru_cache
from itertools import repeat

import numpy as np

from core.errors import BuildError
from core.languages import get, is_known, names
from core.symbols.parsing import parser
from core.worker_pool import process_pool

SHINGLE_SIZE = 5
PERMUTATIONS = 128
SEED = 20260513  # fixed: signatures, hence candidate pairs, are the same in every run
MISS_PROBABILITY = 1e-6  # chance that LSH misses a pair exactly at the threshold (higher similarity: less)

_MASK = (1 << 64) - 1


@dataclass(frozen=True)
class NearDuplicate:
    """`dropped` is at least `similarity` similar to `kept`, which comes before it in priority order."""

    dropped: str
    kept: str
    similarity: float


def find_near_duplicates(programs: Sequence[tuple[str, Mapping[str, str]]], language: str,
                         threshold: float = 0.9, workers: int = 1,
                         shingles: MutableMapping[str, np.ndarray] | None = None) -> list[NearDuplicate]:
    """The programs to drop, in priority order (earlier programs are kept).

    A program is dropped when its similarity to a program kept before it is >= `threshold`; it is
    reported against the most similar such program (the earliest on a tie). Dropped programs never
    cause a drop, and programs without tokens are never duplicates of anything. Tokenising is most
    of the time, so `workers` > 1 spreads it over processes, and `shingles` (a cache by
    `sources_key`, e.g. kept by the build between finalises) skips programs tokenised before and
    receives the ones tokenised now; the result depends on neither.
    """
    _check_threshold(threshold)
    _check_workers(workers)
    _check_unique_ids(programs)
    _check_language(language)  # before any work
    sources = [files for _, files in programs]
    if shingles is None:
        shingle_sets = _all_shingle_sets(sources, language, workers)
    else:
        keys = [sources_key(files) for files in sources]
        missing = sorted({key: n for n, key in enumerate(keys) if key not in shingles}.values())
        for n, computed in zip(missing, _all_shingle_sets([sources[n] for n in missing], language, workers)):
            shingles[keys[n]] = computed
        shingle_sets = [shingles[key] for key in keys]
    return _greedy_drops([program_id for program_id, _ in programs], shingle_sets, threshold)


def sources_key(files: Mapping[str, str]) -> str:
    """What a program's shingles depend on (its files and the shingle size), as a short hex digest."""
    hasher = hashlib.blake2b(f"shingles {SHINGLE_SIZE}\0".encode(), digest_size=16)
    for path in sorted(files):
        hasher.update(f"{path}\0{len(files[path])}\0".encode("utf-8", "surrogatepass"))
        hasher.update(files[path].encode("utf-8", "surrogatepass"))
    return hasher.hexdigest()


def program_similarity(first: Mapping[str, str], second: Mapping[str, str], language: str) -> float:
    """The exact Jaccard similarity `find_near_duplicates` uses for two programs (0 when either has no tokens)."""
    _check_language(language)
    return _jaccard(_shingle_hashes(_tokens(first, language)), _shingle_hashes(_tokens(second, language)))


def tokenize_program(files: Mapping[str, str], language: str) -> list[str]:
    """Identifiers, keywords, literals and punctuation of the files in sorted path order; no comments or whitespace."""
    _check_language(language)
    return _tokens(files, language)


def _all_shingle_sets(programs: Sequence[Mapping[str, str]], language: str, workers: int) -> list[np.ndarray]:
    if workers == 1 or len(programs) < 2:
        return [_program_shingles(files, language) for files in programs]
    chunk = max(1, min(64, len(programs) // (workers * 4)))
    with process_pool(workers) as pool:
        return list(pool.map(_program_shingles, programs, repeat(language), chunksize=chunk))


def _program_shingles(files: Mapping[str, str], language: str) -> np.ndarray:
    return _shingle_hashes(_tokens(files, language))


def _tokens(files: Mapping[str, str], language: str) -> list[str]:
    tokens: list[str] = []
    whole_tokens = get(language).dedup_tokens  # string literals: one token each
    for path in sorted(files):
        data = files[path].encode("utf-8")
        stack = [parser(language).parse(data).root_node]
        while stack:
            node = stack.pop()
            if node.child_count == 0 or node.type in whole_tokens:
                text = data[node.start_byte:node.end_byte].decode("utf-8", "replace").strip()
                if text and "comment" not in node.type:
                    tokens.append(text)
            else:
                stack.extend(reversed(node.children))
    return tokens


def _check_language(language: str) -> None:
    if not is_known(language):
        raise BuildError(f"cannot compare {language!r} programs: expected one of {', '.join(names())}")


def _check_threshold(threshold: float) -> None:
    if not 0 < threshold <= 1:
        raise BuildError(f"near-duplicate threshold must be in (0, 1], got {threshold!r}")


def _check_workers(workers: int) -> None:
    if isinstance(workers, bool) or not isinstance(workers, int) or workers < 1:
        raise BuildError(f"near-duplicate workers must be a whole number >= 1, got {workers!r}")


def _check_unique_ids(programs: Sequence[tuple[str, Mapping[str, str]]]) -> None:
    seen: set[str] = set()
    for program_id, _ in programs:
        if program_id in seen:
            raise BuildError(f"program {program_id} is given twice for near-duplicate detection")
        seen.add(program_id)


# --- shingles -----------------------------------------------------------------------------------

def _shingle_hashes(tokens: Sequence[str]) -> np.ndarray:
    """Sorted unique 64-bit hashes of the token k-shingles (empty when there are no tokens)."""
    if not tokens:
        return np.empty(0, dtype=np.uint64)
    token_hashes = np.fromiter((_token_hash(t) for t in tokens), dtype=np.uint64, count=len(tokens))
    width = min(SHINGLE_SIZE, len(tokens))
    count = len(tokens) - width + 1
    hashes = token_hashes[:count].copy()
    for offset in range(1, width):
        hashes = _mix64(hashes * np.uint64(0x9E3779B97F4A7C15) + token_hashes[offset:offset + count])
    return np.unique(hashes)


@lru_cache(maxsize=1 << 20)  # identifiers and punctuation repeat across programs
def _token_hash(token: str) -> int:
    """A stable 64-bit hash (blake2b, never Python's per-process randomised `hash`)."""
    digest = hashlib.blake2b(token.encode("utf-8", "surrogatepass"), digest_size=8, person=b"traceeval-tok")
    return int.from_bytes(digest.digest(), "little")


def _mix64(values: np.ndarray) -> np.ndarray:
    """The splitmix64 finaliser: a bijection on 64-bit values that spreads every input bit."""
    values = values ^ (values >> np.uint64(30))
    values = values * np.uint64(0xBF58476D1CE4E5B9)
    values = values ^ (values >> np.uint64(27))
    values = values * np.uint64(0x94D049BB133111EB)
    return values ^ (values >> np.uint64(31))


def _jaccard(first: np.ndarray, second: np.ndarray) -> float:
    if not len(first) or not len(second):
        return 0.0
    shared = len(np.intersect1d(first, second, assume_unique=True))
    return shared / (len(first) + len(second) - shared)


# --- candidates ---------------------------------------------------------------------------------

def _band_shape(threshold: float) -> tuple[int, int]:
    """(bands, rows): the most rows per band (fewest false candidates) that still misses a pair at the
    threshold with probability below MISS_PROBABILITY; one row per band when nothing does (very low thresholds)."""
    for rows in range(PERMUTATIONS, 0, -1):
        bands = PERMUTATIONS // rows
        if (1 - threshold ** rows) ** bands < MISS_PROBABILITY:
            return bands, rows
    return PERMUTATIONS, 1


def _permutations() -> tuple[np.ndarray, np.ndarray]:
    """Random affine bijections x -> a*x + b (mod 2**64, a odd) over already mixed shingle hashes."""
    rng = np.random.default_rng(SEED)
    multipliers = rng.integers(0, 1 << 63, size=PERMUTATIONS, dtype=np.uint64) * np.uint64(2) + np.uint64(1)
    offsets = rng.integers(0, 1 << 63, size=PERMUTATIONS, dtype=np.uint64)
    return multipliers, offsets


def _signature(shingles: np.ndarray, multipliers: np.ndarray, offsets: np.ndarray) -> np.ndarray:
    signature = np.full(PERMUTATIONS, _MASK, dtype=np.uint64)
    for start in range(0, len(shingles), 4096):  # bounded memory for very large programs
        chunk = shingles[start:start + 4096]
        permuted = chunk[None, :] * multipliers[:, None] + offsets[:, None]
        signature = np.minimum(signature, permuted.min(axis=1))
    return signature


def _candidate_neighbours(signatures: Sequence[np.ndarray], threshold: float) -> list[set[int]]:
    """For each group, the other groups that share at least one LSH band with it."""
    bands, rows = _band_shape(threshold)
    neighbours: list[set[int]] = [set() for _ in signatures]
    for band in range(bands):
        buckets: dict[bytes, list[int]] = {}
        for group, signature in enumerate(signatures):
            buckets.setdefault(signature[band * rows:(band + 1) * rows].tobytes(), []).append(group)
        for members in buckets.values():
            _link_all(members, neighbours)
    return neighbours


def _link_all(members: list[int], neighbours: list[set[int]]) -> None:
    if len(members) < 2:
        return
    for group in members:
        neighbours[group].update(members)
        neighbours[group].discard(group)


# --- the greedy pass ----------------------------------------------------------------------------

def _group_identical(shingle_sets: Sequence[np.ndarray]) -> tuple[list[int], list[np.ndarray]]:
    """Group index per program (-1 for programs without tokens) and each group's shingle set."""
    group_of: list[int] = []
    groups: list[np.ndarray] = []
    by_content: dict[bytes, int] = {}
    for shingles in shingle_sets:
        if not len(shingles):
            group_of.append(-1)
            continue
        key = hashlib.blake2b(shingles.tobytes(), digest_size=16).digest()
        if key not in by_content:
            by_content[key] = len(groups)
            groups.append(shingles)
        group_of.append(by_content[key])
    return group_of, groups


def _greedy_drops(ids: Sequence[str], shingle_sets: Sequence[np.ndarray], threshold: float) -> list[NearDuplicate]:
    group_of, groups = _group_identical(shingle_sets)
    multipliers, offsets = _permutations()
    neighbours = _candidate_neighbours([_signature(g, multipliers, offsets) for g in groups], threshold)
    kept_in_group: dict[int, int] = {}  # a group has at most one kept program: its copies are similarity 1
    similarities: dict[tuple[int, int], float] = {}
    drops: list[NearDuplicate] = []
    for index, group in enumerate(group_of):
        if group < 0:
            continue
        best = _most_similar_kept(group, neighbours[group], kept_in_group, groups, similarities, threshold)
        if best is None:
            kept_in_group[group] = index
        else:
            similarity, kept = best
            drops.append(NearDuplicate(ids[index], ids[kept], similarity))
    return drops


def _most_similar_kept(group: int, candidates: Iterable[int], kept_in_group: Mapping[int, int],
                       groups: Sequence[np.ndarray], similarities: dict[tuple[int, int], float],
                       threshold: float) -> tuple[float, int] | None:
    """(similarity, program index) of the most similar kept program at or above the threshold, earliest on a tie."""
    best: tuple[float, int] | None = None
    for other in (group, *candidates):
        kept = kept_in_group.get(other)
        if kept is None:
            continue
        similarity = 1.0 if other == group else _cached_jaccard(group, other, groups, similarities)
        if similarity >= threshold and (best is None or (similarity, -kept) > (best[0], -best[1])):
            best = (similarity, kept)
    return best


def _cached_jaccard(first: int, second: int, groups: Sequence[np.ndarray],
                    similarities: dict[tuple[int, int], float]) -> float:
    key = (first, second) if first < second else (second, first)
    if key not in similarities:
        similarities[key] = _jaccard(groups[first], groups[second])
    return similarities[key]
