"""Finalising a build writes only what changed (new, removed, renumbered programs, split files), gives
the same bytes as finalising from scratch, and survives being killed at any point."""
from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from core.dataset.layout import load_dataset
from core.errors import BuildError
from core.instances.dedup import sources_key
from core.instances.layout_update import interrupted_update, recover, staging_folder
from core.instances.output import BUILD_DIR, SPLIT_DIR, finalize_language, prepare_output, save_repo_result
from core.instances.records import Attempt, Harness, RepoInfo, RepoResult
from core.instances.shingle_cache import load_shingles, save_shingles

ROOT = Path(__file__).resolve().parents[1]


def attempt(repo: int, n: int) -> Attempt:
    body = "".join(f"def f{repo}_{n}_{i}(x):\n    return x * {repo * 100 + n * 7 + i}\n\n\n" for i in range(6))
    main = f"from lib import core\nprint(core.f{repo}_{n}_0(1))\n"
    graph = {"main": [f"lib.core.f{repo}_{n}_0"]}
    return Attempt(f"lib.core.f{repo}_{n}_0", "lib/core.py", harness=Harness("main.py", main, "m"),
                   files={"lib/__init__.py": "", "lib/core.py": body, "main.py": main}, graph=graph, runs=3,
                   internal_edges=1, target_kind="function")


def save(out: Path, repo: int, programs: list[int]) -> None:
    info = RepoInfo(f"repo{repo:02d}", f"/src/repo{repo:02d}", f"https://example.org/repo{repo:02d}.git", "0" * 40)
    save_repo_result(out, RepoResult("python", info, len(programs), tuple(attempt(repo, n) for n in programs)))


def built(out: Path, repos: dict[int, list[int]]) -> Path:
    prepare_output(out)
    for repo, programs in repos.items():
        save(out, repo, programs)
    return out


def dataset_tree(out: Path) -> dict[str, bytes]:
    """Every file of the dataset (programs and split files), hidden staging included if any is left."""
    return {path.relative_to(out).as_posix(): path.read_bytes()
            for folder in (out / "benchmark", out / SPLIT_DIR) for path in sorted(folder.rglob("*"))
            if path.is_file()}


def identities(out: Path) -> dict[str, tuple[int, int]]:
    return {path.relative_to(out).as_posix(): (path.stat().st_ino, path.stat().st_mtime_ns)
            for path in (out / "benchmark").rglob("*") if path.is_file()}


def from_scratch(out: Path, tmp_path: Path, name: str = "scratch") -> dict[str, bytes]:
    """What a first finalise of the same build results writes, in a fresh folder."""
    scratch = tmp_path / name
    shutil.rmtree(scratch, ignore_errors=True)
    shutil.copytree(out / BUILD_DIR / "results", scratch / BUILD_DIR / "results")
    prepare_output(scratch)
    finalize_language(scratch, "python")
    return dataset_tree(scratch)


REPOS = {1: [0, 1, 2], 2: [0, 1], 3: [0, 1, 2], 4: [0]}


def test_a_second_finalise_with_nothing_new_writes_nothing(tmp_path):
    out = built(tmp_path / "out", REPOS)
    first = finalize_language(out, "python")
    assert first.accepted == 9
    before, split_before = identities(out), {p.name: p.stat().st_mtime_ns for p in (out / SPLIT_DIR).iterdir()}
    finalize_language(out, "python")
    assert identities(out) == before
    assert {p.name: p.stat().st_mtime_ns for p in (out / SPLIT_DIR).iterdir()} == split_before
    assert dataset_tree(out) == from_scratch(out, tmp_path)
    assert not staging_folder(out / "benchmark", "python").exists()


def test_adding_one_program_writes_its_folder_and_the_split_files_only(tmp_path):
    out = built(tmp_path / "out", REPOS)
    finalize_language(out, "python")
    before, tree_before = identities(out), dataset_tree(out)
    save(out, 5, [0])
    summary = finalize_language(out, "python")
    assert summary.accepted == 10
    after = identities(out)
    assert {path for path in after if path not in before} == {
        f"benchmark/python/repo05_0001/{name}" for name in ("lib/__init__.py", "lib/core.py", "main.py",
                                                             "callgraph.json", "README.md")}
    assert all(after[path] == identity for path, identity in before.items())
    changed_splits = {path for path, content in dataset_tree(out).items()
                      if path.startswith(SPLIT_DIR) and tree_before.get(path) != content}
    assert "traceeval_split/python_repo_assignment.json" in changed_splits  # other languages' files stay
    assert changed_splits <= {f"{SPLIT_DIR}/{name}" for name in ("python_repo_assignment.json", "train_ids.json",
                                                                 "test_ids.json")}
    assert dataset_tree(out) == from_scratch(out, tmp_path)


