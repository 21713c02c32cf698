"""Keep a workspace's instance index in step with its dataset folder.

Reopening is cheap: each program folder is fingerprinted by two `stat` calls (the folder and
its callgraph.json), and only new or changed folders are read again. Split files are re-read
every time (they are small) and the split column updated where it changed.
"""
from __future__ import annotations

import json
import os
import time
from collections.abc import Callable, Generator
from contextlib import closing
from dataclasses import dataclass, field
from functools import partial
from itertools import chain
from pathlib import Path

from core.dataset.layout import (
    GROUND_TRUTH_FILE,
    ProgramStats,
    checked_root,
    default_splits_dir,
    detect_layout,
    load_program,
    program_folders,
    shown_path,
)
from core.dataset.splits import SplitIndex, load_splits
from core.dataset.workspace import Workspace, default_workspace_path
from core.errors import DatasetError, WorkspaceError
from core.languages import registry
from core.problems import Problem
from core.records import Instance
from core.worker_pool import default_jobs, ordered_map

Progress = Callable[[int, int, str], None]


@dataclass
class IndexReport:
    instances: int = 0
    loaded: int = 0
    reused: int = 0
    removed: int = 0
    seconds: float = 0.0
    problems: list[Problem] = field(default_factory=list)


def dataset_path(given: str | Path | None = None, progress: Progress | None = None) -> Path:
    """The dataset folder for what a user named: the bundled demo dataset when nothing, the corpus of a TraceEval
    release checkout (its archive extracted once, `core.release.archive`), else the folder itself."""
    from core.release.archive import dataset_folder
    from resources import DEMO_DATASET

    if given is None or str(given) == "":
        return DEMO_DATASET
    return dataset_folder(Path(given).expanduser().resolve(), progress)


def open_dataset(root: str | Path | None = None, workspace: str | Path | None = None,
                 splits_dir: str | Path | None = None,
                 progress: Progress | None = None) -> tuple[Workspace, IndexReport]:
    """Open (or create) the dataset's workspace and bring its index up to date: `root` as `dataset_path` reads it
    (None: the bundled demo dataset, which also brings its illustrative results); `workspace`: the SQLite file
    (default: one per dataset in the user data folder); `splits_dir`: the split files' folder (default:
    `<root>/traceeval_split`). Use the workspace in a `with` block or `close()` it."""
    from core.dataset.demo import DEMO_DATASET, ensure_demo_results  # core.dataset.demo imports the scoring stack

    root = checked_root(dataset_path(root))
    ws = Workspace(workspace or default_workspace_path(root))
    try:
        report = refresh_index(ws, root, splits_dir, progress)
        if root == DEMO_DATASET:
            ensure_demo_results(ws)
    except BaseException:
        ws.close()
        raise
    return ws, report


# Programs stored per transaction while indexing. An index stopped part-way keeps the batches stored; the next
# refresh finds their fingerprints and reads only the rest.
STORE_BATCH = 1000


def refresh_index(ws: Workspace, root: str | Path, splits_dir: str | Path | None = None,
                  progress: Progress | None = None, jobs: int | None = None) -> IndexReport:
    """Bring the index up to date with the folder (see the module's docstring). `jobs`: worker processes reading
    the changed programs (default: this machine's cores when many changed, else none)."""
    started = time.perf_counter()
    root = checked_root(root)
    bound = ws.setting("dataset_root")
    if bound and bound != str(root):
        raise WorkspaceError(f"{ws.path}: this workspace belongs to the dataset {bound}; "
                             f"open {root} with another workspace (--workspace)")
    layout = detect_layout(root)
    dataset_problems: list[Problem] = []
    folders = list(program_folders(root, layout, registry.names(), dataset_problems))
    splits_path = _splits_folder(root, splits_dir, ws)
    splits = load_splits(splits_path, dataset_problems) if splits_path else None

    known = ws.index_state()
    current: dict[str, str] = {}
    changed = []
    prefix = os.path.join(str(root), "")
    for folder, hint in folders:
        name = str(folder)  # the folders are under root as found: their index name is the rest of the path
        relative = name[len(prefix):].replace(os.sep, "/") if name.startswith(prefix) else _relative(folder, root)
        current[relative] = _fingerprint(name)
        if known.get(relative, ("", ""))[1] != current[relative]:
            changed.append((folder, hint, relative))
    removed = [folder for folder in known if folder not in current]
    changed_folders = {relative for _, _, relative in changed}
    unchanged_keys = {key for folder, (key, _) in known.items() if folder in current and folder not in changed_folders}

    rows: list[dict] = []
    problems: list[tuple[str, Problem]] = []
    stored = 0
    with closing(_load_changed(changed, root, jobs)) as loaded_chunks:  # closed at once when stopped: the workers too
        for done, (relative, row, folder_problems) in enumerate(chain.from_iterable(loaded_chunks), 1):
            if row is not None:
                if row["key"] in unchanged_keys:
                    folder_problems.append(Problem(shown_path(root / relative, root), f"duplicate program id "
                                                   f"{row['key']}; skipped", "error", row["id"]))
                else:
                    unchanged_keys.add(row["key"])
                    if splits:
                        row["split"] = splits.split_of(row["language"], row["id"])
                    row["fingerprint"] = current[relative]
                    rows.append(row)
            problems.extend((relative, p) for p in folder_problems)
            if len(rows) == STORE_BATCH:  # stored as it goes: memory holds one batch, whatever the dataset's size
                ws.update_index(rows, [], problems)  # a folder's problems go with its row (they replace its old ones)
                stored += len(rows)
                rows, problems = [], []
            if progress is not None and (done % 250 == 0 or done == len(changed)):
                progress(done, len(changed), f"indexed {done} of {len(changed)} changed programs")

    ws.update_index(rows, removed, [*problems, *(("", p) for p in dataset_problems)],
                    meta={"dataset_root": str(root), "layout": layout, "splits_dir": str(splits_path or "")})
    stored += len(rows)
    _apply_splits(ws, splits)
    instances = ws.instance_count()
    return IndexReport(instances=instances, loaded=stored, reused=instances - stored, removed=len(removed),
                       seconds=time.perf_counter() - started, problems=ws.problems())


