"""The build wizard's background work: each step of `core.instances` for one candidate at a time.

`FindCandidatesJob` reads the repository (its provenance, candidates and licence), `AskHarnessJob`
asks the model for a harness, `TraceHarnessJob` traces a harness and judges the runs, and
`RecordAttemptJob` adds the person's decision to the output dataset. None of them touches a
widget; the wizard reads their results from `finished`. `count_source_files` picks the language
the wizard pre-selects.
"""
from __future__ import annotations

import os
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from core.errors import BuildError, EndpointError
from core.instances.candidates import find_candidates
from core.instances.harness import ask_for_harness
from core.instances.output import LanguageSummary, load_repo_results, prepare_output, program_id_of, record_attempt
from core.instances.pipeline import BuildOptions, read_licence, trace_harness
from core.instances.program_files import SKIPPED_DIRS, TEST_DIRS
from core.instances.records import Attempt, Candidate, CandidateProblem, Harness, RepoInfo
from core.instances.repository import describe_repository
from core.languages import registry
from core.llm.answer_cache import AnswerCache
from core.llm.chat import ChatFailure
from core.llm.endpoints import RunSettings
from core.records import Instance
from core.traces import TraceRun
from traceeval_gui.state.jobs import Job, JobCancelled, Progress

TraceRuns = Callable[[Instance, int, float], list[TraceRun]]
COUNT_LIMIT = 50_000  # files looked at when guessing the language (a huge folder is not walked to the end)


# -- the language of a folder ------------------------------------------------------------------

def count_source_files(folder: Path, limit: int = COUNT_LIMIT) -> dict[str, int]:
    """Source files per language, skipping what the build skips (hidden, dependency and test folders)."""
    counts = dict.fromkeys(registry.names(), 0)
    seen = 0
    for _, dirnames, filenames in os.walk(folder):
        dirnames[:] = [d for d in dirnames if not d.startswith(".") and d not in SKIPPED_DIRS and d not in TEST_DIRS]
        for name in filenames:
            language = registry.by_suffix(name)
            if language is not None:
                counts[language.name] += 1
            seen += 1
        if seen >= limit:
            break
    return counts


class CountSourcesJob(Job):
    title = "counting source files"

    def __init__(self, folder: str | Path) -> None:
        super().__init__()
        self.folder = Path(folder).expanduser()

    def work(self, progress: Progress) -> dict[str, int]:
        return count_source_files(self.folder)


# -- candidates ---------------------------------------------------------------------------------

@dataclass(frozen=True)
class FoundCandidates:
    repo: RepoInfo
    language: str
    candidates: tuple[Candidate, ...]
    problems: tuple[CandidateProblem, ...]
    licence_text: str
    decided: dict[str, Attempt]  # target -> the attempt stored for it in the output folder (earlier sessions)
    seconds: float


class FindCandidatesJob(Job):
    """Describe the repository, make `out` a build output (refusing a foreign dataset), find the candidates."""

    title = "finding candidates"

    def __init__(self, repo: str | Path, out: str | Path, options: BuildOptions) -> None:
        super().__init__()
        self.repo = Path(repo).expanduser()
        self.out = Path(out).expanduser()
        self.options = options

    def work(self, progress: Progress) -> FoundCandidates:
        started = time.perf_counter()
        if not self.repo.is_dir():
            raise BuildError(f"{self.repo}: not a folder")
        if not os.access(self.repo, os.R_OK | os.X_OK):
            raise BuildError(f"{self.repo}: cannot be read (permission denied)")
        progress(0, 0, f"reading {self.repo.name}")
        try:
            repo = describe_repository(self.repo.resolve())
            if self.out.exists():  # refuse a dataset the build did not make now, not at the first decision
                prepare_output(self.out)
            progress(0, 0, f"finding {self.options.language} candidates in {repo.name}")
            candidates, problems = find_candidates(self.repo.resolve(), self.options.language,
                                                   min_callees=self.options.min_callees,
                                                   max_files=self.options.max_files)
        except OSError as error:
            raise BuildError(f"{self.repo}: {error.strerror or error}") from None
        stored = next((r for r in load_repo_results(self.out, self.options.language) if r.repo.name == repo.name),
                      None)
        decided = {a.target: a for a in stored.attempts} if stored else {}
        return FoundCandidates(repo, self.options.language, tuple(candidates), tuple(problems), read_licence(repo),
                               decided, time.perf_counter() - started)


