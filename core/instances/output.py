"""What a build writes: per-repository results (the resume state), logs, and the dataset itself.

`<out>/build/` belongs to the build: `build.json` marks the folder as a build output,
`results/<language>/<repo>.json` holds each finished repository's `RepoResult` (written
atomically, so an interrupted batch resumes from them), `logs/<language>/<repo>.log` its log,
`summary-<language>.json` and `rejections-<language>.csv` what `finalize_language` decided.
The dataset is the released layout (docs/benchmark.md): `benchmark/<language>/<repo>_<NNNN>/` with the
program, `callgraph.json` and a provenance README.md, plus `traceeval_split/`. Finalising a
language computes the whole wanted state of that language's programs and split entries, then
`layout_update` writes only what differs from the disk, atomically (see its docstring); nothing
written depends on the clock, so the same results always give byte-identical files.
"""
from __future__ import annotations

import csv
import io
import json
import logging
import os
from collections import Counter
from dataclasses import asdict, dataclass, field, replace
from pathlib import Path

from core.dataset.layout import GROUND_TRUTH_FILE, PROVENANCE_FILE
from core.errors import BuildError
from core.instances.dedup import find_near_duplicates, sources_key
from core.instances.layout_update import MANIFEST, WantedProgram, update_language
from core.instances.records import NEAR_DUPLICATE, Attempt, Harness, RepoInfo, RepoResult
from core.instances.shingle_cache import load_shingles, save_shingles
from core.instances.split_assign import assign_splits, merge_split_files, split_files
from core.languages import registry
from core.records import repo_of
from core.safe_files import MAX_README_BYTES, MAX_SPLIT_BYTES, MiB, read_json, read_text, why_unreadable

log = logging.getLogger(__name__)

BUILD_DIR = "build"
MARKER = "build.json"
SPLIT_DIR = "traceeval_split"
MAX_RESULT_BYTES = 64 * MiB  # a repository's build result (its log and licence text)
LICENCE_COPY = "LICENSE"


@dataclass(frozen=True)
class FinalOptions:
    test_share: float = 0.2
    seed: int = 0
    dedup_threshold: float = 0.9


@dataclass
class LanguageSummary:
    """What one language of a build output holds after finalising."""

    language: str
    repositories: int = 0  # with a result
    failed_repositories: list[tuple[str, str]] = field(default_factory=list)  # (repo, error)
    candidates: int = 0
    tried: int = 0
    untried: int = 0
    accepted: int = 0  # written as programs
    rejected: dict[str, int] = field(default_factory=dict)  # reason -> count, near_duplicate included
    splits: dict[str, int] = field(default_factory=dict)  # test/train -> programs
    split_repos: dict[str, int] = field(default_factory=dict)  # test/train -> repositories

    def to_dict(self) -> dict:
        return asdict(self)


def prepare_output(out: Path) -> None:
    """Make `out` a build output, or refuse a folder holding a dataset the build did not make."""
    if out.exists() and not out.is_dir():
        raise BuildError(f"{out}: --out is a file, not a folder")
    marker = out / BUILD_DIR / MARKER
    if not marker.exists() and (out / "benchmark").exists():
        raise BuildError(f"{out}: holds a dataset that 'traceeval build' did not make (no {BUILD_DIR}/{MARKER}); "
                         "choose another --out")
    marker.parent.mkdir(parents=True, exist_ok=True)
    if not marker.exists():
        _write_atomic(marker, json.dumps({"made_by": "traceeval build", "format": 1}, indent=2) + "\n")


def result_path(out: Path, language: str, repo: str) -> Path:
    return out / BUILD_DIR / "results" / language / f"{repo}.json"


def save_repo_result(out: Path, result: RepoResult) -> None:
    """Store a finished repository (its results file, then its log)."""
    _write_atomic(result_path(out, result.language, result.repo.name),
                  json.dumps(asdict(result), indent=1, ensure_ascii=False) + "\n")
    _write_atomic(out / BUILD_DIR / "logs" / result.language / f"{result.repo.name}.log",
                  "\n".join(result.log) + "\n")


