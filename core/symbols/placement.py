"""Tolerant placement of a name on the program's nodes (ground truth, tracers, sloppy models).

Exact first. Then, for Python and JavaScript (anything after the first '(' ignored):
1. the cleaned name (whitespace dropped), '/' and '.' treated alike in module paths
   (`lib.util.f` = `lib/util.f`), `<locals>` segments dropped, JS `prototype` segments
   dropped, Python `pkg.__init__.f` = `pkg.f`; `mod.<module>` and `pkg.__init__` are the
   module node;
2. a class name places on its constructor (`__init__`, else `__new__`; JS `constructor`),
   else on the class itself (a node of kind "class", not one of `SymbolTable.nodes`); so does
   `Class.__init__` / `Class.constructor` when the class defines none;
3. an unnumbered `<lambda>` / `<arrow>` / `<anonymous>` places on number 1 of that scope;
4. a name without its module prefix is tried under each module, in file order;
5. a name that omits enclosing scopes (`main.helper` for `main.<anonymous1>.helper`) places on
   the only node of that module whose name contains its segments in order and ends alike.
Java: the class part may use '.' or '$' for nesting and may omit or misspell the package
(`pkg.Outer$Inner:m()`, `Outer.Inner:m()` -> `pkg.Inner:m()`), ':' may be '.' or '#', and a
constructor may be written `Foo:Foo(...)`, `pkg.Foo(...)` or `pkg.Foo`. Overloads: the exact
parameter list, else the same list compared by simple type names with generics erased, else
the only overload, else the only one with as many parameters, else the first in source order.
A constructor name with no declared constructor places on the class. None when nothing fits.
"""
from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence

from core.records import Node

UNNUMBERED = {"<lambda>": "<lambda1>", "<arrow>": "<arrow1>", "<anonymous>": "<anonymous1>"}


def clean(name: str) -> str:
    return "".join(name.split("(", 1)[0].split()).strip(".")


class DottedPlacer:
    """Python and JavaScript: `module.qual.name` (the language's naming details from its `DottedSymbols`)."""

    def __init__(self, nodes: Sequence[Node], classes: Sequence[Node], modules: Mapping[str, str],
                 constructors: tuple[str, ...], dropped: tuple[str, ...], package_init: str = "") -> None:
        self.constructors = constructors
        self.dropped = dropped
        self.package_init = package_init
        self.exact = {node.name: node for node in nodes}
        self.modules = list(dict.fromkeys(self._segments(m) for m in modules.values()))
        self.nodes: dict[tuple[str, ...], Node] = {}
        self.classes: dict[tuple[str, ...], Node] = {}
        self.by_module: dict[tuple[str, ...], list[tuple[tuple[str, ...], Node]]] = {}
        for node in (*nodes, *classes):
            index = self.classes if node.kind == "class" else self.nodes
            segments = self._segments(node.name)
            index.setdefault(segments, node)
            module = self._segments(modules.get(node.file, ""))
            rest = segments[len(module):]
            if rest:
                self.by_module.setdefault(module, []).append((rest, node))

    def place(self, name: str) -> Node | None:
        node = self.exact.get(name)
        if node is not None:
            return node
        segments = self._segments(clean(name))
        if not segments:
            return None
        return (self._lookup(segments) or self._unnumbered(segments)
                or self._without_module(segments) or self._subsequence(segments))

    def _segments(self, name: str) -> tuple[str, ...]:
        return tuple(s for s in name.replace("/", ".").split(".") if s and s not in self.dropped)

    def _lookup(self, segments: tuple[str, ...]) -> Node | None:
        node = self.nodes.get(segments)
        if node is not None:
            return node
        if segments[-1] in ("<module>", "__init__") and segments[:-1] in self.modules:
            return self.nodes.get(segments[:-1])
        klass = self.classes.get(segments)
        if klass is None and segments[-1] in self.constructors:
            klass = self.classes.get(segments[:-1])
        if klass is not None:
            return self._constructor(klass)
        if self.package_init and self.package_init in segments[:-1]:
            index = segments.index(self.package_init)
            return self._lookup(segments[:index] + segments[index + 1:])
        return None

    def _constructor(self, klass: Node) -> Node:
        for suffix in self.constructors:
            node = self.exact.get(f"{klass.name}.{suffix}")
            if node is not None:
                return node
        return klass

    def _unnumbered(self, segments: tuple[str, ...]) -> Node | None:
        numbered = UNNUMBERED.get(segments[-1])
        return self._lookup(segments[:-1] + (numbered,)) if numbered else None

    def _module_length(self, segments: tuple[str, ...]) -> int:
        lengths = [len(m) for m in self.modules if segments[:len(m)] == m]
        return max(lengths, default=0)

    def _without_module(self, segments: tuple[str, ...]) -> Node | None:
        if self._module_length(segments):
            return None
        for module in self.modules:
            node = self._lookup(module + segments) or self._unnumbered(module + segments)
            if node is not None:
                return node
        return None

    def _subsequence(self, segments: tuple[str, ...]) -> Node | None:
        length = self._module_length(segments)
        wanted = segments[length:]
        if not wanted:
            return None
        pools = [self.by_module.get(segments[:length], [])] if length else self.by_module.values()
        found = {node for pool in pools for rest, node in pool
                 if rest[-1] == wanted[-1] and _is_subsequence(wanted, rest)}
        if len(found) != 1:
            return None
        node = found.pop()
        return self._constructor(node) if node.kind == "class" else node


