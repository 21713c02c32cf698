"""`traceeval build` end to end: real repositories written for the tests, the real tracers, and a
real OpenAI-compatible server answering harness prompts (tests/harness_server.py)."""
from __future__ import annotations

import csv
import json
import shutil
import subprocess
from pathlib import Path

import pytest

from core.dataset.layout import load_dataset
from core.instances.candidates import find_candidates
from core.records import repo_of
from tests.cli_run import run
from tests.harness_server import harness_server, repo
from tests.llm_server import status

GIT_ENV = {"GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@example.org", "GIT_COMMITTER_NAME": "t",
           "GIT_COMMITTER_EMAIL": "t@example.org", "GIT_CONFIG_GLOBAL": "/dev/null", "GIT_CONFIG_SYSTEM": "/dev/null"}
REPOS = {"python": ("geomkit", "textstats"), "javascript": ("cartkit", "mdlite"), "java": ("bankcore", "graphutil")}


def copy_repo(language: str, name: str, tmp_path: Path) -> Path:
    target = tmp_path / "repos" / name
    shutil.copytree(repo(language, name), target)
    return target


def git_checkout(folder: Path, remote: str) -> str:
    def git(*args):
        return subprocess.run(["git", "-C", str(folder), *args], check=True, capture_output=True, text=True,
                              env={"PATH": "/usr/bin:/bin", **GIT_ENV}).stdout.strip()
    git("init", "-q")
    git("add", "-A")
    git("commit", "-qm", "initial")
    git("remote", "add", "origin", remote)
    return git("rev-parse", "HEAD")


def build(capsys, server, language, repos, out, *options):
    return run(capsys, "build", *repos, "--language", language, "--out", out, "--model", "fake-model",
               "--base-url", server.base_url, *options)


def tree(folder: Path) -> dict[str, bytes]:
    return {str(path.relative_to(folder)): path.read_bytes() for path in sorted(folder.rglob("*")) if path.is_file()}


def dataset_files(out: Path) -> dict[str, bytes]:
    return {**{f"benchmark/{k}": v for k, v in tree(out / "benchmark").items()},
            **{f"traceeval_split/{k}": v for k, v in tree(out / "traceeval_split").items()}}


@pytest.mark.parametrize("language", ["python", "javascript", "java"])
def test_a_build_per_language_gives_programs_that_validate_retrace_and_open_in_the_workbench(
        language, tmp_path, capsys):
    repos = [copy_repo(language, name, tmp_path) for name in REPOS[language]]
    out = tmp_path / "built"
    runs = ("--runs", "2") if language == "java" else ()
    with harness_server() as server:
        code, stdout, stderr = build(capsys, server, language, repos, out, "--max-per-repo", "2", *runs)
    assert code == 0, stderr
    programs = sorted(p.name for p in (out / "benchmark" / language).iterdir())
    assert programs and {repo_of(p) for p in programs} == set(REPOS[language]), programs
    assert f"accepted {len(programs)}" in stdout
    assert "third_party" in stdout  # each language has a repository file importing a third-party package

    code, stdout, stderr = run(capsys, "validate", out)
    assert code == 0, stdout + stderr
    code, stdout, stderr = run(capsys, "retrace", out, "--check", "--jobs", "2")
    assert code == 0, stdout + stderr
    assert f"{len(programs)} of {len(programs)}" in stdout or "agree" in stdout

    dataset = load_dataset(out)
    assert not dataset.errors, dataset.errors
    by_id = {i.id: i for i in dataset.instances}
    assert sorted(by_id) == programs
    for instance in dataset.instances:
        assert instance.split in ("test", "train")
        assert instance.provenance.source_url.startswith("file://")
        assert len(instance.ground_truth.edges) >= 3
    splits = {i.repo: i.split for i in dataset.instances}
    assert all(by_id[p].split == splits[repo_of(p)] for p in programs), "a repository in both splits"


