"""Bring one language of a built dataset to a wanted state by writing only what changed, atomically.

`update_language` gets every program the dataset should hold (id -> files as bytes) and the split
files, compares them with what is on disk and touches only the differences: new and changed program
folders are written, removed ones deleted, split files replaced when their bytes differ. Unchanged
programs are not opened for writing: their files keep their inodes and times. A renumbered program (same
repository and target under a new id) gets a new folder whose unchanged files are hard links to the old
ones, so only its README and whatever really changed are written.

What is unchanged is known from a manifest, `build/finalised-<language>.json` (each program's digest and
the size and modification time of its files when it was written); a folder whose files no longer match
it, or that the manifest does not know (a dataset finalised before the manifest existed), is compared byte
by byte, so an edited or damaged folder is rewritten and an intact one is not. The manifest is only a
cache: losing it costs a read of the dataset, never a wrong result.

Atomicity, across many folders, is a roll-forward journal:
1. everything new is staged under `benchmark/.<language>.finalise/` (hidden, so readers skip it);
2. the journal (`journal.json` in that folder, written by temp + fsync + rename) records which program
   folders and split files are replaced or removed: writing it is the commit point;
3. the changes are applied by renames only (old folders into `trash/`, staged folders into place,
   staged split files over the old ones); then the journal is deleted and the staging folder removed.
A crash before the commit point leaves the old dataset (the next update throws the staging away); a crash
after it leaves the journal, and the next update (every finalise starts with `recover`) completes the
renames first, giving the new dataset. Applying is idempotent, so a crash during recovery is recovered the
same way. Between the commit point and the end of the renames (renames only, no data written) a reader
that ignores the journal can see some programs old and some new; `interrupted_update` names that state so
a reader can say so. Durability against power loss is the file system's: only the journal is fsynced.
"""
from __future__ import annotations

import hashlib
import json
import os
import shutil
import stat
from dataclasses import dataclass
from pathlib import Path, PurePosixPath

from core.dataset.layout import FINALISE_JOURNAL as JOURNAL
from core.dataset.layout import FINALISE_STAGING as STAGING
from core.errors import BuildError
from core.safe_files import MAX_SPLIT_BYTES, MiB, read_bytes, read_json

MANIFEST = "finalised-{language}.json"
MAX_JOURNAL_BYTES = 64 * MiB  # the journal and manifest of a finalise (our own; a damaged one is not trusted)


@dataclass(frozen=True)
class WantedProgram:
    """One program folder as the dataset should hold it; `key` identifies the program across ids
    (repository and target), so a renumbered program can reuse its old files."""

    files: dict[str, bytes]
    key: str

    def digest(self) -> str:
        hasher = hashlib.sha256()
        for relative in sorted(self.files):
            content = self.files[relative]
            hasher.update(f"{relative}\0{len(content)}\0".encode())
            hasher.update(content)
        return hasher.hexdigest()


@dataclass
class UpdateCounts:
    """What one update did (for logs, tests and the benchmark)."""

    written: int = 0  # program folders written (new, changed or renumbered)
    removed: int = 0
    unchanged: int = 0
    linked_files: int = 0  # files of written folders hard-linked from an old folder instead of written
    split_files: int = 0  # split files replaced


def staging_folder(benchmark: Path, language: str) -> Path:
    return benchmark / STAGING.format(language=language)


def interrupted_update(benchmark: Path, language: str) -> bool:
    """True while a committed update of the language is not fully applied (a crash after the commit
    point): the next finalise completes it."""
    return (staging_folder(benchmark, language) / JOURNAL).exists()


def recover(benchmark: Path, language: str) -> None:
    """Finish a committed update (roll forward) or throw an uncommitted one away (roll back)."""
    staging = staging_folder(benchmark, language)
    journal_path = staging / JOURNAL
    _recover_whole_folder_swap(benchmark, language)
    if journal_path.exists():
        try:
            journal = read_json(journal_path, MAX_JOURNAL_BYTES)
            if not isinstance(journal, dict):
                raise TypeError("not a journal")
            _apply(benchmark / language, staging, journal)
        except (OSError, ValueError, KeyError, TypeError) as error:
            raise BuildError(f"{journal_path}: cannot complete the interrupted finalise ({error}); "
                             f"remove {staging} and {benchmark / language} and build again") from None
    shutil.rmtree(staging, ignore_errors=True)


