"""Python symbol extraction: names, kinds and spans as docs/benchmark.md names them."""
from core.records import Node
from core.symbols import call_site_lines, extract_symbols
from tests.symbols_cases.programs import PYTHON


def rows(table):
    return [(n.name, n.kind, n.start_line) for n in table.nodes]


def test_every_node_of_a_multi_file_program_in_source_order():
    table = extract_symbols("python", PYTHON)
    assert rows(table) == [
        ("main", "module", 1),
        ("main.memo", "function", 5),
        ("main.memo.wrapper", "function", 8),  # the span starts at its decorator
        ("main.fib", "function", 16),
        ("main.<lambda1>", "lambda", 17),  # a default value belongs to the enclosing scope
        ("main.Registry.<lambda1>", "lambda", 22),  # class bodies name, as in co_qualname
        ("main.Registry.<lambda2>", "lambda", 23),
        ("main.Registry.__new__", "constructor", 25),
        ("main.Registry.__init__", "constructor", 28),
        ("main.Registry.__init__.<lambda1>", "lambda", 30),
        ("main.Registry.size", "method", 32),  # the setter (line 36) shares the name
        ("main.Registry.Entry.describe", "method", 41),
        ("main.Registry.Entry.describe.<lambda1>", "lambda", 42),
        ("main.Registry.refresh", "method", 44),
        ("main.Registry.refresh.pick", "function", 45),
        ("main.Registry.refresh.pick.<lambda1>", "lambda", 46),  # comprehensions are no scope
        ("main.main", "function", 50),
        ("main.main.<lambda1>", "lambda", 52),
        ("pkg", "module", 1),
        ("pkg.version", "function", 5),
        ("pkg.shapes", "module", 1),
        ("pkg.shapes.Circle.__init__", "constructor", 5),
        ("pkg.shapes.Circle.area", "method", 8),
        ("pkg.shapes.area_of", "function", 16),
        ("pkg.shapes.größe", "function", 20),
        ("pkg.shapes.área", "function", 24),
        ("pkg.shapes.<lambda1>", "lambda", 25),
    ]
    assert [(c.name, c.kind, c.start_line) for c in table.classes] == [
        ("main.Registry", "class", 21),
        ("main.Registry.Entry", "class", 40),
        ("pkg.shapes.Circle", "class", 4),
        ("pkg.shapes.Square", "class", 12),
    ]
    assert table.problems == ()
    assert list(table.by_name) == [name for name, _, _ in rows(table)]


def test_spans_are_whole_definitions_with_character_columns():
    table = extract_symbols("python", PYTHON)
    assert table.by_name["main"] == Node("main", "module", "main.py", 1, 0, 59, 0)
    assert table.by_name["main.memo.wrapper"] == Node(
        "main.memo.wrapper", "function", "main.py", 8, 4, 12, 26)
    assert table.by_name["main.fib"].end_line == 18
    # 'ʎ = 0; λ = ' is 11 characters but 13 bytes of UTF-8
    lam = table.by_name["pkg.shapes.<lambda1>"]
    assert (lam.file, lam.start_line, lam.start_col, lam.end_line, lam.end_col) == (
        "pkg/shapes.py", 25, 11, 25, 29)
    assert table.by_name["pkg.shapes.área"].end_col == len("def área(shape): return area_of(shape)")


def test_redefinitions_share_one_name_and_keep_every_span():
    table = extract_symbols("python", PYTHON)
    assert [n.start_line for n in table.definitions("main.Registry.size")] == [32, 36]
    assert table.definitions("main.nothing") == ()


def test_package_init_and_top_level_names():
    table = extract_symbols("python", {"a/b/__init__.py": "def f(): pass\n", "a/b/c.py": "",
                                       "__init__.py": ""})
    assert rows(table) == [("a.b", "module", 1), ("a.b.f", "function", 1),
                           ("a.b.c", "module", 1), ("__init__", "module", 1)]


def test_empty_file_is_a_module_node_only():
    table = extract_symbols("python", {"main.py": ""})
    assert table.nodes == (Node("main", "module", "main.py", 1, 0, 1, 0),)
    assert table.problems == ()


def test_syntax_error_is_reported_and_the_rest_still_extracted():
    broken = ("def ok():\n    return 1\n\n"
              "def broken(:\n    pass\n\n"
              "class After:\n    def m(self):\n        ok()\n")
    table = extract_symbols("python", {"main.py": "import util\n", "util.py": broken})
    assert table.problems == ("util.py: syntax error at line 4",)
    names = [n.name for n in table.nodes]
    assert names[:3] == ["main", "util", "util.ok"]
    assert "util.After.m" in names


def test_nested_lambdas_and_async_and_class_in_function():
    source = (
        "def outer():\n"
        "    class Local:\n"
        "        def m(self):\n"
        "            return lambda: lambda: 1\n"
        "    return Local\n"
        "async def go(): return await outer()\n"
        "x = [lambda: 0, lambda: 1]\n"
    )
    assert rows(extract_symbols("python", {"m.py": source})) == [
        ("m", "module", 1),
        ("m.outer", "function", 1),
        ("m.outer.Local.m", "method", 3),
        ("m.outer.Local.m.<lambda1>", "lambda", 4),
        ("m.outer.Local.m.<lambda1>.<lambda1>", "lambda", 4),
        ("m.go", "function", 6),
        ("m.<lambda1>", "lambda", 7),
        ("m.<lambda2>", "lambda", 7),
    ]


def test_call_sites_in_the_callers_own_body():
    table = extract_symbols("python", PYTHON)
    lines = lambda caller, callee: call_site_lines(table, PYTHON, caller, callee)  # noqa: E731
    assert lines("main", "main.main") == [58]
    assert lines("main.main", "main.Registry.__init__") == [51]  # `Registry()`
    assert lines("main.main", "main.Registry") == [51]
    assert lines("main.main", "main.fib") == [54]
    # the lambda on line 52 calls area_of, not main.main; the bound lambda is called by its name
    assert lines("main.main", "pkg.shapes.area_of") == []
    assert lines("main.main.<lambda1>", "pkg.shapes.area_of") == [52]
    assert lines("main.main", "main.Registry.__init__.<lambda1>") == [53]
    # decorators and defaults run in the enclosing scope
    assert lines("main", "main.memo") == [16]
    assert lines("main.memo", "main.memo.wrapper") == []
    assert lines("main.fib", "main.fib") == [18]
    assert lines("main.fib", "main.<lambda1>") == []  # `step(n)`: a parameter, not a binding
    assert lines("main.Registry.__new__", "builtins.object.__new__") == [26]  # `super().__new__`
    assert lines("main.Registry.refresh", "main.Registry.refresh.pick") == [47]
    assert lines("main.Registry.__init__", "pkg.shapes.Circle.__init__") == [29]  # comprehension
    assert lines("pkg.shapes.größe", "pkg.shapes.área") == [21]
    assert lines("main.missing", "main.fib") == []
    assert lines("main", "main.Registry") == []  # the class body's lambda is its own node
