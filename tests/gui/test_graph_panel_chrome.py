"""Around the graph: the selection's full name, a size that does not follow the mode, chips that are not
cut, and colours that follow the palette (a dark theme)."""
import pytest
from PySide6.QtCore import QPoint, Qt
from PySide6.QtGui import QColor, QPalette
from PySide6.QtTest import QTest
from PySide6.QtWidgets import QApplication

from core.report.view_modes import VIEW_MODES
from tests.gui.test_graph_view import KNOWN, STRONG, WEAK, _screen_point, _show
from traceeval_gui.graph.graph_view import GraphPanel


@pytest.fixture
def graph(state, qtbot):
    graph = GraphPanel(state)
    qtbot.addWidget(graph)
    graph.resize(480, 520)  # about what the main window gives it at 1400 x 900
    graph.show()
    qtbot.waitExposed(graph)
    return graph


def test_the_selection_line_shows_the_full_name_of_what_was_clicked(window, state, graph, qtbot):
    _show(state, KNOWN, WEAK, STRONG)
    graph.fit()
    name = "main.Parser.parse_factor"
    label = graph.plot.labels.texts[graph.picture.layout.index(name)]
    assert label != name  # the picture shortens it ...
    where = _screen_point(graph, *graph.node_position(name))
    QTest.mouseClick(graph.plot.viewport(), Qt.MouseButton.LeftButton, pos=where)
    assert state.node == name
    assert graph.toolbar.selection.text() == f"Selected: {name}"  # ... the selection line does not
    state.select_edge_named("main.main", "main.evaluate_all")
    assert graph.toolbar.selection.text() == "Selected: main.main → main.evaluate_all"


def test_the_panel_asks_for_the_same_size_in_every_mode_and_its_chips_are_not_cut(window, state, graph, qtbot):
    _show(state, KNOWN, WEAK, STRONG)
    sizes = set()
    for mode in VIEW_MODES:
        graph.mode_combo.setCurrentIndex(VIEW_MODES.index(mode))  # what choosing it in the combo does
        QApplication.processEvents()
        assert state.view_mode == mode
        sizes.add((graph.sizeHint().toTuple(), graph.minimumSizeHint().toTuple()))
        toolbar = graph.toolbar.rect()
        for button in graph.class_buttons.values():
            corner = button.mapTo(graph.toolbar, QPoint(button.width(), button.height()))
            assert button.isVisible() and toolbar.contains(corner), (mode, button.text())
            assert button.width() >= button.sizeHint().width()  # whole, not elided
    assert len(sizes) == 1


def test_the_graph_follows_a_dark_palette(window, state, graph, qtbot):
    _show(state, KNOWN, WEAK, STRONG)
    app = QApplication.instance()
    light = app.palette()
    dark = QPalette(light)
    for group in (QPalette.ColorGroup.Active, QPalette.ColorGroup.Inactive, QPalette.ColorGroup.Disabled):
        dark.setColor(group, QPalette.ColorRole.Base, QColor("#1e1f22"))
        dark.setColor(group, QPalette.ColorRole.Window, QColor("#2b2d30"))
        dark.setColor(group, QPalette.ColorRole.Text, QColor("#dfe1e5"))
        dark.setColor(group, QPalette.ColorRole.WindowText, QColor("#dfe1e5"))
    try:
        app.setPalette(dark)
        QApplication.processEvents()
        assert graph.plot.backgroundBrush().color() == QColor("#1e1f22")
        assert graph.plot.labels.text_colour == QColor("#dfe1e5")
        image = graph.plot.grab().toImage()
        assert image.pixelColor(3, 3).lightness() < 60  # the canvas is dark, not white
        labelled = graph.label_nodes()
        assert labelled
        x, y = _screen_point(graph, *graph.node_position(labelled[0])).toTuple()
        above = [image.pixelColor(x + dx, y - 14).lightness() for dx in range(-20, 21)]
        assert max(above) > 150  # light text on the dark backdrop of the label
    finally:
        app.setPalette(light)
        QApplication.processEvents()
    assert graph.plot.backgroundBrush().color() == light.color(QPalette.ColorRole.Base)
