"""Import results files into a workspace: match each record to an instance, store it and score it.

Files are read a record at a time (`open_results_file`) and stored and scored in batches of BATCH records, from
the objects in hand, so memory holds one batch whatever the size of the dataset or of a file (issue #24). Large
imports read in a second process (decoding the JSON and making the rows) while this one stores and scores; the
same batches in the same order either way.
An interrupted import leaves whole batches; importing again replaces them (one prediction per model and
instance).
"""
from __future__ import annotations

import multiprocessing
from collections import defaultdict
from collections.abc import Callable, Generator, Sequence
from contextlib import closing
from dataclasses import dataclass, field
from functools import partial
from pathlib import Path
from queue import Empty

from core.dataset.workspace import PreparedPrediction, Workspace, prepared_prediction
from core.errors import ResultsError
from core.problems import Problem
from core.records import instance_key
from core.results.reader import ResultRecord, find_results_files, open_results_file, to_prediction
from core.scoring.scores import count_stored
from core.worker_pool import default_jobs, spawned_process

BATCH = 500
# From this many bytes of results files on, and with more than one core, the files are read and their records made
# rows in a reader process while this one stores and scores them (`_read_elsewhere`).
READER_FROM_BYTES = 32 << 20
QUEUED_BATCHES = 4  # batches the reader may be ahead: what memory holds beyond one batch


@dataclass
class ImportReport:
    files: int = 0
    stored: dict[str, int] = field(default_factory=dict)  # model -> predictions stored
    problems: list[Problem] = field(default_factory=list)


# What reading the files gives, in reading order:
# ("file", number, name): a file is next; ("batch", path, metadata, items): up to BATCH matched records, each
# (model, key, language, prepared prediction, None) or, for a record that needs its question's keys,
# (model, key, language, None, record); ("problems", problems): the file's problems, when it is read.
Message = tuple
Messages = Generator[Message, None, None]
Index = dict[str, dict[str, str]]  # id -> {language: instance key}


def import_results(ws: Workspace, paths: Sequence[str | Path], model: str | None = None,
                   progress: Callable[[int, int, str], None] | None = None, jobs: int | None = None) -> ImportReport:
    """Read every results file under `paths` and store its predictions, replacing older ones
    of the same model and instance. Records for unknown programs are reported and skipped.
    `progress(files done, files, file name)` is called before each file and at the end. `jobs`: 1 reads the
    files in this process; more (by default when the files are large and the machine has more than one core) in
    a reader process beside this one."""
    report = ImportReport()
    stored: dict[str, set[str]] = defaultdict(set)
    illustrative: dict[str, tuple[bool, str]] = {}
    files = find_results_files(paths)
    if jobs is None:
        jobs = default_jobs() if sum(_size(path) for path in files) >= READER_FROM_BYTES else 1
    read = _read_elsewhere if jobs > 1 and files else read_batches
    with closing(read(files, model, _index(ws))) as messages:  # closed at once when stopped: the reader too
        for message in messages:
            if message[0] == "file":
                report.files += 1
                if progress is not None:
                    progress(message[1], len(files), message[2])
            elif message[0] == "batch":
                _, path, metadata, items = message
                _store(ws, path, metadata, items, stored, illustrative)
            else:
                report.problems.extend(message[1])
    if progress is not None:
        progress(len(files), len(files), "")
    report.stored = {name: len(keys) for name, keys in stored.items()}
    return report


def read_batches(files: Sequence[Path], model: str | None, index: Index) -> Messages:
    """The files read and their records matched to instances and made rows, as `Message`s."""
    for number, path in enumerate(files):
        yield "file", number, path.name
        results = open_results_file(path, model)
        items: list[tuple] = []
        for record in results.records:
            matched = _match(index, record.instance_id, record.language)
            if isinstance(matched, str):
                results.problems.append(Problem(str(path), f"{record.instance_id}: {matched}; skipped", "warning",
                                                record.instance_id))
                continue
            items.append(_item(record, *matched))
            if len(items) == BATCH:
                yield "batch", path, results.metadata, items
                items = []
        if items:
            yield "batch", path, results.metadata, items
        yield "problems", results.problems


