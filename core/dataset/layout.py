"""Load TraceEval programs: the released layout, one program folder, or a folder of them.

A broken instance is reported as a `Problem` naming its file and skipped; the rest loads. Files are
read through `core.safe_files`: regular files only, no link out of the program folder, bounded sizes
and JSON; a program folder linked from outside the dataset is not followed.
"""
from __future__ import annotations

import json
import os
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import TypeGuard

from core.dataset.entry_points import find_entry_point
from core.dataset.splits import SplitIndex, load_splits
from core.errors import DatasetError
from core.languages import registry
from core.problems import Problem
from core.records import CallGraph, Instance, Provenance, repo_of
from core.safe_files import (
    MAX_GROUND_TRUTH_BYTES,
    MAX_README_BYTES,
    MAX_SOURCE_BYTES,
    ResolvedFolder,
    inside,
    is_call_mapping,
    may_hold_surrogate,
    parse_json,
    read_text,
    refusal,
    why_unreadable,
)

GROUND_TRUTH_FILE = "callgraph.json"
PROVENANCE_FILE = "README.md"
SKIPPED_DIRS = {"__pycache__", "node_modules", ".git", ".idea", ".vscode", "target", "build", "out"}

Progress = Callable[[int, int, str], None]


@dataclass(frozen=True)
class ProgramStats:
    files: int
    lines: int
    bytes: int


@dataclass
class Dataset:
    root: Path
    layout: str  # released | folder | program
    instances: list[Instance] = field(default_factory=list)
    problems: list[Problem] = field(default_factory=list)
    stats: dict[str, ProgramStats] = field(default_factory=dict)
    splits: SplitIndex | None = None
    candidates: int = 0  # program folders found, loaded or not

    def by_key(self) -> dict[str, Instance]:
        return {instance.key: instance for instance in self.instances}

    @property
    def errors(self) -> list[Problem]:
        return [p for p in self.problems if p.severity == "error"]


# Where `core.instances.layout_update` stages a language's finalise, and its commit point: a journal there
# means a committed update not yet fully applied (the next finalise completes it).
FINALISE_STAGING = ".{language}.finalise"
FINALISE_JOURNAL = "journal.json"

def detect_layout(root: Path) -> str:
    """released (has benchmark/<language>/), program (has callgraph.json or sources), or folder."""
    if (root / "benchmark").is_dir():
        return "released"
    if (root / GROUND_TRUTH_FILE).is_file():
        return "program"
    if any(child.is_dir() and (child / GROUND_TRUTH_FILE).is_file() for child in _subdirs(root)):
        return "folder"
    if any(_is_source(name) for name in os.listdir(root)):
        return "program"
    return "folder"


def load_dataset(
    root: str | Path,
    splits_dir: str | Path | None = None,
    languages: tuple[str, ...] | None = None,
    progress: Progress | None = None,
) -> Dataset:
    """Load every program under `root` (of `languages`, default all). Raises DatasetError only when `root`
    itself is unusable."""
    languages = registry.names() if languages is None else languages
    root = checked_root(root)
    layout = detect_layout(root)
    dataset = Dataset(root=root, layout=layout)
    candidates = list(program_folders(root, layout, languages, dataset.problems))
    dataset.candidates = len(candidates)
    splits_dir = splits_dir or default_splits_dir(root)
    if splits_dir is not None:
        dataset.splits = load_splits(Path(splits_dir), dataset.problems)
    first_folder: dict[str, Path] = {}
    for done, (folder, language_hint) in enumerate(candidates, 1):
        loaded = load_program(folder, language_hint, dataset.problems, root)
        if loaded is not None:
            instance, stats = loaded
            if instance.key in first_folder:  # only possible in a folder of program folders
                dataset.problems.append(Problem(shown_path(folder, root), f"duplicate program id {instance.key} "
                                                f"(first loaded from {shown_path(first_folder[instance.key], root)});"
                                                " skipped", "error", instance.id))
                continue
            first_folder[instance.key] = folder
            if dataset.splits is not None:
                instance = replace(instance, split=dataset.splits.split_of(instance.language, instance.id))
            dataset.instances.append(instance)
            dataset.stats[instance.key] = stats
        if progress is not None and (done % 200 == 0 or done == len(candidates)):
            progress(done, len(candidates), f"loaded {done} of {len(candidates)} programs")
    return dataset


