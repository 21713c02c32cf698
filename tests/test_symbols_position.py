"""The node at a position in the source: what a click in the source view selects."""
from core.symbols import extract_symbols

SOURCE = """\
import sys


def outer(x):
    def inner(y):
        return y + 1
    square = lambda v: v * v
    return inner(square(x))


class Box:
    def __init__(self):
        self.items = []


outer(2)
"""


def _table():
    return extract_symbols("python", {"main.py": SOURCE, "other.py": "def f():\n    pass\n"})


def test_the_innermost_definition_holds_the_position():
    table = _table()
    assert table.node_at("main.py", 6, 8).name == "main.outer.inner"  # inside inner's body
    assert table.node_at("main.py", 4, 0).name == "main.outer"  # on the def line
    assert table.node_at("main.py", 5, 0).name == "main.outer.inner"  # left of a nested def: its line
    assert table.node_at("main.py", 13, 10).name == "main.Box.__init__"


def test_a_lambda_needs_its_columns():
    table = _table()
    lambda_start = SOURCE.splitlines()[6].index("lambda")
    assert table.node_at("main.py", 7, lambda_start + 3).kind == "lambda"
    assert table.node_at("main.py", 7, 4).name == "main.outer"  # `square =` is outer's


def test_module_level_code_is_the_module_and_other_files_are_apart():
    table = _table()
    assert table.node_at("main.py", 16, 0).name == "main"
    assert table.node_at("other.py", 2, 4).name == "other.f"
    assert table.node_at("missing.py", 1, 0) is None