def _recover_whole_folder_swap(benchmark: Path, language: str) -> None:
    """Earlier versions swapped the whole folder (`.<language>.new` in, the old one out as
    `.<language>.old`): put the old folder back if a crash came between the two renames."""
    target, old = benchmark / language, benchmark / f".{language}.old"
    if old.is_dir() and not target.exists():
        old.rename(target)
    for leftover in (old, benchmark / f".{language}.new"):
        shutil.rmtree(leftover, ignore_errors=True)


def update_language(out: Path, language: str, wanted: dict[str, WantedProgram], split_files: dict[Path, bytes],
                    manifest_path: Path) -> UpdateCounts:
    """Make `out/benchmark/<language>/` hold exactly `wanted` and each of `split_files` its bytes."""
    benchmark = out / "benchmark"
    target = benchmark / language
    recover(benchmark, language)
    for program in wanted.values():
        for relative in program.files:
            _check_relative(relative)
    manifest = _load_manifest(manifest_path)
    existing = _entries(target)
    counts = UpdateCounts()
    old_by_key = {entry["key"]: program_id for program_id, entry in manifest.items()
                  if isinstance(entry, dict) and isinstance(entry.get("key"), str) and program_id in existing}
    staging = staging_folder(benchmark, language)
    fresh_manifest: dict[str, dict] = {}
    changed: list[str] = []
    for program_id, program in wanted.items():
        digest = program.digest()
        folder = target / program_id
        signature = _signature(folder) if program_id in existing else None
        if signature is not None and _is_unchanged(folder, program, digest, signature, manifest.get(program_id)):
            counts.unchanged += 1
            fresh_manifest[program_id] = {"digest": digest, "key": program.key, "files": signature}
        else:
            changed.append(program_id)
    leaving = {name for name in existing if name not in fresh_manifest}  # replaced or removed: files reusable
    linked_once: set[tuple[int, int]] = set()  # an old file becomes one new file, never two
    for program_id in changed:
        program = wanted[program_id]
        sources = [target / name for name in (program_id, old_by_key.get(program.key)) if name in leaving]
        counts.linked_files += _stage_program(staging / "new" / program_id, program, sources, linked_once)
        counts.written += 1
    replace_ids = changed
    remove_ids = sorted(name for name in existing if name not in wanted)
    counts.removed = len(remove_ids)
    split_names = []
    for path, content in split_files.items():
        if _read_or_none(path) != content:
            staged = staging / "split" / path.name
            staged.parent.mkdir(parents=True, exist_ok=True)
            staged.write_bytes(content)
            split_names.append([path.name, path.relative_to(out).as_posix()])
    counts.split_files = len(split_names)
    if replace_ids or remove_ids or split_names:
        journal = {"replace": replace_ids, "remove": remove_ids, "split": split_names}
        target.mkdir(parents=True, exist_ok=True)
        _write_durably(staging / JOURNAL, json.dumps(journal) + "\n")  # the commit point
        _apply(target, staging, journal)
    shutil.rmtree(staging, ignore_errors=True)
    for program_id in replace_ids:
        fresh_manifest[program_id] = {"digest": wanted[program_id].digest(), "key": wanted[program_id].key,
                                      "files": _signature(target / program_id) or {}}
    if fresh_manifest != manifest:
        manifest_path.parent.mkdir(parents=True, exist_ok=True)
        temporary = manifest_path.with_name(f".{manifest_path.name}.tmp")
        temporary.write_text(json.dumps(dict(sorted(fresh_manifest.items())), separators=(",", ":")) + "\n",
                             encoding="utf-8")
        os.replace(temporary, manifest_path)
    return counts


def _apply(target: Path, staging: Path, journal: dict) -> None:
    """The renames of a committed update; safe to run again after a crash part-way through."""
    trash = staging / "trash"
    trash.mkdir(parents=True, exist_ok=True)
    target.mkdir(parents=True, exist_ok=True)
    for program_id in journal["remove"]:
        _move_aside(target / program_id, trash / program_id)
    for program_id in journal["replace"]:
        staged = staging / "new" / program_id
        if staged.exists():  # not moved in yet: whatever holds the id now is the old folder
            _move_aside(target / program_id, trash / program_id)
            staged.rename(target / program_id)
    out = target.parent.parent
    for staged_name, final_name in journal["split"]:
        staged = staging / "split" / staged_name
        if staged.exists():
            (out / final_name).parent.mkdir(parents=True, exist_ok=True)
            os.replace(staged, out / final_name)
    (staging / JOURNAL).unlink()


