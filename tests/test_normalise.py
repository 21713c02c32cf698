"""The paper's normalisation (the default rule set), held to the release's own output.

`tests/parity/normalise.json` holds 2,922 names with what the TraceEval release's metric makes of
each under all 8 mode combinations; `tests/parity/stdlib_names.json` the name lists it uses.
They are data (docs/benchmark.md says how they were made); the studio rule set has its own tests.
"""
from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from core.scoring import normalise_paper_names
from core.scoring.normalise import MODES, normalise_edges, normalise_name, parse_modes
from core.scoring.rules import PAPER, RULE_SETS, STUDIO

PARITY = Path(__file__).parent / "parity"
VECTORS = json.loads((PARITY / "normalise.json").read_text(encoding="utf-8"))["vectors"]
NAME_LISTS = json.loads((PARITY / "stdlib_names.json").read_text(encoding="utf-8"))
ALL = frozenset(MODES)
NONE = frozenset()


def _modes(combination: str) -> frozenset[str]:
    return frozenset() if combination == "none" else frozenset(combination.split("+"))


@pytest.mark.parametrize("language", ["python", "javascript", "java"])
def test_every_vector_normalises_as_the_release_does(language):
    vectors = [v for v in VECTORS if v["language"] == language]
    assert len(vectors) > 900
    wrong = [(v["name"], combination, normalise_name(v["name"], language, _modes(combination)), expected)
             for v in vectors for combination, expected in v["out"].items()
             if normalise_name(v["name"], language, _modes(combination)) != expected]
    assert not wrong, f"{len(wrong)} of {len(vectors) * 8} differ, first: {wrong[:3]!r}"


def test_the_vectors_cover_all_eight_mode_combinations():
    assert {frozenset(_modes(c)) for c in VECTORS[0]["out"]} == {
        frozenset(m for i, m in enumerate(MODES) if mask >> i & 1) for mask in range(8)}


def test_the_name_lists_are_the_releases():
    lists = normalise_paper_names
    assert lists.JS_GLOBALS == frozenset(NAME_LISTS["javascript_globals"])
    assert lists.JS_GLOBAL_FUNCTIONS == frozenset(NAME_LISTS["javascript_global_functions"])
    assert lists.NODE_CORE_MODULES == frozenset(NAME_LISTS["node_core_modules"])
    assert lists.JAVA_PACKAGE_PREFIXES == tuple(NAME_LISTS["java_package_prefixes"])
    assert lists.JAVA_BARE_CLASSES == frozenset(NAME_LISTS["java_bare_classes"])
    assert lists.PYTHON_BUILTIN_TYPES == tuple(NAME_LISTS["python_builtin_types"])


@pytest.mark.parametrize(("name", "language", "expected"), [
    # the examples of where the studio reading differs
    ("Outer$1:run()", "java", "1:run()"),
    ("a.b.Outer$Inner:<init>(int)", "java", "a.b.Outer$Inner"),  # init cut the ':' first: not flattened
    ("main.Foo.Date", "javascript", None),
    ("Foo.Object", "javascript", None),
    ("main.max.console.x", "javascript", None),
    ("escape.Bar(x)", "javascript", "escape.Bar(x)"),
    ("list.append.x", "python", None),
    ("str.__init__.y", "python", None),
    ("main.Foo.__init__(self)", "python", "main.Foo.__init__(self)"),
    (" main.f ", "python", " main.f "),
    ("", "python", ""),
    ("print", "python", None),
])
def test_examples_from_the_contract(name, language, expected):
    assert normalise_name(name, language, ALL) == expected
    assert normalise_name(name, language) == expected  # the default is the paper's, all modes


def test_the_default_rule_set_is_the_paper():
    assert PAPER in RULE_SETS and STUDIO in RULE_SETS
    assert normalise_name(" main.f ", "python") == " main.f "
    assert normalise_name(" main.f ", "python", rules=STUDIO) == "main.f"


def test_edges_are_a_set_and_an_edge_goes_when_either_end_is_dropped():
    edges = [("main", "main.Foo.__init__"), ("main", "main.Foo"), ("main", "print"), ("print", "main.f"),
             (" main", "main.g "), ("main", "")]
    assert normalise_edges(edges, "python") == frozenset({("main", "main.Foo"), (" main", "main.g "), ("main", "")})
    assert normalise_edges(iter([]), "java") == frozenset()


@pytest.mark.parametrize(("text", "expected"), [
    ("all", ALL),
    ("none", NONE),
    ("init,stdlib", frozenset({"init", "stdlib"})),
    (" Init , nested-class ", frozenset({"init", "nested_class"})),
    ("stdlib,stdlib", frozenset({"stdlib"})),
    ("ALL", ALL),
    ("init,nested_class,stdlib", ALL),
])
def test_parse_modes(text, expected):
    assert parse_modes(text) == expected


@pytest.mark.parametrize(("text", "named"), [
    ("init,bogus", "'bogus'"), ("stdlb", "'stdlb'"), ("", "''"), ("init,,stdlib", "''"), ("all,init", "'all'"),
    ("none,stdlib", "'none'"),
])
def test_parse_modes_rejects_bad_modes_with_one_line(text, named):
    with pytest.raises(ValueError) as caught:
        parse_modes(text)
    assert named in str(caught.value) and "\n" not in str(caught.value)


def test_bad_language_mode_or_rule_set_is_rejected():
    with pytest.raises(ValueError, match="'rust'"):
        normalise_name("main.f", "rust")
    with pytest.raises(ValueError, match="'stdlb'"):
        normalise_name("main.f", "python", ("stdlb",))
    with pytest.raises(ValueError, match="'init'"):
        normalise_name("main.f", "python", "init")
    with pytest.raises(ValueError, match="'cobol'"):
        normalise_edges([("a", "b")], "cobol")
    with pytest.raises(ValueError, match="'loose'"):
        normalise_name("main.f", "python", rules="loose")


def test_core_normalise_imports_no_gui_or_tracers():
    code = ("import sys, core.scoring.normalise\n"
            "print([m for m in sys.modules if m.split('.')[0] in "
            "('PySide6', 'pyqtgraph', 'tracers', 'traceeval_gui')])")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"
