"""Candidate targets of a repository: functions, methods and classes that call enough of its own code.

Targets (found on the repository layout, each file parsed once):
- functions and methods not nested in another function (a harness could not reach them),
  not constructors or initializers (their class is the target), not lambdas, arrows or
  anonymous functions, not entry functions (Python/JS `main`, Java `main(String[])`), not
  members of Java anonymous classes;
- classes (Java: class, enum and record declarations, not interfaces), whose members are
  their methods and constructors.
`internal_callees` are found statically (`core.symbols.calls` call sites): an identifier the
target's body calls (a class: any member's body) that names a function-like node of the
repository other than the target and its members. An identifier naming several definitions
counts once: the definition in the target's own file, else the first one. Targets with at least
`min_callees` are gathered (`program_files`); each is then renamed on the program layout, and
its callees are counted again among the program's own files (a same-named function elsewhere in
the repository does not count), so a target may drop out there. Candidates come most internal
callees first, then by repository path and line; problems in the same order.
"""
from __future__ import annotations

import logging
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

from core.errors import BuildError
from core.instances.program_files import (
    DEFAULT_MAX_FILES,
    FileGatherer,
    FileSet,
    entry_clash,
    harness_path,
    repository_sources,
)
from core.instances.records import ENTRY_NAME_TAKEN, Candidate, CandidateProblem
from core.languages import get
from core.records import Node
from core.symbols import extract_symbols, symbol_rules, symbol_table
from core.symbols.rules import Position
from core.symbols.scan import CallSite

TARGET_KINDS = ("function", "method")
MEMBER_KINDS = ("method", "constructor")

log = logging.getLogger(__name__)


def find_candidates(repo: Path, language: str, *, min_callees: int = 2,
                    max_files: int = DEFAULT_MAX_FILES) -> tuple[list[Candidate], list[CandidateProblem]]:
    """Targets worth a harness, and the targets whose files cannot make a program (see the module docstring)."""
    sources = repository_sources(repo, language)
    code = {path: text for path, text in sources.items() if get(language).source_file(path)}
    if not code:
        raise BuildError(f"{repo}: no {language} source files (hidden, dependency, build and test folders "
                         "are skipped)")
    scan = RepositoryScan(language, code)
    targets = [t for t in scan.targets() if len(t.callees) >= min_callees]
    targets.sort(key=lambda t: (-len(t.callees), t.node.file, t.node.start_line, t.node.start_col, t.node.name))
    builder = _CandidateBuilder(scan, FileGatherer(sources, language, scan.parsed), max_files, min_callees)
    candidates, problems = [], []
    for target in targets:
        outcome = builder.build(target)
        if isinstance(outcome, CandidateProblem):
            problems.append(outcome)
        elif outcome is not None:
            candidates.append(outcome)
    candidates.sort(key=lambda c: (-len(c.internal_callees), c.original_file, c.line, c.name))
    return candidates, problems


@dataclass(frozen=True)
class Target:
    """A target on the repository layout, with the callees found for it there."""

    node: Node  # the function/method node, or the class node
    kind: str  # function | method | class
    members: tuple[Node, ...]  # a class's methods and constructors
    callees: tuple[Node, ...]  # chosen definitions, in the order the calls appear
    identifiers: tuple[str, ...]  # the identifiers called, in order (re-resolved on the program layout)


