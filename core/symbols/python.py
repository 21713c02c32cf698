"""Python symbols, named as TraceEval names them (docs/benchmark.md "Node names", Python).

A name is the module name plus the code object's `co_qualname` with `<locals>` removed:
- module: relative path, '/' -> '.', without '.py'; `pkg/__init__.py` is `pkg`;
- `mod.func`, `mod.Class.method`, `mod.outer.inner`, `mod.Outer.Inner.m`, `mod.f.Local.m`;
  `__init__` and `__new__` directly in a class body are kind "constructor";
- lambdas are `<qualname of the enclosing scope>.<lambdaN>`, N counted from 1 in source order
  per enclosing qualname. A class body is not a node but, as in `co_qualname`, it is a naming
  scope: a lambda in a class body is `mod.Class.<lambdaN>`. Comprehensions are neither (Python
  3.12 inlines them), so their lambdas belong to the enclosing function.
- decorators, default values and annotations are evaluated in the enclosing scope, so lambdas
  and calls there belong to it, not to the function being defined.
Spans include decorators (like `co_firstlineno`). Classes are reported separately (kind
"class") so `place("mod.Class")` can fall back to the class when it has no `__init__`.
A redefinition (`@property` getter and setter, `if`/`else` variants) shares one name.
"""
from __future__ import annotations

from typing import NamedTuple

from core.symbols.dotted import DottedSymbols
from core.symbols.parsing import Source, TsNode, walk
from core.symbols.scan import Collector, FileScan

CONSTRUCTORS = ("__init__", "__new__")


def module_name(path: str) -> str:
    stem = path[:-3] if path.endswith(".py") else path
    if stem == "__init__":
        return stem
    if stem.endswith("/__init__"):
        stem = stem[: -len("/__init__")]
    return stem.replace("/", ".")


class _Scope(NamedTuple):
    qual: str  # prefix for names defined here
    owner: str  # node whose body the code is in (calls, lambdas' owner)
    in_class: bool  # directly in a class body: defs are methods


class _Extractor:
    def __init__(self, source: Source, want_calls: bool) -> None:
        self.source = source
        self.out = Collector(source, want_calls)
        self.lambdas: dict[str, int] = {}
        self.spans: dict[int, TsNode] = {}  # definition node id -> decorated span

    def run(self, text: str) -> FileScan:
        module = module_name(self.source.path)
        self.out.scan.nodes.append(self.source.whole_file(module, "module", text))
        walk(self.source.tree.root_node, _Scope(module, module, False), self.visit)
        return self.out.finish()

    def visit(self, node: TsNode, scope: _Scope):
        kind = node.type
        if kind == "decorated_definition":
            definition = node.child_by_field_name("definition")
            if definition is not None:
                self.spans[definition.id] = node
        elif kind == "function_definition":
            return self.function(node, scope)
        elif kind == "class_definition":
            return self.klass(node, scope)
        elif kind == "lambda":
            return self.lambda_(node, scope, alias="")
        elif kind == "assignment":
            return self.assignment(node, scope)
        elif kind in ("call", "decorator") and self.out.want_calls:
            self.call(node, scope)
        return None

    def function(self, node: TsNode, scope: _Scope):
        short = self.source.text(node.child_by_field_name("name"))
        name = f"{scope.qual}.{short}"
        kind = ("constructor" if short in CONSTRUCTORS else "method") if scope.in_class else "function"
        span = self.spans.pop(node.id, node)
        names = (short, scope.qual.rpartition(".")[2]) if kind == "constructor" else (short,)
        self.out.define(name, kind, span, *names)
        return self._split(node, scope, _Scope(name, name, False))

    def klass(self, node: TsNode, scope: _Scope):
        short = self.source.text(node.child_by_field_name("name"))
        name = f"{scope.qual}.{short}"
        self.out.define_class(name, self.spans.pop(node.id, node), short)
        return self._split(node, scope, _Scope(name, scope.owner, True))

    def lambda_(self, node: TsNode, scope: _Scope, alias: str):
        number = self.lambdas.get(scope.qual, 0) + 1
        self.lambdas[scope.qual] = number
        name = f"{scope.qual}.<lambda{number}>"
        self.out.define(name, "lambda", node, alias)
        return self._split(node, scope, _Scope(name, name, False))

    def assignment(self, node: TsNode, scope: _Scope):
        """`f = lambda: ...` / `self.f = lambda: ...`: the lambda is also called as `f(...)`."""
        right = node.child_by_field_name("right")
        if right is None or right.type != "lambda":
            return None
        alias = _last_identifier(self.source, node.child_by_field_name("left"))
        rest = [(child, scope) for child in node.named_children if child != right]
        return rest + list(self.lambda_(right, scope, alias))

    def call(self, node: TsNode, scope: _Scope) -> None:
        """`f(...)`, `a.b.f(...)`, and `@f` / `@a.f` (applying a decorator calls it)."""
        if node.type == "call":
            function = node.child_by_field_name("function")
        else:
            function = node.named_children[0] if node.named_child_count else None
        if function is not None and function.type == "attribute":
            function = function.child_by_field_name("attribute")
        if function is not None and function.type == "identifier":
            self.out.call(scope.owner, self.source.text(function), function)

    @staticmethod
    def _split(node: TsNode, outer: _Scope, inner: _Scope):
        """The body runs in the new scope; everything else (defaults, bases...) in the outer one."""
        body = node.child_by_field_name("body")
        for child in node.named_children:
            yield child, (inner if child == body else outer)


def _last_identifier(source: Source, target: TsNode | None) -> str:
    if target is not None and target.type == "attribute":
        target = target.child_by_field_name("attribute")
    return source.text(target) if target is not None and target.type == "identifier" else ""


def extract_file(path: str, text: str, want_calls: bool = False) -> tuple[FileScan, str | None]:
    source = Source.parse("python", path, text)
    return _Extractor(source, want_calls).run(text), source.syntax_problem()


SYMBOLS = DottedSymbols(extract_file, module_name, constructors=CONSTRUCTORS, package_init="__init__")
