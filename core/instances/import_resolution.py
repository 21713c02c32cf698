"""What the per-language import resolvers of `program_files` share: the resolver protocol (with the
language's program layout rules: test files, the harness's place and prompt sentence), a dependency, a
problem, placing files, and tree-sitter query helpers."""
from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping
from functools import cache
from typing import NamedTuple

import tree_sitter as ts

from core.instances.records import EXTRACTION_FAILED
from core.languages import get
from core.symbols.parsing import Source, TsNode, language


class Problem(NamedTuple):
    reason: str
    detail: str


class Dependency(NamedTuple):
    path: str  # repository path
    root: str  # Python: the source root it was found under ("" elsewhere)


class Imports:
    """One language's import resolution (per file) and program layout (per file set); `Language.imports`
    names the subclass."""

    language = ""

    @staticmethod
    def is_test_file(name: str) -> bool:
        """A test file by its name (`test_*.py`, `*.spec.js`, ...): never part of a built program."""
        return False

    @classmethod
    def harness_path(cls, target_file: str, sources_by_program_path: Mapping[str, str]) -> str:
        """Where the harness (the program's entry file) goes: the language's entry file name at the root."""
        return get(cls.language).entry_files[0]

    @classmethod
    def entry_clash(cls, files: Mapping[str, str], harness_path: str) -> str:
        """What else keeps the harness from being the entry point ("" when nothing does)."""
        return ""

    @classmethod
    def entry_rules(cls, entry_file: str, files: Mapping[str, str]) -> str:
        """The harness prompt's sentence on how the entry file is written (`files`: the program's)."""
        return f"The file is `{entry_file}` at the program root."

    def __init__(self, sources: Mapping[str, str], parsed: Mapping[str, Source]) -> None:
        self.sources = sources
        self.parsed = dict(parsed)

    def source(self, path: str) -> Source:
        if path not in self.parsed:
            self.parsed[path] = Source.parse(self.language, path, self.sources[path])
        return self.parsed[path]

    def syntax_problem(self, path: str) -> Problem | None:
        problem = self.source(path).syntax_problem()
        return Problem(EXTRACTION_FAILED, f"cannot parse {problem}") if problem else None

    def own_root(self, path: str) -> str:
        return ""

    def dependencies(self, path: str) -> list[Dependency] | Problem:
        raise NotImplementedError

    def layout(self, closure: list[Dependency]) -> dict[str, str] | Problem:
        raise NotImplementedError


def place_files(pairs: Iterable[tuple[str, str]]) -> dict[str, str] | Problem:
    """program path -> repository path, or EXTRACTION_FAILED when two files would share a program path."""
    files: dict[str, str] = {}
    for program_path, repo_path in pairs:
        other = files.setdefault(program_path, repo_path)
        if other != repo_path:
            return Problem(EXTRACTION_FAILED, f"{other} and {repo_path} would both be {program_path} in the program")
    return files


@cache
def _query(lang: str, pattern: str) -> ts.Query:
    return ts.Query(language(lang), pattern)


def captures(lang: str, pattern: str, node: TsNode) -> list[TsNode]:
    """Every capture of `pattern` under `node`, in source order."""
    found = ts.QueryCursor(_query(lang, pattern)).captures(node)
    return sorted((n for nodes in found.values() for n in nodes), key=lambda n: (n.start_byte, -n.end_byte))


def identifiers(source: Source, node: TsNode) -> Iterator[str]:
    stack = [node]
    while stack:
        current = stack.pop()
        if current.type == "identifier":
            yield source.text(current)
        stack.extend(current.named_children)


def within(root: str, path: str) -> bool:
    return not root or path.startswith(root + "/")


def join(folder: str, name: str) -> str:
    return f"{folder}/{name}" if folder else name


def dotted(module: str, name: str) -> str:
    return f"{module}.{name}" if module else name
