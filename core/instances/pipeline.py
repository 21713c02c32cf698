"""One repository in, tried candidates out: the task a batch runs per repository (locally or on Dask).

Each step is also a function of its own, so the GUI wizard can run them one at a time:
`program_texts` -> `harness_messages` -> `ask_for_harness` (core.instances.harness) -> `try_harness`.
Tracing is injected (`TraceRuns`): core cannot import tracers, and the entry points pass
`tracers.trace_for_build`, a module-level function, so tasks pickle to any worker.
"""
from __future__ import annotations

import logging
import tempfile
import threading
import time
import traceback
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace
from functools import partial
from pathlib import Path

from core import traces
from core.dataset.layout import load_program
from core.errors import BuildError, TraceEvalError
from core.instances.acceptance import judge_runs
from core.instances.candidates import find_candidates
from core.instances.harness import HarnessTemplate, ask_for_harness, prompt_values
from core.instances.program_files import MAX_SOURCE_BYTES, harness_path
from core.instances.records import (
    DID_NOT_RUN,
    MODEL_FAILED,
    NO_HARNESS,
    Attempt,
    Candidate,
    Harness,
    RepoInfo,
    RepoResult,
)
from core.instances.repository import MAX_MANIFEST_BYTES, describe_repository
from core.languages import registry
from core.llm.answer_cache import AnswerCache
from core.llm.chat import ChatFailure
from core.llm.endpoints import RunSettings
from core.records import Instance
from core.safe_files import ResolvedFolder, read_text
from core.traces import TraceRun

log = logging.getLogger(__name__)

TraceRuns = Callable[[Instance, int, float], list[TraceRun]]  # (program, runs, wall-clock limit) -> runs
LogLine = Callable[[str], None]


@dataclass(frozen=True)
class BuildOptions:
    language: str
    max_per_repo: int = 5  # stop a repository once this many are accepted
    max_tries: int = 0  # harnesses asked for per repository at most (0: three per wanted instance)
    min_callees: int = 2  # a target calls at least this many of the repository's functions (statically)
    min_edges: int = 3  # a harness's runs show at least this many internal edges
    runs: int = 3  # runs per harness; all must see the same edges
    timeout_s: float = 10.0  # wall-clock limit of one run
    max_files: int = 20  # files a program may need

    def __post_init__(self):
        if not registry.is_known(self.language):
            raise BuildError(f"unknown language {self.language!r} (known: {', '.join(registry.names())})")
        checks = ((self.max_per_repo >= 1, "--max-per-repo must be at least 1"),
                  (self.max_tries >= 0, "--max-tries must be 0 or more"),
                  (self.min_callees >= 1, "--min-callees must be at least 1"),
                  (self.min_edges >= 1, "--min-edges must be at least 1"),
                  (self.runs >= 2, "--runs must be at least 2 (an edge set is compared across runs)"),
                  (self.timeout_s > 0, "--timeout must be more than 0 s"),
                  (self.max_files >= 1, "--max-files must be at least 1"))
        for ok, message in checks:
            if not ok:
                raise BuildError(message)

    @property
    def tries(self) -> int:
        return self.max_tries or 3 * self.max_per_repo


@dataclass(frozen=True)
class RepoTask:
    """Everything a worker needs for one repository (plain data, so it pickles to a Dask worker)."""

    repo_path: str
    repo_name: str
    options: BuildOptions
    settings: RunSettings | None  # None only with `harness_text`
    template: HarnessTemplate
    api_key: str | None = field(default=None, repr=False)  # handed to the HTTP client only
    targets: tuple[str, ...] = ()  # only these candidates (by name), in this order
    harness_text: str = ""  # a hand-written harness used instead of asking a model (one target)