def test_provenance_names_the_git_remote_without_credentials_the_commit_and_the_licence(tmp_path, capsys):
    geomkit = copy_repo("python", "geomkit", tmp_path)
    commit = git_checkout(geomkit, "https://alice:s3cret@github.com/example/geomkit.git")
    out = tmp_path / "built"
    with harness_server() as server:
        code, _, stderr = build(capsys, server, "python", [geomkit], out, "--max-per-repo", "1")
    assert code == 0, stderr
    (program,) = (out / "benchmark" / "python").iterdir()
    readme = (program / "README.md").read_text()
    assert "Source: https://github.com/example/geomkit.git" in readme and "s3cret" not in readme
    assert f"Commit: {commit}" in readme
    assert "Licence: MIT" in readme and (program / "LICENSE").read_text().startswith("MIT License")
    original = next(line for line in readme.splitlines() if line.startswith("Original file: "))
    assert (geomkit / original.removeprefix("Original file: ")).is_file()
    assert b"s3cret" not in b"".join(p.read_bytes() for p in (out / "build").rglob("*") if p.is_file())


def test_every_rejection_is_logged_with_its_reason(tmp_path, capsys):
    geomkit = copy_repo("python", "geomkit", tmp_path)
    names = [c.name for c in find_candidates(geomkit, "python")[0]]
    assert len(names) >= 4
    crash, hang, silent, shuffle = names[:4]
    module = crash.split(".")[0]
    special = {
        crash: f"```python\nimport {module}\nraise RuntimeError('the harness broke')\n```",
        hang: "```python\nwhile True:\n    pass\n```",
        silent: "Sorry, I would rather not.",
        shuffle: "```python\nimport random\n" + "".join(f"def f{i}():\n    pass\n" for i in range(32)) +
                 "for _ in range(2):\n    globals()[f'f{random.SystemRandom().randrange(32)}']()\n```",
    }
    out = tmp_path / "built"
    with harness_server(special) as server:
        _code, stdout, _stderr = build(capsys, server, "python", [geomkit], out, "--max-per-repo", "1",
                                     "--max-tries", "10", "--timeout", "3", "--target", crash, "--target", hang,
                                     "--target", silent,
                                     "--target", shuffle, "--target", names[4] if len(names) > 4 else names[0])
    with open(out / "build" / "rejections-python.csv") as handle:
        reasons = {row["target"]: row["reason"] for row in csv.DictReader(handle)}
    assert reasons[crash] == "crashed" and reasons[hang] == "timed_out" and reasons[silent] == "no_harness"
    assert reasons[shuffle] in ("unstable", "target_not_reached")  # the harness's own calls are not internal edges
    log = (out / "build" / "logs" / "python" / "geomkit.log").read_text()
    assert "the harness broke" in log and "timed_out" in log
    for reason in ("crashed", "timed_out", "no_harness"):
        assert reason in stdout


def test_the_same_batch_on_a_dask_local_cluster_gives_the_same_dataset_as_the_local_pool(tmp_path, capsys):
    distributed = pytest.importorskip("distributed")
    repos = [copy_repo("python", name, tmp_path) for name in REPOS["python"]]
    local, dask = tmp_path / "local", tmp_path / "dask"
    with harness_server() as server:
        code, _, stderr = build(capsys, server, "python", repos, local, "--max-per-repo", "2", "--jobs", "2")
        assert code == 0, stderr
        with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True,
                                      dashboard_address=None) as cluster:
            code, _, stderr = build(capsys, server, "python", repos, dask, "--max-per-repo", "2",
                                    "--cluster", cluster.scheduler_address)
    assert code == 0, stderr
    assert dataset_files(local) and dataset_files(local) == dataset_files(dask)
    summary = json.loads((local / "build" / "summary-python.json").read_text())
    assert summary == json.loads((dask / "build" / "summary-python.json").read_text())


def test_a_build_resumes_and_a_damaged_result_is_built_again(tmp_path, capsys):
    first, second = (copy_repo("python", name, tmp_path) for name in REPOS["python"])
    out, fresh = tmp_path / "built", tmp_path / "fresh"
    with harness_server() as server:
        assert build(capsys, server, "python", [first], out, "--max-per-repo", "2")[0] == 0
        code, stdout, _ = build(capsys, server, "python", [first, second], out, "--max-per-repo", "2",
                                "--format", "json")
        report = json.loads(stdout)
        assert code == 0 and (report["resumed"], report["built"]) == (1, 1)
        assert build(capsys, server, "python", [first, second], fresh, "--max-per-repo", "2")[0] == 0
        assert dataset_files(out) == dataset_files(fresh)
        (out / "build" / "results" / "python" / "textstats.json").write_text("{not json")
        code, stdout, _stderr = build(capsys, server, "python", [first, second], out, "--max-per-repo", "2",
                                     "--format", "json")
    report = json.loads(stdout)
    assert code == 0 and (report["resumed"], report["built"]) == (1, 1)
    assert dataset_files(out) == dataset_files(fresh)


