"""Open a TraceEval release as it is cloned: find its corpus, extracting `data/traceeval.zip` once.

`dataset_folder(path)` is the folder to open for whatever the user named: a checkout (`TraceEva/`,
holding `scripts/run_llm.py` and `data/`) or its `data/` folder becomes `TraceEva/data` when
`data/benchmark` is there; when only the archive is, it is extracted once, with progress, into
`<cache>/releases/<checkout>-<digest>/` beside a copy of the split files and a note of the checkout
it came from (`release.json`, which `core.release.checkout` reads to find the release's wording). Any other
folder is returned as it is.

The archive is hostile until proven otherwise: it is opened within `RELEASE_ARCHIVE`'s bounds
(`core.safe_archives`: at most 200,000 members, none past 64 MiB or 100 times its compressed size, all of
them within 100 times the archive's size), and every member is checked before anything is written (no
absolute path, no `..`, no link, device or FIFO, no encrypted or repeated member, the declared total
within the disk's free space); each is decompressed no further than its declared size, its CRC checked;
any fault stops the extraction and leaves nothing behind. The extraction goes to a temporary folder
renamed into place when complete, so an interrupted one is redone.
"""
from __future__ import annotations

import hashlib
import json
import logging
import os
import shutil
import stat
import tempfile
import zipfile
from collections.abc import Callable
from pathlib import Path, PurePosixPath

from core.errors import ReleaseError
from core.safe_archives import ArchiveBounds, BoundedZip
from core.safe_files import MAX_GROUND_TRUTH_BYTES, MAX_SPLIT_BYTES, RefusedFile, read_bytes, why_unreadable
from core.user_folders import cache_dir

ARCHIVE = "traceeval.zip"
CHECKOUT_NOTE = "release.json"  # {"checkout": path, "archive": path}
DONE = ".complete"
GiB = 1024 ** 3
# the corpus: 10,583 programs of a few files each; a member past what the dataset readers read is of no use
RELEASE_ARCHIVE = ArchiveBounds(file_bytes=16 * GiB, members=200_000, member_bytes=MAX_GROUND_TRUTH_BYTES,
                                total_bytes=64 * GiB)

Progress = Callable[[int, int, str], None]
logger = logging.getLogger(__name__)


def dataset_folder(path: Path, progress: Progress | None = None) -> Path:
    """The dataset folder for `path` (see the module's docstring)."""
    for checkout, data in ((path, path / "data"), (path.parent, path)):
        if not (checkout / "scripts" / "run_llm.py").is_file() or data.name != "data" or not data.is_dir():
            continue
        if (data / "benchmark").is_dir():
            return data
        if (data / ARCHIVE).is_file():
            return extract_corpus(data / ARCHIVE, checkout, progress)
    return path


def releases_dir() -> Path:
    return cache_dir() / "releases"


def is_extracted_corpus(folder: Path) -> bool:
    """A corpus this module extracted (only those have a checkout note to trust)."""
    try:
        return folder.resolve().parent == releases_dir().resolve() and (folder / DONE).is_file()
    except OSError:
        return False


def extract_corpus(archive: Path, checkout: Path, progress: Progress | None = None) -> Path:
    """The corpus of `archive`, extracted into the cache unless it already is (one folder per archive
    file, named by its path, size and modification time)."""
    try:
        info = archive.stat()
    except OSError as error:
        raise ReleaseError(f"{archive}: cannot read: {error.strerror}") from None
    identity = f"{archive.resolve()}|{info.st_size}|{info.st_mtime_ns}"
    target = releases_dir() / f"{checkout.resolve().name}-{hashlib.sha1(identity.encode()).hexdigest()[:10]}"
    if (target / DONE).is_file():
        return target
    target.parent.mkdir(parents=True, exist_ok=True)
    work = Path(tempfile.mkdtemp(prefix=".extracting-", dir=target.parent))
    try:
        root = _extract(archive, work / "corpus", progress)
        _copy_split_files(checkout / "data" / "traceeval_split", root / "traceeval_split")
        (root / CHECKOUT_NOTE).write_text(json.dumps({"checkout": str(checkout.resolve()),
                                                      "archive": str(archive.resolve())}, indent=2) + "\n")
        (root / DONE).write_text("")
        try:
            os.rename(root, target)
        except OSError:  # another process finished first: use its copy
            if not (target / DONE).is_file():
                raise
    except RefusedFile as error:
        raise ReleaseError(f"{archive}: {error}") from None
    except OSError as error:
        raise ReleaseError(f"{archive}: cannot extract into {target.parent}: {error.strerror or error}") from None
    finally:
        shutil.rmtree(work, ignore_errors=True)
    return target


