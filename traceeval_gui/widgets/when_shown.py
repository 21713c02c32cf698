"""Work for a view that nobody sees waits until it is shown.

A bottom tab that is not the current one still follows every selection; redrawing it each time
(ranking 10,583 programs, filling an edge table, plotting) costs the window tens of milliseconds
per program for nothing. `WhenShown` runs a refresh at once while its widget is visible, or while
the window itself is not shown (a widget on its own, as in unit tests), and otherwise keeps it
until the widget is next shown. Queries that read what the view shows call `flush` first, so
they never see a stale view.
"""
from __future__ import annotations

from collections.abc import Callable

from PySide6.QtCore import QEvent, QObject
from PySide6.QtWidgets import QWidget


class WhenShown(QObject):
    def __init__(self, widget: QWidget) -> None:
        super().__init__(widget)
        self._widget = widget
        self._pending: dict[Callable[[], None], None] = {}  # in the order asked for, each once
        widget.installEventFilter(self)

    @property
    def pending(self) -> bool:
        return bool(self._pending)

    def hidden(self) -> bool:
        """The widget is hidden inside a shown window (another tab is current)."""
        return not self._widget.isVisible() and self._widget.window().isVisible()

    def request(self, refresh: Callable[[], None]) -> None:
        """Run `refresh` now, or when the widget is next shown if nobody sees it now."""
        if self.hidden():
            self._pending.pop(refresh, None)
            self._pending[refresh] = None
        else:
            self._pending.pop(refresh, None)
            refresh()

    def waits(self, refresh: Callable[[], None]) -> bool:
        return refresh in self._pending

    def discard(self, refresh: Callable[[], None]) -> None:
        """`refresh` is no longer needed (a wider one covers it)."""
        self._pending.pop(refresh, None)

    def flush(self) -> None:
        """Run what waits, now."""
        while self._pending:
            refresh = next(iter(self._pending))
            del self._pending[refresh]
            refresh()

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        if watched is self._widget and event.type() == QEvent.Type.Show and self._pending:
            self.flush()
        return False