def test_a_refused_api_key_stops_the_build_with_one_line(tmp_path, capsys):
    geomkit = copy_repo("python", "geomkit", tmp_path)
    out = tmp_path / "built"
    with harness_server() as server:
        server.responder = lambda body, attempt: status(401)
        code, _, stderr = build(capsys, server, "python", [geomkit], out)
    assert code == 1
    assert "refused the API key" in stderr
    assert not any((out / "benchmark" / "python").iterdir())


def test_hand_written_harnesses_need_no_model_and_add_to_what_was_built(tmp_path, capsys):
    textstats = copy_repo("python", "textstats", tmp_path)
    first, second = (c.name for c in find_candidates(textstats, "python")[0][:2])
    harnesses = Path(__file__).parent / "build_repos" / "harnesses" / "python" / "textstats"
    out = tmp_path / "built"
    for target in (first, second):
        code, _stdout, stderr = run(capsys, "build", textstats, "--language", "python", "--out", out,
                                   "--target", target, "--harness", harnesses / f"{target}.txt")
        assert code == 0, stderr
    programs = sorted((out / "benchmark" / "python").iterdir())
    assert [p.name for p in programs] == ["textstats_0001", "textstats_0002"]
    for program, target in zip(programs, (first, second)):
        readme = (program / "README.md").read_text()
        assert f"Target: {target} (" in readme and "written by hand" in readme
        assert (program / "main.py").read_text() == (harnesses / f"{target}.txt").read_text()


def test_candidates_lists_targets_and_what_cannot_stand_alone(tmp_path, capsys):
    code, stdout, _ = run(capsys, "candidates", repo("python", "geomkit"), "--language", "python")
    assert code == 0 and "candidate(s)" in stdout and "third_party" in stdout and "numpy" in stdout
    code, stdout, _ = run(capsys, "candidates", repo("java", "bankcore"), "--language", "java", "--format", "json")
    listed = json.loads(stdout)
    assert code == 0 and listed["candidates"] and all(":" in c["name"] or "." in c["name"]
                                                      for c in listed["candidates"])


def test_bad_input_is_one_line_naming_the_file(tmp_path, capsys):
    demo_copy = tmp_path / "someone-elses"
    (demo_copy / "benchmark").mkdir(parents=True)
    template = tmp_path / "prompt.md"
    template.write_text("## system\nx\n## user\nWrite {{entry_file}} for {{target}} using {{colour}}\n")
    geomkit = repo("python", "geomkit")
    cases = [
        (("--out", demo_copy, "--model", "m", "--base-url", "http://127.0.0.1:9/v1"), "did not make"),
        (("--out", tmp_path / "o", "--model", "m", "--base-url", "http://127.0.0.1:9/v1",
          "--prompt-template", template), "{{colour}}"),
        (("--out", tmp_path / "o"), "--model and --base-url"),
        (("--out", tmp_path / "o", "--harness", template), "exactly one REPO_DIR and one --target"),
    ]
    for options, expected in cases:
        code, _, stderr = run(capsys, "build", geomkit, "--language", "python", *options)
        assert code == 2 and expected in stderr and len(stderr.strip().splitlines()) == 1, stderr


def test_a_repository_without_sources_of_the_language_is_reported_and_the_others_are_built(tmp_path, capsys):
    empty = tmp_path / "repos" / "docs-only"
    empty.mkdir(parents=True)
    (empty / "README.md").write_text("# nothing to run\n")
    textstats = copy_repo("python", "textstats", tmp_path)
    out = tmp_path / "built"
    with harness_server() as server:
        code, _stdout, stderr = build(capsys, server, "python", [empty, textstats, tmp_path / "missing"], out,
                                     "--max-per-repo", "1")
    assert code == 1
    assert "repository docs-only could not be used" in stderr and "missing: not a folder" in stderr
    assert [p.name for p in (out / "benchmark" / "python").iterdir()] == ["textstats_0001"]
