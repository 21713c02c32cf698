"""Dotted naming (Python, JavaScript): a name is the module path plus the qualified name inside it,
`pkg.mod.Class.method`; the language's module gives the extractor and its naming details."""
from __future__ import annotations

import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass

from core.records import Node
from core.symbols.placement import DottedPlacer
from core.symbols.rules import Position, ProgramScan
from core.symbols.scan import CallSite, FileScan

# a name that cannot be placed and ends in one of these calls its class (any dotted language)
CONSTRUCTOR_SEGMENTS = ("__init__", "__new__", "constructor")

FileExtractor = Callable[..., tuple[FileScan, str | None]]  # (path, text, want_calls=False)


@dataclass(frozen=True)
class DottedSymbols:
    """`core.symbols.rules.SymbolRules` for a language with dotted names."""

    extract_file: FileExtractor
    module_name: Callable[[str], str]  # relative path -> module name
    constructors: tuple[str, ...]  # a class's constructor segments, preferred first ("__init__", "__new__")
    dropped_segments: tuple[str, ...] = ("<locals>",)  # segments placement ignores (JS "prototype")
    package_init: str = ""  # a package's own module segment that placement may drop (Python "__init__")

    def scan(self, sources: Mapping[str, str], want_calls: bool = False) -> ProgramScan:
        results = [self.extract_file(path, text, want_calls=want_calls) for path, text in sources.items()]
        return ProgramScan([scan for scan, _ in results], [problem for _, problem in results if problem],
                           {path: self.module_name(path) for path in sources})

    def calls(self, path: str, text: str, program: object) -> list[CallSite]:
        scan, _ = self.extract_file(path, text, want_calls=True)
        return scan.calls

    def placer(self, nodes: Sequence[Node], classes: Sequence[Node], modules: Mapping[str, str]) -> DottedPlacer:
        return DottedPlacer(nodes, classes, modules, self.constructors, self.dropped_segments, self.package_init)

    def callee_names(self, head: str) -> frozenset[str]:
        segments = [s for s in re.split(r"[./]", head) if s]
        if segments and segments[-1] in CONSTRUCTOR_SEGMENTS:
            return frozenset(segments[-2:])
        return frozenset(segments[-1:])

    def owner_class(self, node: Node) -> str:
        return node.name.rpartition(".")[0]

    def is_entry_function(self, node: Node) -> bool:
        return node.kind == "function" and node.name.rpartition(".")[2] == "main"

    def reachable(self, node: Node, by_name: Mapping[str, Node]) -> bool:
        """Not nested in a function (a class inside a class is reachable through it)."""
        head = node.name
        while "." in head:
            head = head.rpartition(".")[0]
            enclosing = by_name.get(head)
            if enclosing is not None and enclosing.kind != "module":
                return False
        return True

    def class_targets(self, scan: ProgramScan) -> set[Position] | None:
        return None
