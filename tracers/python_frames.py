"""Parent side: name the raw frame ids the runtime logged, by the symbol table's spans.

Never loaded in the traced child. A raw id is `relpath:co_firstlineno:K:extra:co_qualname`
(see `recorder`); it is put on a node of that file, never named by re-deriving a name:
- M (module code): the file's module node;
- F (function): the def starting on `co_firstlineno` (spans include decorators, as
  `co_firstlineno` does), preferring the one with the code's short name;
- L (lambda): the lambdas containing the last character of the lambda's body, innermost first,
  the `depth`-th of them (`lambda: lambda: 1` has two lambdas ending at the same place);
- T (comprehension, generator expression) and C (class body) are not nodes: the node around
  them. Which one is read from the qualname: the part before its last `.<locals>` is the
  enclosing function (none: the module), so a comprehension in a default value or a
  decorator goes to the scope that evaluates it, not to the function being defined.
Columns in raw ids are UTF-8 byte offsets (as in `co_positions`); spans count characters.
"""
from __future__ import annotations

from bisect import bisect_right
from collections.abc import Mapping, Sequence

from core.records import Node
from core.symbols import SymbolTable

Point = tuple[int, int]


class FrameNames:
    def __init__(self, table: SymbolTable, sources: Mapping[str, str]) -> None:
        self._sources = sources
        self._lines: dict[str, list[str]] = {}
        nodes: dict[str, list[Node]] = {}
        for node in table.nodes:
            for definition in table.definitions(node.name):
                nodes.setdefault(definition.file, []).append(definition)
        self._files = {path: _FileSpans(found) for path, found in nodes.items()}
        self._names: dict[str, str | None] = {}

    def name_of(self, raw: str) -> str | None:
        if raw not in self._names:
            node = self._node_of(raw)
            self._names[raw] = node.name if node else None
        return self._names[raw]

    def _node_of(self, raw: str) -> Node | None:
        try:
            relpath, line_text, kind, extra, qualname = raw.rsplit(":", 4)
            line = int(line_text)
            numbers = [int(part) for part in extra.split(".")] if extra else []
        except ValueError:
            return None
        spans = self._files.get(relpath)
        if spans is None:
            return None
        if kind == "M":
            return spans.module
        if kind == "F":
            return _function(spans.starting_on(line), qualname.rpartition(".")[2])
        if kind == "L" and len(numbers) == 3:
            inside = spans.around(self._point(relpath, numbers[0], numbers[1]))
            lambdas = [n for n in inside if n.kind == "lambda"]
            return lambdas[numbers[2]] if numbers[2] < len(lambdas) else None
        if kind == "T" and len(numbers) == 2:
            return _enclosing(spans.around(self._point(relpath, numbers[0], numbers[1])), qualname)
        if kind == "C":
            return _enclosing(spans.around((line, 0)), qualname)
        return None

    def _point(self, relpath: str, line: int, end_byte: int) -> Point:
        """The last character before a code position's end (a byte offset) as (line, char column)."""
        if relpath not in self._lines:
            self._lines[relpath] = self._sources.get(relpath, "").splitlines()
        lines = self._lines[relpath]
        text = lines[line - 1] if 0 < line <= len(lines) else ""
        column = len(text.encode("utf-8")[:end_byte].decode("utf-8", "ignore"))
        return line, max(column - 1, 0)


class _FileSpans:
    """One file's nodes, indexed so that naming a frame costs the same however many nodes the file has (a log
    may name thousands of frames): by first line, and as the tree of their nested spans."""

    def __init__(self, nodes: Sequence[Node]):
        self.module = next((n for n in nodes if n.kind == "module"), None)
        self._place = {id(node): place for place, node in enumerate(nodes)}
        self._by_line: dict[int, list[Node]] = {}
        for node in nodes:
            self._by_line.setdefault(node.start_line, []).append(node)
        self._order = sorted(nodes, key=lambda n: (_start(n), (-n.end_line, -n.end_col)))  # outer first
        self._starts = [_start(n) for n in self._order]
        self._parent: list[int] = []  # index in _order of the node around each one, -1 for none
        around: list[int] = []
        for index, node in enumerate(self._order):
            while around and not _start(node) < _end(self._order[around[-1]]):
                around.pop()
            self._parent.append(around[-1] if around else -1)
            around.append(index)

    def starting_on(self, line: int) -> list[Node]:
        return self._by_line.get(line, [])

    def around(self, point: Point) -> list[Node]:
        """Nodes whose span holds `point`, the latest start first (nodes starting together in the table's order):
        the last node starting at or before it, then up the tree to the first that holds it, and all those around
        that (spans of a file nest)."""
        index = bisect_right(self._starts, point) - 1
        while index >= 0 and not point < _end(self._order[index]):
            index = self._parent[index]
        found = []
        while index >= 0:
            found.append(self._order[index])
            index = self._parent[index]
        found.sort(key=lambda node: self._place[id(node)])
        return sorted(found, key=_start, reverse=True)


def _start(node: Node) -> Point:
    return node.start_line, node.start_col


def _end(node: Node) -> Point:
    return node.end_line, node.end_col


def _function(found: list[Node], short: str) -> Node | None:
    found = [n for n in found if n.kind not in ("module", "lambda")]
    named = [n for n in found if n.name.rpartition(".")[2] == short]
    return next(iter(named or found), None)


def _enclosing(inside: list[Node], qualname: str) -> Node | None:
    scope, locals_marker, _ = qualname.rpartition(".<locals>")
    if not locals_marker:
        wanted = [n for n in inside if n.kind == "module"]
    elif scope.endswith("<lambda>"):
        wanted = [n for n in inside if n.kind == "lambda"]
    else:
        short = scope.rpartition(".")[2]
        wanted = [n for n in inside if n.kind not in ("module", "lambda") and n.name.rpartition(".")[2] == short]
    return next(iter(wanted or inside), None)
