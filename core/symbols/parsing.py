"""Cached tree-sitter parsers and the small helpers every language extractor shares.

Columns: tree-sitter counts bytes of UTF-8; `Node` columns count characters (what an editor
or a Python `str` index shows), so non-ASCII lines are converted. End points are exclusive.
"""
from __future__ import annotations

import threading
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from functools import cache
from typing import TypeVar

import tree_sitter as ts

from core.languages import get
from core.records import Node

T = TypeVar("T")
TsNode = ts.Node


@cache
def language(name: str) -> ts.Language:
    """The tree-sitter grammar `Language.grammar` names (its binding's `language()`)."""
    return ts.Language(get(name).part("grammar")())


_local = threading.local()


def parser(name: str) -> ts.Parser:
    """One parser per language and thread: cheap to reuse, not to build, and not thread-safe
    (extraction runs in background jobs, several at a time)."""
    parsers = _local.__dict__.setdefault("parsers", {})
    if name not in parsers:
        parsers[name] = ts.Parser(language(name))
    return parsers[name]


@dataclass(frozen=True)
class Source:
    """A parsed file: its path, UTF-8 bytes and tree, plus span conversion to `Node` columns."""

    path: str
    data: bytes
    tree: ts.Tree
    ascii: bool

    @classmethod
    def parse(cls, lang: str, path: str, text: str) -> Source:
        data = text.encode("utf-8", "replace")
        return cls(path, data, parser(lang).parse(data), len(data) == len(text))

    def column(self, byte: int, byte_column: int) -> int:
        if self.ascii or byte_column == 0:
            return byte_column
        return len(self.data[byte - byte_column:byte].decode("utf-8", "replace"))

    def node(self, name: str, kind: str, span: TsNode) -> Node:
        start, end = span.start_point, span.end_point
        return Node(
            name, kind, self.path,
            start.row + 1, self.column(span.start_byte, start.column),
            end.row + 1, self.column(span.end_byte, end.column),
        )

    def whole_file(self, name: str, kind: str, text: str) -> Node:
        """A node spanning the whole text (module nodes), wherever the grammar's root starts."""
        last_line = text.rpartition("\n")[2]
        return Node(name, kind, self.path, 1, 0, text.count("\n") + 1, len(last_line))

    def text(self, node: TsNode | None) -> str:
        if node is None:
            return ""
        return self.data[node.start_byte:node.end_byte].decode("utf-8", "replace")

    def syntax_problem(self) -> str | None:
        line = first_error_line(self.tree.root_node)
        return None if line is None else f"{self.path}: syntax error at line {line}"


def first_error_line(root: TsNode) -> int | None:
    """1-based line of the first ERROR or MISSING node, or None when the tree is clean."""
    if not root.has_error:
        return None
    node = root
    while True:
        for child in node.children:
            if child.is_error or child.is_missing:
                return child.start_point.row + 1
            if child.has_error:
                node = child
                break
        else:
            return node.start_point.row + 1


Visit = Callable[[TsNode, T], Iterable[tuple[TsNode, T]] | None]


def walk(root: TsNode, state: T, visit: Visit) -> None:
    """Depth-first, document-order walk without recursion (deep expressions are common).

    `visit(node, state)` returns the `(child, state)` pairs to descend into, or None to descend
    into every named child with the same state. Leaves are never visited: nothing this package
    looks for (definitions, calls) is a leaf.
    """
    stack: list[tuple[TsNode, T]] = [(root, state)]
    pop, push = stack.pop, stack.append
    while stack:
        node, state = pop()
        children = visit(node, state)
        if children is None:
            for child in reversed(node.named_children):
                if child.named_child_count:
                    push((child, state))
        else:
            for pair in reversed(list(children)):
                if pair[0].named_child_count:
                    push(pair)


def named(node: TsNode, state: T) -> Iterator[tuple[TsNode, T]]:
    """Every named child of `node` paired with `state` (to build partial `visit` answers)."""
    for child in node.named_children:
        yield child, state