def _move_aside(path: Path, trash: Path) -> None:
    if path.is_symlink() or path.is_file():
        path.unlink()
    elif path.exists():
        if trash.exists():
            shutil.rmtree(trash)
        path.rename(trash)


def _stage_program(folder: Path, program: WantedProgram, sources: list[Path], linked_once: set) -> int:
    """Write one program under `folder`, hard-linking each file whose bytes a leaving folder already holds
    in a plain file of its own; returns how many files were linked."""
    if folder.exists():
        shutil.rmtree(folder)
    linked = 0
    for relative, content in sorted(program.files.items()):
        path = folder / relative
        path.parent.mkdir(parents=True, exist_ok=True)
        old = next((source / relative for source in sources if _reusable(source / relative, content, linked_once)),
                   None)
        if old is not None:
            try:
                os.link(old, path, follow_symlinks=False)
                linked += 1
                continue
            except OSError:  # a file system without hard links: write it
                pass
        path.write_bytes(content)
    folder.mkdir(parents=True, exist_ok=True)
    return linked


def _reusable(path: Path, content: bytes, linked_once: set[tuple[int, int]]) -> bool:
    """A regular file (not a link to anything else), not yet reused, holding exactly `content`."""
    try:
        status = os.lstat(path)
        if (not stat.S_ISREG(status.st_mode) or status.st_nlink != 1 or status.st_size != len(content)
                or (status.st_dev, status.st_ino) in linked_once or read_bytes(path, len(content)) != content):
            return False
    except OSError:
        return False
    linked_once.add((status.st_dev, status.st_ino))
    return True


def _is_unchanged(folder: Path, program: WantedProgram, digest: str, signature: dict, entry: object) -> bool:
    """The manifest vouches for the folder when its files are as they were written; otherwise compare."""
    if isinstance(entry, dict) and entry.get("digest") == digest and entry.get("files") == signature:
        return True
    files = _files_under(folder)
    return files is not None and set(files) == set(program.files) and all(
        files[relative][1].st_size == len(content) and read_bytes(files[relative][0], len(content)) == content
        for relative, content in program.files.items())


def _signature(folder: Path) -> dict[str, list[int]] | None:
    """Each file's size and modification time, which any rewrite changes (None: not a plain folder)."""
    files = _files_under(folder)
    return None if files is None else {relative: [status.st_size, status.st_mtime_ns]
                                       for relative, (_, status) in sorted(files.items())}


def _files_under(folder: Path) -> dict[str, tuple[str, os.stat_result]] | None:
    """Every regular file under `folder` by relative POSIX path, with its path and status; None when the
    folder holds anything else (a symbolic link, a special file) or cannot be read, so it is rewritten."""
    files: dict[str, tuple[str, os.stat_result]] = {}
    try:
        pending = [("", os.fspath(folder))]
        while pending:
            prefix, current = pending.pop()
            with os.scandir(current) as entries:
                for entry in entries:
                    if entry.is_symlink():
                        return None
                    if entry.is_dir():
                        pending.append((f"{prefix}{entry.name}/", entry.path))
                    elif entry.is_file():
                        files[prefix + entry.name] = (entry.path, entry.stat())
                    else:
                        return None
    except OSError:
        return None
    return files


def _entries(target: Path) -> set[str]:
    try:
        with os.scandir(target) as entries:
            return {entry.name for entry in entries}
    except FileNotFoundError:
        return set()


def _load_manifest(path: Path) -> dict:
    try:
        data = read_json(path, MAX_JOURNAL_BYTES)
    except (OSError, ValueError):
        return {}  # missing or damaged: every folder is compared byte by byte instead
    return data if isinstance(data, dict) else {}


def _read_or_none(path: Path) -> bytes | None:
    try:
        return read_bytes(path, MAX_SPLIT_BYTES)
    except OSError:
        return None


def _check_relative(relative: str) -> None:
    parts = PurePosixPath(relative).parts
    if not parts or relative.startswith("/") or any(part in ("", ".", "..") for part in parts) or "\\" in relative:
        raise BuildError(f"{relative!r}: a program file path must stay inside its folder")


def _write_durably(path: Path, text: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    temporary = path.with_name(f".{path.name}.tmp")
    with open(temporary, "w", encoding="utf-8") as stream:
        stream.write(text)
        stream.flush()
        os.fsync(stream.fileno())
    os.replace(temporary, path)
    directory = os.open(path.parent, os.O_RDONLY)
    try:
        os.fsync(directory)
    finally:
        os.close(directory)
