"""JavaScript symbols, named as TraceEval names them (docs/benchmark.md "Node names", JavaScript).

- module: the relative path without its suffix ('.js', '.mjs', '.cjs'), '/' kept as written:
  `main`, `lib/util`; a name is module + '.' + qualified name: `lib/util.helper`.
- declarations: `mod.func`, `mod.outer.inner`, `mod.Class`'s members `mod.Class.method`,
  `mod.Class.constructor` (kind "constructor"), static methods, getters and setters (a getter
  and setter pair shares one name), private methods `mod.Class.#m`; classes and functions
  nested anywhere are prefixed by the node they are defined in (`mod.Class.method.inner`).
- arrows are `mod.<arrowN>`, N counted from 1 per module in source order, wherever they are
  and whatever they are bound to; a function defined inside an arrow is `mod.<arrowN>.inner`.
- other function expressions take the name they are bound to:
  `const|let|var f = function(){}` and `f = function(){}` -> `<scope>.f`;
  `obj.a.b = function(){}` -> `mod.obj.a.b` (member targets are rooted at the module, wherever
  the assignment is); `module.exports.f` / `exports.f` -> `mod.f`; `prototype` segments are
  dropped (`Foo.prototype.bar` -> `mod.Foo.bar`, a method); `this.f = function(){}` ->
  `<the node 'this' belongs to>.f` (the class for methods, the function itself for a plain
  function used as a constructor); `export default function(){}` -> `mod.default`;
  object-literal members `key: function(){}`, `key(){}`, `get key(){}` -> `<object>.key`,
  where the object is named by its own binding (`mod.obj.key`, `mod.obj.inner.key`;
  `module.exports = {...}` members are `mod.key`); members of an unbound object literal or
  an unnamed class are named as if the object were not there (`<scope>.key`).
  A named function expression uses its own name in place of the binding's last segment
  (`const f = function g(){}` -> `<scope>.g`, `Foo.prototype.bar = function baz(){}` ->
  `mod.Foo.baz`). With no binding and no name (a callback, an IIFE, a computed key):
  `mod.<anonymousN>`, N counted per module in source order.
- kinds: "arrow", "anonymous", "constructor", "method" for class and object-literal members
  and member assignments (`obj.f = ...`, `this.f = ...`), "function" for the rest.
- class static blocks and field initialisers are not nodes: their calls belong to the scope
  the class is in (static and approximate, like every call site here).
"""
from __future__ import annotations

from typing import NamedTuple

from core.languages import get
from core.symbols.dotted import DottedSymbols
from core.symbols.parsing import Source, TsNode, named, walk
from core.symbols.scan import Collector, FileScan

FUNCTION_DECLARATIONS = ("function_declaration", "generator_function_declaration")
FUNCTION_EXPRESSIONS = ("function_expression", "generator_function")
BINDABLE = FUNCTION_EXPRESSIONS + ("arrow_function", "class", "object", "parenthesized_expression")


def module_name(path: str) -> str:
    for suffix in get("javascript").suffixes:
        if path.endswith(suffix):
            return path[: -len(suffix)]
    return path


class _Scope(NamedTuple):
    qual: str  # prefix for declarations made here
    owner: str  # node whose body this is (owner of call sites)
    this: str  # what `this.f = function(){}` is a member of
    superclass: str  # simple name `super(...)` calls, '' outside derived classes


class _Binding(NamedTuple):
    """The name a function/class/object value gets from where it is written."""

    name: str  # full name ('' = member of something unnamed: use an anonymous name)
    kind: str  # function | method | constructor
    alias: str  # identifier a call would use
    container: str  # for members: the object/class (what `this` is in the body)


