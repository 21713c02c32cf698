"""Instance-building performance at scale. Run: python tests/bench/bench_build.py [--files 2000] [--programs 1000,3000]

No model and no tracer: those costs are the endpoint's and the program's. What the build itself adds is
measured, each beside a baseline run in the same process:
1. `find_candidates` over a synthetic Python repository of --files modules in 40 packages (each module
   imports two others and defines functions calling across them); baseline: `extract_symbols` over the
   same files (the parse the finder cannot avoid);
2. `finalize_language` of --programs accepted programs from --programs / 5 repositories (near-duplicate
   removal over every program, ids, splits, README provenance, the released layout written), a tenth of
   them near-copies of another; baseline: writing the same files with no de-duplication or splits;
3. finalising again with nothing new and with one new program (what every resumed build and every wizard
   acceptance pays), against the whole-folder rewrite finalising did before #24 (the same plan, then the
   whole language folder written beside the old one and swapped in, every program tokenised again), run in
   the same process; the plan (loading the results, near-duplicates, ids, splits: no writing) is timed
   alone, with the shingle cache as the incremental finalise has it.
Checked: candidate counts, every near-copy dropped, program counts, the split files loading cleanly, the
incremental finalise giving the same bytes as the whole rewrite, and unchanged programs' files untouched.
"""
from __future__ import annotations

import argparse
import os
import shutil
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from tests.bench.common import private_user_folders, timed  # noqa: E402

_sandbox = private_user_folders("build")

from core.dataset.layout import load_dataset  # noqa: E402
from core.instances.candidates import find_candidates  # noqa: E402
from core.instances.output import (  # noqa: E402
    FinalOptions,
    LanguagePlan,
    finalize_language,
    plan_language,
    prepare_output,
    save_repo_result,
    write_build_records,
)
from core.instances.records import Attempt, Harness, RepoInfo, RepoResult  # noqa: E402
from core.symbols import extract_symbols  # noqa: E402


def synthetic_repository(root: Path, files: int) -> dict[str, str]:
    """Modules `pkgP/modN.py` each importing two small `base` modules (their own package's and the next
    one's), so a target needs 3-5 files, as in real code; imports of the whole repository would exceed
    --max-files."""
    sources = {}
    for package in range(40):
        sources[f"pkg{package}/__init__.py"] = ""
        sources[f"pkg{package}/base.py"] = (f"def scale(x):\n    return x * {package + 1}\n\n\n"
                                            f"def shift(x):\n    return scale(x) + 1\n")
    for n in range(files):
        package, other = n % 40, (n + 1) % 40
        sources[f"pkg{package}/mod{n}.py"] = (
            f"from pkg{package} import base\nfrom pkg{other} import base as other\n\n\n"
            f"def helper_{n}(x):\n    return base.scale(x) + {n}\n\n\n"
            f"def work_{n}(x):\n    y = helper_{n}(x)\n    return other.shift(y) + base.shift(y)\n\n\n"
            f"class Thing{n}:\n    def __init__(self, x):\n        self.x = work_{n}(x)\n\n"
            f"    def run(self):\n        return other.scale(self.x) + helper_{n}(self.x)\n")
    for relative, text in sources.items():
        path = root / relative
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
    return sources


