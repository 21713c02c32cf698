"""Which TraceEval releases the user confirmed, remembered by the sha256 of their scripts.

A release found beside a dataset (not named by the user) is used for prompts or parity only once the user
confirms it (`core.release.checkout.usable_release`). What is confirmed is the release's `scripts/` folder as it
is: its digest is the sha256 of the `sha256sum` lines of its regular files, sorted by path, links and
`__pycache__` left out, so it can be checked by hand:

    cd scripts && find . -type f ! -path '*/__pycache__/*' -printf '%P\\n' | LC_ALL=C sort \\
        | xargs -d '\\n' sha256sum | sha256sum

Changing, adding or removing any script gives another digest, which is asked about again. Confirmations are
kept in `<config>/confirmed-releases.json` (`core.user_folders`), a convenience: a file that cannot be read or
written is said in the log and the release is asked about again.
"""
from __future__ import annotations

import hashlib
import logging
import os
import stat
import time
from dataclasses import dataclass
from pathlib import Path

from core.errors import ReleaseError
from core.safe_files import MiB, parse_json, read_bytes, read_text, why_unreadable
from core.user_folders import config_dir, write_private_json

CONFIRMED_FILE = "confirmed-releases.json"
MAX_FILES = 1_000  # the release's scripts/ holds about ten
MAX_BYTES = 64 * MiB
MAX_CONFIRMED_BYTES = 1 * MiB
PYCACHE = "__pycache__"  # ignored by the sandboxed run too (its pycache_prefix is elsewhere)
logger = logging.getLogger(__name__)


@dataclass(frozen=True)
class ScriptsDigest:
    folder: Path
    sha256: str
    files: int


def scripts_digest(folder: Path) -> ScriptsDigest:
    """The digest of `folder` (see the module's docstring); ReleaseError past MAX_FILES or MAX_BYTES, or when a
    file cannot be read."""
    lines: list[tuple[bytes, str]] = []
    total = 0
    for parent, folders, files in os.walk(folder, onerror=_unreadable_folder):  # links to folders: not followed
        folders[:] = [name for name in folders if name != PYCACHE]
        for name in files:
            path = Path(parent, name)
            try:
                if not stat.S_ISREG(os.lstat(path).st_mode):
                    continue  # links and special files are neither hashed nor copied for the run
                data = read_bytes(path, MAX_BYTES, root=folder)
            except OSError as error:
                raise ReleaseError(f"{path}: {why_unreadable(error)}") from None
            total += len(data)
            lines.append((os.fsencode(path.relative_to(folder)), hashlib.sha256(data).hexdigest()))
            if len(lines) > MAX_FILES or total > MAX_BYTES:
                raise ReleaseError(f"{folder}: more than {MAX_FILES:,} files or {MAX_BYTES // MiB} MiB, not a "
                                   "TraceEval release's scripts folder (name the checkout that holds "
                                   "scripts/run_llm.py)")
    listing = b"".join(digest.encode() + b"  " + name + b"\n" for name, digest in sorted(lines))
    return ScriptsDigest(folder, hashlib.sha256(listing).hexdigest(), len(lines))


def _unreadable_folder(error: OSError) -> None:
    raise ReleaseError(f"{error.filename}: {why_unreadable(error)}")


def confirmed_path() -> Path:
    return config_dir() / CONFIRMED_FILE


def is_confirmed(digest: ScriptsDigest) -> bool:
    return digest.sha256 in _confirmations()


def remember(digest: ScriptsDigest) -> None:
    """Keep `digest` as confirmed (a file that cannot be written is logged: the release is asked about again)."""
    confirmations = _confirmations()
    if digest.sha256 in confirmations:
        return
    confirmations[digest.sha256] = {"folder": str(digest.folder), "files": digest.files,
                                    "confirmed": time.strftime("%Y-%m-%dT%H:%M:%S%z")}
    try:
        write_private_json(confirmed_path(), confirmations)
    except OSError as error:
        logger.warning("%s: cannot remember the confirmed release (%s)", confirmed_path(), why_unreadable(error))


def _confirmations() -> dict:
    path = confirmed_path()
    try:
        data = parse_json(read_text(path, MAX_CONFIRMED_BYTES))
    except FileNotFoundError:
        return {}
    except (OSError, ValueError) as error:
        logger.warning("%s: ignoring the confirmed releases (%s)", path, error)
        return {}
    return data if isinstance(data, dict) else {}
