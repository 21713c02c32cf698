"""Java symbols, named as TraceEval names them (docs/benchmark.md "Node names", Java).

`pkg.Class:method(T1,T2)`, with `pkg` from the file's `package` declaration (none: no prefix)
and `Class` the simple name of the declaring type, outer types dropped (`pkg.Inner:m()`, also
for local classes). Parameter types are written as declared, except:
- `String`, `Object`, `Throwable`, `Class`, `Thread`, `Runnable` -> `java.lang.X`;
- the program's own types (any class/interface/enum/record/annotation declared in any of its
  files) -> `pkg.Type` (nested: `pkg.Inner`, also when written `Outer.Inner`); an own type
  shadows the java.lang names; with several packages declaring the name, the file's own
  package wins, then its imports, then the first declaration;
- generic arguments are erased (`List<String>` -> `List`), type variables stay as written
  (`T`, not the erased `java.lang.Object` a bytecode tracer would see), varargs `T...` and
  C-style `int a[]` become `T[]` / `int[]`, annotations and `final` are dropped.
Constructors are `pkg.Class:<init>(...)` (a record's compact constructor takes the record
components); static initializer blocks are one `pkg.Class:<clinit>()` node (kind
"initializer"). Anonymous classes and enum-constant bodies are `pkg.Enclosing$N`, N counted
from 1 in source order per innermost enclosing class, like javac (`pkg.Main$1:run()`,
`pkg.Main$1$1:run()`). Abstract, interface and native methods have no body, so nothing can
run there: they are not nodes. Lambdas and method references are not nodes: their calls
belong to the enclosing method. Field initialisers and instance initializer blocks are not
attributed to any node statically (at run time the Java tracer gives their calls to the explicit
constructor javac copies them into, or with an implicit constructor to the frame that ran `new`).
Java has no module nodes.
"""
from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from functools import cache
from typing import NamedTuple

import tree_sitter as ts

from core.records import Node
from core.symbols.parsing import Source, TsNode, language, named, walk
from core.symbols.placement import JavaPlacer
from core.symbols.rules import Position, ProgramScan
from core.symbols.scan import CallSite, Collector, FileScan

JAVA_LANG = frozenset({"String", "Object", "Throwable", "Class", "Thread", "Runnable"})
TYPE_DECLARATIONS = ("class_declaration", "interface_declaration", "enum_declaration",
                     "record_declaration", "annotation_type_declaration")
PRIMITIVES = ("integral_type", "floating_point_type", "boolean_type", "void_type")
_TYPES_QUERY = "\n".join(f"({kind} name: (identifier) @type)" for kind in TYPE_DECLARATIONS)


@dataclass(frozen=True)
class Program:
    """What naming a file needs to know about the others: which packages declare each type."""

    packages: Mapping[str, tuple[str, ...]] = field(default_factory=dict)


def package_of(source: Source) -> str:
    for child in source.tree.root_node.named_children:
        if child.type == "package_declaration":
            for part in child.named_children:
                if part.type in ("scoped_identifier", "identifier"):
                    return source.text(part).replace(" ", "")
    return ""


@cache
def _types_query() -> ts.Query:
    return ts.Query(language("java"), _TYPES_QUERY)


def program_types(sources: list[Source]) -> Program:
    """Every type declared anywhere in the program (also nested and local ones), by simple name."""
    query = _types_query()
    packages: dict[str, list[str]] = {}
    for source in sources:
        package = package_of(source)
        for node in ts.QueryCursor(query).captures(source.tree.root_node).get("type", []):
            declared = packages.setdefault(source.text(node), [])
            if package not in declared:
                declared.append(package)
    return Program({name: tuple(pkgs) for name, pkgs in packages.items()})


class _Scope(NamedTuple):
    cls: str  # class key: simple name or `Enclosing$N`; '' outside types
    owner: str | None  # node whose body this is
    type_vars: frozenset[str]
    superclass: str  # simple name that `super(...)` calls
    components: TsNode | None  # record header (compact constructors take it)