def checked_root(root: str | Path) -> Path:
    """The dataset folder, resolved; DatasetError when it is not a folder."""
    path = Path(root).expanduser().resolve()
    if not path.exists():
        raise DatasetError(f"{path}: no such dataset folder")
    if not path.is_dir():
        raise DatasetError(f"{path}: not a folder (a dataset is a folder, see docs/benchmark.md)")
    return path


def not_a_dataset(root: Path, problems: list[Problem]) -> str:
    """Why a folder where indexing found no program is not opened as a dataset (one line, naming the folder)."""
    if problems:
        shown = "; ".join(str(p) for p in problems[:3]) + (f"; and {len(problems) - 3} more" if len(problems) > 3
                                                           else "")
        return f"{root}: no program in it could be read ({shown})"
    return (f"{root}: not a TraceEval dataset: no program found (expected benchmark/<language>/<id>/, a folder of "
            f"program folders each with {GROUND_TRUTH_FILE}, or one program folder)")


def default_splits_dir(root: Path) -> Path | None:
    """`<root>/traceeval_split` when the dataset carries its split files (the released layout)."""
    folder = root / "traceeval_split"
    return folder if folder.is_dir() else None


def load_program(
    folder: Path,
    language_hint: str | None,
    problems: list[Problem],
    dataset_root: Path | None = None,
    require_ground_truth: bool = True,
) -> tuple[Instance, ProgramStats] | None:
    """Load one program folder, or append the reason it cannot be used to `problems`."""
    program_id = folder.name
    shown = shown_path(folder, dataset_root)

    def fail(path: str, message: str) -> None:
        problems.append(Problem(path, message, "error", program_id))

    language = language_hint or _guess_language(folder)
    if not registry.is_known(language):
        fail(shown, f"unknown language: no {registry.either(registry.paper_suffixes())} source files and no "
                    "language folder")
        return None
    sources: dict[str, str] = {}
    total_bytes = 0
    bound = ResolvedFolder(folder)  # the program's files are read from inside it, resolved once for all of them
    for relative in _source_files(folder, language):
        try:
            text = read_text(folder / relative, MAX_SOURCE_BYTES, root=bound)
        except OSError as error:
            fail(f"{shown}/{relative}", why_unreadable(error))
            return None
        sources[relative] = text
        total_bytes += len(text.encode("utf-8"))
    if not sources:
        fail(shown, f"no {language} source files")
        return None
    ground_truth = _read_ground_truth(folder / GROUND_TRUTH_FILE, f"{shown}/{GROUND_TRUTH_FILE}",
                                      problems, program_id, required=require_ground_truth, root=bound)
    if ground_truth is None:
        return None
    entry_point = find_entry_point(language, sources)
    if not entry_point:
        problems.append(Problem(shown, f"no entry point ({registry.get(language).entry_missing})", "warning",
                                program_id))
    instance = Instance(
        id=program_id,
        language=language,
        root=folder,
        files=tuple(sources),
        entry_point=entry_point,
        ground_truth=ground_truth,
        provenance=_read_provenance(folder / PROVENANCE_FILE, f"{shown}/{PROVENANCE_FILE}", problems, program_id,
                                    root=bound),
    )
    lines = sum(text.count("\n") + (1 if text and not text.endswith("\n") else 0) for text in sources.values())
    return instance, ProgramStats(files=len(sources), lines=lines, bytes=total_bytes)


def load_program_folder(folder: str | Path, language: str | None = None,
                        require_ground_truth: bool = False) -> Instance:
    """One program folder as an `Instance` (its language guessed from its files unless given; the ground truth may
    be missing unless required); a `DatasetError` naming the file and the problem when it cannot be used."""
    path = Path(folder).expanduser().resolve()
    if not path.is_dir():
        raise DatasetError(f"{folder}: not a program folder")
    problems: list[Problem] = []
    loaded = load_program(path, language, problems, require_ground_truth=require_ground_truth)
    if loaded is None:
        raise DatasetError(f"{problems[0].path}: {problems[0].message}" if problems else f"{path}: cannot load")
    return loaded[0]


