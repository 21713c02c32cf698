"""Candidate call-site lines, from a static look at the caller's body.

Static and approximate by design: it highlights where an edge may happen when no tracer saw
it. A line is a candidate when something in the caller's own body (nested functions, lambdas
and arrows are their own nodes and are excluded; Java lambdas belong to the enclosing method;
Python decorators and default values belong to the enclosing scope) names the callee by its
last identifier:
- a call `a.b.c(...)` -> `c`; `new C(...)` / `C(...)` -> `C` for a constructor or a class;
- a Python decorator `@d` / `@a.d` -> `d` (applying it calls it);
- JS `f.call(...)` / `f.apply(...)` -> `f`; `super(...)` -> the superclass (JS, Java);
  Java `this(...)` -> the class, method references `x::m` -> `m`, `C::new` -> `C`;
- a lambda, arrow or function value is matched by the name it is bound to.
Receivers and types are not checked, so same-named methods of other classes match too; calls
through other aliases, `getattr`, callbacks passed to libraries, properties and getters are
not seen. The line is the callee identifier's, so a multi-line chain marks the right line.
"""
from __future__ import annotations

from collections.abc import Mapping

from core.languages import get
from core.symbols.scan import CallSite
from core.symbols.table import SymbolTable


def call_site_lines(table: SymbolTable, files: Mapping[str, str],
                    caller: str, callee: str) -> list[int]:
    """Sorted candidate lines in the caller's body where it may call `callee` ([] if unknown)."""
    node = table.place(caller)
    if node is None or node.kind == "class" or node.file not in files:
        return []
    names = _callee_names(table, callee)
    if not names:
        return []
    sites = _calls(table, node.file, files[node.file])
    return sorted({site.line for site in sites
                   if site.owner == node.name and site.identifier in names})


def _callee_names(table: SymbolTable, callee: str) -> frozenset[str]:
    """From the placed node; for a name that cannot be placed, from the name itself."""
    node = table.place(callee)
    if node is not None:
        return table.call_names(node)
    names: frozenset[str] = get(table.language).part("symbols").callee_names(callee.split("(", 1)[0].strip())
    return names


def _calls(table: SymbolTable, path: str, text: str) -> list[CallSite]:
    key = (path, text)
    if key not in table.scan_cache:
        table.scan_cache[key] = get(table.language).part("symbols").calls(path, text, table.program)
    return table.scan_cache[key]
