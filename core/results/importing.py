"""Import results files into a workspace: match each record to an instance, store it and score it.

Files are read a record at a time (`open_results_file`) and stored and scored in batches of BATCH records, from
the objects in hand, so memory holds one batch whatever the size of the dataset or of a file (issue #24).
An interrupted import leaves whole batches; importing again replaces them (one prediction per model and
instance).
"""
from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from functools import partial
from pathlib import Path

from core.dataset.workspace import Workspace
from core.problems import Problem
from core.records import Prediction, instance_key
from core.results.reader import ResultRecord, ResultsFile, find_results_files, open_results_file, to_prediction
from core.scoring.scores import count_stored

BATCH = 500


@dataclass
class ImportReport:
    files: int = 0
    stored: dict[str, int] = field(default_factory=dict)  # model -> predictions stored
    problems: list[Problem] = field(default_factory=list)


def import_results(ws: Workspace, paths: Sequence[str | Path], model: str | None = None,
                   progress: Callable[[int, int, str], None] | None = None) -> ImportReport:
    """Read every results file under `paths` and store its predictions, replacing older ones
    of the same model and instance. Records for unknown programs are reported and skipped.
    `progress(files done, files, file name)` is called before each file and at the end."""
    report = ImportReport()
    index = _index(ws)
    stored: dict[str, set[str]] = defaultdict(set)
    illustrative: dict[str, tuple[bool, str]] = {}
    files = find_results_files(paths)
    for number, path in enumerate(files):
        if progress is not None:
            progress(number, len(files), path.name)
        results = open_results_file(path, model)
        report.files += 1
        batch: list[tuple[ResultRecord, str, str]] = []
        for record in results.records:
            matched = _match(index, record.instance_id, record.language)
            if isinstance(matched, str):
                results.problems.append(Problem(str(path), f"{record.instance_id}: {matched}; skipped", "warning",
                                                record.instance_id))
                continue
            batch.append((record, *matched))
            if len(batch) == BATCH:
                _store(ws, results, batch, stored, illustrative)
                batch = []
        if batch:
            _store(ws, results, batch, stored, illustrative)
        report.problems.extend(results.problems)
    if progress is not None:
        progress(len(files), len(files), "")
    report.stored = {name: len(keys) for name, keys in stored.items()}
    return report


def _store(ws: Workspace, results: ResultsFile, batch: list[tuple[ResultRecord, str, str]],
           stored: dict[str, set[str]], illustrative: dict[str, tuple[bool, str]]) -> None:
    """Store and score one batch of matched records (the paper's modes: the table is then a cache read)."""
    truths: dict[str, dict[str, list[str]]] = {}

    def question_keys(key: str) -> tuple[str, ...]:  # read only for records that need them, a batch at once
        if not truths:
            truths.update(ws.ground_truth_mappings([key for _, _, key in batch]))
        return tuple(truths[key])

    by_model: dict[str, list[Prediction]] = defaultdict(list)
    for record, language, key in batch:
        by_model[record.model].append(to_prediction(record, language, partial(question_keys, key)))
    metadata = results.metadata
    for name, predictions in by_model.items():
        if metadata.get("illustrative") or name not in illustrative:  # once illustrative, a model stays so
            illustrative[name] = (bool(metadata.get("illustrative")), str(metadata.get("note", "")))
        flag, note = illustrative[name]
        ws.store_predictions(name, predictions, sources=[str(results.path)], illustrative=flag, note=note)
        count_stored(ws, name, {p.key: p.language for p in predictions})
        stored[name].update(p.key for p in predictions)


def _index(ws: Workspace) -> dict[str, dict[str, str]]:
    """id -> {language: instance key}."""
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