class _Extractor:
    def __init__(self, source: Source, program: Program, want_calls: bool) -> None:
        self.source = source
        self.program = program
        self.out = Collector(source, want_calls)
        self.package = package_of(source)
        self.prefix = f"{self.package}." if self.package else ""
        self.imports = self._imports()
        self.anonymous: dict[str, int] = {}

    def run(self) -> FileScan:
        walk(self.source.tree.root_node, _Scope("", None, frozenset(), "", None), self.visit)
        return self.out.finish()

    def visit(self, node: TsNode, scope: _Scope):
        kind = node.type
        if kind in TYPE_DECLARATIONS:
            return self.type_declaration(node, scope)
        if kind == "object_creation_expression":
            created = node.child_by_field_name("type")
            if self.out.want_calls:
                self.call(scope, self._simple_type(created), created)
            body = _class_body(node)
            if body is not None:
                return self.anonymous_class(node, body, scope, created)
        elif kind == "enum_constant":
            body = node.child_by_field_name("body")
            if body is not None:
                return self.anonymous_class(node, body, scope, None)
        elif kind in ("method_declaration", "constructor_declaration",
                      "compact_constructor_declaration"):
            return self.method(node, scope)
        elif kind == "static_initializer":
            name = f"{self.prefix}{scope.cls}:<clinit>()"
            self.out.define(name, "initializer", node)
            return named(node, scope._replace(owner=name))
        elif self.out.want_calls:
            self.calls(node, scope)
        return None

    # -- definitions --------------------------------------------------------------------

    def type_declaration(self, node: TsNode, scope: _Scope):
        simple = self.source.text(node.child_by_field_name("name"))
        self.out.define_class(f"{self.prefix}{simple}", node, simple)
        extends = node.child_by_field_name("superclass")  # `extends X`: X is its last child
        superclass = self._simple_type(extends.named_children[-1]) if extends is not None else ""
        components = None
        if node.type == "record_declaration":
            components = node.child_by_field_name("parameters")
        type_vars = scope.type_vars | self._type_vars(node)
        inner = _Scope(simple, None, type_vars, superclass, components)
        body = node.child_by_field_name("body")
        return [(child, inner if child == body else scope) for child in node.named_children]

    def anonymous_class(self, node: TsNode, body: TsNode, scope: _Scope, supertype: TsNode | None):
        number = self.anonymous.get(scope.cls, 0) + 1
        self.anonymous[scope.cls] = number
        key = f"{scope.cls}${number}"
        self.out.define_class(f"{self.prefix}{key}", node, "")
        superclass = self._simple_type(supertype) if supertype is not None else scope.cls
        inner = _Scope(key, None, scope.type_vars, superclass, None)
        return [(child, inner if child == body else scope) for child in node.named_children]

    def method(self, node: TsNode, scope: _Scope):
        body = node.child_by_field_name("body")
        if body is None:
            return None
        type_vars = scope.type_vars | self._type_vars(node)
        if node.type == "method_declaration":
            method, kind = self.source.text(node.child_by_field_name("name")), "method"
            aliases = (method,)
        else:
            method, kind, aliases = "<init>", "constructor", (scope.cls,)
        parameters = node.child_by_field_name("parameters")
        if node.type == "compact_constructor_declaration":
            parameters = scope.components
        types = self._parameter_types(parameters, type_vars)
        name = f"{self.prefix}{scope.cls}:{method}({','.join(types)})"
        self.out.define(name, kind, node, *aliases)
        inner = scope._replace(owner=name, type_vars=type_vars)
        return [(child, inner if child == body else scope) for child in node.named_children]

    # -- parameter types ----------------------------------------------------------------

    def _parameter_types(self, parameters: TsNode | None, type_vars: frozenset[str]) -> list[str]:
        types = []
        for parameter in parameters.named_children if parameters is not None else ():
            if parameter.type == "formal_parameter":
                written = self._type(parameter.child_by_field_name("type"), type_vars)
                dimensions = parameter.child_by_field_name("dimensions")
                types.append(written + "[]" * self.source.text(dimensions).count("["))
            elif parameter.type == "spread_parameter":
                type_node = next((c for c in parameter.named_children
                                  if c.type not in ("modifiers", "variable_declarator")), None)
                types.append(self._type(type_node, type_vars) + "[]")
        return types

    def _type(self, node: TsNode | None, type_vars: frozenset[str]) -> str:
        if node is None:
            return "?"
        kind = node.type
        if kind in PRIMITIVES:
            return self.source.text(node)
        if kind == "array_type":
            dimensions = self.source.text(node.child_by_field_name("dimensions")).count("[")
            return self._type(node.child_by_field_name("element"), type_vars) + "[]" * dimensions
        if kind == "generic_type":
            return self._type(node.named_children[0], type_vars)
        if kind == "annotated_type":
            return self._type(node.named_children[-1], type_vars)
        if kind == "type_identifier":
            return self._resolve(self.source.text(node), type_vars)
        # scoped_type_identifier and anything newer: as written, generics erased
        written = erase_generics(self.source.text(node))
        parts = written.split(".")
        if len(parts) > 1 and parts[0] in self.program.packages:  # Outer.Inner: own nested type
            return self._resolve(parts[-1], type_vars)
        return written

    def _resolve(self, simple: str, type_vars: frozenset[str]) -> str:
        if simple in type_vars:
            return simple
        packages = self.program.packages.get(simple)
        if packages:
            package = self._package_for(simple, packages)
            return f"{package}.{simple}" if package else simple
        return f"java.lang.{simple}" if simple in JAVA_LANG else simple

    def _package_for(self, simple: str, packages: tuple[str, ...]) -> str:
        if self.package in packages:
            return self.package
        for imported in self.imports:
            head, _, last = imported.rpartition(".")
            for package in packages:
                if last == "*" and head == package:
                    return package
                if last == simple and (head == package or head.startswith(f"{package}.")):
                    return package
        return packages[0]

    def _type_vars(self, node: TsNode) -> frozenset[str]:
        parameters = node.child_by_field_name("type_parameters")
        if parameters is None:
            return frozenset()
        names = set()
        for parameter in parameters.named_children:
            for child in parameter.named_children:
                if child.type in ("type_identifier", "identifier"):
                    names.add(self.source.text(child))
                    break
        return frozenset(names)

    def _imports(self) -> list[str]:
        """`import a.b.C;` -> `a.b.C`, `import a.b.*;` -> `a.b.*` (static imports alike)."""
        imports = []
        for child in self.source.tree.root_node.named_children:
            if child.type == "import_declaration":
                parts = [self.source.text(c) if c.type != "asterisk" else "*"
                         for c in child.named_children
                         if c.type in ("scoped_identifier", "identifier", "asterisk")]
                imports.append(erase_generics(".".join(parts)))
        return imports

    # -- calls --------------------------------------------------------------------------

    def calls(self, node: TsNode, scope: _Scope) -> None:
        kind = node.type
        if kind == "method_invocation":
            name = node.child_by_field_name("name")
            self.call(scope, self.source.text(name), name)
        elif kind == "explicit_constructor_invocation":
            target = node.child_by_field_name("constructor")
            callee = scope.cls if target is not None and target.type == "this" else scope.superclass
            self.call(scope, callee, node)
        elif kind == "method_reference":
            last = node.children[-1]
            if last.type == "new":  # `Foo::new`
                self.call(scope, self._simple_type(node.named_children[0]), node)
            elif last.type == "identifier":
                self.call(scope, self.source.text(last), last)

    def call(self, scope: _Scope, identifier: str, at: TsNode | None) -> None:
        if at is not None:
            self.out.call(scope.owner, identifier, at)

    def _simple_type(self, node: TsNode | None) -> str:
        """`a.b.Foo<T>` -> `Foo`: what a call site names a class by."""
        return erase_generics(self.source.text(node)).rsplit(".", 1)[-1]


