"""Plain data of a build: what a repository offers, what was tried, and how each try ended."""
from __future__ import annotations

from dataclasses import dataclass, field

# Why a candidate was not accepted: a short code (summaries count them) plus a one-line detail.
EXTRACTION_FAILED = "extraction_failed"  # its files could not be gathered (missing import, too big, clash)
THIRD_PARTY = "third_party"  # it needs a package that is neither the repository's nor the language's own
ENTRY_NAME_TAKEN = "entry_name_taken"  # the program already has a main.py / main.js / Main class there
MODEL_FAILED = "model_failed"  # the model could not be asked (after retries)
NO_HARNESS = "no_harness"  # the answer held no code
DID_NOT_RUN = "did_not_run"  # compile error, no entry point, toolchain or tracer problem
CRASHED = "crashed"  # an exception or a non-zero exit
TIMED_OUT = "timed_out"  # the wall-clock or CPU limit
OVER_LIMIT = "over_limit"  # memory, file size, process or output limit
UNSTABLE = "unstable"  # the edge sets differed between runs
UNTRUSTED_LOG = "untrusted_log"  # a run's trace log showed tampering (forged, missing or replayed records)
TOO_FEW_EDGES = "too_few_edges"  # fewer internal edges than asked for
TARGET_NOT_REACHED = "target_not_reached"  # the harness never ran the target
NEAR_DUPLICATE = "near_duplicate"  # (after the batch) too similar to an instance kept before it
BY_A_PERSON = "by_a_person"  # rejected in the build wizard (the detail says why, when given)
REJECTION_REASONS = (EXTRACTION_FAILED, THIRD_PARTY, ENTRY_NAME_TAKEN, MODEL_FAILED, NO_HARNESS, DID_NOT_RUN,
                     CRASHED, TIMED_OUT, OVER_LIMIT, UNTRUSTED_LOG, UNSTABLE, TOO_FEW_EDGES, TARGET_NOT_REACHED,
                     NEAR_DUPLICATE, BY_A_PERSON)


@dataclass(frozen=True)
class RepoInfo:
    """Where a repository came from, for README provenance."""

    name: str  # the repository name in program ids (`<name>_0001`)
    path: str  # the folder it was read from (absolute)
    url: str  # git remote URL (credentials removed), else a file:// URL of the folder
    commit: str = ""  # HEAD when the folder is a git checkout
    dirty: bool = False  # the checkout had uncommitted changes
    licence: str = ""  # SPDX id when recognised, else "" (see `licence_file`)
    licence_file: str = ""  # repository-relative path of its licence file, "" when none
    subdir: str = ""  # where the folder is inside the checkout `url` names ("" at its top)

    def original_path(self, relative: str) -> str:
        """A file of the folder as a path in the checkout (what README provenance names)."""
        return f"{self.subdir}/{relative}" if self.subdir else relative


@dataclass(frozen=True)
class Candidate:
    """A target worth a harness: a function, method or class calling enough of the repository's own code.

    `files` maps program-relative paths (the layout the program will have, so `name` is a
    TraceEval node name of the finished program) to repository-relative paths.
    """

    name: str  # TraceEval name in the program's layout; a class is named like a module member
    kind: str  # function | method | class
    file: str  # program-relative path of the file defining it
    line: int  # 1-based
    internal_callees: tuple[str, ...]  # repository functions it calls (statically; for a class, its methods')
    files: dict[str, str] = field(default_factory=dict)  # program path -> repository path, target file first
    members: tuple[str, ...] = ()  # for a class: its methods' node names (reaching any of them reaches it)

    @property
    def original_file(self) -> str:
        return self.files.get(self.file, self.file)


@dataclass(frozen=True)
class CandidateProblem:
    """A target that was found but cannot become a program (its files could not be gathered)."""

    name: str
    file: str  # repository-relative
    reason: str  # EXTRACTION_FAILED | THIRD_PARTY | ENTRY_NAME_TAKEN
    detail: str


@dataclass(frozen=True)
class Harness:
    """The program's entry file as the model wrote it (or as a person edited it)."""

    path: str  # program-relative: main.py, main.js, or <package path>/Main.java
    text: str
    model: str = ""  # who wrote it: a model id, or "" for a person
    tokens_in: int | None = None
    tokens_out: int | None = None


@dataclass(frozen=True)
class Attempt:
    """One candidate tried: accepted with its graph, or rejected with a reason."""

    target: str
    original_file: str  # repository-relative
    reason: str = ""  # "" when accepted, else one of REJECTION_REASONS
    detail: str = ""  # one line
    harness: Harness | None = None
    files: dict[str, str] = field(default_factory=dict)  # program path -> text (accepted ones only)
    graph: dict[str, list[str]] = field(default_factory=dict)  # callgraph.json content (accepted ones only)
    runs: int = 0  # runs traced
    statuses: tuple[str, ...] = ()  # status of each run
    internal_edges: int = 0
    seconds: float = 0.0
    target_kind: str = ""  # function | method | class

    @property
    def accepted(self) -> bool:
        return not self.reason


@dataclass(frozen=True)
class RepoResult:
    """Everything one repository task produced; written as JSON so a batch can resume."""

    language: str
    repo: RepoInfo
    candidates: int  # targets found
    attempts: tuple[Attempt, ...]  # in the order tried (accepted ones become <repo>_0001, ...)
    untried: int = 0  # candidates left once --max-per-repo were accepted or --max-tries were spent
    log: tuple[str, ...] = ()  # the repository's log lines
    error: str = ""  # the task failed as a whole (the repository could not be read): one line
    fatal: bool = False  # the error stops the batch (the model endpoint cannot be used at all)
    licence_text: str = ""  # the repository's licence file, copied into each of its programs
    seconds: float = 0.0

    @property
    def accepted(self) -> tuple[Attempt, ...]:
        return tuple(a for a in self.attempts if a.accepted)
