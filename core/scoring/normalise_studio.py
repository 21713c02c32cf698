"""The studio rule set's name normalisation (opt-in, `--rules studio`; the paper's is `core.scoring.normalise_paper`).

Rewrites (`init`, then `nested_class`) come first, then the `stdlib` drop. Names are stripped of
surrounding whitespace first; an empty name is always dropped. With no modes a name is returned
stripped and otherwise unchanged.

Where it reads differently from the paper, on purpose:
- Python/JS: the rewrites and the drop test look only at the part before the first `(`; the
  returned name keeps that part verbatim (`main.Foo.__init__(x)` -> `main.Foo(x)`), so a
  name with an argument list still never equals a ground-truth name (exact-string metric).
- `init` strips a suffix only: `main.Foo.__init__.helper` and a bare `__init__` are kept.
  Java cuts at the first `:<init>` or `:<clinit>` (not the JVM's `.<init>`).
- `nested_class` (Java) rewrites the owner only (before the first `:` or `(`); parameter
  types are left as written. Owner = lower-case package segments, then type segments joined
  by `.` or `$`; the package and the innermost capitalised segment are kept. A segment
  starting with a digit (anonymous `$1`, local `$1Local`) stays attached to the type before
  it: `a.b.Outer$Inner$1:run()` -> `a.b.Inner$1:run()`. Owners that are not such a path
  (`System.out:println`, `Foo.bar`) are left alone.
- Python `stdlib`: the first segment is a standard-library module (so `os.path.join`,
  `builtins.print`); a single segment is a builtin (`print`, `list`); two segments are a
  builtin type and one of its attributes (`list.append`, `dict.fromkeys`, not `list.foo`).
  Names qualified by a program module (`main.print`) are kept: the contract does not drop
  them. A program module named like a stdlib module (`queue.py`, `types.py`) is dropped too.
- JS `stdlib`: a segment equal to `prototype`; the first segment a global, a Node core
  module or `node:`-prefixed; or, after a first segment that looks like a module (not
  capitalised, not `this`/`super`), a second segment that is `node:`-prefixed or that is
  - followed by more segments and a global or core module (`main.fs.readFile`,
    `main.console.log`, `main.process.exit`), or
  - the last segment and a capitalised global or a global function (`main.Date`,
    `main.Promise`, `main.parseInt`); a user's `main.process`, `main.path`, `main.escape`
    or `main.fetch` is kept.
  Later segments are never tested (`main.Parser.parse`, `main.Foo.Date` are kept).
- Java `stdlib`: a JDK package prefix, or a bare JDK class as the first owner segment
  (`String:length()`, `System.out:println`). The outermost class as written is tested as
  well as the rewritten one, so `Map.Entry:getKey()` is dropped although `nested_class`
  turns it into `Entry:getKey()`.
- Edges that become self-edges after a rewrite are kept; nothing else is dropped.
"""
from __future__ import annotations

import re
from collections.abc import Callable

from core.languages import get
from core.scoring import normalise_studio_names as data

_PYTHON_CONSTRUCTORS = (".__init__", ".__new__")
_JAVASCRIPT_CONSTRUCTORS = (".constructor",)
_JAVA_CONSTRUCTOR_MARKERS = (":<init>", ":<clinit>")
_JAVA_FIRST_SEGMENT = re.compile(r"[^.$<\[]*")
_JS_NAMESPACES = data.JS_GLOBALS | data.NODE_CORE_MODULES
_JS_CALLABLE = data.JS_GLOBAL_FUNCTIONS | {g for g in data.JS_GLOBALS if g[:1].isupper()}


def normalise(name: str, language: str, modes: frozenset[str]) -> str | None:
    """The name to score with, or None when it is dropped."""
    return rule(language, modes)(name)


