"""The language registry (docs/architecture.md "How to add a language"): one `Language` per language,
which every layer reads instead of naming languages itself."""
from __future__ import annotations

from core.languages.language import Language, load
from core.languages.registry import (
    ENTRY_POINT_GROUP,
    UnknownLanguage,
    all_suffixes,
    by_suffix,
    either,
    find,
    get,
    is_known,
    languages,
    lexer_class,
    names,
    paper_suffixes,
    register,
    registered,
    title,
    unregister,
)

__all__ = ["ENTRY_POINT_GROUP", "Language", "UnknownLanguage", "all_suffixes", "by_suffix", "either", "find", "get",
           "is_known", "languages", "lexer_class", "load", "names", "paper_suffixes", "register", "registered", "title",
           "unregister"]