# -- asking for a harness ------------------------------------------------------------------------

@dataclass(frozen=True)
class AskedHarness:
    harness: Harness | None
    why: str  # why there is no harness ("" when there is one)
    seconds: float


class AskHarnessJob(Job):
    """One request to the endpoint. A ChatFailure fails the job with its one-line message."""

    title = "asking the model"

    def __init__(self, settings: RunSettings, messages: list[dict[str, str]], entry_file: str, language: str, *,
                 api_key: str | None, label: str) -> None:
        super().__init__()
        self.settings, self.messages = settings, messages
        self.entry_file, self.language = entry_file, language
        self.api_key, self.label = api_key, label

    def work(self, progress: Progress) -> AskedHarness:
        started = time.perf_counter()
        progress(0, 0, f"asking {self.settings.model}")
        try:
            harness, why = ask_for_harness(self.settings, self.messages, self.entry_file, self.language,
                                           api_key=self.api_key, cache=AnswerCache(), cancel=self._cancel,
                                           label=self.label)
        except ChatFailure as failure:
            if failure.kind == "cancelled" or self._cancel.is_set():
                raise JobCancelled() from None
            raise EndpointError(failure.message) from None
        return AskedHarness(harness, why, time.perf_counter() - started)


# -- tracing a harness ---------------------------------------------------------------------------

@dataclass(frozen=True)
class TracedHarness:
    attempt: Attempt  # accepted, or rejected with its reason
    runs: tuple[TraceRun, ...]
    seconds: float


class TraceHarnessJob(Job):
    """`trace_harness` with progress per run and a cancel that stops between runs (a run itself ends at
    the latest with its wall-clock limit)."""

    title = "tracing the harness"

    def __init__(self, candidate: Candidate, files: dict[str, str], harness: Harness, options: BuildOptions,
                 trace_runs: TraceRuns | None = None) -> None:
        super().__init__()
        self.candidate, self.files, self.harness, self.options = candidate, files, harness, options
        self.trace_runs = trace_runs

    def work(self, progress: Progress) -> TracedHarness:
        started = time.perf_counter()
        trace = self.trace_runs
        if trace is None:
            from tracers import trace_for_build as trace

        total = self.options.runs
        made = 0

        def one_at_a_time(instance: Instance, runs: int, wall_s: float) -> list[TraceRun]:
            nonlocal made
            done = []
            for _ in range(runs):
                progress(made, total, f"run {made + 1} of up to {total} (at most {wall_s:g} s each)")
                done.extend(trace(instance, 1, wall_s))
                made += 1
            self.check_cancelled()
            return done

        progress(0, self.options.runs, "writing the program")
        attempt, runs = trace_harness(self.candidate, self.files, self.harness, self.options, one_at_a_time)
        return TracedHarness(attempt, tuple(runs), time.perf_counter() - started)


# -- recording the decision ----------------------------------------------------------------------

@dataclass(frozen=True)
class RecordedAttempt:
    attempt: Attempt
    summary: LanguageSummary
    program_id: str | None  # the accepted program's id (None for a rejection, or when de-duplication dropped it)
    out: Path


class RecordAttemptJob(Job):
    title = "recording the decision"

    def __init__(self, out: str | Path, language: str, repo: RepoInfo, attempt: Attempt, licence_text: str) -> None:
        super().__init__()
        self.out, self.language, self.repo = Path(out).expanduser(), language, repo
        self.attempt, self.licence_text = attempt, licence_text

    def work(self, progress: Progress) -> RecordedAttempt:
        progress(0, 0, f"writing {self.out.name}")
        try:
            summary = record_attempt(self.out, self.language, self.repo, self.attempt, licence_text=self.licence_text)
        except OSError as error:
            raise BuildError(f"{self.out}: cannot write the dataset: {error.strerror or error}") from None
        program_id = program_id_of(self.out, self.language, self.repo.name, self.attempt.target) \
            if self.attempt.accepted else None
        return RecordedAttempt(self.attempt, summary, program_id, self.out)
