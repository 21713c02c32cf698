"""Rewrite one JavaScript file so it reports its calls to the shadow-stack runtime (`js_runtime`).

The file is parsed with tree-sitter and only text insertions are made, never a newline, so
every original line keeps its number (stack traces and call-site lines stay true):

- every function-like node (declarations, expressions, generators, arrows, methods, getters,
  setters, constructors) gets `const __te_f = __te.enter(<name>); try {` after its opening
  brace (after a directive prologue) and `} finally { __te.x(__te_f); }` before its closing
  brace; an arrow with an expression body gets a block body with `return (<expr>);`;
- instance field initialisers of a class with an explicit constructor run in that constructor's
  frame: each value `v` (unless it is itself a function or class, whose name inference must
  stay) of a base class becomes `__te.fi(this, <constructor>, () => (v))`, which pushes the
  constructor's frame before its body runs, and the body adopts that frame
  (`__te.ce(this, <constructor>)` instead of `__te.enter`); a derived class's fields run when
  `super()` returns, in the constructor, or in an arrow that called `super()`, so their values
  become `__te.fd(<constructor>, () => (v))`, which brings the constructor's frame back on top;
- a module gets `const __te_f = __te.m(<module>);` after its hashbang and directives and
  `__te.x(__te_f);` at its end (its top-level code runs as the module node);
- every call and `new` sets the call-site line right before the call happens, after its
  arguments were evaluated: the last argument `a` becomes `__te.a(a, N)`, an empty argument
  list gets `...__te.z(N)` (an empty array), so `this`, optional chains and `super(...)` are
  untouched;
- `await e` becomes `__te.w(__te_f, await __te.s(__te_f, e))` and `yield e` becomes
  `__te.r(__te_f, yield __te.s(__te_f, e))`: the suspended function leaves the shadow stack and
  is pushed back when it resumes; `yield* e` also routes the delegated iterator through
  `__te.d` so the inner generator runs with the outer one as its caller; `for await` loops
  get their iterable wrapped by `__te.fa` and the function pushed back in the loop body and
  after the loop.

Function names come from the symbol table (`core.symbols`), matched by span, so the tracer
uses exactly the names the rest of the project uses; the instrumented code carries them as
string literals.
"""
from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass

from core.symbols.parsing import Source, TsNode

FUNCTION_TYPES = frozenset({
    "function_declaration", "generator_function_declaration", "function_expression",
    "generator_function", "arrow_function", "method_definition",
})
FUNCTION_VALUES = frozenset({"function_expression", "generator_function", "arrow_function", "class"})
FRAME = "__te_f"
Span = tuple[int, int, int, int]  # start line, start column, end line, end column (Node form)


@dataclass(frozen=True)
class _Insertion:
    offset: int  # byte offset in the original file
    closing: bool  # closings at one offset go before openings
    depth: int  # tree depth of the node that asked for it (orders nested insertions)
    text: str

    def order(self) -> tuple[int, int, int]:
        # Same offset: closings first, innermost first; then openings, outermost first.
        return (self.offset, 0 if self.closing else 1, -self.depth if self.closing else self.depth)


@dataclass
class InstrumentedFile:
    text: str
    functions: int  # function-like nodes instrumented
    unnamed: list[str]  # spans of functions with no symbol-table node (named by position)