def synthetic_results(out: Path, programs: int, first_repo: int = 0) -> None:
    repos = max(1, programs // 5)
    for r in range(first_repo, first_repo + repos):
        attempts = []
        for k in range(5):
            n = r * 5 + k
            copy_of = n - 1 if n % 10 == 9 else n  # every tenth program is a near-copy of the one before
            body = "".join(f"def f{copy_of}_{i}(x):\n    return g{copy_of}_{i}(x) * {i}\n\n\n"
                           f"def g{copy_of}_{i}(x):\n    return x + {copy_of * 31 + i}\n\n\n" for i in range(12))
            harness = f"from lib import core\nprint(core.f{copy_of}_0({n % 7 if copy_of == n else 1}))\n"
            graph = {"main": [f"lib.core.f{copy_of}_0"], **{f"lib.core.f{copy_of}_{i}": [f"lib.core.g{copy_of}_{i}"]
                                                             for i in range(12)}}
            attempts.append(Attempt(f"lib.core.f{copy_of}_0", "lib/core.py", harness=Harness("main.py", harness, "m"),
                                    files={"lib/__init__.py": "", "lib/core.py": body, "main.py": harness},
                                    graph=graph, runs=3, internal_edges=12, target_kind="function"))
        repo = RepoInfo(f"repo{r:04d}", f"/src/repo{r:04d}", f"https://example.org/repo{r:04d}.git", "0" * 40)
        save_repo_result(out, RepoResult("python", repo, 5, tuple(attempts)))


def plain_write(out: Path, programs: int) -> None:
    for n in range(programs):
        folder = out / f"p{n}"
        (folder / "lib").mkdir(parents=True)
        for relative in ("lib/__init__.py", "lib/core.py", "main.py", "callgraph.json", "README.md"):
            (folder / relative).write_text("x" * 600)


def one_new_program(out: Path, repo: int) -> None:
    """A new repository with one program unlike any other."""
    body = "".join(f"def solo{repo}_{i}(x):\n    return x - {repo * 17 + i}\n\n\n" for i in range(12))
    harness = f"from lib import core\nprint(core.solo{repo}_0(2))\n"
    attempt = Attempt(f"lib.core.solo{repo}_0", "lib/core.py", harness=Harness("main.py", harness, "m"),
                      files={"lib/__init__.py": "", "lib/core.py": body, "main.py": harness},
                      graph={"main": [f"lib.core.solo{repo}_0"]}, runs=3, internal_edges=1, target_kind="function")
    info = RepoInfo(f"solo{repo:04d}", f"/src/solo{repo:04d}", f"https://example.org/solo{repo:04d}.git", "0" * 40)
    save_repo_result(out, RepoResult("python", info, 1, (attempt,)))


def whole_folder_finalise(out: Path, language: str) -> None:
    """Finalising as it was before #24: the same plan, then every program written into a new folder that is
    swapped in for the old one (deleted afterwards), and every split file rewritten; every program was
    tokenised for near-duplicates (no shingle cache)."""
    (out / "build" / f"shingles-{language}.npz").unlink(missing_ok=True)
    plan: LanguagePlan = plan_language(out, language, FinalOptions())
    benchmark = out / "benchmark"
    fresh, old = benchmark / f".{language}.new", benchmark / f".{language}.old"
    for leftover in (fresh, old):
        shutil.rmtree(leftover, ignore_errors=True)
    fresh.mkdir(parents=True)
    for program_id, program in plan.programs.items():
        for relative, content in program.files.items():
            path = fresh / program_id / relative
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_bytes(content)
    target = benchmark / language
    if target.exists():
        target.rename(old)
    fresh.rename(target)
    shutil.rmtree(old, ignore_errors=True)
    for path, content in plan.split_files.items():
        temporary = path.with_name(f".{path.name}.tmp")
        temporary.write_bytes(content)
        os.replace(temporary, path)
    write_build_records(out, plan)


def dataset_bytes(out: Path) -> dict[str, bytes]:
    return {path.relative_to(out).as_posix(): path.read_bytes() for folder in ("benchmark", "traceeval_split")
            for path in sorted((out / folder).rglob("*")) if path.is_file()}


def first_finalise(work: Path, programs: int) -> None:
        print(f"2. finalising {programs:,} accepted programs from {programs // 5:,} repositories")
        out = work / f"out{programs}"
        prepare_output(out)
        synthetic_results(out, programs)
        _, plain_s = timed("   baseline: the same files written, nothing else",
                           lambda: plain_write(work / "plain", programs))
        summary, final_s = timed("   finalize_language", lambda: finalize_language(out, "python", FinalOptions()))
        print(f"   {summary.accepted:,} written, {summary.rejected.get('near_duplicate', 0):,} near-duplicates "
              f"dropped; {final_s / plain_s:.1f}x the plain write")
        assert summary.rejected.get("near_duplicate", 0) == programs // 10
        dataset = load_dataset(out)
        assert len(dataset.instances) == summary.accepted and not dataset.errors, dataset.errors[:3]
        shutil.rmtree(work / "plain")
        shutil.rmtree(out)


def finalising_again(work: Path, programs: int) -> None:
    print(f"3. finalising {programs:,} programs again: incremental against the whole-folder rewrite")
    out = work / f"again{programs}"
    prepare_output(out)
    synthetic_results(out, programs)
    finalize_language(out, "python", FinalOptions())
    timed("   the plan alone (no writing; shingles cached)",
          lambda: plan_language(out, "python", FinalOptions()))
    _, old_same = timed("   before: whole-folder rewrite, nothing new", lambda: whole_folder_finalise(out, "python"))
    finalize_language(out, "python", FinalOptions())  # the manifest catches up with the rewritten folder
    inodes = {path: path.stat().st_ino for path in (out / "benchmark" / "python").rglob("*.py")}
    _, new_same = timed("   after: incremental, nothing new", lambda: finalize_language(out, "python", FinalOptions()))
    assert all(path.stat().st_ino == inode for path, inode in inodes.items()), "an unchanged file was rewritten"
    one_new_program(out, 1)
    _, old_one = timed("   before: whole-folder rewrite, one new program", lambda: whole_folder_finalise(out, "python"))
    finalize_language(out, "python", FinalOptions())
    one_new_program(out, 2)
    _, new_one = timed("   after: incremental, one new program", lambda: finalize_language(out, "python",
                                                                                            FinalOptions()))
    incremental = dataset_bytes(out)
    whole_folder_finalise(out, "python")
    assert dataset_bytes(out) == incremental, "the incremental finalise differs from the whole rewrite"
    print(f"   nothing new: {old_same / new_same:.1f}x faster; one new program: {old_one / new_one:.1f}x faster")
    shutil.rmtree(out)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--files", type=int, default=2000)
    parser.add_argument("--programs", default="1000,3000", help="comma-separated sizes for steps 2 and 3")
    args = parser.parse_args()
    sizes = [int(size) for size in args.programs.split(",")]
    with tempfile.TemporaryDirectory(prefix="traceeval-bench-build-") as folder:
        work = Path(folder)
        print(f"1. candidates in a synthetic repository of {args.files:,} Python modules")
        sources = synthetic_repository(work / "repo", args.files)
        _, parse_s = timed("   baseline: extract_symbols over every file", lambda: extract_symbols("python", sources))
        (candidates, problems), find_s = timed("   find_candidates", lambda: find_candidates(work / "repo", "python"))
        print(f"   {len(candidates):,} candidates, {len(problems):,} that cannot stand alone; "
              f"{find_s / parse_s:.1f}x the parse")
        assert len(candidates) >= args.files, "every work_N and Thing N should qualify"

        for programs in sizes:
            first_finalise(work, programs)
        for programs in sizes:
            finalising_again(work, programs)


if __name__ == "__main__":
    main()
