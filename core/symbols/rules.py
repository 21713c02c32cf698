"""What the symbols layer asks of a language (`Language.symbols` names an object with this shape).

The benchmark has two naming schemes: dotted module paths (`core.symbols.dotted.DottedSymbols`, for
Python and JavaScript) and JVM signatures (`core.symbols.java.JavaSymbols`); a new language reuses one
or brings its own.
"""
from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Protocol

from core.records import Node
from core.symbols.parsing import Source
from core.symbols.scan import CallSite, FileScan

Position = tuple[str, int, int]  # file, line, column


@dataclass
class ProgramScan:
    """Every file of one program scanned: per-file scans (file order), syntax problems, each file's
    module name (dotted naming), what re-scanning one file needs to know about the others (Java: its
    types) and the parsed trees kept for reuse."""

    scans: list[FileScan]
    problems: list[str]
    modules: dict[str, str] = field(default_factory=dict)
    program: object = None
    parsed: dict[str, Source] = field(default_factory=dict)


class Placer(Protocol):
    def place(self, name: str) -> Node | None: ...


class SymbolRules(Protocol):
    def scan(self, sources: Mapping[str, str], want_calls: bool = False) -> ProgramScan:
        """Scan the program's source files (path -> text, in file order)."""

    def calls(self, path: str, text: str, program: object) -> list[CallSite]:
        """The call sites of one file of a scanned program."""

    def placer(self, nodes: Sequence[Node], classes: Sequence[Node], modules: Mapping[str, str]) -> Placer:
        """Tolerant placement of names on these nodes (`core.symbols.placement`)."""

    def callee_names(self, head: str) -> frozenset[str]:
        """The identifiers a call to a name that cannot be placed would use (`core.symbols.calls`)."""

    def owner_class(self, node: Node) -> str:
        """The name of the class a method or constructor belongs to."""

    def is_entry_function(self, node: Node) -> bool:
        """A program's own entry function (`main`): never a build target."""

    def reachable(self, node: Node, by_name: Mapping[str, Node]) -> bool:
        """A function or class a harness can reach from outside (not nested in a function or a class);
        `by_name`: the program's nodes by name."""

    def class_targets(self, scan: ProgramScan) -> set[Position] | None:
        """Where the classes a harness may target are declared; None when every class may be."""
