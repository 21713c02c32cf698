"""No layer branches on a language's name: code asks the registry (`core.languages`) instead.

Outside `core/languages/`, a module may compare a value to a language name written as a literal (==, !=,
in / not in a tuple, set or list of literals, match/case) or key a dict literal by one only when it is that
language's own module in its layer (`core/symbols/java.py`, `core/instances/java_imports.py`,
`tracers/java.py`, `tracers/python_runtime/...`): its stem or folder starts with the language's name or alias.
"""
from __future__ import annotations

import ast
from pathlib import Path

import pytest

from core.languages import find, names

ROOT = Path(__file__).resolve().parents[1]
CHECKED = ("core", "tracers", "traceeval_gui")
REGISTRY = ROOT / "core" / "languages"
# (file, literal) -> why the literal there is not a language
NOT_A_LANGUAGE = {
    ("tracers/release_runtime/parity_driver.py", "python"): "the key of the interpreter's path in the driver's JSON "
                                                           "report",
    ("core/release/parity.py", "python"): "the same key in the parity report's JSON",
}


def own_language(path: Path) -> str | None:
    """The language a per-language module belongs to, from its stem or its folder (`java_imports`, `js_instrument`,
    `python_runtime/run.py`), else None."""
    for part in (path.stem, path.parent.name):
        language = find(part.split("_", 1)[0])
        if language is not None:
            return language.name
    return None


def language_literals(tree: ast.AST) -> list[tuple[int, str]]:
    """(line, name) of every comparison with, match case on, or dict key of a language name literal."""
    known = set(names())

    def literals(node: ast.AST | None) -> list[str]:
        if isinstance(node, ast.Constant) and node.value in known:
            return [node.value]
        if isinstance(node, ast.Tuple | ast.List | ast.Set):
            return [name for element in node.elts for name in literals(element)]
        return []

    found: list[tuple[int, str]] = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Compare):
            for operand in (node.left, *node.comparators):
                found += [(node.lineno, name) for name in literals(operand)]
        elif isinstance(node, ast.MatchValue):
            found += [(node.lineno, name) for name in literals(node.value)]
        elif isinstance(node, ast.MatchOr):
            found += [(node.lineno, name) for pattern in node.patterns if isinstance(pattern, ast.MatchValue)
                      for name in literals(pattern.value)]
        elif isinstance(node, ast.Dict):
            found += [(node.lineno, name) for key in node.keys for name in literals(key)]
    return sorted(set(found))


def violations(path: Path) -> list[str]:
    relative = path.relative_to(ROOT).as_posix()
    tree = ast.parse(path.read_text(encoding="utf-8"), filename=relative)
    own = own_language(path)
    return [f"{relative}:{line}: {name!r}" for line, name in language_literals(tree)
            if name != own and (relative, name) not in NOT_A_LANGUAGE]


def checked_modules() -> list[Path]:
    return [path for folder in CHECKED for path in sorted((ROOT / folder).rglob("*.py"))
            if REGISTRY not in path.parents]


def test_no_module_outside_the_registry_branches_on_a_language_name():
    found = [problem for path in checked_modules() for problem in violations(path)]
    assert found == [], "ask core.languages instead of naming a language:\n" + "\n".join(found)


def test_every_exception_is_still_there():
    """An exception that no longer matches anything goes, so the list cannot hide a new branch."""
    for relative, name in NOT_A_LANGUAGE:
        tree = ast.parse((ROOT / relative).read_text(encoding="utf-8"))
        assert name in {found for _, found in language_literals(tree)}, relative


@pytest.mark.parametrize("code", [
    'if language == "java":\n    pass',
    'if "python" != instance.language:\n    pass',
    'ok = language in ("python", "javascript")',
    'ok = lang not in {"java"}',
    'TITLES = {"python": "Python"}',
    'match language:\n    case "javascript":\n        pass',
    'match language:\n    case "js" | "java":\n        pass',
])
def test_a_reintroduced_branch_is_found(code):
    assert language_literals(ast.parse(code)) != []


@pytest.mark.parametrize("code", [
    'if backend == "c":\n    pass',
    'described = get("java")',
    'text = "python"',
    'ok = kind in ("function", "method")',
])
def test_other_literals_are_not_branches(code):
    assert language_literals(ast.parse(code)) == []


def test_a_module_may_name_its_own_language_only():
    assert own_language(ROOT / "core" / "symbols" / "java.py") == "java"
    assert own_language(ROOT / "core" / "instances" / "javascript_imports.py") == "javascript"
    assert own_language(ROOT / "tracers" / "js_instrument.py") == "javascript"
    assert own_language(ROOT / "tracers" / "python_runtime" / "run.py") == "python"
    assert own_language(ROOT / "core" / "instances" / "candidates.py") is None
