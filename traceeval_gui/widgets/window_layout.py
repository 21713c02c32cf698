"""Windows' geometry: the main window's first size (it fits the screen at any scale factor), the default
share of each pane, and other windows kept on their screen."""
from __future__ import annotations

from PySide6.QtCore import QRect, QSize
from PySide6.QtGui import QGuiApplication
from PySide6.QtWidgets import QWidget

DEFAULT_SIZE = QSize(1400, 900)  # the size the README's screenshots use
SCREEN_SHARE = 0.85  # a first window takes this much of a larger screen
SCREEN_MARGIN = 0.95  # and never more than this much of any screen (title bar, panels)
PROGRAMS_SHARE, PROGRAMS_MIN, PROGRAMS_MAX = 0.26, 300, 470  # the Programs dock's width
SOURCE_SHARE = 0.5  # of the views' width: source beside graph
VIEWS_SHARE = 0.56  # of the central height: source and graph above the bottom tabs


def first_window_geometry(available: QRect) -> QRect:
    """The first window's frame on a screen whose available area (device-independent pixels, so the
    scale factor is already in it) is `available`: 85% of a large screen, at least 1400x900 where that
    fits, never beyond 95% of the screen; centred."""
    width = _fit(available.width(), DEFAULT_SIZE.width())
    height = _fit(available.height(), DEFAULT_SIZE.height())
    left = available.left() + (available.width() - width) // 2
    top = available.top() + (available.height() - height) // 2
    return QRect(left, top, width, height)


def _fit(room: int, preferred: int) -> int:
    return min(max(preferred, int(room * SCREEN_SHARE)), int(room * SCREEN_MARGIN))


def fit_on_screen(window: QWidget, width: int, height: int) -> None:
    """Size a window `width` x `height`, or less where its screen's available area (device-independent,
    so at 150% a 1080p screen offers 1280x720) has less room."""
    screen = window.screen() or QGuiApplication.primaryScreen()
    room = screen.availableGeometry()
    window.resize(min(width, int(room.width() * SCREEN_MARGIN)), min(height, int(room.height() * SCREEN_MARGIN)))


def programs_width(window_width: int) -> int:
    return max(PROGRAMS_MIN, min(PROGRAMS_MAX, int(window_width * PROGRAMS_SHARE)))


def views_split(width: int) -> list[int]:
    """Source and graph widths for views `width` pixels wide."""
    source = int(width * SOURCE_SHARE)
    return [source, width - source]


def central_split(height: int) -> list[int]:
    """Heights of the views and of the bottom tabs for a central area `height` pixels high."""
    views = int(height * VIEWS_SHARE)
    return [views, height - views]
