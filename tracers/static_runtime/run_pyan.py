"""pyan3 on the program in the working folder (Python only): its "uses" edges between defined nodes.

pyan records every use of a name (a call, a reference, a base class, a decorator); only uses whose
target is a function, method or class (a constructor call) and whose source is a module, class or
function are kept, less a class's uses of its own bases. Wildcards (`*.name`: a name pyan could not
resolve) are written with kind "unresolved".
"""
import ast
import logging
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))  # -I leaves the script's folder out
from driver_common import end, source_files, suffix_argument, version_of, write

CALLABLE = {"function", "method", "staticmethod", "classmethod", "class"}
SCOPES = {"module", "class", "function", "method", "staticmethod", "classmethod"}
KINDS = {"module": "module", "class": "class"}


def describe(node):
    flavor = node.flavor.value
    ast_node = node.ast_node
    file = os.path.relpath(node.filename, ".") if node.filename else ""
    if node.namespace is None:
        return end(f"*.{node.name}", kind="unresolved")
    return end(node.get_name(), file, getattr(ast_node, "lineno", 0), getattr(ast_node, "col_offset", 0),
               KINDS.get(flavor, "function" if flavor in CALLABLE | SCOPES else ""))


def base_names(node):
    """The names a class statement lists as its bases: pyan records them as uses, no call happens."""
    bases = getattr(node.ast_node, "bases", None) or []
    return {ast.unparse(base).rpartition(".")[2] for base in bases}


def main():
    suffix = suffix_argument()
    from pyan.analyzer import CallGraphVisitor
    logger = logging.getLogger("pyan")
    logger.addHandler(logging.NullHandler())
    logger.propagate = False
    files = [os.path.abspath(name) for name in source_files(suffix)]
    visitor = CallGraphVisitor(files, root=os.path.abspath("."), logger=logger)
    edges = []
    for source, targets in visitor.uses_edges.items():
        if source.flavor.value not in SCOPES:
            continue
        bases = base_names(source) if source.flavor.value == "class" else set()
        for target in sorted(targets, key=lambda n: n.get_name() if n.namespace is not None else n.name):
            if target.name in bases:
                continue
            if target.namespace is None or target.flavor.value in CALLABLE:
                edges.append([describe(source), describe(target)])
    write("pyan3", version_of("pyan3"), edges)


main()
