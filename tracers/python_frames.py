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

from collections.abc import Mapping

from core.records import Node
from core.symbols import SymbolTable

Point = tuple[int, int]


class FrameNames:
    def __init__(self, table: SymbolTable, sources: Mapping[str, str]) -> None:
        self._sources = sources
        self._lines: dict[str, list[str]] = {}
        self._nodes: dict[str, list[Node]] = {}
        for node in table.nodes:
            for definition in table.definitions(node.name):
                self._nodes.setdefault(definition.file, []).append(definition)
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
        nodes = self._nodes.get(relpath, [])
        if kind == "M":
            return next((n for n in nodes if n.kind == "module"), None)
        if kind == "F":
            return _function(nodes, line, qualname.rpartition(".")[2])
        if kind == "L" and len(numbers) == 3:
            inside = _containing(nodes, self._point(relpath, numbers[0], numbers[1]))
            lambdas = [n for n in inside if n.kind == "lambda"]
            return lambdas[numbers[2]] if numbers[2] < len(lambdas) else None
        if kind == "T" and len(numbers) == 2:
            return _enclosing(nodes, self._point(relpath, numbers[0], numbers[1]), qualname)
        if kind == "C":
            return _enclosing(nodes, (line, 0), qualname)
        return None

    def _point(self, relpath: str, line: int, end_byte: int) -> Point:
        """The last character before a code position's end (a byte offset) as (line, char column)."""
        if relpath not in self._lines:
            self._lines[relpath] = self._sources.get(relpath, "").splitlines()
        lines = self._lines[relpath]
        text = lines[line - 1] if 0 < line <= len(lines) else ""
        column = len(text.encode("utf-8")[:end_byte].decode("utf-8", "ignore"))
        return line, max(column - 1, 0)


def _function(nodes: list[Node], line: int, short: str) -> Node | None:
    found = [n for n in nodes if n.kind not in ("module", "lambda") and n.start_line == line]
    named = [n for n in found if n.name.rpartition(".")[2] == short]
    return next(iter(named or found), None)


def _containing(nodes: list[Node], point: Point) -> list[Node]:
    """Nodes whose span holds `point`, innermost first."""
    inside = [n for n in nodes if (n.start_line, n.start_col) <= point < (n.end_line, n.end_col)]
    return sorted(inside, key=lambda n: (n.start_line, n.start_col), reverse=True)


def _enclosing(nodes: list[Node], point: Point, qualname: str) -> Node | None:
    scope, locals_marker, _ = qualname.rpartition(".<locals>")
    inside = _containing(nodes, point)
    if not locals_marker:
        wanted = [n for n in inside if n.kind == "module"]
    elif scope.endswith("<lambda>"):
        wanted = [n for n in inside if n.kind == "lambda"]
    else:
        short = scope.rpartition(".")[2]
        wanted = [n for n in inside if n.kind not in ("module", "lambda") and n.name.rpartition(".")[2] == short]
    return next(iter(wanted or inside), None)
