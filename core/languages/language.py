"""`Language`: everything the layers need to know about one programming language, in one record.

Plain data, cheap to build: the parts that are code (the symbol extractor, the import resolver, the
tracer, ...) are named by dotted path ("core.symbols.python:SYMBOLS") and imported only when a layer asks
for them (`part`), so loading the registry imports nothing heavy, `core` never imports `tracers`, and
the command line starts at once.
"""
from __future__ import annotations

import importlib
from dataclasses import dataclass
from functools import cache
from typing import Any

PART_FIELDS = ("entry_point", "studio_example", "questions", "paper_normalisation", "studio_normalisation",
               "grammar", "symbols", "imports", "tracer")  # the fields that name code by dotted path


@dataclass(frozen=True)
class Language:
    """One language of the benchmark (or a plugin's). Field groups follow the layers that read them."""

    name: str  # the key used in files, folders and instance keys ("javascript")
    title: str  # for people ("JavaScript")
    suffixes: tuple[str, ...]  # source files, first the one the release's prompt reads (".js", ".mjs", ...)
    order: int = 100  # position in every listing (the paper's three come first, in the paper's order)
    aliases: tuple[str, ...] = ()  # also accepted on the command line and as a folder name ("js", "node")

    # dataset (docs/benchmark.md "Entry points")
    entry_files: tuple[str, ...] = ()  # the entry file's names, in preference order ("main.js", "main.mjs")
    entry_point: str = ""  # dotted path to `(sources) -> entry file` when a name is not enough (Java's main)
    entry_missing: str = ""  # the problem line when no entry file is found
    self_edges_allowed: bool = False  # the released ground truth records recursion (Java)

    # naming, prompts and normalisation
    paper_suffix: str = ""  # the one suffix the release's prompt assembly reads (".js")
    init_module: str = ""  # a package's own module in the release's question file map ("__init__", "index")
    fence_tag: str = ""  # the studio prompt's code-fence label
    fence_names: tuple[str, ...] = ()  # labels a model's fenced harness may carry ("js", "node", ...)
    release_example: str = ""  # the release's `run_llm.py` constant holding this language's worked example
    studio_example: str = ""  # dotted path to the studio wording's `WorkedExample`
    questions: str = "core.llm.prompt_questions:MODULE_QUESTIONS"  # dotted path to the question style
    paper_normalisation: str = ""  # dotted path to `(name, modes) -> name | None`, the paper's rules
    studio_normalisation: str = ""  # dotted path to the same, the studio rule set's
    lexer: str = "text"  # pygments alias for highlighting

    # parts by layer
    grammar: str = ""  # dotted path to the tree-sitter grammar's `language()` capsule
    symbols: str = ""  # dotted path to its `core.symbols.rules.SymbolRules`
    imports: str = ""  # dotted path to its `core.instances.import_resolution.Imports` subclass
    data_suffixes: tuple[str, ...] = ()  # files a built program may load besides code (".json")
    dedup_tokens: tuple[str, ...] = ()  # node types that are one token for near-duplicate detection (strings)
    tracer: str = ""  # dotted path to its tracer, a `tracers.base.Tracer` (the shared instance)

    def part(self, field: str) -> Any:
        """The object the dotted path in `field` names, imported on first use; a clear error when unset."""
        path = getattr(self, field)
        if not path:
            raise LookupError(f"the {self.title} language has no {field.replace('_', ' ')}")
        return load(path)

    def part_modules(self) -> tuple[str, ...]:
        """The modules its parts live in: nothing imports them by name, so a packager must be told of them."""
        return tuple(dict.fromkeys(getattr(self, field).partition(":")[0] for field in PART_FIELDS
                                   if getattr(self, field)))

    def source_file(self, path: str) -> bool:
        return path.endswith(self.suffixes)

    @property
    def prompt_suffix(self) -> str:
        """The suffix of the files the release's prompt reads (`paper_suffix`, else the first suffix)."""
        return self.paper_suffix or self.suffixes[0]


@cache
def load(path: str) -> Any:
    """`"package.module:attribute"` -> the attribute (a module for a path without ':')."""
    module_name, _, attribute = path.partition(":")
    module = importlib.import_module(module_name)
    return getattr(module, attribute) if attribute else module
