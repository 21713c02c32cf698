"""Tabs titled with file names, shown exactly: `__init__.py` keeps its underscores, `a&b.js` its ampersand."""
from __future__ import annotations

from PySide6.QtWidgets import QProxyStyle, QStyle, QTabWidget


class UnshiftedTabStyle(QProxyStyle):
    """Fusion draws every tab but the current one 2 px lower inside the same text box, which cuts off
    the underscores of `__init__.py` ("init .py"); here the tabs' text stays where it fits."""

    def pixelMetric(self, metric, option=None, widget=None) -> int:
        if metric == QStyle.PixelMetric.PM_TabBarTabShiftVertical:
            return 0
        return super().pixelMetric(metric, option, widget)


def show_file_names(tabs: QTabWidget) -> None:
    """Set up `tabs` for `file_tab_title`s: nothing shifted, nothing elided."""
    style = UnshiftedTabStyle()
    style.setParent(tabs.tabBar())  # a widget does not own the style it is given
    tabs.tabBar().setStyle(style)


def file_tab_title(name: str) -> str:
    """A tab's text for `name`: '&' would otherwise mark a shortcut letter and vanish."""
    return name.replace("&", "&&")