def parse_ground_truth(text: str) -> CallGraph:
    """Parse `callgraph.json` text; raises ValueError with a short reason when the shape is wrong."""
    def refuse_duplicates(pairs: list[tuple[str, object]]) -> dict:
        data = dict(pairs)
        if len(data) < len(pairs):
            seen: set[str] = set()
            repeated: set[str] = set()
            for key, _ in pairs:
                (repeated if key in seen else seen).add(key)
            duplicated = sorted(repeated)
            raise ValueError(f"duplicate caller keys: {', '.join(duplicated[:3])}")
        return data

    try:
        data = parse_json(text, object_pairs_hook=refuse_duplicates)
    except json.JSONDecodeError as error:
        raise ValueError(f"invalid JSON at line {error.lineno} column {error.colno}: {error.msg}") from None
    if plainly_usable(data, text):
        return CallGraph.from_dict(data)
    problem = refusal(data)
    if problem:
        raise ValueError(f"not read: {problem}")
    if not isinstance(data, dict):
        raise ValueError(f"expected an object {{caller: [callees]}}, got {type(data).__name__}")
    for caller, callees in data.items():
        if not isinstance(callees, list) or not all(isinstance(c, str) for c in callees):
            raise ValueError(f'callees of "{caller}" must be a list of strings')
    return CallGraph.from_dict(data)


def plainly_usable(data: object, text: str) -> TypeGuard[dict[str, list[str]]]:
    """Whether `data`, parsed from `text`, is an object of lists of strings (two levels, no number, so no
    `Refused` marker) and `text` neither holds nor escapes a surrogate, so `refusal` has nothing to find and
    need not walk every string (most of the time of reading a ground truth)."""
    return is_call_mapping(data) and not may_hold_surrogate(text)


def _read_ground_truth(path: Path, shown: str, problems: list[Problem], program_id: str,
                       required: bool, root: ResolvedFolder) -> CallGraph | None:
    try:
        text = read_text(path, MAX_GROUND_TRUTH_BYTES, root=root)
    except FileNotFoundError:
        if required:
            problems.append(Problem(shown, "missing (every program needs its ground truth)", "error", program_id))
            return None
        return CallGraph()
    except OSError as error:
        problems.append(Problem(shown, why_unreadable(error), "error", program_id))
        return None
    try:
        return parse_ground_truth(text)
    except ValueError as error:
        problems.append(Problem(shown, str(error), "error", program_id))
        return None


def _read_provenance(path: Path, shown: str, problems: list[Problem], program_id: str,
                     root: ResolvedFolder | None = None) -> Provenance:
    try:
        text = read_text(path, MAX_README_BYTES, root=root or path.parent, errors="replace")
    except FileNotFoundError:
        return Provenance()
    except OSError as error:
        problems.append(Problem(shown, f"{why_unreadable(error)}; no provenance shown", "warning", program_id))
        return Provenance()
    source = original = licence = ""
    for line in text.splitlines():
        stripped = line.strip().lstrip("-*").strip()
        key, sep, value = stripped.partition(":")
        if not sep:
            continue
        key = key.strip().strip("*").strip().lower()
        if key == "source" and not source:
            source = value.strip()
        elif key == "original file" and not original:
            original = value.strip().strip("`")
        elif key in ("licence", "license") and not licence:
            licence = value.strip()
    return Provenance(source_url=source, original_file=original, licence=licence)


def read_provenance(folder: Path) -> Provenance:
    """The provenance lines of a program folder's README (empty when it has none or cannot be read; indexing
    reports an unreadable README)."""
    return _read_provenance(folder / PROVENANCE_FILE, PROVENANCE_FILE, [], folder.name)


def program_folders(root: Path, layout: str, languages: tuple[str, ...],
                    problems: list[Problem]) -> Iterator[tuple[Path, str | None]]:
    """(program folder, language from its parent folder or None) for every candidate program."""
    if layout == "program":
        yield root, _language_from_folder_name(root.parent.name)
        return
    if layout == "folder":
        hint = _language_from_folder_name(root.name)
        for child in _subdirs_inside(root, root, problems):
            yield child, hint
        return
    benchmark = root / "benchmark"
    for child in _subdirs_inside(benchmark, root, problems):
        if not registry.is_known(child.name):
            problems.append(Problem(f"benchmark/{child.name}", "unknown language folder (expected "
                                    f"{registry.either(registry.names())}); skipped", "warning"))
    for language in languages:
        folder = benchmark / language
        staging = benchmark / FINALISE_STAGING.format(language=language)
        if (staging / FINALISE_JOURNAL).exists():
            problems.append(Problem(shown_path(staging, root), f"a build's finalise of {language} was stopped after "
                                    "it committed: its programs may mix old and new until the build is finalised "
                                    "again", "warning"))
        if folder.is_dir() and inside(folder, root):
            for child in _subdirs_inside(folder, root, problems):
                yield child, language