def _copy_split_files(splits: Path, into: Path) -> None:
    """Copy the checkout's split files (`*.json` directly in `splits`) beside the corpus. A file the readers
    refuse (a FIFO, a device, a link out of the folder, too large) is left behind: loading the corpus then
    names it as missing."""
    if not splits.is_dir():
        return
    into.mkdir(exist_ok=True)
    for entry in sorted(os.scandir(splits), key=lambda e: e.name):
        if not entry.name.endswith(".json"):
            continue
        try:
            data = read_bytes(entry.path, MAX_SPLIT_BYTES, root=splits)
        except OSError as error:
            logger.warning("%s: %s; not copied with the corpus", entry.path, why_unreadable(error))
            continue
        (into / entry.name).write_bytes(data)


def _extract(archive: Path, into: Path, progress: Progress | None) -> Path:
    """Extract the checked members into `into`; the folder holding `benchmark/` (the corpus root)."""
    with BoundedZip(archive, RELEASE_ARCHIVE) as zipped:
        members = _checked_members(zipped, archive)
        total = sum(member.file_size for member in members)
        into.mkdir(parents=True)
        free = shutil.disk_usage(into).free
        if total > free:
            raise ReleaseError(f"{archive}: needs {total / 2 ** 30:.1f} GB to extract, {free / 2 ** 30:.1f} GB free")
        done = 0
        for number, member in enumerate(members, 1):
            destination = into.joinpath(*PurePosixPath(member.filename).parts)
            if member.is_dir():
                destination.mkdir(parents=True, exist_ok=True)
            else:
                destination.parent.mkdir(parents=True, exist_ok=True)
                with open(destination, "xb") as out:
                    for chunk in zipped.chunks(member):  # never past the declared size, the CRC checked
                        out.write(chunk)
                done += member.file_size
            if progress is not None and (number % 500 == 0 or number == len(members)):
                progress(done, total, f"extracting {archive.name}: {number:,} of {len(members):,} files")
    for candidate in (into, *sorted(p for p in into.iterdir() if p.is_dir())):
        if (candidate / "benchmark").is_dir():
            return candidate
    raise ReleaseError(f"{archive}: no benchmark/ folder in the archive")


def _checked_members(zipped: BoundedZip, archive: Path) -> list[zipfile.ZipInfo]:
    seen: set[str] = set()
    for member in zipped.members:
        name = member.filename
        parts = PurePosixPath(name).parts
        problem = ""
        if name.startswith(("/", "\\")) or "\\" in name or (parts and ":" in parts[0]) or ".." in parts or not parts:
            problem = f"member {name!r} is a path outside the folder it is extracted into"
        elif stat.S_IFMT(member.external_attr >> 16) not in (0, stat.S_IFREG, stat.S_IFDIR):
            problem = f"member {name!r} is a link or special file"
        elif name.rstrip("/") in seen:
            problem = f"member {name!r} is in the archive twice"
        else:
            problem = zipped.problem(member)  # encrypted, its size or ratio, an unknown compression
        if problem:
            raise ReleaseError(f"{archive}: {problem}; nothing extracted")
        seen.add(name.rstrip("/"))
    return zipped.members