def test_removing_one_program_removes_only_it(tmp_path):
    out = built(tmp_path / "out", REPOS)
    finalize_language(out, "python")
    before = identities(out)
    save(out, 3, [0, 1])  # repo03 loses its last program
    finalize_language(out, "python")
    after = identities(out)
    gone = {path for path in before if path not in after}
    assert gone and all(path.startswith("benchmark/python/repo03_0003/") for path in gone)
    assert not (out / "benchmark/python/repo03_0003").exists()
    assert all(before[path] == identity for path, identity in after.items())
    assert dataset_tree(out) == from_scratch(out, tmp_path)


def test_a_renumbered_program_keeps_its_unchanged_files_and_rewrites_its_readme(tmp_path):
    out = built(tmp_path / "out", REPOS)
    finalize_language(out, "python")
    before = identities(out)
    save(out, 1, [1, 2])  # repo01's first program goes: 0002 becomes 0001, 0003 becomes 0002
    finalize_language(out, "python")
    after = identities(out)
    assert not (out / "benchmark/python/repo01_0003").exists()
    for new, old in (("repo01_0001", "repo01_0002"), ("repo01_0002", "repo01_0003")):
        for name in ("lib/core.py", "main.py", "callgraph.json"):  # the same bytes: hard links, not writes
            assert after[f"benchmark/python/{new}/{name}"][0] == before[f"benchmark/python/{old}/{name}"][0]
        assert after[f"benchmark/python/{new}/README.md"][0] != before[f"benchmark/python/{old}/README.md"][0]
        assert (out / f"benchmark/python/{new}/README.md").read_text().startswith(f"# {new}\n")
    assert all(path.stat().st_nlink == 1 for path in (out / "benchmark").rglob("*") if path.is_file())
    untouched = {path for path in before if not path.startswith("benchmark/python/repo01_")}
    assert all(after[path] == before[path] for path in untouched)
    assert dataset_tree(out) == from_scratch(out, tmp_path)


def test_without_the_manifest_nothing_intact_is_rewritten_and_an_edited_file_is_restored(tmp_path):
    out = built(tmp_path / "out", REPOS)
    finalize_language(out, "python")
    (out / BUILD_DIR / "finalised-python.json").write_text("{ damaged")
    edited = out / "benchmark/python/repo02_0001/main.py"
    edited.write_text("print('edited by hand')\n")
    (out / "benchmark/python/repo02_0002/stray.txt").write_text("left behind\n")
    before = identities(out)
    finalize_language(out, "python")
    after = identities(out)
    rewritten = {path for path in before if after.get(path) != before[path]}
    assert rewritten and all(path.startswith(("benchmark/python/repo02_0001/", "benchmark/python/repo02_0002/"))
                             for path in rewritten)
    assert dataset_tree(out) == from_scratch(out, tmp_path)
    assert json.loads((out / BUILD_DIR / "finalised-python.json").read_text())  # the manifest is back


def test_a_program_file_path_leaving_its_folder_is_refused_naming_it(tmp_path):
    out = built(tmp_path / "out", {1: [0]})
    bad = attempt(1, 1)
    bad.files["../../escaped.py"] = "x = 1\n"
    info = RepoInfo("repo09", "/src/repo09", "https://example.org/repo09.git", "0" * 40)
    save_repo_result(out, RepoResult("python", info, 1, (bad,)))
    with pytest.raises(BuildError, match=r"'\.\./\.\./escaped\.py'"):
        finalize_language(out, "python")
    assert not (tmp_path / "escaped.py").exists() and not (out / "escaped.py").exists()


KILLER = """
import os, signal, sys
from pathlib import Path
sys.path.insert(0, {root!r})
from core.instances.output import finalize_language
event, at = {event!r}, {at}
seen = 0
def hook(name, args):
    global seen
    if name == event and (event != "open" or (len(args) > 1 and isinstance(args[1], str) and "w" in args[1])):
        seen += 1
        if seen == at:
            os.kill(os.getpid(), signal.SIGKILL)
sys.addaudithook(hook)
finalize_language(Path({out!r}), "python")
print(seen)
"""


def finalise_in_child(out: Path, event: str, at: int) -> subprocess.CompletedProcess:
    script = KILLER.format(root=str(ROOT), event=event, at=at, out=str(out))
    return subprocess.run([sys.executable, "-c", script], check=False, capture_output=True, text=True, timeout=120)