def _is_subsequence(wanted: Sequence[str], within: Iterable[str]) -> bool:
    remaining = iter(within)
    return all(segment in remaining for segment in wanted)


class JavaPlacer:
    """Java: `pkg.Class:method(T1,T2)`."""

    def __init__(self, nodes: Sequence[Node], classes: Sequence[Node]) -> None:
        self.exact = {node.name: node for node in nodes}
        self.classes: dict[str, list[tuple[str, Node]]] = {}
        self.members: dict[tuple[str, str], dict[str, list[tuple[list[str], Node]]]] = {}
        for klass in classes:
            package, _, key = klass.name.rpartition(".")
            self.classes.setdefault(key, []).append((package, klass))
        for node in nodes:
            head, _, tail = node.name.partition(":")
            package, _, key = head.rpartition(".")
            method, _, params = tail.partition("(")
            overloads = self.members.setdefault((package, key), {}).setdefault(method, [])
            overloads.append((_split_params(params[:-1]), node))

    def place(self, name: str) -> Node | None:
        node = self.exact.get(name)
        if node is not None:
            return node
        head, paren, tail = name.strip().partition("(")
        params = _split_params(tail.rsplit(")", 1)[0]) if paren else None
        head = "".join(head.split()).replace("#", ":")
        if ":" in head:
            class_part, _, method = head.rpartition(":")
        elif self._candidates(head):
            class_part, method = head, "<init>"
        else:
            class_part, _, method = head.rpartition(".")
        candidates = self._candidates(class_part)
        for package, klass in candidates:
            key = klass.name.rpartition(".")[2]
            wanted = "<init>" if method == key.rpartition("$")[2] else method
            overloads = self.members.get((package, key), {}).get(wanted)
            if overloads:
                return _choose(overloads, params)
        if candidates and method in ("<init>", candidates[0][1].name.rpartition(".")[2]):
            return candidates[0][1]
        return None

    def _candidates(self, class_part: str) -> list[tuple[str, Node]]:
        """Classes the longest matching tail of `a.b.Outer$Inner` names, package matches first."""
        segments = [s for s in re.split(r"[.$]", class_part) if s]
        for start in range(len(segments)):
            entries = self.classes.get("$".join(segments[start:]))
            if entries:
                prefix = ".".join(segments[:start])
                preferred = [(p, k) for p, k in entries
                             if prefix == p or prefix.startswith(f"{p}.") or not p]
                return preferred or entries
        return []


def _split_params(text: str) -> list[str]:
    """Split on commas outside angle brackets; `()` is no parameters."""
    params, depth = [], 0
    current: list[str] = []
    for char in text:
        if char == "<":
            depth += 1
        elif char == ">":
            depth -= 1
        if char == "," and depth == 0:
            params.append("".join(current).strip())
            current = []
        else:
            current.append(char)
    last = "".join(current).strip()
    return params + [last] if params or last else params


def _simple(param: str) -> str:
    """`final java.util.List<String> xs` -> `List`, `pkg.Outer$Inner... rest` -> `Inner[]`."""
    erased = re.sub(r"<[^<>]*>", "", param)
    while erased != param:
        param, erased = erased, re.sub(r"<[^<>]*>", "", erased)
    words = [w for w in param.split() if w != "final" and not w.startswith("@")]
    if not words:
        return ""
    written = words[0] + "".join(w for w in words[1:] if w[0] in "[.")  # drop a parameter name
    written = written.replace("...", "[]")
    base = written.split("[", 1)[0]
    return re.split(r"[.$]", base)[-1] + "[]" * written.count("[")


def _choose(overloads: list[tuple[list[str], Node]], params: list[str] | None) -> Node:
    if params is not None:
        compact = ["".join(p.split()) for p in params]
        for declared, node in overloads:
            if declared == compact:
                return node
        simple = [_simple(p) for p in params]
        for declared, node in overloads:
            if [_simple(p) for p in declared] == simple:
                return node
    if len(overloads) == 1:
        return overloads[0][1]
    if params is not None:
        same_arity = [node for declared, node in overloads if len(declared) == len(params)]
        if len(same_arity) == 1:
            return same_arity[0]
    return overloads[0][1]
