"""Letting go of large data a piece at a time.

Freeing a structure of millions of objects (every program's normalised ground truth, an index
of every program) is one C call that holds the GIL to the end: 50-100 ms at TraceEval's size,
during which no other thread, the window's included, runs a line of Python. Popping the items
in a Python loop frees the same objects, but the interpreter can hand the GIL over between them.
"""
from __future__ import annotations

from collections.abc import MutableMapping, MutableSequence

LARGE = 64  # items of a container larger than this are freed one by one too


def free_gradually(*containers: MutableMapping | MutableSequence) -> None:
    """Empty each container item by item (each item is freed as it is dropped); an item that is itself a
    large list or dict (one model's 2,129 answers) is emptied the same way first, not freed in one go."""
    for container in containers:
        if isinstance(container, MutableMapping):
            while container:
                _free_item(container.popitem()[1])
        else:
            while container:
                _free_item(container.pop())


def _free_item(item: object) -> None:
    if isinstance(item, (list, dict)) and len(item) > LARGE:
        free_gradually(item)