class _NeedsKeys(Exception):
    """The record's prediction needs its question's keys (the ground truth's), which only the workspace has."""


def _needs_keys() -> Sequence[str]:
    raise _NeedsKeys


def _item(record: ResultRecord, language: str, key: str) -> tuple:
    try:
        return record.model, key, language, prepared_prediction(to_prediction(record, language, _needs_keys)), None
    except _NeedsKeys:
        return record.model, key, language, None, record


def _store(ws: Workspace, path: Path, metadata: dict, items: list[tuple], stored: dict[str, set[str]],
           illustrative: dict[str, tuple[bool, str]]) -> None:
    """Store and score one batch of matched records (the paper's modes: the table is then a cache read)."""
    truths: dict[str, dict[str, list[str]]] = {}

    def question_keys(key: str) -> tuple[str, ...]:  # read only for records that need them, a batch at once
        if not truths:
            truths.update(ws.ground_truth_mappings([item[1] for item in items]))
        return tuple(truths[key])

    by_model: dict[str, list[tuple[PreparedPrediction, str, str]]] = defaultdict(list)
    for name, key, language, prepared, record in items:
        if prepared is None:
            prepared = prepared_prediction(to_prediction(record, language, partial(question_keys, key)))
        by_model[name].append((prepared, key, language))
    for name, entries in by_model.items():
        if metadata.get("illustrative") or name not in illustrative:  # once illustrative, a model stays so
            illustrative[name] = (bool(metadata.get("illustrative")), str(metadata.get("note", "")))
        flag, note = illustrative[name]
        ws.store_prepared(name, [prepared for prepared, _, _ in entries], sources=[str(path)], illustrative=flag,
                          note=note)
        count_stored(ws, name, {key: language for _, key, language in entries})
        stored[name].update(key for _, key, _ in entries)


def _read_elsewhere(files: Sequence[Path], model: str | None, index: Index) -> Messages:
    """`read_batches` run in a reader process (spawned: see `core.worker_pool`), its messages passed on through a
    queue of QUEUED_BATCHES; stopped when this generator is closed or the reader fails."""
    queue = multiprocessing.get_context("spawn").Queue(QUEUED_BATCHES)
    reader = spawned_process(_reader, (files, model, index, queue))
    reader.start()
    try:
        while True:
            try:
                message = queue.get(timeout=1.0)
            except Empty:
                if not reader.is_alive():
                    raise ResultsError(f"the results reader stopped (exit code {reader.exitcode})") from None
                continue
            if message is None:
                return
            if message[0] == "failed":
                raise ResultsError(f"the results reader failed: {message[1]}")
            yield message
    finally:
        if reader.is_alive():
            reader.terminate()
        reader.join()
        queue.close()


def _reader(files: Sequence[Path], model: str | None, index: Index, queue) -> None:
    """The reader process: every message of `read_batches`, then None (or ("failed", why))."""
    try:
        for message in read_batches(files, model, index):
            queue.put(message)
    except Exception as error:  # noqa: BLE001 - passed on whole: the importing process raises it
        queue.put(("failed", f"{type(error).__name__}: {error}"))
        return
    queue.put(None)


def _size(path: Path) -> int:
    try:
        return path.stat().st_size
    except OSError:
        return 0


def _index(ws: Workspace) -> Index:
    index: dict[str, dict[str, str]] = defaultdict(dict)
    for key in ws.instance_keys():
        language, _, program_id = key.partition("/")
        index[program_id][language] = key
    return index


def _match(index, program_id: str, language: str | None) -> tuple[str, str] | str:
    """(language, instance key) of a record, or why it matches none."""
    candidates = index.get(program_id, {})
    if language is not None:
        if language in candidates:
            return language, candidates[language]
        return f"no {instance_key(language, program_id)} in the dataset"
    if len(candidates) == 1:
        return next(iter(candidates.items()))
    if not candidates:
        return "not in the dataset"
    return f"id exists in {' and '.join(sorted(candidates))}; give the record a \"language\""
