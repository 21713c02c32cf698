"""Splits of built programs by repository, and the split files written for them."""
from __future__ import annotations

import json
import math
import random
from pathlib import Path

import pytest

from core.dataset.splits import load_splits
from core.errors import BuildError
from core.instances.split_assign import assign_splits, merge_split_files, split_files
from core.records import repo_of


def _random_sizes(count: int, seed: int, largest: int = 20) -> dict[str, int]:
    rng = random.Random(seed)
    return {f"repo{n}": rng.randint(1, largest) for n in range(count)}


def _test_share(sizes: dict[str, int], assignment: dict[str, str]) -> float:
    return sum(size for repo, size in sizes.items() if assignment[repo] == "test") / sum(sizes.values())


# --- assign_splits ------------------------------------------------------------------------------

@pytest.mark.parametrize("target", [0.2, 0.5, 0.1])
def test_program_share_in_test_lands_near_the_target_over_many_seeds(target):
    sizes = _random_sizes(300, seed=11)
    shares = [_test_share(sizes, assign_splits(sizes, target, seed)) for seed in range(40)]
    assert all(abs(share - target) <= 10 / sum(sizes.values()) for share in shares), shares
    assert len({tuple(sorted(assign_splits(sizes, target, seed).items())) for seed in range(40)}) > 30


def test_the_share_counts_programs_not_repositories():
    sizes = {"big": 80, **{f"small{n}": 1 for n in range(80)}}
    for seed in range(20):
        assignment = assign_splits(sizes, 0.2, seed)
        assert assignment["big"] == "train"  # 80 of 160 in test would be 0.5
        assert _test_share(sizes, assignment) == pytest.approx(0.2, abs=1 / 160)
        assert sum(split == "test" for split in assignment.values()) == 32  # 40% of repositories, 20% of programs


def test_every_repository_gets_exactly_one_split():
    sizes = _random_sizes(50, seed=2)
    assignment = assign_splits(sizes, 0.3, seed=5)
    assert sorted(assignment) == sorted(sizes)
    assert set(assignment.values()) == {"test", "train"}


def test_the_answer_does_not_depend_on_dict_order():
    sizes = _random_sizes(60, seed=3)
    items = list(sizes.items())
    reordered = [dict(reversed(items)), dict(random.Random(9).sample(items, len(items)))]
    for seed in (0, 1, 17):
        expected = assign_splits(sizes, 0.2, seed)
        assert all(assign_splits(other, 0.2, seed) == expected for other in reordered)
        assert list(expected) == sorted(sizes)


def test_share_zero_is_all_train_and_one_is_all_test():
    sizes = {"a": 3, "b": 0, "c": 10}
    assert assign_splits(sizes, 0) == {"a": "train", "b": "train", "c": "train"}
    assert assign_splits(sizes, 1.0) == {"a": "test", "b": "test", "c": "test"}
    assert assign_splits({}, 0.2) == {}


def test_a_single_repository_goes_to_the_closer_split_and_train_on_a_tie():
    assert assign_splits({"only": 7}, 0.3) == {"only": "train"}
    assert assign_splits({"only": 7}, 0.7) == {"only": "test"}
    assert assign_splits({"only": 8}, 0.5) == {"only": "train"}


def test_repositories_without_programs_stay_in_train():
    assert assign_splits({"empty": 0, "full": 10}, 0.6)["empty"] == "train"


@pytest.mark.parametrize("share", [-0.01, 1.01, math.nan, "0.2", None, True])
def test_a_share_outside_zero_to_one_is_refused(share):
    with pytest.raises(BuildError, match=r"test share"):
        assign_splits({"a": 1}, share)


def test_a_negative_size_is_refused():
    with pytest.raises(BuildError, match=r"repo-x"):
        assign_splits({"repo-x": -1}, 0.2)


# --- split_files --------------------------------------------------------------------------------

def _build_like_ids(sizes: dict[str, int]) -> list[str]:
    ids = [f"{repo}_{n:04d}" for repo, size in sizes.items() for n in range(1, size + 1)]
    return random.Random(0).sample(ids, len(ids))  # the builder's order is not the files' order


def test_split_files_list_sorted_ids_by_repository_split():
    sizes = {"my_cool_repo": 2, "Activiti": 3, "zed": 1}
    assignment = {"my_cool_repo": "test", "Activiti": "train", "zed": "train"}
    files = split_files({"java": assignment}, {"java": _build_like_ids(sizes)})
    assert files == {
        "test_ids.json": {"java": ["my_cool_repo_0001", "my_cool_repo_0002"]},
        "train_ids.json": {"java": ["Activiti_0001", "Activiti_0002", "Activiti_0003", "zed_0001"]},
        "java_repo_assignment.json": {"Activiti": "train", "my_cool_repo": "test", "zed": "train"},
    }
    assert list(files["java_repo_assignment.json"]) == ["Activiti", "my_cool_repo", "zed"]


def test_every_language_is_in_both_id_files_even_when_empty():
    files = split_files({"python": {"p": "train"}, "javascript": {"j": "test"}},
                        {"python": ["p_0001"], "javascript": ["j_0001"]})
    assert files["test_ids.json"] == {"javascript": ["j_0001"], "python": []}
    assert files["train_ids.json"] == {"javascript": [], "python": ["p_0001"]}