class RepositoryScan:
    """Every source file parsed once: the repository-layout symbol table plus its call sites."""

    def __init__(self, language: str, code: Mapping[str, str]) -> None:
        self.language = language
        self.rules = symbol_rules(language)
        scanned = self.rules.scan(code, want_calls=True)
        self.parsed = scanned.parsed  # Java's trees, reused by the import resolver
        self.table = symbol_table(language, scanned.scans, scanned.problems, scanned.modules, scanned.program)
        self.calls: dict[str, list[CallSite]] = {}
        for scan in scanned.scans:
            for site in scan.calls:
                self.calls.setdefault(site.owner, []).append(site)
        self.definitions = self._definitions_by_identifier()
        self.definitions_in: dict[tuple[str, str], list[Node]] = {}  # (identifier, file) -> definitions
        for identifier, nodes in self.definitions.items():
            for node in nodes:
                self.definitions_in.setdefault((identifier, node.file), []).append(node)
        self.by_class: dict[tuple[str, str], list[Node]] = {}  # (file, class name) -> its members
        for node in self.table.nodes:
            if node.kind in MEMBER_KINDS and not self.rules.is_entry_function(node):
                self.by_class.setdefault((node.file, self.rules.owner_class(node)), []).append(node)
        self.class_targets = self.rules.class_targets(scanned)  # None: every class

    def _definitions_by_identifier(self) -> dict[str, list[Node]]:
        """identifier -> the function-like nodes a call by that identifier may reach, in table order."""
        index: dict[str, list[Node]] = {}
        for node in self.table.nodes:
            if node.kind != "module":
                for identifier in sorted(self.table.call_names(node)):
                    index.setdefault(identifier, []).append(node)
        return index

    # -- targets

    def targets(self) -> list[Target]:
        found = [self._function_target(node) for node in self.table.nodes if self._is_function_target(node)]
        found += [self._class_target(node) for node in self.table.classes if self._is_class_target(node)]
        return found

    def _is_function_target(self, node: Node) -> bool:
        if node.kind not in TARGET_KINDS or self.rules.is_entry_function(node):
            return False
        return self.rules.reachable(node, self.table.by_name)

    def _is_class_target(self, node: Node) -> bool:
        if not self.rules.reachable(node, self.table.by_name):
            return False
        return self.class_targets is None or _position(node) in self.class_targets

    def _function_target(self, node: Node) -> Target:
        identifiers = self._called_identifiers([node])
        callees = self.choose_callees(identifiers, node, {node.name}, None)
        return Target(node, node.kind, (), tuple(callees), tuple(identifiers))

    def _class_target(self, node: Node) -> Target:
        members = tuple(self.members(node))
        identifiers = self._called_identifiers(members)
        excluded = {member.name for member in members}
        callees = self.choose_callees(identifiers, node, excluded, None)
        return Target(node, "class", members, tuple(callees), tuple(identifiers))

    def members(self, klass: Node) -> list[Node]:
        return self.by_class.get((klass.file, klass.name), [])

    def _called_identifiers(self, owners: Iterable[Node]) -> list[str]:
        """Identifiers called in the owners' bodies that name some repository function, in call order."""
        sites = [site for owner in owners for site in self.calls.get(owner.name, ())]
        sites.sort(key=lambda site: site.line)
        return list(dict.fromkeys(site.identifier for site in sites if site.identifier in self.definitions))

    def choose_callees(self, identifiers: Iterable[str], target: Node, excluded: set[str],
                       program_files: Sequence[str] | None) -> list[Node]:
        """One definition per identifier, each once: the one in the target's own file, else the first
        one (in `program_files` order when given: only the program's files count)."""
        chosen: dict[str, Node] = {}
        for identifier in identifiers:
            best = self._first_definition(identifier, [target.file], excluded)
            if best is None and program_files is None:
                best = next((n for n in self.definitions.get(identifier, ()) if n.name not in excluded), None)
            elif best is None and program_files is not None:
                best = self._first_definition(identifier, program_files, excluded)
            if best is not None:
                chosen.setdefault(best.name, best)
        return list(chosen.values())

    def _first_definition(self, identifier: str, files: Iterable[str], excluded: set[str]) -> Node | None:
        for file in files:
            for node in self.definitions_in.get((identifier, file), ()):
                if node.name not in excluded:
                    return node
        return None


class _CandidateBuilder:
    """Gathers a target's files and renames it on the program layout (one symbol table per file set)."""

    def __init__(self, scan: RepositoryScan, gatherer: FileGatherer, max_files: int, min_callees: int) -> None:
        self.scan = scan
        self.language = scan.language
        self.gatherer = gatherer
        self.max_files = max_files
        self.min_callees = min_callees
        self._programs: dict[str, _Program] = {}  # start file -> its program

    def build(self, target: Target) -> Candidate | CandidateProblem | None:
        """A Candidate, a CandidateProblem, or None when too few callees are in the program's files."""
        file_set = self.gatherer.gather(target.node.file, self.max_files)
        if not file_set.ok:
            return CandidateProblem(target.node.name, target.node.file, file_set.reason, file_set.detail)
        program = self._program(target.node.file, file_set)
        if program.clash:
            return CandidateProblem(target.node.name, target.node.file, ENTRY_NAME_TAKEN, program.clash)
        excluded = {target.node.name, *(member.name for member in target.members)}
        callees = self.scan.choose_callees(target.identifiers, target.node, excluded, program.repository_files)
        if len(callees) < self.min_callees:
            return None
        node = program.rename(target.node, target.kind == "class")
        renamed = [found for n in (*callees, *target.members) if (found := program.rename(n)) is not None]
        if node is None or len(renamed) < len(callees) + len(target.members):
            # a file of the program has the same text: should not happen
            log.warning("%s: not found again on the program layout of %s", target.node.name, target.node.file)
            return None
        return Candidate(
            name=node.name, kind=target.kind, file=node.file, line=node.start_line,
            internal_callees=tuple(n.name for n in renamed[:len(callees)]), files=dict(file_set.files),
            members=tuple(n.name for n in renamed[len(callees):]))

    def _program(self, start_file: str, file_set: FileSet) -> _Program:
        if start_file not in self._programs:
            self._programs[start_file] = _Program(self.language, file_set.files, self.gatherer.sources)
        return self._programs[start_file]


class _Program:
    """One gathered file set on the program layout: its symbol table and where the harness goes."""

    def __init__(self, language: str, files: Mapping[str, str], sources: Mapping[str, str]) -> None:
        texts = {program: sources[repo] for program, repo in files.items() if get(language).source_file(program)}
        self.program_path = {repo: program for program, repo in files.items()}
        self.repository_files = list(files.values())
        table = extract_symbols(language, texts)
        self.positions = {_position(d): d for node in table.nodes for d in table.definitions(node.name)}
        self.class_positions = {_position(node): node for node in table.classes}
        start = next(iter(files))
        self.clash = entry_clash(language, texts, harness_path(language, start, texts))

    def rename(self, node: Node, is_class: bool = False) -> Node | None:
        """The same definition (same text, same place) as the program's symbol table names it."""
        position = (self.program_path.get(node.file, ""), node.start_line, node.start_col)
        return (self.class_positions if is_class else self.positions).get(position)


def _position(node: Node) -> Position:
    return node.file, node.start_line, node.start_col