def build_repository(task: RepoTask, trace_runs: TraceRuns, cancel: threading.Event | None = None) -> RepoResult:
    """Try the repository's candidates in order until enough are accepted; never raises for the
    repository: a repository that cannot be read is a result with `error` set."""
    started = time.perf_counter()
    lines: list[str] = []

    def note(message: str) -> None:
        lines.append(f"{time.strftime('%H:%M:%S')} {message}")
        log.info("%s: %s", task.repo_name, message)

    language = task.options.language
    try:
        repo = describe_repository(Path(task.repo_path), task.repo_name)
        candidates, problems = find_candidates(Path(task.repo_path), language, min_callees=task.options.min_callees,
                                               max_files=task.options.max_files)
    except (TraceEvalError, OSError) as error:
        note(f"cannot read the repository: {error}")
        repo = RepoInfo(task.repo_name, task.repo_path, Path(task.repo_path).absolute().as_uri())
        return RepoResult(language, repo, 0, (), log=tuple(lines), error=str(error),
                          seconds=time.perf_counter() - started)
    note(f"{repo.url}{' @ ' + repo.commit[:12] if repo.commit else ''}: {len(candidates)} candidate(s), "
         f"{len(problems)} target(s) that cannot stand alone")
    if task.targets:
        candidates, problems = _only_targets(task.targets, candidates, problems, note)
    attempts = [Attempt(p.name, p.file, p.reason, p.detail) for p in problems]
    for attempt in attempts:
        note(f"{attempt.target}: rejected ({attempt.reason}): {attempt.detail}")
    cache = AnswerCache()
    accepted = tried = 0
    fatal = ""
    for candidate in candidates:
        if accepted >= task.options.max_per_repo or tried >= task.options.tries or fatal:
            break
        if cancel is not None and cancel.is_set():
            note("cancelled")
            break
        tried += 1
        attempt, fatal = _try_candidate(task, Path(task.repo_path), candidate, trace_runs, cache, note, cancel)
        attempts.append(attempt)
        accepted += attempt.accepted
    untried = len(candidates) - tried
    note(f"done: {accepted} accepted, {len(attempts) - accepted} rejected, {untried} not tried")
    return RepoResult(language, repo, len(candidates) + len(problems), tuple(attempts), untried=untried,
                      log=tuple(lines), error=fatal, fatal=bool(fatal), licence_text=read_licence(repo),
                      seconds=time.perf_counter() - started)


def read_licence(repo: RepoInfo) -> str:
    """The text of the repository's licence file ("" when there is none or it cannot be read)."""
    if not repo.licence_file:
        return ""
    try:
        return read_text(Path(repo.path) / repo.licence_file, MAX_MANIFEST_BYTES, root=repo.path)
    except OSError:
        return ""


def _try_candidate(task: RepoTask, repo: Path, candidate: Candidate, trace_runs: TraceRuns, cache: AnswerCache,
                   note: LogLine, cancel: threading.Event | None) -> tuple[Attempt, str]:
    """(the attempt, "" or the reason the whole batch must stop: the endpoint cannot be used)."""
    options = task.options
    started = time.perf_counter()
    try:
        files = program_texts(repo, candidate)
        entry = harness_path(options.language, candidate.file, files)
        if task.harness_text:
            harness = Harness(entry, task.harness_text)
        elif task.settings is None:
            raise BuildError("a build task needs endpoint settings or a hand-written harness")
        else:
            messages = harness_messages(task.template, options, candidate, files, entry)
            try:
                asked, why = ask_for_harness(task.settings, messages, entry, options.language, api_key=task.api_key,
                                             cache=cache, cancel=cancel, label=f"{task.repo_name}: {candidate.name}")
            except ChatFailure as failure:
                note(f"{candidate.name}: rejected ({MODEL_FAILED}): {failure.message}")
                return (_rejected(candidate, MODEL_FAILED, failure.message, started),
                        failure.message if failure.kind == "fatal" else "")
            if asked is None:
                note(f"{candidate.name}: rejected ({NO_HARNESS}): {why}")
                return _rejected(candidate, NO_HARNESS, why, started), ""
            harness = asked
        attempt = try_harness(candidate, files, harness, options, trace_runs)
    except Exception as error:  # a bug of ours must cost one candidate, not the repository
        log.exception("%s: %s failed", task.repo_name, candidate.name)
        detail = f"internal error: {type(error).__name__}: {error}"
        note(f"{candidate.name}: rejected: {detail}\n{traceback.format_exc()}")
        return _rejected(candidate, DID_NOT_RUN, detail, started), ""
    outcome = "accepted" if attempt.accepted else f"rejected ({attempt.reason})"
    note(f"{candidate.name}: {outcome}: {attempt.detail}")
    return replace(attempt, seconds=time.perf_counter() - started), ""


