"""Which compiled methods the agent instruments, and as which TraceEval node.

Names never come from bytecode descriptors: a method of class `pkg/Outer$Inner` is the node of
that class (`pkg.Inner:...`, key rules of core/symbols/java.py) with the same method name whose
span, in the file named by the class's SourceFile attribute, contains the method's first line
(the line of its lowest bytecode offset). Only when several such nodes share that line
(overloads on one line) does the descriptor break the tie.

What runs but is not a node:
- lambda bodies (`lambda$...` synthetic methods) are transparent frames standing for the
  innermost node whose span contains their first line: calls inside them are that node's,
  entering them records no edge; a lambda with no enclosing node (in a field initialiser)
  is not instrumented, so its calls belong to the frame that runs it;
- method references have no method of their own: the referenced method is called by the
  nearest program frame (the one that called the functional interface);
- bridge and other synthetic methods are not instrumented;
- an implicit default constructor, a `<clinit>` with no `static {}` block (only static field
  initialisers), record accessors and enum `values`/`valueOf` are not nodes and not
  instrumented: the calls they make (field initialisers, `super(...)` into an explicit
  constructor, enum constant constructors) belong to the program frame below them, i.e. the
  method that ran `new C()` or whose action initialised the class. Explicit constructors run
  the instance field initialisers themselves (javac inlines them), so those calls are the
  constructor's; with a `static {}` block, all static initialisation is `C:<clinit>()`'s.
"""
from __future__ import annotations

import re
from dataclasses import dataclass, field

from core.records import Node
from tracers.java_compiler import CompiledClass, CompiledMethod

ACC_SYNTHETIC, ACC_BRIDGE, ACC_ABSTRACT, ACC_NATIVE = 0x1000, 0x0040, 0x0400, 0x0100
NODE, TRANSPARENT = "N", "T"
_PRIMITIVES = {"B": "byte", "C": "char", "D": "double", "F": "float", "I": "int", "J": "long",
               "S": "short", "Z": "boolean"}


@dataclass
class Plan:
    entries: list[tuple[str, str, str, str, int]] = field(default_factory=list)  # class, name, desc, kind, id
    warnings: list[str] = field(default_factory=list)
    node_classes: dict[int, str] = field(default_factory=dict)  # node id -> internal class name

    def text(self) -> str:
        return "".join(f"{c}\t{n}\t{d}\t{k}\t{i}\n" for c, n, d, k, i in self.entries)


def class_key(internal_name: str) -> tuple[str, str]:
    """(`pkg`, key) as core/symbols/java.py names the class: `a/b/Outer$Inner` -> ('a.b', 'Inner'),
    `Main$1$1` -> ('', 'Main$1$1'), `Main$1Local` (a local class) -> ('', 'Local')."""
    package, _, binary = internal_name.rpartition("/")
    parts = binary.split("$")
    anonymous: list[str] = []
    while len(parts) > 1 and parts[-1].isdigit():
        anonymous.insert(0, parts.pop())
    base = parts[-1].lstrip("0123456789") if len(parts) > 1 else parts[-1]
    return package.replace("/", "."), "$".join([base, *anonymous])


def build_plan(nodes: tuple[Node, ...], classes: list[CompiledClass]) -> Plan:
    plan = Plan()
    for cls in classes:
        package, key = class_key(cls.internal_name)
        prefix = f"{package}.{key}:" if package else f"{key}:"
        file = _class_file(nodes, package, cls.source_file)
        file_nodes = [(i, n) for i, n in enumerate(nodes) if n.file == file]
        own = [(i, n) for i, n in file_nodes if n.name.startswith(prefix)]
        for method in cls.methods:
            entry = _plan_method(cls, method, prefix, own, file_nodes, plan)
            if entry is not None:
                plan.entries.append((cls.internal_name, method.name, method.descriptor, *entry))
                if entry[0] == NODE:
                    plan.node_classes[entry[1]] = cls.internal_name
    return plan


def _class_file(nodes: tuple[Node, ...], package: str, source_file: str) -> str | None:
    """The program file a class came from: its SourceFile name, in its package's folder if there
    are several files of that name (a program need not keep files in package folders)."""
    files = list(dict.fromkeys(n.file for n in nodes if n.file.rsplit("/", 1)[-1] == source_file))
    folder = package.replace(".", "/")
    in_folder = [f for f in files if f.rpartition("/")[0].endswith(folder)]
    return next(iter(in_folder or files), None)


def _plan_method(cls: CompiledClass, method: CompiledMethod, prefix: str, own: list[tuple[int, Node]],
                 file_nodes: list[tuple[int, Node]], plan: Plan) -> tuple[str, int] | None:
    if method.access & (ACC_ABSTRACT | ACC_NATIVE) or method.first_line <= 0:
        return None
    line = method.first_line
    if method.access & ACC_SYNTHETIC:
        if method.name.startswith("lambda$") and not method.access & ACC_BRIDGE:
            enclosing = _innermost(file_nodes, line)
            return (TRANSPARENT, enclosing) if enclosing is not None else None
        return None
    if method.name == "<clinit>":
        static_blocks = [i for i, n in own if n.name == f"{prefix}<clinit>()"]
        return (NODE, static_blocks[0]) if static_blocks else None
    candidates = [(i, n) for i, n in own if _method_name(n.name) == method.name
                  and n.start_line <= line <= n.end_line]
    if not candidates:
        if any(n.start_line <= line <= n.end_line for _, n in own):
            plan.warnings.append(f"{cls.internal_name}.{method.name}{method.descriptor} (line {line}) "
                                 "matches no node: its calls go to the frame below")
        return None
    if len(candidates) > 1:
        wanted = descriptor_types(method.descriptor)
        candidates.sort(key=lambda c: (-_match_score(_node_types(c[1].name), wanted),
                                       c[1].end_line - c[1].start_line))
    return NODE, candidates[0][0]


def _innermost(nodes: list[tuple[int, Node]], line: int) -> int | None:
    containing = [(n.end_line - n.start_line, -n.start_line, i) for i, n in nodes
                  if n.start_line <= line <= n.end_line]
    return min(containing)[2] if containing else None


def _method_name(node_name: str) -> str:
    return node_name.split(":", 1)[1].split("(", 1)[0]


def _node_types(node_name: str) -> list[str]:
    inside = node_name.split("(", 1)[1].rsplit(")", 1)[0]
    return [t.rsplit(".", 1)[-1] for t in inside.split(",")] if inside else []


def descriptor_types(descriptor: str) -> list[str]:
    """Simple type names of a descriptor's parameters: `(Ljava/lang/String;[I)V` -> [String, int[]]."""
    inside = descriptor[1:descriptor.index(")")]
    types = []
    for match in re.finditer(r"(\[*)([BCDFIJSZ]|L[^;]+;)", inside):
        dims, base = match.groups()
        simple = _PRIMITIVES.get(base) or base[1:-1].rsplit("/", 1)[-1].rsplit("$", 1)[-1]
        types.append(simple + "[]" * len(dims))
    return types


def _match_score(node_types: list[str], wanted: list[str]) -> int:
    """Trailing parameters that agree (javac may prepend synthetic ones), plus one for equal counts."""
    score = int(len(node_types) == len(wanted))
    for mine, theirs in zip(reversed(node_types), reversed(wanted)):
        if mine != theirs:
            break
        score += 2
    return score