class _Instrumenter:
    def __init__(self, source: Source, module: str, names: Mapping[Span, str]) -> None:
        self.source = source
        self.module = module
        self.names = names
        self.insertions: list[_Insertion] = []
        self.functions = 0
        self.unnamed: list[str] = []
        self.adopting: set[int] = set()  # constructors whose frame their field initialisers pushed

    def run(self) -> str:
        root = self.source.tree.root_node
        self._module_frame(root)
        # (node, depth, how the innermost function comes back on the stack: "w", "r" or "")
        stack: list[tuple[TsNode, int, str]] = [(root, 0, "w")]  # the module: top-level await
        while stack:
            node, depth, resume = stack.pop()
            self._visit(node, depth, resume)
            if node.type in FUNCTION_TYPES:
                resume = _resume_kind(node)
            elif node.type in ("class_static_block", "field_definition"):
                resume = ""
            for child in reversed(node.named_children):
                stack.append((child, depth + 1, resume))
        return self._apply()

    # -- what each node needs ------------------------------------------------------------

    def _visit(self, node: TsNode, depth: int, resume: str) -> None:
        kind = node.type
        if resume and kind in ("catch_clause", "finally_clause"):
            # an `await`/`yield` that threw skipped its resume call: come back on the stack here
            body = node.child_by_field_name("body")
            if body is not None:
                self._add(body.start_byte + 1, False, depth, f"__te.{resume}({FRAME}); ")
        if kind in FUNCTION_TYPES:
            self._function(node, depth)
        elif kind == "class_body":
            self._field_initialisers(node, depth)
        elif kind == "call_expression":
            function = node.child_by_field_name("function")
            if function is not None and function.type != "import":
                self._call_line(node.child_by_field_name("arguments"), function, node, depth)
        elif kind == "new_expression":
            self._call_line(node.child_by_field_name("arguments"), node.child_by_field_name("constructor"),
                            node, depth)
        elif kind == "await_expression":
            self._suspension(node, depth, "w", "await")
        elif kind == "yield_expression":
            self._yield(node, depth)
        elif kind == "for_in_statement" and any(child.type == "await" for child in node.children):
            self._for_await(node, depth)

    def _function(self, node: TsNode, depth: int) -> None:
        body = node.child_by_field_name("body")
        if body is None:
            return
        self.functions += 1
        name = json.dumps(self._name_of(node))
        entry = f"__te.ce(this, {name})" if node.id in self.adopting else f"__te.enter({name})"
        enter = f"const {FRAME} = {entry}; try {{ "
        leave = f" }} finally {{ __te.x({FRAME}); }}"
        if body.type == "statement_block":
            start, end = self._after_directives(body), body.end_byte - 1
            if start == end:  # `{}`: one insertion, so nothing can come between its two halves
                self._add(start, False, depth, ";" + enter + leave)
            else:
                self._add(start, False, depth, ";" + enter)
                self._add(end, True, depth, leave)
        else:  # expression body: give the arrow a block body returning the expression
            self._add(body.start_byte, False, depth, "{ " + enter + "return (")
            self._add(body.end_byte, True, depth, ");" + leave + " }")

    def _field_initialisers(self, body: TsNode, depth: int) -> None:
        """Instance fields of a class with an explicit constructor run under that constructor's frame.

        A base class runs them before the constructor's body (`fi` pushes the frame, the body
        adopts it); a derived class runs them when `super()` returns, normally in the constructor
        already, but `super()` may sit in an arrow (`fd` brings the constructor's frame back).
        """
        klass = body.parent
        constructor = next((member for member in body.named_children if _is_constructor(member)), None)
        if klass is None or constructor is None:
            return  # no constructor node: the fields run in the frame that ran `new C()` or `super()`
        derived = any(child.type == "class_heritage" for child in klass.named_children)
        name = json.dumps(self._name_of(constructor, record=False))
        opening = f"__te.fd({name}, () => (" if derived else f"__te.fi(this, {name}, () => ("
        for field in body.named_children:
            value = field.child_by_field_name("value") if field.type == "field_definition" else None
            if value is None or _is_static(field) or _unparenthesised(value).type in FUNCTION_VALUES:
                continue
            self._add(value.start_byte, False, depth, opening)
            self._add(value.end_byte, True, depth, "))")
            if not derived:
                self.adopting.add(constructor.id)

    def _call_line(self, arguments: TsNode | None, callee: TsNode | None, call: TsNode, depth: int) -> None:
        """Set the call-site line after the arguments are evaluated, just before the call."""
        line = (callee or call).end_point.row + 1
        if arguments is None:  # `new Foo` without parentheses
            if callee is not None:
                self._add(callee.end_byte, True, depth, f"(...__te.z({line}))")
            return
        if arguments.type != "arguments":  # tagged template: no place for it, the line stays stale
            return
        values = arguments.named_children
        values = [v for v in values if v.type != "comment"]
        if not values:
            self._add(arguments.end_byte - 1, True, depth, f"...__te.z({line})")
            return
        last = values[-1]
        if last.type == "spread_element" and last.named_child_count:
            last = last.named_children[0]
        self._add(last.start_byte, False, depth, "__te.a(")
        self._add(last.end_byte, True, depth, f", {line})")

    def _suspension(self, node: TsNode, depth: int, resume: str, keyword: str) -> None:
        """`await e` / `yield e`: leave the shadow stack while suspended, come back on resume."""
        token = next(child for child in node.children if child.type == keyword)
        self._add(node.start_byte, False, depth, f"__te.{resume}({FRAME}, ")
        if node.end_byte == token.end_byte:  # bare `yield`
            self._add(token.end_byte, True, depth, f" __te.s({FRAME}))")
            return
        self._add(token.end_byte, False, depth, f" __te.s({FRAME}, ")
        self._add(node.end_byte, True, depth, "))")

    def _yield(self, node: TsNode, depth: int) -> None:
        star = next((child for child in node.children if child.type == "*"), None)
        if star is None:
            self._suspension(node, depth, "r", "yield")
            return
        self._add(node.start_byte, False, depth, f"__te.r({FRAME}, ")
        self._add(star.end_byte, False, depth, f" __te.d({FRAME}, __te.s({FRAME}, ")
        self._add(node.end_byte, True, depth, ")))")

    def _for_await(self, node: TsNode, depth: int) -> None:
        right = node.child_by_field_name("right")
        body = node.child_by_field_name("body")
        if right is None or body is None:
            return
        self._add(right.start_byte, False, depth, f"__te.fa({FRAME}, ")
        self._add(right.end_byte, True, depth, ")")
        self._add(body.start_byte, False, depth, f"{{ __te.w({FRAME}); ")
        self._add(body.end_byte, True, depth, " }")
        # after the loop (done, break or throw): back on the stack; braces keep `if (c) for ...` whole
        outer = node.parent if node.parent is not None and node.parent.type == "labeled_statement" else node
        self._add(outer.start_byte, False, depth - 2, "{ ")
        self._add(outer.end_byte, True, depth - 2, f" __te.w({FRAME}); }}")

    def _module_frame(self, root: TsNode) -> None:
        start = 0
        for child in root.children:
            if child.type == "hash_bang_line":
                newline = self.source.data.find(b"\n", child.end_byte)
                start = len(self.source.data) if newline < 0 else newline + 1
            elif _is_directive(child):
                start = child.end_byte
            elif child.type != "comment":
                break
        self._add(start, False, -1, f";const {FRAME} = __te.m({json.dumps(self.module)});")
        end = len(self.source.data)
        tail = "" if self.source.data.endswith(b"\n") else "\n"
        self._add(end, True, -1, f"{tail};__te.x({FRAME});\n")

    # -- helpers ------------------------------------------------------------------------

    def _name_of(self, node: TsNode, record: bool = True) -> str:
        span = self.source.node("", "", node)
        key = (span.start_line, span.start_col, span.end_line, span.end_col)
        name = self.names.get(key)
        if name is None:
            name = f"{self.module}:{span.start_line}:{span.start_col}"
            if record:
                self.unnamed.append(name)
        return name

    def _after_directives(self, block: TsNode) -> int:
        offset = block.start_byte + 1
        for child in block.named_children:
            if _is_directive(child):
                offset = child.end_byte
            elif child.type != "comment":
                break
        return offset

    def _add(self, offset: int, closing: bool, depth: int, text: str) -> None:
        self.insertions.append(_Insertion(offset, closing, depth, text))

    def _apply(self) -> str:
        data = self.source.data
        parts: list[bytes] = []
        position = 0
        for insertion in sorted(self.insertions, key=_Insertion.order):
            parts.append(data[position:insertion.offset])
            parts.append(insertion.text.encode("utf-8"))
            position = insertion.offset
        parts.append(data[position:])
        return b"".join(parts).decode("utf-8", "replace")


