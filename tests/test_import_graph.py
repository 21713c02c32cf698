"""No import circle between our modules: core, tracers and traceeval_gui form a directed acyclic graph.

The graph is import-linter's own (grimp), built from the source with every import counted: at module level,
inside functions and under `if TYPE_CHECKING:`. A circle makes the modules in it one unit to read, test and
load; the window reaches features without one because each feature holds it as a protocol
(`traceeval_gui.state.workbench.Workbench`).
"""
from __future__ import annotations

import grimp

PACKAGES = ("core", "tracers", "traceeval_gui")


def import_circles(graph: grimp.ImportGraph) -> list[list[str]]:
    """Every strongly connected set of two or more modules (Tarjan's algorithm, iterative), sorted."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    circles = []
    for start in sorted(graph.modules):
        if start in index:
            continue
        work = [(start, iter(sorted(graph.find_modules_directly_imported_by(start))))]
        index[start] = low[start] = len(index)
        stack.append(start)
        on_stack.add(start)
        while work:
            module, imported = work[-1]
            for other in imported:
                if other not in index:
                    index[other] = low[other] = len(index)
                    stack.append(other)
                    on_stack.add(other)
                    work.append((other, iter(sorted(graph.find_modules_directly_imported_by(other)))))
                    break
                if other in on_stack:
                    low[module] = min(low[module], index[other])
            else:
                work.pop()
                if work:
                    low[work[-1][0]] = min(low[work[-1][0]], low[module])
                if low[module] == index[module]:
                    members = []
                    while True:
                        member = stack.pop()
                        on_stack.discard(member)
                        members.append(member)
                        if member == module:
                            break
                    if len(members) > 1:
                        circles.append(sorted(members))
    return sorted(circles)


def test_no_module_imports_itself_back():
    graph = grimp.build_graph(*PACKAGES, include_external_packages=False, cache_dir=None)
    assert import_circles(graph) == []


def test_a_circle_is_found():
    """The finder itself: a circle of three modules and a module importing itself through a fourth."""
    graph = grimp.ImportGraph()
    for module in ("a", "b", "c", "d", "e"):
        graph.add_module(module)
    for importer, imported in (("a", "b"), ("b", "c"), ("c", "a"), ("d", "a"), ("d", "e"), ("e", "d")):
        graph.add_import(importer=importer, imported=imported)
    assert import_circles(graph) == [["a", "b", "c"], ["d", "e"]]
