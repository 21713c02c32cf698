"""Every function-like node of a program with its exact TraceEval name and its span.

`extract_symbols(language, files)` parses each source file with tree-sitter (one cached parser
per language) and names what it finds as docs/benchmark.md "Node names" says; the per-language
rules, including the choices the contract leaves open, are in the docstrings of `python`,
`javascript` and `java`, each reached through its `Language.symbols` (a `rules.SymbolRules`).
`SymbolTable.place(name)` puts a name from any source (ground truth, tracer, model) on a node,
tolerantly (`placement`). `call_site_lines` finds candidate call sites statically (`calls`).

Only files with the language's source suffixes are read (others, e.g. README.md, are
skipped). A file with syntax errors gives a problem line and whatever tree-sitter recovered.
Lines are 1-based, columns 0-based in characters, end exclusive.
"""
from __future__ import annotations

from collections.abc import Mapping

from core.languages import get
from core.symbols.calls import call_site_lines
from core.symbols.rules import SymbolRules
from core.symbols.scan import FileScan
from core.symbols.table import SymbolTable

__all__ = ["SymbolTable", "call_site_lines", "extract_symbols", "symbol_rules", "symbol_table"]


def extract_symbols(language: str, files: Mapping[str, str]) -> SymbolTable:
    """Symbols of one program; `files` maps relative '/'-separated paths to source text."""
    described = get(language)
    sources = {path: text for path, text in files.items() if described.source_file(path)}
    scan = symbol_rules(described.name).scan(sources)
    return symbol_table(described.name, scan.scans, scan.problems, scan.modules, scan.program)


def symbol_rules(language: str) -> SymbolRules:
    """The language's symbol extractor and naming rules (`Language.symbols`)."""
    rules: SymbolRules = get(language).part("symbols")
    return rules


def symbol_table(language: str, scans: list[FileScan], problems: list[str], modules: dict[str, str],
                 program: object) -> SymbolTable:
    """One program's SymbolTable from its files' scans (in file order)."""
    definitions, classes = [], []
    call_names: dict[str, set[str]] = {}
    for scan in scans:
        definitions.extend(scan.nodes)
        classes.extend(scan.classes)
        for name, names in scan.call_names.items():
            call_names.setdefault(name, set()).update(names)
    return SymbolTable(language, definitions, classes, problems, call_names, modules, program)
