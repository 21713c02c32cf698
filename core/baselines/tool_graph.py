"""What an analyzer's driver writes (see `tracers/static_runtime/driver_common.py`), read as hostile input.

The driver ran on hostile code inside the sandbox, so its document is bounded in size, parsed by the bounded
JSON reader, and every field is checked: a malformed document is one problem line, never an exception.
"""
from __future__ import annotations

import json
from dataclasses import dataclass

from core.safe_files import parse_json, refusal

MAX_EDGES = 200_000
MAX_NAME = 1000
ENDPOINT_KINDS = ("module", "class", "function", "unresolved", "")


@dataclass(frozen=True)
class ToolEnd:
    """One end of a tool's edge as the tool named it. `file` is relative to the program folder ("" unknown),
    `line` 1-based and `col` 0-based in UTF-8 bytes (0 unknown); `kind` one of ENDPOINT_KINDS."""

    name: str
    file: str = ""
    line: int = 0
    col: int = 0
    kind: str = ""


@dataclass(frozen=True)
class ToolGraph:
    tool: str
    version: str
    edges: tuple[tuple[ToolEnd, ToolEnd], ...]
    warnings: tuple[str, ...] = ()


class BadToolOutput(ValueError):
    """The driver's document cannot be used; the message says why, in one line."""


def read_tool_graph(text: str) -> ToolGraph:
    document = parse_json(text)
    why = refusal(document)
    if why:
        raise BadToolOutput(f"the analyzer's output {why}")
    if not isinstance(document, dict):
        raise BadToolOutput("the analyzer's output is not a JSON object")
    edges = document.get("edges")
    if not isinstance(edges, list):
        raise BadToolOutput("the analyzer's output has no list of edges")
    if len(edges) > MAX_EDGES:
        raise BadToolOutput(f"the analyzer reported {len(edges):,} edges (more than {MAX_EDGES:,})")
    read = []
    for number, edge in enumerate(edges, 1):
        if not (isinstance(edge, list) and len(edge) == 2):
            raise BadToolOutput(f"edge {number} of the analyzer's output is not a [caller, callee] pair")
        read.append((_end(edge[0], number), _end(edge[1], number)))
    warnings = document.get("warnings", [])
    return ToolGraph(_text(document.get("tool"), "tool"), _text(document.get("version"), "version"), tuple(read),
                     tuple(str(w)[:300] for w in warnings[:50]) if isinstance(warnings, list) else ())


def _end(value: object, number: int) -> ToolEnd:
    if not isinstance(value, dict):
        raise BadToolOutput(f"edge {number} of the analyzer's output has an end that is not an object")
    line, col, kind = value.get("line", 0), value.get("col", 0), value.get("kind", "")
    if not (isinstance(line, int) and isinstance(col, int) and 0 <= line < 10**7 and 0 <= col < 10**7):
        raise BadToolOutput(f"edge {number} of the analyzer's output has a bad line or column")
    if kind not in ENDPOINT_KINDS:
        raise BadToolOutput(f"edge {number} of the analyzer's output has an unknown kind {json.dumps(kind)[:40]}")
    return ToolEnd(_text(value.get("name"), "name"), _text(value.get("file", ""), "file"), line, col, kind)


def _text(value: object, field: str) -> str:
    if not isinstance(value, str) or len(value) > MAX_NAME:
        raise BadToolOutput(f"the analyzer's output has a bad {field}")
    return value
