"""A tool's graph in TraceEval's names: each end placed on the program's symbol table.

An end is placed, in order:
1. a module end with its file: that file's module node;
2. an end with a file and line: the node defined at that line (the innermost one there, the column choosing
   between a function and a lambda on one line);
3. otherwise by name, through the same tolerant placement a model's names get (`SymbolTable.place`), after
   prefixing a name that lacks it with its file's module (code2flow writes `Class.method`).
An end the tool itself marks as outside the program (PyCG's `<builtin>.len`, a library's `abc.abstractmethod`,
pyan's unresolved `*.name`) is left out, as the benchmark's internal-only rule leaves library calls out.
A class as a callee is a constructor call (the class's constructor; none declared: no program code runs, left out);
as a caller it is its class body, whose calls belong to the enclosing scope. An end that is inside the program
by its name but fits no node is kept as the tool wrote it when it is a callee (it scores as a false positive, and
the views flag it as unplaced) and reported when it is a caller (an answer has no question for it).
"""
from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from core.baselines.tool_graph import ToolEnd, ToolGraph
from core.records import Node
from core.symbols.table import SymbolTable
from core.wording import count, short_list

SHOWN = 6  # names listed in a problem line


@dataclass(frozen=True)
class NamedGraph:
    """`answers`: ground-truth key -> callees, every key present (a tool that saw no call from it answers none)."""

    answers: dict[str, list[str]]
    problems: tuple[str, ...]
    outside: int  # edges left out because an end is outside the program
    unplaced: tuple[str, ...]  # callee names kept as the tool wrote them


class _Outside:
    """An end outside the program."""


OUTSIDE = _Outside()


class ToolNaming:
    def __init__(self, table: SymbolTable) -> None:
        self.table = table
        self.classes = {klass.name: klass for klass in table.classes}
        self.classes_at = {(klass.file, klass.start_line): klass for klass in table.classes}
        self.tops = {_segments(module)[0] for module in table.modules.values() if _segments(module)}

    def caller(self, end: ToolEnd) -> Node | _Outside | None:
        node = self._node(end)
        if isinstance(node, Node) and node.kind == "class":  # its class body
            return self.table.node_at(node.file, node.start_line)
        return node

    def callee(self, end: ToolEnd) -> Node | _Outside | None:
        node = self._node(end)
        if isinstance(node, Node) and node.kind == "class":
            constructor = self.table.place(node.name)
            return OUTSIDE if constructor is None or constructor.kind == "class" else constructor
        return node

    def _node(self, end: ToolEnd) -> Node | _Outside | None:
        if end.kind == "unresolved":
            return OUTSIDE
        if end.kind == "module" and end.file in self.table.modules:
            return self.table.by_name.get(self.table.modules[end.file])
        if end.file and end.line:
            if end.kind == "class" and (end.file, end.line) in self.classes_at:
                return self.classes_at[(end.file, end.line)]
            node = self.table.node_at(end.file, end.line, end.col)
            if node is not None and node.start_line == end.line:
                return node
        name = self._dotted(end)
        if not end.file and self._outside(name):
            return OUTSIDE
        return self.classes.get(name) or self.table.place(name)

    def _dotted(self, end: ToolEnd) -> str:
        module = self.table.modules.get(end.file, "")
        if module and _segments(end.name)[:len(_segments(module))] != _segments(module):
            return f"{module}.{end.name}"
        return end.name

    def _outside(self, name: str) -> bool:
        segments = _segments(name)
        return not segments or segments[0] not in self.tops


def name_graph(graph: ToolGraph, table: SymbolTable, keys: Sequence[str], self_edges: bool) -> NamedGraph:
    naming = ToolNaming(table)
    answers: dict[str, list[str]] = {key: [] for key in keys}
    unplaced_callers: dict[str, int] = {}
    not_asked: dict[str, int] = {}
    unplaced: dict[str, None] = {}
    outside = 0
    for caller_end, callee_end in graph.edges:
        caller, callee = naming.caller(caller_end), naming.callee(callee_end)
        if isinstance(caller, _Outside) or isinstance(callee, _Outside):
            outside += 1
            continue
        if caller is None:
            unplaced_callers[caller_end.name] = unplaced_callers.get(caller_end.name, 0) + 1
            continue
        if caller.name not in answers:
            not_asked[caller.name] = not_asked.get(caller.name, 0) + 1
            continue
        if callee is None:
            name = _written(callee_end.name)
            unplaced[name] = None
        else:
            name = callee.name
        if (name != caller.name or self_edges) and name not in answers[caller.name]:
            answers[caller.name].append(name)
    problems = []
    if unplaced:
        problems.append(f"{graph.tool}: {count(len(unplaced), 'callee')} not in the program's symbols, kept as "
                        f"written: {short_list(unplaced, SHOWN)}")
    if unplaced_callers:
        problems.append(f"{graph.tool}: {count(len(unplaced_callers), 'caller')} not in the program's symbols, "
                        f"their {sum(unplaced_callers.values())} calls left out: {short_list(unplaced_callers, SHOWN)}")
    if not_asked:
        problems.append(f"{graph.tool}: {count(len(not_asked), 'caller')} with no question in the ground truth, "
                        f"their {sum(not_asked.values())} calls left out: {short_list(not_asked, SHOWN)}")
    return NamedGraph(answers, tuple(problems), outside, tuple(unplaced))


def _segments(name: str) -> tuple[str, ...]:
    return tuple(s for s in name.replace("/", ".").split(".") if s)


def _written(name: str) -> str:
    """A name as an answer line can hold it: a comma would split it, a line break end the line."""
    return " ".join(name.replace(",", " ").split()) or "?"

