"""Changing a proxy's row filter the way the installed Qt wants it."""
from __future__ import annotations

from collections.abc import Callable

from PySide6.QtCore import QSortFilterProxyModel


def change_row_filter(proxy: QSortFilterProxyModel, change: Callable[[], None]) -> None:
    """Run `change` (which updates the filter's parameters) and refilter the rows.
    Qt 6.10 deprecated `invalidateRowsFilter` for begin/endFilterChange; 6.8 and 6.9 lack the latter."""
    if hasattr(proxy, "endFilterChange"):
        proxy.beginFilterChange()
        change()
        proxy.endFilterChange(QSortFilterProxyModel.Direction.Rows)
    else:
        change()
        proxy.invalidateRowsFilter()