def _resume_kind(function: TsNode) -> str:
    """`r` for generators (a resume is a call by whoever resumes), `w` for async functions."""
    tokens = {child.type for child in function.children if not child.is_named}
    if function.type in ("generator_function", "generator_function_declaration") or "*" in tokens:
        return "r"
    return "w" if "async" in tokens else ""


def _is_constructor(member: TsNode) -> bool:
    """`constructor(){}` or `'constructor'(){}`; not static, not a computed `['constructor']`."""
    if member.type != "method_definition" or _is_static(member):
        return False
    key = member.child_by_field_name("name")
    if key is None:
        return False
    if key.type == "string":
        return [part.text for part in key.named_children] == [b"constructor"]
    return key.type == "property_identifier" and key.text == b"constructor"


def _is_static(member: TsNode) -> bool:
    return any(child.type == "static" for child in member.children if not child.is_named)


def _unparenthesised(node: TsNode) -> TsNode:
    while node.type == "parenthesized_expression" and node.named_child_count == 1:
        node = node.named_children[0]
    return node


def _is_directive(node: TsNode) -> bool:
    return node.type == "expression_statement" and node.named_child_count == 1 \
        and node.named_children[0].type == "string"


def instrument(path: str, text: str, module: str, names: Mapping[Span, str]) -> InstrumentedFile:
    """The instrumented text of one file. `names` maps function spans (Node form) to names."""
    instrumenter = _Instrumenter(Source.parse("javascript", path, text), module, names)
    result = instrumenter.run()
    return InstrumentedFile(result, instrumenter.functions, instrumenter.unnamed)
