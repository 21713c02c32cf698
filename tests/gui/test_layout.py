"""The window's geometry: the first size fits the screen, the saved layout comes back, panes maximise and
restore, and the splitters stay put when the graph mode changes."""
from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys

import pytest
from PySide6.QtCore import QRect, QSettings, Qt

from tests.gui.conftest import open_window
from traceeval_gui.widgets.window_layout import first_window_geometry


@pytest.mark.parametrize("available", [QRect(0, 0, 1280, 680), QRect(0, 0, 1920, 1040), QRect(0, 0, 1366, 728),
                                       QRect(1920, 24, 2560, 1416)])
def test_the_first_window_fits_the_available_screen(available):
    frame = first_window_geometry(available)
    assert available.contains(frame)
    assert frame.width() >= min(1400, int(available.width() * 0.95))
    assert frame.height() >= min(900, int(available.height() * 0.95))


FIRST_WINDOW = """
import json, sys
from PySide6.QtWidgets import QApplication
app = QApplication([])
from traceeval_gui.state.app_state import AppState
from traceeval_gui.workbench.main_window import MainWindow
window = MainWindow(AppState(), None, False)
window.show()
app.processEvents()
screen = window.screen().availableGeometry()
frame = window.frameGeometry()
print(json.dumps({"screen": [screen.x(), screen.y(), screen.width(), screen.height()],
                  "frame": [frame.x(), frame.y(), frame.width(), frame.height()],
                  "ratio": window.devicePixelRatio()}))
"""


@pytest.mark.skipif(shutil.which("xvfb-run") is None, reason="needs xvfb-run for a real 1920x1080 screen")
def test_at_150_percent_on_a_1080p_screen_the_first_window_is_on_the_screen(tmp_path):
    env = {k: v for k, v in os.environ.items() if k not in ("QT_QPA_PLATFORM", "DISPLAY")}
    env |= {"QT_SCALE_FACTOR": "1.5", "HOME": str(tmp_path)}
    done = subprocess.run(["xvfb-run", "-a", "-s", "-screen 0 1920x1080x24", sys.executable, "-c", FIRST_WINDOW],
                          capture_output=True, text=True, env=env, timeout=120, check=False)
    seen = json.loads(done.stdout.strip().splitlines()[-1])
    assert seen["ratio"] == 1.5 and seen["screen"][2:] == [1280, 720]
    screen = QRect(*seen["screen"])
    x, y, width, height = seen["frame"]
    assert screen.contains(QRect(x, y, width, height).adjusted(0, 0, -1, -1)), seen  # 1280x720 device-independent


def test_docks_splitters_and_tab_come_back_on_the_next_start(qtbot, tmp_path):
    from traceeval_gui.state.app_state import AppState

    settings = QSettings(str(tmp_path / "settings.ini"), QSettings.Format.IniFormat)
    first = open_window(qtbot, AppState(), tmp_path / "demo.sqlite", settings=settings, size=None)
    first.views_splitter.setSizes([300, 500])
    first.show_tab("metrics")
    qtbot.wait(50)
    sizes = first.views_splitter.sizes(), first.right_splitter.sizes()
    first.close()

    second = open_window(qtbot, AppState(), tmp_path / "demo.sqlite", settings=settings, size=None)
    try:
        assert (second.views_splitter.sizes(), second.right_splitter.sizes()) == sizes
        assert second.bottom_tabs.currentWidget() is second.metrics_panel
    finally:
        second.close()


TWO_STARTS = """
import json, sys
from PySide6.QtCore import QSettings
from PySide6.QtWidgets import QApplication
app = QApplication([])
from traceeval_gui.state.app_state import AppState
from traceeval_gui.workbench.main_window import MainWindow
settings = QSettings(sys.argv[1], QSettings.Format.IniFormat)
first = MainWindow(AppState(), settings, False)
first.show()
first.setGeometry(140, 90, 1300, 820)
app.processEvents()
first.close()
second = MainWindow(AppState(), settings, False)
second.show()
app.processEvents()
print(json.dumps({"first": [140, 90, 1300, 820], "second": [second.x(), second.y(), second.width(), second.height()]}))
"""


