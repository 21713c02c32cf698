"""The build's cache of each program's near-duplicate shingles, so finalising again tokenises only new
programs (tokenising every program with tree-sitter is most of a finalise with nothing new).

One file per language, `build/shingles-<language>.npz`: the keys (`dedup.sources_key`), the offsets and
all hashes concatenated; no pickles. It is only a cache: a missing, damaged or foreign file is ignored
(every program is tokenised again) and it is rewritten with exactly the programs of the last finalise.
It is read as any archive is (`core.safe_archives`), so a foreign file costs no more than its bounds.
"""
from __future__ import annotations

import io
import logging
import os
from pathlib import Path

import numpy as np

from core.safe_archives import ArchiveBounds, BoundedZip
from core.safe_files import MiB

log = logging.getLogger(__name__)
ARRAYS = ("keys", "offsets", "hashes")
# 64-bit hashes of a few thousand shingles per program, 10,583 programs: a few hundred MB at most
SHINGLE_CACHE = ArchiveBounds(file_bytes=2048 * MiB, members=len(ARRAYS), member_bytes=2048 * MiB,
                              total_bytes=2048 * MiB)


def load_shingles(path: Path) -> dict[str, np.ndarray]:
    try:
        with BoundedZip(path, SHINGLE_CACHE) as stored:
            members = {member.filename: member for member in stored.members}
            keys, offsets, hashes = (np.load(io.BytesIO(stored.read(members[f"{name}.npy"])), allow_pickle=False)
                                     for name in ARRAYS)
        if (keys.ndim != 1 or offsets.shape != (len(keys) + 1,) or hashes.dtype != np.uint64
                or offsets[0] != 0 or offsets[-1] != len(hashes) or np.any(np.diff(offsets) < 0)):
            raise ValueError("inconsistent arrays")
    except FileNotFoundError:
        return {}
    except (OSError, ValueError, KeyError, MemoryError) as error:  # MemoryError: a header declaring a huge array
        log.warning("%s: unusable shingle cache, every program is tokenised again (%s)", path, error)
        return {}
    return {str(key): hashes[offsets[n]:offsets[n + 1]] for n, key in enumerate(keys)}


def save_shingles(path: Path, shingles: dict[str, np.ndarray], keep: list[str]) -> None:
    """Store the shingles of the programs `keep` names (replacing the file atomically)."""
    keys = sorted(set(keep))
    sizes = np.array([len(shingles[key]) for key in keys], dtype=np.int64)
    offsets = np.concatenate([np.zeros(1, dtype=np.int64), np.cumsum(sizes)])
    hashes = np.concatenate([shingles[key] for key in keys]) if keys else np.empty(0, dtype=np.uint64)
    path.parent.mkdir(parents=True, exist_ok=True)
    temporary = path.with_name(f".{path.name}.tmp")
    with open(temporary, "wb") as stream:
        np.savez(stream, keys=np.array(keys, dtype="<U32"), offsets=offsets, hashes=hashes.astype(np.uint64))
    os.replace(temporary, path)
