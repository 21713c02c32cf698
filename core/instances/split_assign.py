"""Test/train splits by repository, and the released split files that record them (docs/benchmark.md).

A whole repository goes to one split, so no repository is in both. Repositories are taken in a
seeded shuffle of their sorted names and added to test while that brings the test PROGRAM count
closer to `test_share` of all programs; a tie leaves the repository in train. So a single
repository goes to test only when test_share > 0.5, and a repository without programs stays in train
(unless test_share is 1, which puts everything in test).
"""
from __future__ import annotations

import random
from collections.abc import Collection, Mapping, Sequence

from core.errors import BuildError
from core.languages import registry
from core.records import repo_of

SPLITS = ("test", "train")
ID_FILES = ("test_ids.json", "train_ids.json")


def assign_splits(repo_sizes: Mapping[str, int], test_share: float = 0.2, seed: int = 0) -> dict[str, str]:
    """{repository: "test" | "train"} with the test share of programs as close to `test_share` as the greedy gets.

    The same (sizes, share, seed) always gives the same answer, whatever the order of `repo_sizes`.
    """
    _check_share(test_share)
    _check_sizes(repo_sizes)
    names = sorted(repo_sizes)
    if test_share in (0, 1):
        return dict.fromkeys(names, "test" if test_share == 1 else "train")
    order = list(names)
    random.Random(seed).shuffle(order)
    test = _greedy_test_repos(order, repo_sizes, test_share * sum(repo_sizes.values()))
    return {repo: "test" if repo in test else "train" for repo in names}


def _greedy_test_repos(order: Sequence[str], repo_sizes: Mapping[str, int], target: float) -> set[str]:
    test: set[str] = set()
    count = 0
    for repo in order:
        if abs(count + repo_sizes[repo] - target) < abs(count - target):
            test.add(repo)
            count += repo_sizes[repo]
    return test


def _check_share(test_share: float) -> None:
    if isinstance(test_share, bool) or not isinstance(test_share, (int, float)) or not 0 <= test_share <= 1:
        raise BuildError(f"test share must be a number in [0, 1], got {test_share!r}")


def _check_sizes(repo_sizes: Mapping[str, int]) -> None:
    for repo, size in repo_sizes.items():
        if isinstance(size, bool) or not isinstance(size, int) or size < 0:
            raise BuildError(f"repository {repo} has {size!r} programs: expected a whole number >= 0")


def split_files(assignments: Mapping[str, Mapping[str, str]], ids: Mapping[str, Sequence[str]]) -> dict[str, object]:
    """The split files' contents: {"test_ids.json": {language: [ids]}, "train_ids.json": ..., and
    "<language>_repo_assignment.json": {repo: split}} for every language given, ids and repos sorted.

    Every program's repository (`repo_of(id)`) must be assigned, else BuildError.
    """
    languages = _known_languages_sorted({*assignments, *ids})
    listed: dict[str, dict[str, list[str]]] = {split: {language: [] for language in languages} for split in SPLITS}
    for language in languages:
        assignment = assignments.get(language, {})
        _check_assignment(language, assignment)
        for program_id in sorted(_unique_ids(language, ids.get(language, ()))):
            split = assignment.get(repo_of(program_id))
            if split is None:
                raise BuildError(f"{language} program {program_id}: repository {repo_of(program_id)} has no split")
            listed[split][language].append(program_id)
    files: dict[str, object] = {f"{split}_ids.json": listed[split] for split in SPLITS}
    for language in languages:
        files[assignment_file(language)] = dict(sorted(assignments.get(language, {}).items()))
    return files


def merge_split_files(existing: Mapping[str, object], fresh: Mapping[str, object],
                      languages: Collection[str]) -> dict[str, object]:
    """`existing` split-file contents with `languages` replaced by `fresh` (a java build leaves python's splits alone).

    The id files keep existing's other languages untouched and take `languages` from `fresh` (a language
    missing there becomes empty: no ids, no repository assignment); `fresh` entries of other languages are
    ignored, and files of `existing` other than these are kept as they are.
    """
    _known_languages_sorted(languages)  # refuses an unknown language
    merged: dict[str, object] = dict(existing)
    for name in ID_FILES:
        old, new = _id_map(existing, name, "existing"), _id_map(fresh, name, "fresh")
        combined = {language: list(ids) for language, ids in old.items() if language not in languages}
        combined.update((language, list(new.get(language, []))) for language in languages)
        merged[name] = {language: combined[language] for language in sorted(combined)}
    for language in languages:
        merged[assignment_file(language)] = dict(_assignment_map(fresh, language))
    return merged


def assignment_file(language: str) -> str:
    return f"{language}_repo_assignment.json"


def _known_languages_sorted(languages: Collection[str]) -> list[str]:
    """Sorted, as in the released files (java, javascript, python); an unknown language is refused."""
    unknown = sorted(set(languages) - set(registry.names()))
    if unknown:
        raise BuildError(f"unknown language {unknown[0]!r} for the split files: expected one of "
                         f"{', '.join(registry.names())}")
    return sorted(languages)


def _check_assignment(language: str, assignment: Mapping[str, str]) -> None:
    for repo, split in assignment.items():
        if split not in SPLITS:
            raise BuildError(f"{language} repository {repo} is assigned to {split!r}: expected test or train")


def _unique_ids(language: str, program_ids: Sequence[str]) -> list[str]:
    seen: set[str] = set()
    for program_id in program_ids:
        if program_id in seen:
            raise BuildError(f"{language} program {program_id} is listed twice")
        seen.add(program_id)
    return list(program_ids)


def _id_map(files: Mapping[str, object], name: str, side: str) -> dict[str, list[str]]:
    content = files.get(name, {})
    if not isinstance(content, Mapping) or not all(isinstance(ids, list) for ids in content.values()):
        raise BuildError(f'{side} {name} is not {{"<language>": [ids]}}')
    return dict(content)


def _assignment_map(files: Mapping[str, object], language: str) -> Mapping[str, str]:
    content = files.get(assignment_file(language), {})
    if not isinstance(content, Mapping):
        raise BuildError(f'fresh {assignment_file(language)} is not {{"<repo>": "test" | "train"}}')
    _check_assignment(language, content)
    return content