@pytest.mark.skipif(shutil.which("xvfb-run") is None, reason="needs xvfb-run for a screen larger than the window")
def test_the_window_size_and_position_come_back_on_the_next_start(tmp_path):
    env = {k: v for k, v in os.environ.items() if k not in ("QT_QPA_PLATFORM", "DISPLAY")} | {"HOME": str(tmp_path)}
    done = subprocess.run(["xvfb-run", "-a", "-s", "-screen 0 1920x1080x24", sys.executable, "-c", TWO_STARTS,
                           str(tmp_path / "settings.ini")], capture_output=True, text=True, env=env, timeout=120,
                           check=False)
    seen = json.loads(done.stdout.strip().splitlines()[-1])
    assert seen["second"][2:] == seen["first"][2:], seen
    assert abs(seen["second"][0] - seen["first"][0]) < 40 and abs(seen["second"][1] - seen["first"][1]) < 60, seen


def test_a_double_click_on_the_tabs_maximises_them_and_another_restores(window, qtbot):
    sizes = window.views_splitter.sizes(), window.right_splitter.sizes()
    bar = window.bottom_tabs.tabBar()
    qtbot.mouseDClick(bar, Qt.MouseButton.LeftButton, pos=bar.tabRect(1).center())
    assert window.maximiser.maximised == "tabs"
    assert window.bottom_tabs.isVisible() and not window.views_splitter.isVisible()
    assert not window.browser_dock.isVisible()
    qtbot.waitUntil(lambda: window.bottom_tabs.height() > window.centralWidget().height() * 0.9)
    assert window.centralWidget().width() > window.width() * 0.9
    qtbot.mouseDClick(bar, Qt.MouseButton.LeftButton, pos=bar.tabRect(1).center())
    assert window.maximiser.maximised == ""
    assert window.views_splitter.isVisible() and window.browser_dock.isVisible()
    assert (window.views_splitter.sizes(), window.right_splitter.sizes()) == sizes


def test_a_double_click_on_the_source_tabs_maximises_the_source(window, qtbot):
    bar = window.source_view.tabs.tabBar()
    qtbot.mouseDClick(bar, Qt.MouseButton.LeftButton, pos=bar.tabRect(0).center())
    assert window.source_view.isVisible() and not window.graph_panel.isVisible()
    qtbot.waitUntil(lambda: window.source_view.width() > window.centralWidget().width() * 0.9)
    qtbot.mouseDClick(bar, Qt.MouseButton.LeftButton, pos=bar.tabRect(0).center())
    assert window.graph_panel.isVisible()


def test_changing_the_graph_mode_keeps_the_splitters_where_they_are(window, qtbot):
    from core.report.view_modes import VIEW_MODES

    window.state.select_compare_model(window.state.models[-1].name)
    qtbot.wait(50)
    sizes = window.views_splitter.sizes(), window.right_splitter.sizes()
    for mode in (*VIEW_MODES, *VIEW_MODES):
        window.state.set_view_mode(mode)
        qtbot.wait(20)
        assert (window.views_splitter.sizes(), window.right_splitter.sizes()) == sizes, mode


def test_the_first_layout_gives_source_graph_and_tabs_a_fair_share(window, qtbot):
    window.resize(1400, 900)
    window.apply_default_layout()
    qtbot.wait(50)
    source, graph = window.views_splitter.sizes()
    views, tabs = window.right_splitter.sizes()
    assert source >= 400 and graph >= 400 and tabs >= 300 and views >= 380, (source, graph, views, tabs)


def test_a_maximised_pane_hides_the_problems_list_and_gives_it_back(window, qtbot):
    from tests.gui.test_menu_actions import press

    press(window, qtbot, "View › Problems")
    assert window.problems_dock.isVisible()
    bar = window.bottom_tabs.tabBar()
    qtbot.mouseDClick(bar, Qt.MouseButton.LeftButton, pos=bar.tabRect(0).center())
    assert window.maximiser.maximised == "tabs" and not window.problems_dock.isVisible()
    qtbot.mouseDClick(bar, Qt.MouseButton.LeftButton, pos=bar.tabRect(0).center())
    assert window.maximiser.maximised == "" and window.problems_dock.isVisible()
    window.problems_dock.setFocus()
    window.problems_panel.table.setFocus()
    press(window, qtbot, "View › Maximise Pane")
    assert window.maximiser.maximised == "problems" and not window.right_splitter.isVisible()
    press(window, qtbot, "View › Maximise Pane")
    assert window.right_splitter.isVisible()
