"""What a language extractor produces for one file, and the collector it fills while walking."""
from __future__ import annotations

from dataclasses import dataclass, field

from core.records import Node
from core.symbols.parsing import Source, TsNode


@dataclass(frozen=True)
class CallSite:
    """A call expression: the node whose body it is in, the callee identifier, its line."""

    owner: str
    identifier: str
    line: int


@dataclass
class FileScan:
    nodes: list[Node] = field(default_factory=list)
    classes: list[Node] = field(default_factory=list)
    # identifiers a call expression would use for a node (short name, class name, bound name)
    call_names: dict[str, set[str]] = field(default_factory=dict)
    calls: list[CallSite] = field(default_factory=list)


class Collector:
    """Accumulates one file's nodes, classes and (only when asked) call sites."""

    def __init__(self, source: Source, want_calls: bool) -> None:
        self.source = source
        self.want_calls = want_calls
        self.scan = FileScan()

    def define(self, name: str, kind: str, span: TsNode, *call_names: str) -> str:
        self.scan.nodes.append(self.source.node(name, kind, span))
        self.add_call_names(name, *call_names)
        return name

    def define_class(self, name: str, span: TsNode, simple_name: str) -> str:
        self.scan.classes.append(self.source.node(name, "class", span))
        self.add_call_names(name, simple_name)
        return name

    def add_call_names(self, name: str, *call_names: str) -> None:
        names = {n for n in call_names if n}
        if names:
            self.scan.call_names.setdefault(name, set()).update(names)

    def call(self, owner: str | None, identifier: str, at: TsNode) -> None:
        if self.want_calls and owner is not None and identifier:
            self.scan.calls.append(CallSite(owner, identifier, at.start_point.row + 1))

    def finish(self) -> FileScan:
        """Nodes in source order (emission order differs where decorators precede a def)."""
        self.scan.nodes.sort(key=lambda n: (n.start_line, n.start_col))
        self.scan.classes.sort(key=lambda n: (n.start_line, n.start_col))
        return self.scan