def _source_files(folder: Path, language: str) -> list[str]:
    """The language's source files under `folder` ('/'-separated, relative), each folder's files before its
    subfolders, by name; hidden and SKIPPED_DIRS folders and links to folders are not walked (`os.walk`'s order
    and choices, from one `scandir` per folder without `os.walk`'s per-folder path arithmetic)."""
    suffixes = registry.get(language).suffixes
    found: list[str] = []
    _add_source_files(os.fspath(folder), "", suffixes, found)
    return found


def _add_source_files(path: str, prefix: str, suffixes: tuple[str, ...], found: list[str]) -> None:
    try:
        with os.scandir(path) as listing:
            entries = sorted(listing, key=lambda entry: entry.name)
    except OSError:
        return
    folders = []
    for entry in entries:
        try:
            is_folder = entry.is_dir()
        except OSError:
            is_folder = False
        if is_folder:
            folders.append(entry)
        elif entry.name.endswith(suffixes) and not entry.name.startswith("."):
            found.append(prefix + entry.name)
    for entry in folders:
        if entry.name not in SKIPPED_DIRS and not entry.name.startswith(".") and not _is_link(entry):
            _add_source_files(entry.path, f"{prefix}{entry.name}/", suffixes, found)


def _is_link(entry: os.DirEntry[str]) -> bool:
    try:
        return entry.is_symlink()
    except OSError:  # gone since it was listed: its own listing fails and is skipped, as os.walk does
        return False


def _guess_language(folder: Path) -> str | None:
    hint = _language_from_folder_name(folder.parent.name)
    if hint:
        return hint
    counts = {language: len(_source_files(folder, language)) for language in registry.names()}
    best = max(counts, key=counts.__getitem__)
    return best if counts[best] else None


def _language_from_folder_name(name: str) -> str | None:
    """The language a folder's name or alias names (`py`, `js`, `node`, any case)."""
    language = registry.find(name)
    return language.name if language else None


def _subdirs_inside(folder: Path, root: Path, problems: list[Problem]) -> list[Path]:
    """The subfolders of `folder` that are inside the dataset `root`; each one linked from elsewhere is a
    Problem (a link to `/usr` would otherwise be walked as a program)."""
    if not inside(folder, root):
        problems.append(Problem(shown_path(folder, root), f"a link leaving the dataset (to {os.path.realpath(folder)})"
                                "; not followed"))
        return []
    kept = []
    for entry in _subdir_entries(folder):
        child = folder / entry.name  # what Path(entry.path) is, at a third of the cost (reopening makes 10k of them)
        if not entry.is_symlink() or inside(child, root):  # a real folder in a folder inside the dataset is inside
            kept.append(child)
        else:
            problems.append(Problem(shown_path(child, root), "a link leaving the dataset (to "
                                    f"{os.path.realpath(child)}); not followed", "error", child.name))
    return kept


def _subdirs(folder: Path) -> list[Path]:
    return [Path(entry.path) for entry in _subdir_entries(folder)]


def _subdir_entries(folder: Path) -> list[os.DirEntry[str]]:
    try:
        entries = sorted(os.scandir(folder), key=lambda e: e.name)
    except OSError:
        return []
    return [e for e in entries if e.is_dir() and not e.name.startswith(".") and e.name not in SKIPPED_DIRS]


def _is_source(name: str) -> bool:
    return name.endswith(registry.all_suffixes())


def shown_path(folder: Path, root: Path | None) -> str:
    if root is None:
        return str(folder)
    try:
        relative = folder.relative_to(root).as_posix()
    except ValueError:
        return str(folder)
    return relative if relative != "." else str(folder)


__all__ = [
    "GROUND_TRUTH_FILE",
    "Dataset",
    "Problem",
    "ProgramStats",
    "detect_layout",
    "load_dataset",
    "load_program",
    "parse_ground_truth",
    "repo_of",
]