def load_repo_results(out: Path, language: str) -> list[RepoResult]:
    """Every finished repository of a language, by name; a damaged results file is skipped with a
    warning naming it (its repository is then built again)."""
    folder = out / BUILD_DIR / "results" / language
    results = []
    for path in sorted(folder.glob("*.json")) if folder.is_dir() else ():
        try:
            stored = read_json(path, MAX_RESULT_BYTES)
            if not isinstance(stored, dict):
                raise TypeError("not a build result")
            results.append(result_from_dict(stored))
        except (OSError, ValueError, KeyError, TypeError) as error:
            log.warning("%s: damaged build result, its repository will be built again (%s)", path, error)
    return results


def record_attempt(out: Path, language: str, repo: RepoInfo, attempt: Attempt, *, licence_text: str = "",
                   final: FinalOptions = FinalOptions()) -> LanguageSummary:
    """Add one attempt made by hand (the build wizard) to the repository's result, replacing an earlier
    attempt at the same target, and finalise the language so an accepted program is in the dataset."""
    prepare_output(out)
    line = f"{attempt.target}: {'accepted' if attempt.accepted else f'rejected ({attempt.reason})'} in the wizard"
    fresh = RepoResult(language, repo, candidates=0, attempts=(attempt,), log=(line,), licence_text=licence_text)
    save_repo_result(out, merged_result(stored_result(out, language, repo.name), fresh))
    return finalize_language(out, language, final)


def stored_result(out: Path, language: str, repo: str) -> RepoResult | None:
    return next((result for result in load_repo_results(out, language) if result.repo.name == repo), None)


def merged_result(earlier: RepoResult | None, fresh: RepoResult) -> RepoResult:
    """`fresh` (attempts at some targets) on top of `earlier`: earlier attempts at other targets are
    kept first, so programs accepted before keep their ids."""
    if earlier is None:
        return fresh
    targets = {attempt.target for attempt in fresh.attempts}
    attempts = tuple(a for a in earlier.attempts if a.target not in targets) + fresh.attempts
    return replace(fresh, attempts=attempts, candidates=max(earlier.candidates, fresh.candidates),
                   untried=earlier.untried if not fresh.candidates else fresh.untried,
                   log=earlier.log + fresh.log, licence_text=fresh.licence_text or earlier.licence_text)


def program_id_of(out: Path, language: str, repo: str, target: str) -> str | None:
    """The id the finalised dataset gave an accepted target (None when it was not written)."""
    folder = out / "benchmark" / language
    for readme in sorted(folder.glob(f"{repo}_*/{PROVENANCE_FILE}")):
        try:
            text = read_text(readme, MAX_README_BYTES, errors="replace")
        except OSError:
            continue
        if any(line.startswith("Target: ") and line[8:].split(" (")[0] == target for line in text.splitlines()):
            return readme.parent.name
    return None


def result_from_dict(data: dict) -> RepoResult:
    attempts = tuple(Attempt(**{**a, "harness": Harness(**a["harness"]) if a.get("harness") else None,
                                "statuses": tuple(a.get("statuses", ()))}) for a in data["attempts"])
    return RepoResult(**{**data, "repo": RepoInfo(**data["repo"]), "attempts": attempts,
                         "log": tuple(data.get("log", ()))})


@dataclass
class LanguagePlan:
    """What finalising a language should leave: the summary, every program folder and split file as bytes,
    and the rejections."""

    summary: LanguageSummary
    programs: dict[str, WantedProgram]
    split_files: dict[Path, bytes]
    rejections: list[tuple[str, Attempt, str]]  # (repo, attempt, detail)


