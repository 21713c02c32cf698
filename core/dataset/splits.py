"""The TraceEval split files: test/train id lists and per-language repository assignments."""
from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path

from core.languages import registry
from core.problems import Problem
from core.records import repo_of
from core.safe_files import MAX_SPLIT_BYTES, RefusedFile, parse_json, read_text, refusal

SPLITS = ("test", "train")


@dataclass
class SplitIndex:
    """Where each program id and repository belongs, per language."""

    ids: dict[str, dict[str, str]] = field(default_factory=dict)  # language -> id -> split
    repos: dict[str, dict[str, str]] = field(default_factory=dict)  # language -> repo -> split

    def split_of(self, language: str, program_id: str) -> str:
        """The split listing the id, else the one its repository is assigned to, else ""."""
        listed = self.ids.get(language, {}).get(program_id)
        return listed or self.repos.get(language, {}).get(repo_of(program_id), "")

    def listed_ids(self, language: str, split: str | None = None) -> list[str]:
        return [i for i, s in self.ids.get(language, {}).items() if split is None or s == split]


def load_splits(folder: Path, problems: list[Problem]) -> SplitIndex:
    """Read whatever split files exist in `folder`; every unreadable or inconsistent entry is a Problem."""
    index = SplitIndex()
    shown = folder.name
    for split in SPLITS:
        data = _read_json(folder / f"{split}_ids.json", f"{shown}/{split}_ids.json", problems)
        if data is None:
            continue
        if not _is_str_list_map(data):
            problems.append(Problem(f"{shown}/{split}_ids.json", 'expected {"python": [ids], ...}'))
            continue
        for language, ids in data.items():
            if not registry.is_known(language):
                problems.append(Problem(f"{shown}/{split}_ids.json", f"unknown language {language!r}", "warning"))
                continue
            known = index.ids.setdefault(language, {})
            for program_id in ids:
                if known.get(program_id, split) != split:
                    problems.append(Problem(f"{shown}/{split}_ids.json",
                                            f"{language}/{program_id} is listed in both splits", "error", program_id))
                known.setdefault(program_id, split)
    for language in registry.names():
        name = f"{language}_repo_assignment.json"
        data = _read_json(folder / name, f"{shown}/{name}", problems, required=False)
        if data is None:
            continue
        if not isinstance(data, dict) or not all(v in SPLITS for v in data.values()):
            problems.append(Problem(f"{shown}/{name}", 'expected {"<repo>": "train" | "test"}'))
            continue
        index.repos[language] = dict(data)
    _check_consistency(index, shown, problems)
    return index


def _check_consistency(index: SplitIndex, shown: str, problems: list[Problem]) -> None:
    for language, ids in index.ids.items():
        repo_splits: dict[str, set[str]] = {}
        assignment = index.repos.get(language, {})
        for program_id, split in ids.items():
            repo = repo_of(program_id)
            repo_splits.setdefault(repo, set()).add(split)
            assigned = assignment.get(repo)
            if assignment and assigned != split:
                reason = "has no repo assignment" if assigned is None else f"is assigned to {assigned}"
                problems.append(Problem(f"{shown}/{language}_repo_assignment.json",
                                        f"repo {repo} of {split} program {program_id} {reason}", "error", program_id))
        for repo, splits in sorted(repo_splits.items()):
            if len(splits) > 1:
                problems.append(Problem(f"{shown}/{language}", f"repository {repo} has programs in both splits"))


def _read_json(path: Path, shown: str, problems: list[Problem], required: bool = True):
    try:
        data = parse_json(read_text(path, MAX_SPLIT_BYTES, root=path.parent))
    except FileNotFoundError:
        if required:
            problems.append(Problem(shown, "missing split file", "warning"))
        return None
    except RefusedFile as error:
        problems.append(Problem(shown, str(error)))
        return None
    except (OSError, json.JSONDecodeError) as error:
        problems.append(Problem(shown, f"unreadable: {error}"))
        return None
    problem = refusal(data)
    if problem:
        problems.append(Problem(shown, f"not read: {problem}"))
        return None
    return data


def _is_str_list_map(data: object) -> bool:
    return isinstance(data, dict) and all(
        isinstance(ids, list) and all(isinstance(i, str) for i in ids) for ids in data.values())
