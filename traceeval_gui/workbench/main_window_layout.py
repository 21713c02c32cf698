"""The main window's panes as one layout: the first one sized for the screen, saved and restored in the
settings, one pane maximised at a time, and reset to how it started (View > Reset Layout)."""
from __future__ import annotations

from typing import TYPE_CHECKING, Protocol

from PySide6.QtCore import QSettings, Qt
from PySide6.QtGui import QGuiApplication

from traceeval_gui.app_options import TABS
from traceeval_gui.widgets.pane_maximiser import Pane, PaneMaximiser
from traceeval_gui.widgets.window_layout import central_split, first_window_geometry, programs_width, views_split

if TYPE_CHECKING:
    from PySide6.QtCore import QRect
    from PySide6.QtGui import QScreen
    from PySide6.QtWidgets import QTabWidget

TAB_KEY = "window/tab"


class LaidOutWindow(Protocol):
    """The main window as its layout sees it; a protocol, so this module does not import the window."""

    bottom_tabs: QTabWidget

    def show_tab(self, name: str) -> None: ...

    def screen(self) -> QScreen: ...

    def setGeometry(self, rect: QRect) -> None: ...


class MainWindowLayout:
    def __init__(self, window: LaidOutWindow) -> None:
        self.window = window
        w = window
        docks = [w.browser_dock, w.problems_dock]
        self.maximiser = PaneMaximiser(w, {
            "source": Pane(w.source_view, [*docks, w.graph_panel, w.bottom_tabs], "Source"),
            "graph": Pane(w.graph_panel, [*docks, w.source_view, w.bottom_tabs], "Graph"),
            "tabs": Pane(w.bottom_tabs, [*docks, w.views_splitter], "Tabs"),
            "programs": Pane(w.browser_dock, [w.problems_dock, w.right_splitter], "Programs"),
            "problems": Pane(w.problems_dock, [w.browser_dock, w.right_splitter], "Problems"),
        }, [w.views_splitter, w.right_splitter])
        self.maximiser.toggle_on_double_click(w.browser_dock, "programs")
        self.maximiser.toggle_on_double_click(w.problems_dock, "problems")
        self.maximiser.toggle_on_double_click(w.graph_panel.toolbar, "graph")
        w.source_view.tabs.tabBarDoubleClicked.connect(lambda _index: self.maximiser.toggle("source"))
        w.bottom_tabs.tabBarDoubleClicked.connect(lambda _index: self.maximiser.toggle("tabs"))
        # what is saved under window/<key>: (save, restore)
        self._parts = {"geometry": (w.saveGeometry, w.restoreGeometry), "state": (w.saveState, w.restoreState),
                       "views_splitter": (w.views_splitter.saveState, w.views_splitter.restoreState),
                       "right_splitter": (w.right_splitter.saveState, w.right_splitter.restoreState)}

    def start(self, settings: QSettings | None) -> None:
        """The saved layout, or a first one that fits the screen."""
        if not self.restore(settings):
            screen = self.window.screen() or QGuiApplication.primaryScreen()
            self.window.setGeometry(first_window_geometry(screen.availableGeometry()))
            self.apply_default()

    def restore(self, settings: QSettings | None) -> bool:
        """The saved layout (size, position, docks, splitters, tab); False when none was saved."""
        if settings is None:
            return False
        restored = False
        for key, (_save, restore) in self._parts.items():
            value = settings.value(f"window/{key}")
            if value is not None:
                restored = restore(value) or restored
        tab = settings.value(TAB_KEY)
        if tab in TABS:
            self.window.show_tab(tab)
        return restored

    def save(self, settings: QSettings | None) -> None:
        """Into `settings`: the real layout, not a maximised pane."""
        self.maximiser.restore()
        if settings is None:
            return
        for key, (save, _restore) in self._parts.items():
            settings.setValue(f"window/{key}", save())
        settings.setValue(TAB_KEY, TABS[self.window.bottom_tabs.currentIndex()])
        settings.sync()

    def apply_default(self) -> None:
        """Pane sizes for the window's current size: Programs about a quarter, source and graph halves,
        the views above the tabs a little over half the height."""
        w = self.window
        width = w.width()
        w.resizeDocks([w.browser_dock], [programs_width(width)], Qt.Orientation.Horizontal)
        central = max(width - programs_width(width) - 12, 400)
        w.views_splitter.setSizes(views_split(central))
        w.right_splitter.setSizes(central_split(max(w.height() - 110, 300)))

    def reset(self) -> None:
        """Every pane back, docked where it started (Problems hidden until asked for), sized as on a first start."""
        w = self.window
        self.maximiser.restore()
        for dock, area in ((w.browser_dock, Qt.DockWidgetArea.LeftDockWidgetArea),
                           (w.problems_dock, Qt.DockWidgetArea.BottomDockWidgetArea)):
            dock.setFloating(False)
            w.addDockWidget(area, dock)
        w.problems_dock.hide()
        for widget in (w.browser_dock, w.source_view, w.graph_panel, w.bottom_tabs, w.views_splitter,
                       w.right_splitter):
            widget.show()
        self.apply_default()
