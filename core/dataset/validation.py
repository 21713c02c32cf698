"""`validate`: everything wrong with a dataset, as one-line problems naming the file.

Beyond what loading reports (unreadable or malformed files, skipped programs), this checks
the split files against the programs present and, per program, that every ground-truth name
can be placed in the source by the symbol extractor.
"""
from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from core.dataset.layout import GROUND_TRUTH_FILE, Dataset, load_dataset, shown_path
from core.languages import registry
from core.problems import Problem
from core.records import Instance


@dataclass
class ValidationReport:
    dataset: Dataset
    problems: list[Problem] = field(default_factory=list)

    @property
    def programs(self) -> int:
        return self.dataset.candidates

    @property
    def loaded(self) -> int:
        return len(self.dataset.instances)


def validate_dataset(root: str | Path, splits_dir: str | Path | None = None, deep: bool = True,
                     progress: Callable[[int, int, str], None] | None = None) -> ValidationReport:
    dataset = load_dataset(root, splits_dir)
    report = ValidationReport(dataset, list(dataset.problems))
    if dataset.splits is not None:
        report.problems.extend(_split_coverage(dataset))
    if deep:
        for done, instance in enumerate(dataset.instances, 1):
            report.problems.extend(check_instance(instance, shown_path(instance.root, dataset.root)))
            if progress is not None and (done % 100 == 0 or done == len(dataset.instances)):
                progress(done, len(dataset.instances), "checking names against the source")
    return report


def check_instance(instance: Instance, shown: str) -> list[Problem]:
    """Source-level checks of one loaded program: placement of names, self-edges, syntax."""
    from core.symbols import extract_symbols

    sources, unreadable = instance.read_sources()
    problems = [Problem(f"{shown}/{path}", why, "error", instance.id) for path, why in unreadable.items()]
    table = extract_symbols(instance.language, sources)
    for message in table.problems:  # "<file>: <problem>"
        file, _, what = message.partition(": ")
        problems.append(Problem(f"{shown}/{file}", what or "could not be parsed", "warning", instance.id))
    unplaced = table.unplaced(instance.ground_truth.nodes)
    if unplaced:
        shown_names = ", ".join(unplaced[:4]) + (f" and {len(unplaced) - 4} more" if len(unplaced) > 4 else "")
        problems.append(Problem(f"{shown}/{GROUND_TRUTH_FILE}", f"{len(unplaced)} name(s) not found in the source: "
                                f"{shown_names}", "warning", instance.id))
    if not registry.get(instance.language).self_edges_allowed:
        loops = [caller for caller, callee in instance.ground_truth.edges if caller == callee]
        if loops:
            problems.append(Problem(f"{shown}/{GROUND_TRUTH_FILE}", f"self-edge on {loops[0]} (TraceEval drops "
                                    f"self-recursion for {instance.language})", "warning", instance.id))
    return problems


def _split_coverage(dataset: Dataset) -> list[Problem]:
    """Programs no split file lists, and (summarised per language) listed ids with no program."""
    problems = []
    present: dict[str, set[str]] = defaultdict(set)
    for instance in dataset.instances:
        present[instance.language].add(instance.id)
        if not instance.split:
            problems.append(Problem(shown_path(instance.root, dataset.root), "not listed in the split files "
                                    "and its repository has no assignment", "warning", instance.id))
    broken = {p.instance_id for p in dataset.errors}
    splits = dataset.splits
    if splits is None:  # checked by the caller: there is nothing to cover without split files
        return problems
    for language in registry.names():
        listed = splits.listed_ids(language)
        absent = [i for i in listed if i not in present[language] and i not in broken]
        if absent and present[language]:
            problems.append(Problem(f"traceeval_split ({language})", f"{len(absent):,} of {len(listed):,} listed "
                                    f"program(s) have no folder under benchmark/{language}: "
                                    f"{', '.join(absent[:3])}{' ...' if len(absent) > 3 else ''}", "warning"))
    return problems
