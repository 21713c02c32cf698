"""The registry: every known `Language`, found once and asked by every layer.

Found in three places: the modules of this package (one per language, each defining `LANGUAGE`), the
`traceeval.languages` entry-point group (a plugin's distribution names its `Language` object there), and
`register()` (tests). Listed by `order`, then name: Python, JavaScript, Java, as the paper's tables are.
"""
from __future__ import annotations

import importlib
import logging
import pkgutil
import threading
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from functools import cache
from typing import TypeGuard

from core.languages.language import Language

ENTRY_POINT_GROUP = "traceeval.languages"

log = logging.getLogger(__name__)
_registered: dict[str, Language] = {}  # by name; filled on first use
_ready = False
_finding = threading.RLock()  # background jobs may ask first


class UnknownLanguage(ValueError):
    """A name or alias no language has; the message names the known ones."""

    def __init__(self, name: str) -> None:
        super().__init__(f"unknown language {name!r} (known: {', '.join(names())})")
        self.name = name


def languages() -> tuple[Language, ...]:
    """Every language, in listing order."""
    return tuple(sorted(_all().values(), key=lambda language: (language.order, language.name)))


def names() -> tuple[str, ...]:
    return tuple(language.name for language in languages())


def get(name: str) -> Language:
    """The language called `name` or one of its aliases (any case); UnknownLanguage otherwise."""
    found = find(name)
    if found is None:
        raise UnknownLanguage(name)
    return found


def find(name: str) -> Language | None:
    """Like `get`, None for an unknown name."""
    known = _all()
    wanted = name.strip().lower()
    if wanted in known:
        return known[wanted]
    return next((language for language in known.values() if wanted in language.aliases), None)


def is_known(name: object) -> TypeGuard[str]:
    """`name` is a language's own name (not an alias): what files, folders and keys hold."""
    return isinstance(name, str) and name in _all()


def title(name: str, default: str | None = None) -> str:
    """A language's title; `default` (else the name itself) for a name that is not one."""
    language = _all().get(name)
    if language is not None:
        return language.title
    return name if default is None else default


def by_suffix(path: str) -> Language | None:
    """The language whose source files end like `path`, first in listing order; None when none does."""
    return next((language for language in languages() if language.source_file(path)), None)


def all_suffixes() -> tuple[str, ...]:
    return tuple(suffix for language in languages() for suffix in language.suffixes)


def lexer_class(name: str) -> type:
    """The pygments lexer class for highlighting a language's code (`Language.lexer`); plain text for a name that
    is not a language's. Imports pygments, so only views call it."""
    language = find(name)
    return _lexer_by_alias(language.lexer if language else "text")


@cache
def _lexer_by_alias(alias: str) -> type:
    from pygments.lexers import find_lexer_class_by_name
    from pygments.util import ClassNotFound

    try:
        return find_lexer_class_by_name(alias)
    except ClassNotFound:
        return find_lexer_class_by_name("text")


def paper_suffixes() -> tuple[str, ...]:
    """Each language's main suffix (".py", ".js", ".java"), for messages."""
    return tuple(language.prompt_suffix for language in languages())


def either(words: Sequence[str]) -> str:
    """`a, b or c`: a choice in a message."""
    return f"{', '.join(words[:-1])} or {words[-1]}" if len(words) > 1 else "".join(words)


def register(language: Language) -> Language:
    """Add a language (a test's, or one built at run time); its name must be new."""
    known = _all()
    if language.name in known:
        raise ValueError(f"a language named {language.name!r} is already registered")
    known[language.name] = language
    return language


def unregister(name: str) -> None:
    _all().pop(name, None)


@contextmanager
def registered(language: Language) -> Iterator[Language]:
    """`register(language)` for the duration of a `with` block."""
    register(language)
    try:
        yield language
    finally:
        unregister(language.name)


def _all() -> dict[str, Language]:
    global _ready
    if not _ready:
        with _finding:
            if not _ready:
                for language in (*_package_languages(), *_plugin_languages()):
                    if language.name in _registered:
                        log.warning("language %r is defined twice; the first definition is kept", language.name)
                    else:
                        _registered[language.name] = language
                _ready = True
    return _registered


def _package_languages() -> Iterator[Language]:
    package = importlib.import_module(__package__ or "core.languages")
    for info in pkgutil.iter_modules(package.__path__):
        module = importlib.import_module(f"{package.__name__}.{info.name}")
        language = getattr(module, "LANGUAGE", None)
        if isinstance(language, Language):
            yield language


def _plugin_languages() -> Iterator[Language]:
    from importlib.metadata import entry_points

    for point in entry_points(group=ENTRY_POINT_GROUP):
        try:
            language = point.load()
        except Exception as error:  # noqa: BLE001 - a broken plugin must not stop the app
            log.warning("cannot load the language plugin %s: %s", point.value, error)
            continue
        if isinstance(language, Language):
            yield language
        else:
            log.warning("the language plugin %s is not a core.languages.Language", point.value)
