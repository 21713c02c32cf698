"""Which file a program starts from (docs/benchmark.md "Entry points")."""
from __future__ import annotations

from collections.abc import Callable, Mapping

from core.languages import get
from core.records import Node


def find_entry_point(language: str, sources: Mapping[str, str]) -> str:
    """The entry file's relative path, or "" when there is none.

    The language's `entry_point` rule when it has one, else its `entry_files` by name:
    Python runs `main.py`; JavaScript `main.js`, else `main.mjs` or `main.cjs` (ES module and
    CommonJS spellings); a single-file program may use another name, and so may a program whose
    only top-level file is that one. Java: the file of the class declaring
    `public static void main(String[])` (`java_main_file`).
    """
    described = get(language)
    if described.entry_point:
        rule: Callable[[Mapping[str, str]], str] = described.part("entry_point")
        return rule(sources)
    return _named_or_single(sources, described.entry_files)


def java_main_class(sources: Mapping[str, str]) -> str:
    """The binary name of the class declaring main (`com.demo.Main`), or ""."""
    node = _java_main_node(sources)
    return node.name.partition(":")[0] if node else ""


def _named_or_single(sources: Mapping[str, str], names: tuple[str, ...]) -> str:
    for name in names:
        if name in sources:
            return name
    top_level = [path for path in sources if "/" not in path]
    if len(sources) == 1:
        return next(iter(sources))
    return top_level[0] if len(top_level) == 1 else ""


def java_main_file(sources: Mapping[str, str]) -> str:
    """Java's entry file: the class declaring main, found with the symbol extractor so a
    commented-out `main` does not count (read off the text when that is plain, `plain_main_file`)."""
    from core.symbols.java_main_text import plain_main_file

    plain = plain_main_file(sources)
    if plain is not None:
        return plain
    node = _java_main_node(sources)
    return node.file if node else ""


def _java_main_node(sources: Mapping[str, str]) -> Node | None:
    from core.symbols.java_main import main_methods  # parses only the files where `main` can be a method

    mains = main_methods(sources)
    mains.sort(key=lambda node: (node.file.rsplit("/", 1)[-1] != "Main.java", node.file))
    return mains[0] if mains else None
