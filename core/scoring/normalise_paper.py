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

from core.scoring import normalise_paper_names as names

_PYTHON_STDLIB_MODULES = frozenset(sys.stdlib_module_names)
# `site` adds these to builtins in every normal interpreter (the one the paper ran); listed so an
# interpreter started without `site` (a frozen app) gives the same answer.
_PYTHON_BUILTINS = frozenset(dir(builtins)) | {"copyright", "credits", "exit", "help", "license", "quit"}
_PYTHON_TYPE_ATTRIBUTES = {name: frozenset(dir(getattr(builtins, name))) for name in names.PYTHON_BUILTIN_TYPES}

_INIT_SUFFIXES = {"python": (".__init__", ".__new__"), "javascript": (".constructor",)}
_JAVA_CONSTRUCTOR_MARKERS = (":<init>", ":<clinit>")
_JAVA_TYPE_PATH_SPLIT = re.compile(r"[.$]")
_JAVA_GENERICS = re.compile(r"<[^<>]*>")
_JAVA_HEAD_END = re.compile(r"[:(]")


def normalise(name: str, language: str, modes: frozenset[str]) -> str | None:
    """The name to score with, or None when the `stdlib` mode drops it."""
    if "init" in modes:
        name = _without_constructor(name, language)
    if "nested_class" in modes and language == "java":
        name = _innermost_class(name)
    if "stdlib" in modes and _DROPPED[language](name):
        return None
    return name


def _without_constructor(name: str, language: str) -> str:
    """Python `.__init__`/`.__new__` and JavaScript `.constructor` at the end are cut off (one of
    them, once); Java is cut at the first `:<init>`, else at the first `:<clinit>`."""
    if language == "java":
        for marker in _JAVA_CONSTRUCTOR_MARKERS:
            cut = name.find(marker)
            if cut != -1:
                return name[:cut]
        return name
    for suffix in _INIT_SUFFIXES[language]:
        if name.endswith(suffix):
            return name[:-len(suffix)]
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
    while previous != cleaned:  # innermost <...> groups first, until none is left
        previous, cleaned = cleaned, _JAVA_GENERICS.sub("", cleaned)
    head = _JAVA_HEAD_END.split(cleaned, maxsplit=1)[0].rstrip(".").strip()
    if not head:
        return False
    return head.startswith(names.JAVA_PACKAGE_PREFIXES) or ("." not in head and head in names.JAVA_BARE_CLASSES)


_DROPPED = {"python": _python_dropped, "javascript": _javascript_dropped, "java": _java_dropped}
