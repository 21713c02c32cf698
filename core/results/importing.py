"""Import results files into a workspace: match each record to an instance and store it."""
from __future__ import annotations

from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

from core.dataset.workspace import Workspace
from core.freeing import free_gradually
from core.problems import Problem
from core.records import Prediction, instance_key
from core.results.reader import find_results_files, read_results_file, to_prediction
from core.scoring.normalise import MODES
from core.scoring.scores import NormalisedTruths, instance_counts


@dataclass
class ImportReport:
    files: int = 0
    stored: dict[str, int] = field(default_factory=dict)  # model -> predictions stored
    problems: list[Problem] = field(default_factory=list)


def import_results(ws: Workspace, paths: Sequence[str | Path], model: str | None = None) -> ImportReport:
    """Read every results file under `paths` and store its predictions, replacing older ones
    of the same model and instance. Records for unknown programs are reported and skipped."""
    report = ImportReport()
    index = _index(ws)
    by_model: dict[str, list[Prediction]] = defaultdict(list)
    flags: dict[str, tuple[bool, str]] = {}
    sources: dict[str, list[str]] = defaultdict(list)
    for path in find_results_files(paths):
        results_file = read_results_file(path, model)
        report.files += 1
        report.problems.extend(results_file.problems)
        metadata = results_file.metadata
        for record in results_file.records:
            matched = _match(index, record.instance_id, record.language)
            if isinstance(matched, str):
                report.problems.append(Problem(str(path), f"{record.instance_id}: {matched}; skipped", "warning",
                                               record.instance_id))
                continue
            language, keys = matched
            prediction = to_prediction(record, language, keys)
            by_model[record.model].append(prediction)
            if str(path) not in sources[record.model]:
                sources[record.model].append(str(path))
            if metadata.get("illustrative"):
                flags[record.model] = (True, str(metadata.get("note", "")))
    truths = NormalisedTruths(ws, frozenset(MODES))
    rows = ws.instance_rows()
    for name, predictions in by_model.items():
        illustrative, note = flags.get(name, (False, ""))
        report.stored[name] = ws.store_predictions(name, predictions, sources=sources[name],
                                                   illustrative=illustrative, note=note)
        # Score with the paper's modes now, while it is all fresh: the table is then a cache read.
        instance_counts(ws, name, rows, truths.modes, truths)
    truths.release()
    free_gradually(index, by_model)  # not in one GIL-holding go at the return: the window would freeze
    return report


def _index(ws: Workspace) -> dict[str, dict[str, tuple[str, ...]]]:
    """id -> {language: ground-truth keys}."""
    index: dict[str, dict[str, tuple[str, ...]]] = defaultdict(dict)
    for key, mapping in ws.ground_truth_mappings().items():
        language, _, program_id = key.partition("/")
        index[program_id][language] = tuple(mapping)
    return index


def _match(index, program_id: str, language: str | None) -> tuple[str, tuple[str, ...]] | str:
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
