"""`SymbolTable`: the nodes of one program, looked up by exact or tolerant name."""
from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence

from core.languages import get
from core.records import Node
from core.symbols.rules import Placer


class SymbolTable:
    """Every node of a program, in source order per file, files in the order given.

    `nodes` has one entry per name (the first definition); `definitions(name)` lists every
    definition sharing it (a property getter and setter, `if`/`else` variants, a JS getter
    and setter). `classes` (kind "class") are not nodes of the call graph: they are only
    where `place()` puts a class name whose class declares no constructor.
    """

    def __init__(self, language: str, definitions: Sequence[Node], classes: Sequence[Node],
                 problems: Sequence[str], call_names: Mapping[str, Iterable[str]],
                 modules: Mapping[str, str], program: object = None) -> None:
        self.language = language
        self.problems = tuple(problems)
        self.classes = tuple(classes)
        self.modules = dict(modules)  # file -> module name (Python, JavaScript)
        self.program = program  # what re-scanning one file needs to know (Java: own types)
        self._definitions: dict[str, list[Node]] = {}
        for node in definitions:
            self._definitions.setdefault(node.name, []).append(node)
        self.nodes = tuple(group[0] for group in self._definitions.values())
        self.by_name = {node.name: node for node in self.nodes}
        self._call_names = {name: frozenset(names) for name, names in call_names.items()}
        self._placed: dict[str, Node | None] = {}
        self._placer: Placer | None = None  # built on first use
        # (file, text) -> call sites in it, filled lazily by `call_site_lines`
        self.scan_cache: dict[tuple[str, str], list] = {}

    def definitions(self, name: str) -> tuple[Node, ...]:
        return tuple(self._definitions.get(name, ()))

    def place(self, name: str) -> Node | None:
        """The node `name` refers to: exact, else tolerant (see `placement`); None if none fits."""
        if name in self.by_name:
            return self.by_name[name]
        if name not in self._placed:
            if self._placer is None:
                rules = get(self.language).part("symbols")
                self._placer = rules.placer(self.nodes, self.classes, self.modules)
            self._placed[name] = self._placer.place(name)
        return self._placed[name]

    def node_at(self, file: str, line: int, column: int = 0) -> Node | None:
        """The innermost node defined at a position in `file` (line 1-based, column 0-based in UTF-8 bytes, as
        tree-sitter counts): a lambda inside a method inside a module. A function's whole first line belongs to
        it (a click left of `def` is on it); a lambda or arrow needs its columns. None outside every node."""
        inline = ("lambda", "arrow", "anonymous")
        best: Node | None = None
        for group in self._definitions.values():
            for node in group:
                if node.file != file or not node.start_line <= line <= node.end_line:
                    continue
                if node.kind in inline and not (node.start_line, node.start_col) <= (line, column) <= (
                        node.end_line, node.end_col):
                    continue
                if best is None or (node.start_line, node.start_col, -node.end_line) > (
                        best.start_line, best.start_col, -best.end_line):
                    best = node
        return best

    def unplaced(self, names: Iterable[str]) -> list[str]:
        """Names that cannot be placed, each once, in the order given."""
        return [name for name in dict.fromkeys(names) if self.place(name) is None]

    def call_names(self, node: Node) -> frozenset[str]:
        """Identifiers a call expression uses for `node`: its short name, for constructors and
        classes the class name, for lambdas/arrows/function values the name they are bound to."""
        return self._call_names.get(node.name, frozenset())