def finalize_language(out: Path, language: str, options: FinalOptions = FinalOptions()) -> LanguageSummary:
    """Write `benchmark/<language>/` and the language's split entries from the finished repositories,
    touching only what differs from what is on disk (see `layout_update`)."""
    plan = plan_language(out, language, options)
    counts = update_language(out, language, plan.programs, plan.split_files,
                             out / BUILD_DIR / MANIFEST.format(language=language))
    log.info("%s: finalised, %d program folders written (%d files hard-linked from renumbered ones), %d removed, "
             "%d unchanged, %d split files replaced", language, counts.written, counts.linked_files, counts.removed,
             counts.unchanged, counts.split_files)
    write_build_records(out, plan)
    return plan.summary


def write_build_records(out: Path, plan: LanguagePlan) -> None:
    """The build's own record of the decision: `summary-<language>.json` and `rejections-<language>.csv`."""
    language = plan.summary.language
    _write_atomic(out / BUILD_DIR / f"summary-{language}.json", json.dumps(plan.summary.to_dict(), indent=2) + "\n")
    _write_atomic(out / BUILD_DIR / f"rejections-{language}.csv", _rejections_csv(plan.rejections))


def plan_language(out: Path, language: str, options: FinalOptions = FinalOptions()) -> LanguagePlan:
    """Decide the language's dataset from the finished repositories, writing nothing: near-duplicates
    removed (earlier repositories and candidates win), ids numbered per repository, splits assigned."""
    results = load_repo_results(out, language)
    summary = LanguageSummary(language, repositories=len(results))
    kept: list[tuple[RepoResult, Attempt]] = []
    rejections: list[tuple[str, Attempt, str]] = []  # (repo, attempt, detail)
    for result in results:
        if result.error:
            summary.failed_repositories.append((result.repo.name, result.error))
        summary.candidates += result.candidates
        summary.untried += result.untried
        for attempt in result.attempts:
            if attempt.accepted:
                kept.append((result, attempt))
            else:
                rejections.append((result.repo.name, attempt, attempt.detail))
    summary.tried = sum(1 for result in results for attempt in result.attempts if attempt.harness is not None)
    provisional = [f"{result.repo.name}#{n}" for n, (result, _) in enumerate(kept)]
    sources = [_sources(attempt.files, language) for _, attempt in kept]
    cache_path = out / BUILD_DIR / f"shingles-{language}.npz"
    shingles = load_shingles(cache_path)
    known = set(shingles)
    duplicates = find_near_duplicates(list(zip(provisional, sources)), language, options.dedup_threshold,
                                      shingles=shingles)
    used = [sources_key(files) for files in sources]
    if set(used) != known:
        save_shingles(cache_path, shingles, used)
    dropped = {d.dropped: d for d in duplicates}
    programs: list[tuple[str, RepoResult, Attempt]] = []
    numbers: Counter = Counter()
    ids = {}
    for pid, (result, attempt) in zip(provisional, kept):
        if pid in dropped:
            continue
        numbers[result.repo.name] += 1
        program_id = f"{result.repo.name}_{numbers[result.repo.name]:04d}"
        ids[pid] = program_id
        programs.append((program_id, result, attempt))
    for pid, (result, attempt) in zip(provisional, kept):
        if pid in dropped:
            twin = dropped[pid]
            detail = f"{twin.similarity:.0%} similar to {ids.get(twin.kept, twin.kept)}"
            rejections.append((result.repo.name, Attempt(**{**asdict(attempt), "reason": NEAR_DUPLICATE,
                                                            "detail": detail, "harness": attempt.harness,
                                                            "files": {}, "graph": {}}), detail))
    summary.accepted = len(programs)
    summary.rejected = dict(sorted(Counter(attempt.reason for _, attempt, _ in rejections).items()))
    splits = _split_contents(out, language, [pid for pid, _, _ in programs], options, summary)
    return LanguagePlan(summary, wanted_programs(language, programs), splits, rejections)


def _sources(files: dict[str, str], language: str) -> dict[str, str]:
    return {path: text for path, text in files.items() if path.endswith(registry.get(language).suffixes)}


