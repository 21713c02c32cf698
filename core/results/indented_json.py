"""`json.dump(value, stream, indent=2, ensure_ascii=False)`, byte for byte, written a piece at a time and fast.

With `indent`, Python's `json` leaves its C encoder for a pure-Python one that makes several calls per value: a
results file holding an answer of a million callees (its prediction, its false positives) took seconds to encode
and held the whole text in memory. Here each list of strings (a caller's callees, an edge) is joined in one call of
the C string encoder, and each record is written as soon as it is encoded.
"""
from __future__ import annotations

import math
from collections.abc import Callable, Iterator
from json.encoder import encode_basestring  # the C encoder of strings, as json.dumps(ensure_ascii=False) uses
from typing import Any, TextIO

INDENT = "  "
RUN = 10_000  # items of a long list joined at a time: the text held is this many items, not the whole list


def write_indented(value: object, stream: TextIO) -> None:
    """Write `value` as `json.dumps(value, indent=2, ensure_ascii=False)` would give it."""
    for piece in _pieces(value, 0):
        stream.write(piece)


def _pieces(value: object, level: int) -> Iterator[str]:
    if isinstance(value, dict):
        if not value:
            yield "{}"
            return
        inner = "\n" + INDENT * (level + 1)
        opening = "{" + inner
        for key, item in value.items():
            yield opening + encode_basestring(_key(key)) + ": "
            yield from _pieces(item, level + 1)
            opening = "," + inner
        yield "\n" + INDENT * level + "}"
    elif isinstance(value, (list, tuple)):
        if not value:
            yield "[]"
            return
        inner = "\n" + INDENT * (level + 1)
        if all(type(item) is str for item in value):
            yield from _runs(value, inner, level, encode_basestring)
            return
        if all(type(item) in (list, tuple) and item and all(type(end) is str for end in item) for item in value):
            deeper, close = inner + INDENT, inner + "]"
            yield from _runs(value, inner, level,
                             lambda item: "[" + deeper + ("," + deeper).join(map(encode_basestring, item)) + close)
            return
        opening = "[" + inner
        for item in value:
            yield opening
            yield from _pieces(item, level + 1)
            opening = "," + inner
        yield "\n" + INDENT * level + "]"
    else:
        yield _scalar(value)


def _runs(items: list | tuple, inner: str, level: int, encode: Callable[[Any], str]) -> Iterator[str]:
    """A list whose items `encode` writes whole (strings, pairs of strings), RUN items at a time."""
    separator = "," + inner
    for start in range(0, len(items), RUN):
        yield ("[" if start == 0 else ",") + inner + separator.join(map(encode, items[start:start + RUN]))
    yield "\n" + INDENT * level + "]"


def _key(key: object) -> str:
    """A dict key as `json` writes it (a string; numbers and constants converted as `json` converts them)."""
    return key if isinstance(key, str) else _scalar(key)


def _scalar(value: object) -> str:
    if isinstance(value, str):
        return encode_basestring(value)
    if value is None:
        return "null"
    if value is True:
        return "true"
    if value is False:
        return "false"
    if isinstance(value, int):
        return int.__repr__(value)
    if isinstance(value, float):
        if math.isnan(value):
            return "NaN"
        if math.isinf(value):
            return "Infinity" if value > 0 else "-Infinity"
        return float.__repr__(value)
    raise TypeError(f"Object of type {type(value).__name__} is not JSON serializable")
