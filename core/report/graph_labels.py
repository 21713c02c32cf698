"""Node labels for a graph picture: the shortest qualified suffix of each name that no other node of the
picture shares (`Circle.area` beside `Shape.area`, `polygon.Triangle.area` when two files define a
`Triangle.area`), so no two labels of one picture read alike. The full name is in tooltips.

Names are TraceEval names (docs/benchmark.md): dotted scopes for Python and JavaScript, the
module of a JavaScript name being its file path (`shapes/polygon.Triangle.area`), and
`pkg.Class:method(pkg.Type)` for Java.
"""
from __future__ import annotations

from collections.abc import Iterable


def short_name(name: str) -> str:
    """A node's shortest label, before telling it apart from others: the method with its class for Java
    (`Class:method(Type)`), else the last scope, with its owner when it says little alone (`main.<arrow1>`,
    `Token.__init__`)."""
    head, colon, tail = name.partition(":")
    if colon:  # Java: pkg.Class:method(pkg.Type,java.lang.String)
        method, paren, params = tail.partition("(")
        cls = head.rsplit(".", 1)[-1]
        if paren:
            types = [p.rsplit(".", 1)[-1] for p in params.rstrip(")").split(",") if p]
            return f"{cls}:{method}({','.join(types)})"
        return f"{cls}:{method}"
    return _qualified_forms(name)[0]


def distinct_labels(names: Iterable[str]) -> list[str]:
    """One label per name (in order): the shortest of its qualified forms that no other name's label
    shares. Names that collide are qualified one scope further, together, until they differ."""
    names = list(names)
    forms = [_forms(name) for name in names]
    depth = [0] * len(names)
    while True:
        labels = [f[min(d, len(f) - 1)] for f, d in zip(forms, depth)]
        holders: dict[str, list[int]] = {}
        for i, label in enumerate(labels):
            holders.setdefault(label, []).append(i)
        grew = False
        for members in holders.values():
            if len(members) < 2:
                continue
            for i in members:
                if depth[i] < len(forms[i]) - 1:
                    depth[i] += 1
                    grew = True
        if not grew:
            return labels


def _forms(name: str) -> list[str]:
    """Ever longer labels for a name, ending with the name itself."""
    head, colon, tail = name.partition(":")
    if not colon:
        return _qualified_forms(name)
    # Java: the parameter types in full next (models often spell them differently), then the class's
    # packages one by one.
    parts = head.split(".")
    simple = short_name(name).partition(":")[2]
    forms = [short_name(name), f"{parts[-1]}:{tail}"]
    forms += [f"{'.'.join(parts[-k:])}:{simple}" for k in range(2, len(parts) + 1)]
    return list(dict.fromkeys([*forms, name]))


def _qualified_forms(name: str) -> list[str]:
    """Dotted names: the last scope, then one more leading scope at a time; a file path in the first
    scope (JavaScript) is added one folder at a time, the file's base name first."""
    scopes = name.split(".")
    path = scopes[0].split("/")
    units = [*path, *scopes[1:]]  # from the outside in
    seps = ["/"] * (len(path) - 1) + ["."] * (len(scopes) - 1)  # seps[i] joins units[i] and units[i + 1]
    forms = []
    for k in range(1, len(units) + 1):
        start = len(units) - k
        text = units[start] + "".join(sep + unit for sep, unit in zip(seps[start:], units[start + 1:]))
        forms.append(text)
    first = 1 if len(units) > 1 and _says_little(units[-1]) else 0
    return forms[first:]


def _says_little(scope: str) -> bool:
    """Anonymous functions (`<arrow1>`, `<lambda>`) and special methods (`__init__`) need their owner."""
    return scope.startswith("<") or (scope.startswith("__") and scope.endswith("__"))