def wanted_programs(language: str, programs: list[tuple[str, RepoResult, Attempt]]) -> dict[str, WantedProgram]:
    """Each program's folder as bytes: its files, `callgraph.json`, the repository's licence and the README."""
    wanted = {}
    for program_id, result, attempt in programs:
        files = {relative: text.encode("utf-8") for relative, text in attempt.files.items()}
        files[GROUND_TRUTH_FILE] = (json.dumps(attempt.graph, indent=2, ensure_ascii=False) + "\n").encode("utf-8")
        if result.licence_text and LICENCE_COPY not in attempt.files:
            files[LICENCE_COPY] = result.licence_text.encode("utf-8")
        files[PROVENANCE_FILE] = provenance_readme(program_id, language, result, attempt).encode("utf-8")
        wanted[program_id] = WantedProgram(files, f"{result.repo.name}\n{attempt.target}")
    return wanted


def provenance_readme(program_id: str, language: str, result: RepoResult, attempt: Attempt) -> str:
    repo = result.repo
    commit = repo.commit + (" (the checkout had uncommitted changes)" if repo.dirty else "") if repo.commit else ""
    licence = repo.licence or ("unrecognised" if repo.licence_file else "none found")
    if result.licence_text:
        licence += f" (the repository's {repo.licence_file} is copied as {LICENCE_COPY})"
    harness = attempt.harness
    writer = f"written by {harness.model}" if harness and harness.model else "written by hand"
    lines = [f"# {program_id}", "", f"A {registry.title(language)} program built by `traceeval build` "
             "(TraceEval Studio).", "",
             f"Source: {repo.url}", f"Original file: {repo.original_path(attempt.original_file)}"]
    if commit:
        lines.append(f"Commit: {commit}")
    lines += [f"Licence: {licence}", f"Target: {attempt.target}" + (f" ({attempt.target_kind})"
                                                                      if attempt.target_kind else ""),
              f"Harness: {harness.path if harness else '?'}, {writer}",
              f"Verified: {attempt.runs} runs under the tracer saw the same {attempt.internal_edges} internal edges"]
    return "\n".join(lines) + "\n"


def _split_contents(out: Path, language: str, program_ids: list[str], options: FinalOptions,
                    summary: LanguageSummary) -> dict[Path, bytes]:
    """The split files as they should be, with the other languages' entries kept as they are."""
    sizes = Counter(repo_of(pid) for pid in program_ids)
    assignment = assign_splits(dict(sizes), options.test_share, options.seed)
    fresh = split_files({language: assignment}, {language: program_ids})
    folder = out / SPLIT_DIR
    existing = {}
    for name in fresh:
        path = folder / name
        if path.exists():
            try:
                existing[name] = read_json(path, MAX_SPLIT_BYTES)
            except OSError as error:
                raise BuildError(f"{path}: {why_unreadable(error)}; remove it and build again") from None
            except ValueError as error:
                raise BuildError(f"{path}: not valid JSON ({error}); remove it and build again") from None
    merged = merge_split_files(existing, fresh, [language])
    for language_name in registry.names():  # every language's assignment file exists, as in the release
        merged.setdefault(f"{language_name}_repo_assignment.json", {})
    for split in ("test", "train"):
        summary.splits[split] = sum(1 for pid in program_ids if assignment.get(repo_of(pid)) == split)
        summary.split_repos[split] = sum(1 for value in assignment.values() if value == split)
    return {folder / name: (json.dumps(content, indent=2, ensure_ascii=False) + "\n").encode("utf-8")
            for name, content in merged.items()}


def _rejections_csv(rejections: list[tuple[str, Attempt, str]]) -> str:
    buffer = io.StringIO()
    writer = csv.writer(buffer, lineterminator="\n")
    writer.writerow(["repository", "target", "original_file", "reason", "detail"])
    for repo, attempt, detail in rejections:
        writer.writerow([repo, attempt.target, attempt.original_file, attempt.reason, detail])
    return buffer.getvalue()


def _write_atomic(path: Path, text: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    temporary = path.with_name(f".{path.name}.tmp")
    temporary.write_text(text, encoding="utf-8")
    os.replace(temporary, path)
