"""Letting go of large data a piece at a time.

Freeing a structure of millions of objects (every program's normalised ground truth, an index
of every program) is one C call that holds the GIL to the end: 50-100 ms at TraceEval's size,
during which no other thread, the window's included, runs a line of Python. Popping the items
in a Python loop frees the same objects, but the interpreter can hand the GIL over between them.
"""
from __future__ import annotations

from collections.abc import MutableMapping, MutableSequence


def free_gradually(*containers: MutableMapping | MutableSequence) -> None:
    """Empty each container item by item (each item is freed as it is dropped)."""
    for container in containers:
        if isinstance(container, MutableMapping):
            while container:
                container.popitem()
        else:
            while container:
                container.pop()
