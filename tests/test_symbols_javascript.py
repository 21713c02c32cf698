"""JavaScript symbol extraction: names, kinds and spans as docs/benchmark.md names them."""
from core.records import Node
from core.symbols import call_site_lines, extract_symbols
from tests.symbols_cases.programs import JAVASCRIPT


def rows(table):
    return [(n.name, n.kind, n.start_line) for n in table.nodes]


def test_every_node_of_a_multi_file_program_in_source_order():
    table = extract_symbols("javascript", JAVASCRIPT)
    assert rows(table) == [
        ("main", "module", 1),
        ("main.<arrow1>", "arrow", 4),  # `const double = (x) => ...`: arrows are always numbered
        ("main.square", "function", 5),
        ("main.power3", "function", 6),  # a named function expression keeps its own name
        ("main.compose", "function", 8),
        ("main.compose.composed", "function", 9),
        ("main.Shape.constructor", "constructor", 14),
        ("main.Shape.describe", "method", 14),  # `this.describe = function () {}`
        ("main.Shape.create", "method", 15),
        ("main.Shape.label", "method", 16),  # getter and setter (line 17) share the name
        ("main.Shape.area", "method", 18),
        ("main.Shape.#secret", "method", 19),
        ("main.<arrow2>", "arrow", 20),  # class field `onClick = () => ...`
        ("main.Square.constructor", "constructor", 24),
        ("main.Square.area", "method", 28),
        ("main.<anonymous1>", "anonymous", 29),  # callback passed to map
        ("main.Legacy", "function", 34),
        ("main.Legacy.get", "method", 35),  # prototype dropped
        ("main.Legacy.twiceNamed", "method", 36),
        ("main.api.run", "method", 39),
        ("main.api.stop", "method", 40),
        ("main.api.nested.deep", "method", 41),
        ("main.<arrow3>", "arrow", 42),
        ("main.api.quoted-key", "method", 43),
        ("main.start", "function", 46),  # module.exports.start
        ("main.stop", "function", 47),  # exports.stop
        ("main.<anonymous2>", "anonymous", 49),  # the IIFE
        ("main.<anonymous2>.hidden", "function", 50),
        ("main.<arrow4>", "arrow", 54),
        ("main.<anonymous3>", "anonymous", 55),
        ("lib/util", "module", 1),
        ("lib/util.helper", "function", 1),
        ("lib/util.Counter.constructor", "constructor", 4),
        ("lib/util.Counter.inc", "method", 5),
        ("lib/util.<arrow1>", "arrow", 8),  # arrows are numbered per module
        ("lib/util.format", "method", 9),  # `module.exports = {...}` members are the module's
    ]
    assert [(c.name, c.start_line) for c in table.classes] == [
        ("main.Shape", 13), ("main.Square", 23), ("lib/util.Counter", 3)]
    assert table.problems == ()
    assert [n.start_line for n in table.definitions("main.Shape.label")] == [16, 17]


def test_spans():
    table = extract_symbols("javascript", JAVASCRIPT)
    assert table.by_name["main"] == Node("main", "module", "main.js", 1, 0, 57, 0)
    assert table.by_name["main.<arrow1>"] == Node("main.<arrow1>", "arrow", "main.js", 4, 15, 4, 27)
    assert table.by_name["main.Square.constructor"] == Node(
        "main.Square.constructor", "constructor", "main.js", 24, 2, 27, 3)