def rule(language: str, modes: frozenset[str]) -> Callable[[str], str | None]:
    """`normalise` for one language and mode set, its rule looked up once (the language's
    `Language.studio_normalisation`: `python`, `javascript` or `java` below, each giving "" for a dropped name)."""
    one: Callable[[str, frozenset[str]], str] = get(language).part("studio_normalisation")
    return lambda name: one(name.strip(), modes) or None


def python(name: str, modes: frozenset[str]) -> str:
    return _dotted(name, modes, _PYTHON_CONSTRUCTORS, _python_dropped)


def javascript(name: str, modes: frozenset[str]) -> str:
    return _dotted(name, modes, _JAVASCRIPT_CONSTRUCTORS, _js_dropped)


def java(name: str, modes: frozenset[str]) -> str:
    return _normalise_java(name, modes)


def _dotted(name: str, modes: frozenset[str], constructors: tuple[str, ...], dropped: Callable[[str], bool]) -> str:
    """Python and JavaScript: the rewrite and the drop look at the part before the first `(`."""
    if not name:
        return name
    head, paren, tail = name.partition("(")
    if "init" in modes:
        for suffix in constructors:
            if head.endswith(suffix):
                head = head[:-len(suffix)]
                name = head + paren + tail
                break
    if "stdlib" in modes and dropped(head):
        return ""
    return name


def _python_dropped(head: str) -> bool:
    parts = head.split(".")
    first = parts[0]
    if first in data.PYTHON_STDLIB_MODULES:  # includes `builtins`
        return True
    if len(parts) == 1:
        return first in data.PYTHON_BUILTIN_NAMES
    if len(parts) == 2:
        attrs = data.PYTHON_BUILTIN_TYPE_ATTRS.get(first)
        return attrs is not None and parts[1] in attrs
    return False


def _js_dropped(head: str) -> bool:
    parts = head.split(".")
    if "prototype" in parts:
        return True
    first = parts[0]
    if first.startswith("node:") or first in _JS_NAMESPACES:
        return True
    if len(parts) == 1 or first[:1].isupper() or first in ("this", "super"):
        return False
    second = parts[1]
    if second.startswith("node:"):
        return True
    if len(parts) > 2:
        return second in _JS_NAMESPACES
    return second in _JS_CALLABLE


def _normalise_java(name: str, modes: frozenset[str]) -> str:
    """Rewrites, then "" when the stdlib mode drops the name."""
    if "init" in modes:
        for marker in _JAVA_CONSTRUCTOR_MARKERS:
            cut = name.find(marker)
            if cut >= 0:
                name = name[:cut]
                break
    written = name
    if "nested_class" in modes:
        name = _flatten_nested(name)
    if "stdlib" in modes and (
        name.startswith(data.JAVA_PACKAGE_PREFIXES)
        or _java_first_segment(written) in data.JAVA_BARE_CLASSES
        or _java_first_segment(name) in data.JAVA_BARE_CLASSES
    ):
        return ""
    return name


def _java_owner_end(name: str) -> int:
    """Index of the first `:` or `(` (the end of the class part), or len(name)."""
    end = len(name)
    for mark in ":(":
        index = name.find(mark, 0, end)
        if index >= 0:
            end = index
    return end


def _java_first_segment(name: str) -> str:
    match = _JAVA_FIRST_SEGMENT.match(name, 0, _java_owner_end(name))
    if match is None:
        raise ValueError(f"no first segment in {name!r}")  # cannot happen: the pattern matches the empty string
    return match.group()


def _flatten_nested(name: str) -> str:
    end = _java_owner_end(name)
    parts = name[:end].replace("$", ".").split(".")
    package = 0
    while package < len(parts) and parts[package][:1].islower():
        package += 1
    types = parts[package:]
    if len(types) < 2 or not types[0][:1].isupper():
        return name
    innermost = 0
    for index, segment in enumerate(types):
        first = segment[:1]
        if first.isupper():
            innermost = index
        elif not first.isdigit():
            return name
    owner = ".".join(parts[:package] + ["$".join(types[innermost:])])
    return owner + name[end:]