def _only_targets(targets: Sequence[str], candidates: list[Candidate], problems: list, note: LogLine):
    by_name = {c.name: c for c in candidates}
    problem_names = {p.name for p in problems}
    for name in targets:
        if name not in by_name and name not in problem_names:
            note(f"{name}: not a candidate of this repository")
    return [by_name[name] for name in targets if name in by_name], [p for p in problems if p.name in targets]


def program_texts(repo: Path, candidate: Candidate) -> dict[str, str]:
    """The candidate's files as the program will have them: program path -> text."""
    root = ResolvedFolder(repo)
    return {program_path: read_text(repo / repo_path, MAX_SOURCE_BYTES, root)
            for program_path, repo_path in candidate.files.items()}


def harness_messages(template: HarnessTemplate, options: BuildOptions, candidate: Candidate,
                     files: dict[str, str], entry_file: str) -> list[dict[str, str]]:
    sources = {path: text for path, text in files.items() if path != "package.json"}
    return template.messages(prompt_values(options.language, candidate, sources, entry_file, options.timeout_s,
                                           options.min_edges))


def try_harness(candidate: Candidate, files: dict[str, str], harness: Harness, options: BuildOptions,
                trace_runs: TraceRuns) -> Attempt:
    return trace_harness(candidate, files, harness, options, trace_runs)[0]


def trace_harness(candidate: Candidate, files: dict[str, str], harness: Harness, options: BuildOptions,
                  trace_runs: TraceRuns) -> tuple[Attempt, list[TraceRun]]:
    """Write the program with its harness to a temporary folder, trace it `options.runs` times and
    judge the runs: (the attempt, the runs, for a person to look at)."""
    program = {**files, harness.path: harness.text}
    with tempfile.TemporaryDirectory(prefix="traceeval-build-") as folder:
        root = Path(folder) / "program"
        write_program_files(root, program)
        problems: list = []
        loaded = load_program(root, options.language, problems, require_ground_truth=False)
        if loaded is None:
            detail = problems[0].message if problems else "the program could not be loaded"
            return _rejected(candidate, DID_NOT_RUN, detail, 0.0, harness), []
        runs = _runs_until_judged(loaded[0], options, trace_runs)
    judgement = judge_runs(runs, candidate.name, candidate.members, harness.path, options.min_edges)
    statuses = tuple(run.status for run in runs)
    attempt = partial(Attempt, target=candidate.name, target_kind=candidate.kind,
                      original_file=candidate.original_file, harness=harness, runs=len(runs), statuses=statuses,
                      internal_edges=judgement.internal_edges, detail=judgement.detail)
    if not judgement.accepted:
        return attempt(reason=judgement.reason), runs
    return attempt(files=program, graph=runs[0].graph.to_dict()), runs


def _runs_until_judged(instance: Instance, options: BuildOptions, trace_runs: TraceRuns) -> list[TraceRun]:
    """Up to `options.runs` runs, one at a time: the first failed or different run already decides."""
    runs: list[TraceRun] = []
    for _ in range(options.runs):
        run = trace_runs(instance, 1, options.timeout_s)[0]
        runs.append(run)
        if run.status != traces.OK or {e.edge for e in run.edges} != {e.edge for e in runs[0].edges}:
            break
    return runs


def write_program_files(root: Path, files: dict[str, str]) -> None:
    for relative, text in files.items():
        path = root / relative
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")


def _rejected(candidate: Candidate, reason: str, detail: str, started: float,
              harness: Harness | None = None) -> Attempt:
    seconds = time.perf_counter() - started if started else 0.0
    return Attempt(candidate.name, candidate.original_file, reason, detail, harness=harness, seconds=seconds,
                   target_kind=candidate.kind)


def repo_names(paths: Sequence[Path], taken: dict[str, str] | None = None) -> list[str]:
    """A distinct program-id repository name per path (`name`, `name-2`, ...), stable for a path
    already named in `taken` (name -> path, from an earlier run of the same batch)."""
    taken = dict(taken or {})
    by_path = {path: name for name, path in taken.items()}
    names = []
    for path in paths:
        resolved = str(Path(path).resolve())
        name = by_path.get(resolved)
        if name is None:
            base = describe_repository(Path(path)).name
            name, n = base, 1
            while name in taken:
                n += 1
                name = f"{base}-{n}"
            taken[name] = resolved
            by_path[resolved] = name
        names.append(name)
    return names
