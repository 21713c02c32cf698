"""The paper's name normalisation, rule for rule (docs/benchmark.md "Metric (paper parity)").

Rewrites first, in the order `init`, `nested_class`; then the `stdlib` drop on the rewritten
name. Nothing is stripped and nothing else is dropped: a name with a leading space is another
name, an empty name is kept. `tests/parity/normalise.json` holds the release's output for every
mode combination, and a test runs it.

Python's standard-library names come from the running interpreter, as in the release
(`sys.stdlib_module_names`, `dir(builtins)`, `dir()` of the builtin types), so the release
and this module agree when both run on the same Python (`traceeval parity` does).
"""
from __future__ import annotations

import builtins
import re
import sys
from collections.abc import Callable

from core.languages import get
from core.scoring import normalise_paper_names as names

_PYTHON_STDLIB_MODULES = frozenset(sys.stdlib_module_names)
# `site` adds these to builtins in every normal interpreter (the one the paper ran); listed so an
# interpreter started without `site` (a frozen app) gives the same answer.
_PYTHON_BUILTINS = frozenset(dir(builtins)) | {"copyright", "credits", "exit", "help", "license", "quit"}
_PYTHON_TYPE_ATTRIBUTES = {name: frozenset(dir(getattr(builtins, name))) for name in names.PYTHON_BUILTIN_TYPES}

_PYTHON_CONSTRUCTORS = (".__init__", ".__new__")
_JAVASCRIPT_CONSTRUCTORS = (".constructor",)
_JAVA_CONSTRUCTOR_MARKERS = (":<init>", ":<clinit>")
_JAVA_TYPE_PATH_SPLIT = re.compile(r"[.$]")
_JAVA_GENERICS = re.compile(r"<[^<>]*>")
_JAVA_HEAD_END = re.compile(r"[:(]")


def normalise(name: str, language: str, modes: frozenset[str]) -> str | None:
    """The name to score with, or None when the `stdlib` mode drops it."""
    return rule(language, modes)(name)


def rule(language: str, modes: frozenset[str]) -> Callable[[str], str | None]:
    """`normalise` for one language and mode set, its rule looked up once (the language's
    `Language.paper_normalisation`: `python`, `javascript` or `java` below)."""
    one: Callable[[str, frozenset[str]], str | None] = get(language).part("paper_normalisation")
    return lambda name: one(name, modes)


def python(name: str, modes: frozenset[str]) -> str | None:
    return _dotted(name, modes, _PYTHON_CONSTRUCTORS, _python_dropped)


def javascript(name: str, modes: frozenset[str]) -> str | None:
    return _dotted(name, modes, _JAVASCRIPT_CONSTRUCTORS, _javascript_dropped)


def java(name: str, modes: frozenset[str]) -> str | None:
    if "init" in modes:
        name = _java_without_constructor(name)
    if "nested_class" in modes:
        name = _innermost_class(name)
    if "stdlib" in modes and _java_dropped(name):
        return None
    return name


def _dotted(name: str, modes: frozenset[str], constructors: tuple[str, ...],
            dropped: Callable[[str], bool]) -> str | None:
    """Python `.__init__`/`.__new__` and JavaScript `.constructor` at the end are cut off (one of
    them, once); then the `stdlib` drop."""
    if "init" in modes:
        for suffix in constructors:
            if name.endswith(suffix):
                name = name[:-len(suffix)]
                break
    if "stdlib" in modes and dropped(name):
        return None
    return name


def _java_without_constructor(name: str) -> str:
    """Cut at the first `:<init>`, else at the first `:<clinit>`."""
    for marker in _JAVA_CONSTRUCTOR_MARKERS:
        cut = name.find(marker)
        if cut != -1:
            return name[:cut]
    return name


def _innermost_class(name: str) -> str:
    """`a.b.Outer$Inner:m()` -> `a.b.Inner:m()`: the run of capitalised segments at the end of the
    type path (before the first `:`) is replaced by its last segment."""
    if ":" not in name:
        return name
    type_path, rest = name.split(":", 1)
    segments = _JAVA_TYPE_PATH_SPLIT.split(type_path)
    if len(segments) < 2:
        return name
    start = len(segments) - 1
    while start > 0 and segments[start - 1] and segments[start - 1][0].isupper():
        start -= 1
    if len(segments) - start <= 1:
        return name
    package = ".".join(segments[:start])
    return f"{package}.{segments[-1]}:{rest}" if package else f"{segments[-1]}:{rest}"


def _head(name: str) -> tuple[str, list[str]]:
    """The part before the first `(`, stripped, and its dotted parts (Python's and JavaScript's stdlib test)."""
    head = name.split("(", 1)[0].strip()
    return head, head.split(".")


def _python_dropped(name: str) -> bool:
    head, parts = _head(name)
    if not head:
        return False
    first = parts[0]
    if first == "builtins" or first in _PYTHON_STDLIB_MODULES:
        return True
    if len(parts) >= 2 and first in _PYTHON_TYPE_ATTRIBUTES and parts[1] in _PYTHON_TYPE_ATTRIBUTES[first]:
        return True
    return head in _PYTHON_BUILTINS


def _javascript_dropped(name: str) -> bool:
    head, parts = _head(name)
    if not head:
        return False
    first = parts[0]
    if first in names.JS_GLOBALS or "prototype" in parts or head in names.JS_GLOBAL_FUNCTIONS:
        return True
    if first in names.NODE_CORE_MODULES or first.startswith("node:"):
        return True
    if len(parts) >= 2:
        owner, last = parts[-2], parts[-1]
        return (owner in names.JS_GLOBALS or owner in names.NODE_CORE_MODULES
                or last in names.JS_GLOBALS or last in names.JS_GLOBAL_FUNCTIONS)
    return False


def _java_dropped(name: str) -> bool:
    if not name:
        return False
    previous, cleaned = None, name
    while previous != cleaned and "<" in cleaned:  # innermost <...> groups first, until none is left
        previous, cleaned = cleaned, _JAVA_GENERICS.sub("", cleaned)
    head = _JAVA_HEAD_END.split(cleaned, maxsplit=1)[0].rstrip(".").strip()
    if not head:
        return False
    return head.startswith(names.JAVA_PACKAGE_PREFIXES) or ("." not in head and head in names.JAVA_BARE_CLASSES)