# Changed programs are read by worker processes (`core.worker_pool`) from this many on, LOAD_CHUNK to a task.
PARALLEL_FROM = 1500
LOAD_CHUNK = 100

LoadedFolder = tuple[str, dict | None, list[Problem]]  # (folder, its index row or None, its problems)


def _load_changed(changed: list[tuple[Path, str | None, str]], root: Path,
                  jobs: int | None) -> Generator[list[LoadedFolder], None, None]:
    """The changed folders read, a chunk at a time, in order: in worker processes when there are many (or `jobs`
    says how many), else here."""
    if jobs is None:
        jobs = default_jobs() if len(changed) >= PARALLEL_FROM else 1
    chunks = ([(str(folder), hint, relative) for folder, hint, relative in changed[start:start + LOAD_CHUNK]]
              for start in range(0, len(changed), LOAD_CHUNK))
    return ordered_map(partial(_load_folders, str(root)), chunks, min(jobs, -(-len(changed) // LOAD_CHUNK)))


def _load_folders(root: str, chunk: list[tuple[str, str | None, str]]) -> list[LoadedFolder]:
    """Each program folder of a chunk read (run in a worker process: module level, plain arguments)."""
    loaded_chunk: list[LoadedFolder] = []
    for folder, hint, relative in chunk:
        folder_problems: list[Problem] = []
        loaded = load_program(Path(folder), hint, folder_problems, Path(root))
        loaded_chunk.append((relative, None if loaded is None else _row(*loaded, relative), folder_problems))
    return loaded_chunk


def _apply_splits(ws: Workspace, splits: SplitIndex | None) -> None:
    updates = []
    for row in ws.db.query("select key, language, id, split from instances"):
        split = splits.split_of(row["language"], row["id"]) if splits else ""
        if split != row["split"]:
            updates.append((split, row["key"]))
    if updates:
        with ws.db.atomic():
            ws.db.conn.executemany("update instances set split = ? where key = ?", updates)


def _row(instance: Instance, stats: ProgramStats, folder: str) -> dict:
    """The instance's row; the split files' split and the fingerprint are set before it is stored (setting the split
    after storing rewrote every new row again)."""
    graph = instance.ground_truth
    return {
        "key": instance.key, "id": instance.id, "language": instance.language, "split": instance.split,
        "repo": instance.repo, "folder": folder, "files": json.dumps(list(instance.files)),
        "entry_point": instance.entry_point, "functions": len(graph.keys), "edges": len(graph.edges),
        "lines": stats.lines, "bytes": stats.bytes, "n_files": stats.files,
        "source_url": instance.provenance.source_url, "original_file": instance.provenance.original_file,
        "ground_truth": json.dumps(graph.to_dict()), "fingerprint": "",
    }


def _fingerprint(folder: str) -> str:
    """Changes when files are added to or removed from the folder, or callgraph.json changes."""
    folder_stat = os.stat(folder)
    try:
        truth = os.stat(os.path.join(folder, GROUND_TRUTH_FILE))
        return f"{folder_stat.st_mtime_ns}:{truth.st_mtime_ns}:{truth.st_size}"
    except FileNotFoundError:
        return f"{folder_stat.st_mtime_ns}:-"


def _splits_folder(root: Path, given: str | Path | None, ws: Workspace) -> Path | None:
    if given:
        path = Path(given).expanduser().resolve()
        if not path.is_dir():
            raise DatasetError(f"{path}: no such split folder")
        return path
    remembered = ws.setting("splits_dir")
    return default_splits_dir(root) or (Path(remembered) if remembered and Path(remembered).is_dir() else None)


def _relative(folder: Path, root: Path) -> str:
    """The folder's index name; "." for a dataset that is one program ("" names the dataset itself)."""
    return folder.relative_to(root).as_posix()