def erase_generics(text: str) -> str:
    """Drop generic arguments and whitespace: `Map.Entry<K, List<V>>` -> `Map.Entry`."""
    out, depth = [], 0
    for char in text:
        if char == "<":
            depth += 1
        elif char == ">":
            depth -= 1
        elif depth == 0 and not char.isspace():
            out.append(char)
    return "".join(out)


def _class_body(node: TsNode) -> TsNode | None:
    for child in node.named_children:
        if child.type == "class_body":
            return child
    return None


def extract_file(path: str, text: str, program: Program,
                 want_calls: bool = False) -> tuple[FileScan, str | None]:
    source = Source.parse("java", path, text)
    return extract_source(source, program, want_calls), source.syntax_problem()


def extract_source(source: Source, program: Program, want_calls: bool = False) -> FileScan:
    return _Extractor(source, program, want_calls).run()


MAIN = ":main(java.lang.String[])"  # how the entry method's name ends
_HARNESS_CLASSES_QUERY = "(class_declaration) @c (enum_declaration) @c (record_declaration) @c"


class JavaSymbols:
    """`core.symbols.rules.SymbolRules` for Java's `pkg.Class:method(types)` names."""

    def scan(self, sources: Mapping[str, str], want_calls: bool = False) -> ProgramScan:
        parsed = {path: Source.parse("java", path, text) for path, text in sources.items()}
        program = program_types(list(parsed.values()))
        scans = [extract_source(source, program, want_calls) for source in parsed.values()]
        problems = [p for p in (source.syntax_problem() for source in parsed.values()) if p]
        return ProgramScan(scans, problems, {}, program, parsed)

    def calls(self, path: str, text: str, program: object) -> list[CallSite]:
        if not isinstance(program, Program):
            raise ValueError(f"a Java symbol table without its program's types ({path})")
        scan, _ = extract_file(path, text, program, want_calls=True)
        return scan.calls

    def placer(self, nodes: Sequence[Node], classes: Sequence[Node], modules: Mapping[str, str]) -> JavaPlacer:
        return JavaPlacer(nodes, classes)

    def callee_names(self, head: str) -> frozenset[str]:
        class_part, _, method = head.rpartition(":") if ":" in head else head.rpartition(".")
        if method in ("<init>", "<clinit>"):
            method = re.split(r"[.$]", class_part)[-1] if method == "<init>" else ""
        return frozenset({method} - {""})

    def owner_class(self, node: Node) -> str:
        return node.name.partition(":")[0]

    def is_entry_function(self, node: Node) -> bool:
        return node.name.endswith(MAIN)

    def reachable(self, node: Node, by_name: Mapping[str, Node]) -> bool:
        """Not in a nested, local or anonymous class (`pkg.Outer$Inner`)."""
        return "$" not in node.name.partition(":")[0]

    def class_targets(self, scan: ProgramScan) -> set[Position]:
        """Class, enum and record declarations (not interfaces)."""
        query = _harness_classes_query()
        positions = set()
        for path, source in scan.parsed.items():
            for nodes in ts.QueryCursor(query).captures(source.tree.root_node).values():
                for node in nodes:
                    positions.add((path, node.start_point.row + 1,
                                   source.column(node.start_byte, node.start_point.column)))
        return positions


@cache
def _harness_classes_query() -> ts.Query:
    return ts.Query(language("java"), _HARNESS_CLASSES_QUERY)


SYMBOLS = JavaSymbols()
