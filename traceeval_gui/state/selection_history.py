"""Back / forward through selections, like a browser: a new selection drops the forward part."""
from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import NamedTuple

from core.records import Edge

LIMIT = 200


class Selection(NamedTuple):
    instance_key: str
    edge: Edge | None = None
    node: str | None = None


class SelectionHistory:
    def __init__(self) -> None:
        self._items: list[Selection] = []
        self._position = -1
        self._paused = 0

    def clear(self) -> None:
        self._items, self._position = [], -1

    def push(self, selection: Selection) -> None:
        if self._paused:
            return
        current = self.current
        if current is not None and current.instance_key == selection.instance_key and \
                (current.edge is None and current.node is None):
            self._items[self._position] = selection  # refine "just the instance" instead of stacking it
            return
        if selection == current:
            return
        del self._items[self._position + 1:]
        self._items.append(selection)
        if len(self._items) > LIMIT:
            del self._items[0]
        self._position = len(self._items) - 1

    @property
    def current(self) -> Selection | None:
        return self._items[self._position] if self._position >= 0 else None

    def can_go_back(self) -> bool:
        return self._position > 0

    def can_go_forward(self) -> bool:
        return self._position < len(self._items) - 1

    def back(self) -> Selection | None:
        if not self.can_go_back():
            return None
        self._position -= 1
        return self._items[self._position]

    def forward(self) -> Selection | None:
        if not self.can_go_forward():
            return None
        self._position += 1
        return self._items[self._position]

    @contextmanager
    def paused(self) -> Iterator[None]:
        """Selections made while restoring one are not new history."""
        self._paused += 1
        try:
            yield
        finally:
            self._paused -= 1
