"""The language registry: the paper's three in the paper's order, lookups, and every part each one names."""
from __future__ import annotations

import dataclasses
import subprocess
import sys

import pytest

from core.languages import (
    Language,
    UnknownLanguage,
    all_suffixes,
    by_suffix,
    get,
    is_known,
    languages,
    lexer_class,
    names,
    register,
    registered,
    title,
)
from core.languages.language import PART_FIELDS
from core.symbols.rules import SymbolRules

SYMBOL_RULES = [name for name in vars(SymbolRules) if not name.startswith("_")]


def test_the_papers_languages_in_the_papers_order():
    assert names() == ("python", "javascript", "java")
    assert [language.title for language in languages()] == ["Python", "JavaScript", "Java"]
    assert all_suffixes() == (".py", ".js", ".mjs", ".cjs", ".java")


def test_lookup_by_name_alias_and_suffix():
    assert get("javascript") is get("JS") is get(" node ") is by_suffix("lib/cart.mjs")
    assert get("py").name == "python" and by_suffix("src/Main.java").name == "java"
    assert by_suffix("README.md") is None
    assert is_known("java") and not is_known("js") and not is_known(None)  # aliases are not stored names
    assert title("java") == "Java" and title("average", "Average") == "Average" and title("cobol") == "cobol"


def test_an_unknown_language_is_a_clear_error():
    with pytest.raises(UnknownLanguage, match=r"unknown language 'cobol' \(known: python, javascript, java\)"):
        get("cobol")
    with pytest.raises(ValueError):  # UnknownLanguage is a ValueError, as the layers' own checks were
        get("")


@pytest.mark.parametrize("language", languages(), ids=lambda language: language.name)
def test_every_part_a_language_names_can_be_loaded(language):
    for field in PART_FIELDS:
        if getattr(language, field):
            assert language.part(field) is not None, field
            assert getattr(language, field).partition(":")[0] in language.part_modules(), field  # packaged too
    symbols = language.part("symbols")
    assert all(callable(getattr(symbols, method)) for method in SYMBOL_RULES), symbols
    assert language.part("tracer").language == language.name
    assert language.part("imports").language == language.name
    assert lexer_class(language.name).name == language.title  # pygments' PythonLexer is "Python", ...


def test_a_missing_part_says_which():
    with pytest.raises(LookupError, match="the Java language has no imports"):
        dataclasses.replace(get("java"), imports="").part("imports")


def test_register_adds_a_language_for_a_while_and_refuses_a_second_of_a_name():
    extra = Language(name="cobol", title="COBOL", suffixes=(".cbl",), aliases=("cob",))
    with registered(extra):
        assert names()[-1] == "cobol" and get("COB") is extra and by_suffix("pay.cbl") is extra
        with pytest.raises(ValueError, match="already registered"):
            register(extra)
    assert not is_known("cobol")


def test_loading_the_registry_imports_nothing_heavy():
    code = ("import sys; from core.languages import languages; languages(); "
            "print(sorted({m.split('.')[0] for m in sys.modules} & {'tree_sitter', 'pygments', 'tracers', 'numpy'}))")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60, check=True)
    assert done.stdout.strip() == "[]"