class _Extractor:
    def __init__(self, source: Source, want_calls: bool) -> None:
        self.source = source
        self.out = Collector(source, want_calls)
        self.module = module_name(source.path)
        self.arrows = 0
        self.anonymous = 0
        self.bindings: dict[int, _Binding] = {}  # value node id -> binding given by its parent

    def run(self, text: str) -> FileScan:
        self.out.scan.nodes.append(self.source.whole_file(self.module, "module", text))
        module = self.module
        walk(self.source.tree.root_node, _Scope(module, module, module, ""), self.visit)
        return self.out.finish()

    # -- dispatch -----------------------------------------------------------------------

    def visit(self, node: TsNode, scope: _Scope):
        kind = node.type
        binding = self.bindings.pop(node.id, None)
        if kind in FUNCTION_DECLARATIONS:
            short = self._text(node, "name")
            name = f"{scope.qual}.{short}"
            return self.function(node, scope, name, "function", name, short)
        if kind in FUNCTION_EXPRESSIONS:
            return self.function_expression(node, scope, binding)
        if kind == "method_definition":
            return self.method(node, scope, binding)
        if kind == "arrow_function":
            self.arrows += 1
            name = f"{self.module}.<arrow{self.arrows}>"
            alias = binding.alias if binding else ""
            return self.function(node, scope, name, "arrow", scope.this, alias)
        if kind in ("class_declaration", "class"):
            return self.klass(node, scope, binding)
        if kind == "object":
            return self.object(node, scope, binding)
        if kind == "parenthesized_expression" and binding and node.named_child_count == 1:
            self._bind(node.named_children[0], binding)
        elif kind == "variable_declarator":
            self._bind_value(node, "name", "value", scope)
        elif kind == "assignment_expression":
            self._bind_value(node, "left", "right", scope)
        elif kind == "export_statement":
            value = node.child_by_field_name("value")
            if value is not None:
                self._bind(value, _Binding(f"{self.module}.default", "function", "default", ""))
        elif kind == "field_definition":
            self._bind_member(node, "property", "value", scope.this)
        elif kind in ("call_expression", "new_expression") and self.out.want_calls:
            self.call(node, scope)
        return None

    # -- definitions --------------------------------------------------------------------

    def function(self, node: TsNode, scope: _Scope, name: str, kind: str, this: str, *aliases: str):
        self.out.define(name, kind, node, *aliases)
        return named(node, scope._replace(qual=name, owner=name, this=this))

    def function_expression(self, node: TsNode, scope: _Scope, binding: _Binding | None):
        own = self._text(node, "name")
        name = self._bound_name(own, binding, scope)
        if binding and binding.name:  # called by the bound name, by its own name inside
            return self.function(node, scope, name, binding.kind, binding.container or name,
                                 own, binding.alias)
        if own:
            return self.function(node, scope, name, "function", name, own)
        name = self._anonymous()
        return self.function(node, scope, name, "anonymous", name)

    def method(self, node: TsNode, scope: _Scope, binding: _Binding | None):
        if binding is None or not binding.name:
            name, kind, alias = self._anonymous(), "anonymous", ""
        else:
            name, kind, alias = binding.name, binding.kind, binding.alias
            if kind == "constructor":
                alias = binding.container.rpartition(".")[2]
        this = binding.container if binding and binding.container else name
        return self.function(node, scope, name, kind, this, alias)

    def klass(self, node: TsNode, scope: _Scope, binding: _Binding | None):
        own = self._text(node, "name")
        name = self._bound_name(own, binding, scope)
        if name:
            own = name.rpartition(".")[2]
            self.out.define_class(name, node, own)
        container = name or scope.qual
        superclass = ""
        for child in node.named_children:
            if child.type == "class_heritage" and child.named_child_count:
                superclass = self._last_segment(child.named_children[0])
        body = node.child_by_field_name("body")
        inner = scope._replace(qual=container, this=container, superclass=superclass)
        if body is not None:
            for member in body.named_children:
                if member.type == "method_definition":
                    self._bind_member(member, "name", None, container, in_class=True)
        return [(child, inner if child == body else scope) for child in node.named_children]

    def object(self, node: TsNode, scope: _Scope, binding: _Binding | None):
        container = binding.name if binding and binding.name else scope.qual
        for member in node.named_children:
            if member.type == "pair":
                self._bind_member(member, "key", "value", container)
            elif member.type == "method_definition":
                self._bind_member(member, "name", None, container)
        return None

    # -- bindings -----------------------------------------------------------------------

    def _bind(self, value: TsNode | None, binding: _Binding) -> None:
        if value is not None and value.type in BINDABLE:
            self.bindings[value.id] = binding

    def _bind_value(self, node: TsNode, target_field: str, value_field: str, scope: _Scope) -> None:
        target = node.child_by_field_name(target_field)
        value = node.child_by_field_name(value_field)
        if target is None or value is None or value.type not in BINDABLE:
            return
        if target.type == "identifier":
            name = self.source.text(target)
            self._bind(value, _Binding(f"{scope.qual}.{name}", "function", name, ""))
        elif target.type in ("member_expression", "subscript_expression"):
            path = self._member_path(target, scope)
            if path is None:
                return
            container, name = path
            if not name:  # `module.exports = {...}`: its members are the module's
                if value.type == "object":
                    self._bind(value, _Binding(container, "method", "", container))
                return
            kind = "function" if container == self.module else "method"
            self._bind(value, _Binding(f"{container}.{name}", kind, name,
                                       "" if kind == "function" else container))

    def _bind_member(self, member: TsNode, key_field: str, value_field: str | None,
                     container: str, in_class: bool = False) -> None:
        """Members of classes and object literals; `value_field` None binds the member itself."""
        key = self._key(member.child_by_field_name(key_field))
        value = member if value_field is None else member.child_by_field_name(value_field)
        if value is None:
            return
        if key is None:
            binding = _Binding("", "anonymous", "", container)
        else:
            kind = "constructor" if in_class and key == "constructor" else "method"
            binding = _Binding(f"{container}.{key}", kind, key, container)
        if value_field is None:
            self.bindings[value.id] = binding
        elif key is not None:
            self._bind(value, binding)

    def _member_path(self, target: TsNode, scope: _Scope) -> tuple[str, str] | None:
        """`a.b.c` -> (`mod.a.b`, `c`), with exports/prototype/this handled; None if dynamic.

        `module.exports` / `exports` themselves give (`mod`, '').
        """
        segments: list[str] = []
        node = target
        while node.type in ("member_expression", "subscript_expression"):
            if node.type == "member_expression":
                segment: str | None = self._text(node, "property")
            else:
                segment = self._key_text(node.child_by_field_name("index"))
            if not segment:
                return None
            segments.append(segment)
            parent = node.child_by_field_name("object")
            if parent is None:
                return None
            node = parent
        if node.type == "this":
            base = scope.this
        elif node.type == "identifier":
            base = self.module
            segments.append(self.source.text(node))
        else:
            return None
        segments.reverse()
        exported = segments[:2] == ["module", "exports"] or segments[:1] == ["exports"]
        if exported:
            segments = segments[2:] if segments[0] == "module" else segments[1:]
        segments = [s for s in segments if s != "prototype"]
        if not segments:
            return (base, "") if exported else None
        return ".".join([base, *segments[:-1]]), segments[-1]

    def _key(self, key: TsNode | None) -> str | None:
        if key is None:
            return None
        if key.type == "computed_property_name":
            return self._key_text(key.named_children[0] if key.named_child_count else None)
        return self._key_text(key)

    def _key_text(self, key: TsNode | None) -> str | None:
        if key is None:
            return None
        if key.type in ("property_identifier", "private_property_identifier", "number"):
            return self.source.text(key)
        if key.type == "string":
            return self.source.text(key)[1:-1]
        return None

    # -- calls --------------------------------------------------------------------------

    def call(self, node: TsNode, scope: _Scope) -> None:
        if node.type == "new_expression":
            target = node.child_by_field_name("constructor")
        else:
            target = node.child_by_field_name("function")
            if target is not None and target.type == "super":
                self.out.call(scope.owner, scope.superclass, target)
                return
            if target is not None and target.type == "member_expression" \
                    and self._text(target, "property") in ("call", "apply"):
                target = target.child_by_field_name("object")
        identifier = self._last_identifier(target)
        if identifier is not None:
            self.out.call(scope.owner, self.source.text(identifier), identifier)

    def _last_identifier(self, node: TsNode | None) -> TsNode | None:
        if node is not None and node.type == "member_expression":
            node = node.child_by_field_name("property")
        if node is not None and node.type in ("identifier", "property_identifier",
                                              "private_property_identifier"):
            return node
        return None

    def _last_segment(self, node: TsNode) -> str:
        identifier = self._last_identifier(node)
        return self.source.text(identifier) if identifier is not None else ""

    # -- helpers ------------------------------------------------------------------------

    def _bound_name(self, own: str, binding: _Binding | None, scope: _Scope) -> str:
        """Binding name, its last segment replaced by the value's own name; '' when neither."""
        if binding and binding.name:
            return f"{binding.name.rpartition('.')[0]}.{own}" if own else binding.name
        return f"{scope.qual}.{own}" if own else ""

    def _anonymous(self) -> str:
        self.anonymous += 1
        return f"{self.module}.<anonymous{self.anonymous}>"

    def _text(self, node: TsNode, field: str) -> str:
        return self.source.text(node.child_by_field_name(field))


def extract_file(path: str, text: str, want_calls: bool = False) -> tuple[FileScan, str | None]:
    source = Source.parse("javascript", path, text)
    return _Extractor(source, want_calls).run(text), source.syntax_problem()


SYMBOLS = DottedSymbols(extract_file, module_name, constructors=("constructor",),
                        dropped_segments=("<locals>", "prototype"))