def test_a_finalise_killed_at_any_write_or_rename_leaves_the_old_or_the_new_dataset(tmp_path):
    """SIGKILL a real finalise at every rename (the commit point and each step after it) and at writes
    while staging: what is on disk is the old dataset, or, when the kill came after the commit point,
    the journal is there and `recover` (the first step of every finalise) completes the new one; the
    next finalise always completes."""
    original = built(tmp_path / "original", REPOS)
    finalize_language(original, "python")
    old = dataset_tree(original)
    save(original, 1, [1, 2])  # renumbering, a removal,
    save(original, 3, [0, 1, 3])  # a changed program,
    save(original, 5, [0, 1])  # and a new repository
    new = from_scratch(original, tmp_path)
    assert new != old
    trial = tmp_path / "trial"
    shutil.copytree(original, trial)
    counted = finalise_in_child(trial, "os.rename", 0)
    assert counted.returncode == 0, counted.stderr
    renames = int(counted.stdout)
    assert renames >= 8  # journal, two removals, several folders moved in, split files
    assert dataset_tree(trial) == new
    kill_points = [("os.rename", at) for at in range(1, renames + 1)] + [("open", at) for at in (1, 3, 10)]
    outcomes = set()
    for event, at in kill_points:
        shutil.rmtree(trial)
        shutil.copytree(original, trial)
        killed = finalise_in_child(trial, event, at)
        assert killed.returncode == -9, (event, at, killed.stderr)
        if interrupted_update(trial / "benchmark", "python"):
            outcomes.add("committed")
            warned = [p for p in load_dataset(trial).problems if p.path == "benchmark/.python.finalise"]
            assert warned and "stopped after it committed" in warned[0].message  # the loader says it may be mixed
            recover(trial / "benchmark", "python")  # rolls forward to what was committed: the new dataset
            assert dataset_tree(trial) == new, (event, at)
        else:
            state = {path: content for path, content in dataset_tree(trial).items() if "/.python.finalise/" not in path}
            assert state in (old, new), (event, at)
            outcomes.add("old" if state == old else "new")
        finalize_language(trial, "python")
        assert dataset_tree(trial) == new, (event, at)
        assert not load_dataset(trial).problems
    assert outcomes == {"old", "committed", "new"}


def test_a_dataset_left_by_the_whole_folder_swap_of_earlier_versions_is_put_back(tmp_path):
    out = built(tmp_path / "out", REPOS)
    finalize_language(out, "python")
    expected = dataset_tree(out)
    benchmark = out / "benchmark"
    os.rename(benchmark / "python", benchmark / ".python.old")  # killed between the two renames
    (benchmark / ".python.new" / "half").mkdir(parents=True)
    before = {path.name: path.stat().st_ino for path in (benchmark / ".python.old").iterdir()}
    finalize_language(out, "python")
    assert dataset_tree(out) == expected
    assert {path.name: path.stat().st_ino for path in (benchmark / "python").iterdir()} == before
    assert not (benchmark / ".python.old").exists() and not (benchmark / ".python.new").exists()


def test_finalising_again_reuses_the_shingles_and_a_damaged_cache_is_only_slower(tmp_path, caplog):
    out = built(tmp_path / "out", REPOS)
    finalize_language(out, "python")
    cache = out / BUILD_DIR / "shingles-python.npz"
    shingles = load_shingles(cache)
    assert len(shingles) == 9
    expected = dataset_tree(out)
    # the cache is what the finalise consults: make one program's shingles another's and it is a duplicate
    first = sources_key({"lib/__init__.py": "", "lib/core.py": attempt(1, 0).files["lib/core.py"],
                         "main.py": attempt(1, 0).files["main.py"]})
    second = sources_key({"lib/__init__.py": "", "lib/core.py": attempt(4, 0).files["lib/core.py"],
                          "main.py": attempt(4, 0).files["main.py"]})
    assert {first, second} <= set(shingles)
    shingles[second] = shingles[first]
    save_shingles(cache, shingles, list(shingles))
    assert finalize_language(out, "python").rejected == {"near_duplicate": 1}
    cache.write_bytes(b"PK\x03\x04 not a zip")
    assert finalize_language(out, "python").accepted == 9
    assert "unusable shingle cache" in caplog.text and str(cache) in caplog.text
    assert dataset_tree(out) == expected == from_scratch(out, tmp_path)
    assert len(load_shingles(cache)) == 9


def test_a_damaged_journal_stops_the_finalise_with_one_line_naming_it(tmp_path):
    out = built(tmp_path / "out", REPOS)
    finalize_language(out, "python")
    journal = staging_folder(out / "benchmark", "python") / "journal.json"
    journal.parent.mkdir(parents=True)
    journal.write_text('{"replace": [')
    with pytest.raises(BuildError, match=r"journal\.json: cannot complete the interrupted finalise") as error:
        finalize_language(out, "python")
    assert "\n" not in str(error.value) and str(journal) in str(error.value)
