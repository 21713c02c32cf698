"""Java's `main` methods, found without naming every method of the program.

`main_methods(sources)` gives what `main_methods_by_full_scan(sources)` gives (the symbol extractor's nodes named
`...:main(java.lang.String[])`, in its order: the entry point's contract), at a fraction of the cost: only files
in which `main` can be an identifier are parsed; the `main` declarations are the tree nodes at those words; only
they are named, with the extractor's own code (class key and type variables from the declarations around them,
parameter types from the program's types). The program's types are worked out only for the names that naming
asks about, from the files that may declare them. A `main` inside an anonymous class (named by javac's per-class
count of them) is left to the full scan. tests/test_java_entry_points.py compares the two on hostile and damaged
programs.
"""
from __future__ import annotations

import re
from collections.abc import Iterator, Mapping
from itertools import pairwise

import tree_sitter as ts

from core.records import Node
from core.symbols.java import MAIN, TYPE_DECLARATIONS, Program, _class_body, _Extractor, _types_query, package_of
from core.symbols.java_main_text import MAIN_WORD as _MAIN_WORD
from core.symbols.parsing import Source, TsNode

_MAIN_BYTES = re.compile(_MAIN_WORD.pattern.encode())
# what may stand between such a keyword and the name: whitespace (any control or non-ASCII byte, to err on the safe
# side) and comments
_DECLARED = re.compile(rb"(?:class|interface|enum|record)(?:[\x00-\x20\x7f-\xff]|//[^\n]*|/\*.*?\*/)*")
_METHODS = ("method_declaration", "constructor_declaration", "compact_constructor_declaration")


def main_methods(sources: Mapping[str, str]) -> list[Node]:
    java = _candidates(sources)
    parsed = {path: Source.parse("java", path, text) for path, text in java.items() if _MAIN_WORD.search(text)}
    declared = {path: _main_declarations(source) for path, source in parsed.items()}
    if not any(declared.values()):
        return []
    if any(_in_anonymous_class(node) for nodes in declared.values() for node in nodes):
        return main_methods_by_full_scan(sources)
    typed = dict(parsed)
    while True:
        types = _DeclaredTypes([typed[path] for path in java if path in typed])
        mains = [node for path, nodes in declared.items() for node in _named(parsed[path], nodes, Program(types))]
        more = {path: Source.parse("java", path, text) for path, text in java.items()
                if path not in typed and any(name in text for name in types.looked_up)}
        if not more:
            return [node for node in mains if node.name.endswith(MAIN)]
        typed.update(more)


def main_methods_by_full_scan(sources: Mapping[str, str]) -> list[Node]:
    """Every method the symbol extractor names `...:main(java.lang.String[])`, in its order."""
    from core.symbols import extract_symbols

    return [node for node in extract_symbols("java", _candidates(sources)).nodes if node.name.endswith(MAIN)]


def _candidates(sources: Mapping[str, str]) -> dict[str, str]:
    return {path: text for path, text in sources.items() if "main" in text and path.endswith(".java")}


class _DeclaredTypes(Mapping[str, tuple[str, ...]]):
    """`program_types(sources).packages` worked out for the names the naming asks about, noting each of them.

    A file's type declarations are queried only when it may declare the name: a tree without errors has only
    whitespace and comments between `class` (`interface`, `enum`, `record`, `@interface`) and the name."""

    def __init__(self, sources: list[Source]) -> None:
        self.sources = sources
        self.looked_up: dict[str, tuple[str, ...]] = {}
        self.declared: dict[str, set[str]] = {}

    def __getitem__(self, name: str) -> tuple[str, ...]:
        if name not in self.looked_up:
            declaration = re.compile(_DECLARED.pattern + re.escape(name.encode()), re.DOTALL)
            packages: list[str] = []
            for source in self.sources:
                may_declare = source.tree.root_node.has_error or declaration.search(source.data)
                if may_declare and name in self._declared(source) and package_of(source) not in packages:
                    packages.append(package_of(source))
            self.looked_up[name] = tuple(packages)
        if not self.looked_up[name]:
            raise KeyError(name)
        return self.looked_up[name]

    def __iter__(self) -> Iterator[str]:
        return (name for name, packages in self.looked_up.items() if packages)

    def __len__(self) -> int:
        return sum(1 for _ in self)

    def _declared(self, source: Source) -> set[str]:
        if source.path not in self.declared:
            found = ts.QueryCursor(_types_query()).captures(source.tree.root_node).get("type", [])
            self.declared[source.path] = {source.text(node) for node in found}
        return self.declared[source.path]


def _main_declarations(source: Source) -> list[TsNode]:
    """The `main` methods with a body: each is named by an identifier `main` the text shows."""
    found = []
    root = source.tree.root_node
    for word in _MAIN_BYTES.finditer(source.data):
        name = root.named_descendant_for_byte_range(word.start(), word.end())
        method = name.parent if name is not None else None
        if (method is not None and method.type == "method_declaration" and method.child_by_field_name("name") == name
                and source.text(name) == "main" and method.child_by_field_name("body") is not None):
            found.append(method)
    return found


def _in_anonymous_class(node: TsNode) -> bool:
    parent = node.parent
    while parent is not None:
        if parent.type == "object_creation_expression" and _class_body(parent) is not None:
            return True
        if parent.type == "enum_constant" and parent.child_by_field_name("body") is not None:
            return True
        parent = parent.parent
    return False


def _named(source: Source, declarations: list[TsNode], program: Program) -> list[Node]:
    """The nodes the extractor's walk would define for these `main` declarations, in source order."""
    extractor = _Extractor(source, program, want_calls=False)
    nodes = []
    for declaration in declarations:
        cls, type_vars = _scope(extractor, declaration)
        type_vars |= extractor._type_vars(declaration)
        types = extractor._parameter_types(declaration.child_by_field_name("parameters"), type_vars)
        nodes.append(source.node(f"{extractor.prefix}{cls}:main({','.join(types)})", "method", declaration))
    nodes.sort(key=lambda n: (n.start_line, n.start_col))
    return nodes


def _scope(extractor: _Extractor, node: TsNode) -> tuple[str, frozenset[str]]:
    """The class key and type variables the walk carries down to `node` (no anonymous class above it)."""
    chain = [node]
    while chain[-1].parent is not None:
        chain.append(chain[-1].parent)
    chain.reverse()
    cls, type_vars = "", frozenset[str]()
    for parent, child in pairwise(chain):
        if parent.type in TYPE_DECLARATIONS and child == parent.child_by_field_name("body"):
            cls = extractor.source.text(parent.child_by_field_name("name"))
            type_vars = type_vars | extractor._type_vars(parent)
        elif parent.type in _METHODS and child == parent.child_by_field_name("body"):
            type_vars = type_vars | extractor._type_vars(parent)
    return cls, type_vars