def test_bindings_of_function_and_class_expressions():
    source = (
        "var a = function () {}, b = function () {};\n"
        "let K = class { m() {} };\n"
        "obj.deep.handler = function () {};\n"
        "obj['str-key'] = function () {};\n"
        "obj[dynamic] = function () {};\n"
        "function setup() {\n"
        "  const local = function () {};\n"
        "  Thing.prototype.later = function () {};\n"
        "  register({ onEvent() {}, [Symbol.iterator]() {} });\n"
        "}\n"
        "export default function () {}\n"
        "function* gen() { yield 1; }\n"
        "const run = async () => { await gen(); };\n"
    )
    table = extract_symbols("javascript", {"app.mjs": source})
    assert rows(table) == [
        ("app", "module", 1),
        ("app.a", "function", 1),
        ("app.b", "function", 1),
        ("app.K.m", "method", 2),
        ("app.obj.deep.handler", "method", 3),
        ("app.obj.str-key", "method", 4),
        ("app.<anonymous1>", "anonymous", 5),
        ("app.setup", "function", 6),
        ("app.setup.local", "function", 7),
        ("app.Thing.later", "method", 8),  # member targets are rooted at the module
        ("app.setup.onEvent", "method", 9),  # an unbound object literal is transparent
        ("app.<anonymous2>", "anonymous", 9),  # computed key
        ("app.default", "function", 11),
        ("app.gen", "function", 12),
        ("app.<arrow1>", "arrow", 13),
    ]
    assert [c.name for c in table.classes] == ["app.K"]


def test_unicode_columns_and_empty_file():
    files = {"ü.js": "const größe = 1; const f = () => größe;\n", "e.js": ""}
    table = extract_symbols("javascript", files)
    arrow = table.by_name["ü.<arrow1>"]
    assert (arrow.start_col, arrow.end_col) == (27, 38)
    assert table.by_name["e"] == Node("e", "module", "e.js", 1, 0, 1, 0)


def test_syntax_error_is_reported_and_the_rest_still_extracted():
    source = "function a() {}\nfunction b( {\n}\nfunction c() { return a(); }\n"
    table = extract_symbols("javascript", {"main.js": source})
    assert table.problems == ("main.js: syntax error at line 2",)
    assert [n.name for n in table.nodes if n.name != "main.b"] == ["main", "main.a", "main.c"]


def test_call_sites_in_the_callers_own_body():
    table = extract_symbols("javascript", JAVASCRIPT)
    lines = lambda caller, callee: call_site_lines(table, JAVASCRIPT, caller, callee)  # noqa: E731
    assert lines("main", "main.Shape.create") == [56]
    assert lines("main", "main.Shape.area") == [56]  # line 20 is the arrow's, 46 main.start's
    assert lines("main", "lib/util.Counter.constructor") == [56]  # `new Counter()`
    assert lines("main", "main.<anonymous2>") == []  # an IIFE has no name to match
    assert lines("main.start", "main.Square") == [46]
    assert lines("main.Square.constructor", "main.Shape.constructor") == [25]  # super(...)
    assert lines("main.Square.area", "main.square") == [30]  # line 29 is the callback's
    assert lines("main.<arrow3>", "main.api.run") == [42]
    assert lines("main.api.run", "main.compose") == [39]
    assert lines("main.api.run", "main.<arrow1>") == []  # `double` is passed, not called
    assert lines("main.<arrow4>", "main.<arrow1>") == [54]  # the arrow bound to `double`
    assert lines("main.<anonymous2>.hidden", "main.power3") == [50]  # called as `cube`
    assert lines("main.<anonymous2>", "main.<anonymous2>.hidden") == [51]
    assert lines("main.Legacy.twiceNamed", "main.<arrow1>") == [36]
    assert lines("main.Shape.#secret", "lib/util.helper") == [19]
    assert lines("lib/util.format", "lib/util.helper") == [9]
    assert lines("main.Shape.create", "main.Shape.constructor") == [15]
    assert lines("main.nowhere", "main.Shape.create") == []


def test_call_apply_and_multi_line_chains():
    source = "function f() {}\nfunction g() {\n  f.call(null);\n  api\n    .load()\n    .then(f);\n}\n"
    files = {"main.js": source}
    table = extract_symbols("javascript", files)
    assert call_site_lines(table, files, "main.g", "main.f") == [3]
    assert call_site_lines(table, files, "main.g", "main.api.load") == [5]  # not placed: by name