def test_split_files_refuse_unassigned_repositories_bad_splits_repeats_and_unknown_languages():
    with pytest.raises(BuildError, match=r"repository lost has no split"):
        split_files({"python": {"p": "test"}}, {"python": ["p_0001", "lost_0001"]})
    with pytest.raises(BuildError, match=r"validation"):
        split_files({"python": {"p": "validation"}}, {"python": ["p_0001"]})
    with pytest.raises(BuildError, match=r"p_0001 is listed twice"):
        split_files({"python": {"p": "test"}}, {"python": ["p_0001", "p_0001"]})
    with pytest.raises(BuildError, match=r"cobol"):
        split_files({"cobol": {"p": "test"}}, {"cobol": ["p_0001"]})


def _write(folder: Path, files: dict[str, object]) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    for name, content in files.items():
        (folder / name).write_text(json.dumps(content, indent=2), encoding="utf-8")
    return folder


def _built_splits(languages: dict[str, int], seed: int = 0) -> tuple[dict, dict]:
    """(assignments, ids) as a build of `languages` ({language: repositories}) would produce them."""
    assignments, ids = {}, {}
    for offset, (language, repos) in enumerate(sorted(languages.items())):
        sizes = _random_sizes(repos, seed=seed + offset, largest=12)
        sizes = {f"{language[:2]}_{repo}": size for repo, size in sizes.items()}  # underscores in repo names
        assignments[language] = assign_splits(sizes, 0.2, seed)
        ids[language] = _build_like_ids(sizes)
    return assignments, ids


def test_written_files_load_with_the_projects_split_loader_without_problems(tmp_path):
    assignments, ids = _built_splits({"python": 30, "javascript": 25, "java": 20})
    folder = _write(tmp_path / "traceeval_split", split_files(assignments, ids))
    problems = []
    index = load_splits(folder, problems)
    assert problems == []
    for language, program_ids in ids.items():
        assert sorted(index.ids[language]) == sorted(program_ids)
        for program_id in program_ids:
            assert index.split_of(language, program_id) == assignments[language][repo_of(program_id)]
        repo_splits = {}
        for program_id, split in index.ids[language].items():
            repo_splits.setdefault(repo_of(program_id), set()).add(split)
        assert all(len(splits) == 1 for splits in repo_splits.values())
        assert index.listed_ids(language, "test") and index.listed_ids(language, "train")


# --- merge_split_files --------------------------------------------------------------------------

def test_a_build_for_one_language_leaves_the_others_alone(tmp_path):
    assignments, ids = _built_splits({"python": 10, "javascript": 10})
    existing = split_files(assignments, ids)
    java_assignments, java_ids = _built_splits({"java": 8}, seed=4)
    merged = merge_split_files(existing, split_files(java_assignments, java_ids), ["java"])
    for name in ("test_ids.json", "train_ids.json"):
        assert list(merged[name]) == ["java", "javascript", "python"]
        assert {k: v for k, v in merged[name].items() if k != "java"} == existing[name]
    for language in ("python", "javascript"):
        assert merged[f"{language}_repo_assignment.json"] == existing[f"{language}_repo_assignment.json"]
    assert merged["java_repo_assignment.json"] == java_assignments["java"]
    problems = []
    load_splits(_write(tmp_path / "split", merged), problems)
    assert problems == []


def test_rebuilding_a_language_replaces_all_of_its_entries():
    existing = split_files({"python": {"old": "test"}, "java": {"j": "train"}},
                           {"python": ["old_0001"], "java": ["j_0001"]})
    fresh = split_files({"python": {"new": "train"}, "java": {"other": "test"}},
                        {"python": ["new_0001"], "java": ["other_0001"]})
    merged = merge_split_files({**existing, "README.txt": "kept"}, fresh, {"python"})
    assert merged["test_ids.json"] == {"java": [], "python": []}
    assert merged["train_ids.json"] == {"java": ["j_0001"], "python": ["new_0001"]}
    assert merged["python_repo_assignment.json"] == {"new": "train"}
    assert merged["java_repo_assignment.json"] == {"j": "train"}  # fresh java was not asked for
    assert merged["README.txt"] == "kept"


def test_merging_into_nothing_and_refusing_malformed_content():
    fresh = split_files({"java": {"j": "test"}}, {"java": ["j_0001"]})
    assert merge_split_files({}, fresh, ["java"]) == fresh
    with pytest.raises(BuildError, match=r"existing test_ids.json"):
        merge_split_files({"test_ids.json": ["j_0001"]}, fresh, ["java"])
    with pytest.raises(BuildError, match=r"cobol"):
        merge_split_files({}, fresh, ["cobol"])


def test_merging_a_java_build_into_the_released_splits_keeps_python_and_javascript(shared_splits, tmp_path):
    existing = {path.name: json.loads(path.read_text(encoding="utf-8")) for path in shared_splits.glob("*.json")}
    java_assignments, java_ids = _built_splits({"java": 5}, seed=8)
    merged = merge_split_files(existing, split_files(java_assignments, java_ids), ["java"])
    for name in ("test_ids.json", "train_ids.json"):
        assert merged[name]["python"] == existing[name]["python"]
        assert merged[name]["javascript"] == existing[name]["javascript"]
        split = name.split("_")[0]
        in_split = sorted(i for i in java_ids["java"] if java_assignments["java"][repo_of(i)] == split)
        assert merged[name]["java"] == in_split
    problems = []
    index = load_splits(_write(tmp_path / "split", merged), problems)
    assert problems == []
    assert len(index.ids["python"]) == 3820
