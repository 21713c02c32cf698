"""Every function-like node of a program with its exact TraceEval name and its span.

`extract_symbols(language, files)` parses each source file with tree-sitter (one cached parser
per language) and names what it finds as docs/benchmark.md "Node names" says; the per-language
rules, including the choices the contract leaves open, are in the docstrings of `python`,
`javascript` and `java`. `SymbolTable.place(name)` puts a name from any source (ground truth,
tracer, model) on a node, tolerantly (`placement`). `call_site_lines` finds candidate call
sites statically (`calls`).

Only files with the language's source suffixes are read (others, e.g. README.md, are
skipped). A file with syntax errors gives a problem line and whatever tree-sitter recovered.
Lines are 1-based, columns 0-based in characters, end exclusive.
"""
from __future__ import annotations

from collections.abc import Mapping

from core.records import LANGUAGES, SOURCE_SUFFIXES
from core.symbols import java, javascript, python
from core.symbols.calls import call_site_lines
from core.symbols.parsing import Source
from core.symbols.scan import FileScan
from core.symbols.table import SymbolTable

__all__ = ["SymbolTable", "call_site_lines", "extract_symbols"]


def extract_symbols(language: str, files: Mapping[str, str]) -> SymbolTable:
    """Symbols of one program; `files` maps relative '/'-separated paths to source text."""
    if language not in LANGUAGES:
        raise ValueError(f"unknown language: {language!r}")
    sources = {path: text for path, text in files.items()
               if path.endswith(SOURCE_SUFFIXES[language])}
    program: java.Program | None = None
    modules: dict[str, str] = {}
    results: list[tuple[FileScan, str | None]]
    if language == "java":
        parsed = [Source.parse("java", path, text) for path, text in sources.items()]
        program = java.program_types(parsed)
        results = [(java.extract_source(source, program), source.syntax_problem())
                   for source in parsed]
    else:
        extractor = python if language == "python" else javascript
        results = [extractor.extract_file(path, text) for path, text in sources.items()]
        modules = {path: extractor.module_name(path) for path in sources}
    problems = [problem for _, problem in results if problem]
    return symbol_table(language, [scan for scan, _ in results], problems, modules, program)


def symbol_table(language: str, scans: list[FileScan], problems: list[str], modules: dict[str, str],
                 program: java.Program | None) -> SymbolTable:
    """One program's SymbolTable from its files' scans (in file order)."""
    definitions, classes = [], []
    call_names: dict[str, set[str]] = {}
    for scan in scans:
        definitions.extend(scan.nodes)
        classes.extend(scan.classes)
        for name, names in scan.call_names.items():
            call_names.setdefault(name, set()).update(names)
    return SymbolTable(language, definitions, classes, problems, call_names, modules, program)
