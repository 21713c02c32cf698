"""Hover texts in the graph stay while the pointer rests on the node or edge they are about."""
import pytest
from PySide6.QtCore import QRectF
from PySide6.QtTest import QTest
from PySide6.QtWidgets import QToolTip

from tests.gui.test_graph_view import _screen_point, _show
from traceeval_gui.graph.graph_view import GraphPanel


@pytest.fixture
def graph(state, qtbot):
    graph = GraphPanel(state)
    qtbot.addWidget(graph)
    graph.resize(1000, 700)
    graph.show()
    qtbot.waitExposed(graph)
    return graph


def _move_to(panel, point):
    """The pointer to graph `point`, through the window system as a real mouse moves it (Qt's tooltip
    timer only follows such moves)."""
    top = panel.window()
    QTest.mouseMove(top.windowHandle(), panel.plot.viewport().mapTo(top, _screen_point(panel, *point)))


def _rest_on(qtbot, panel, point, ms=2500):
    _move_to(panel, (point[0] - 3, point[1]))
    _move_to(panel, point)
    qtbot.wait(ms)  # longer than Qt's tooltip wake-up delay: the rest used to hide the text


def test_a_node_tooltip_stays_while_the_pointer_rests_on_the_node(window, state, graph, qtbot):
    _show(state)
    panel = graph
    panel.activateWindow()
    qtbot.waitUntil(panel.isActiveWindow)
    _rest_on(qtbot, panel, panel.node_position("main.tokenize"))
    assert QToolTip.isVisible() and "main.tokenize" in QToolTip.text()
    qtbot.wait(1500)
    assert QToolTip.isVisible() and "main.tokenize" in QToolTip.text()


def test_an_edge_tooltip_stays_and_goes_when_the_pointer_leaves(window, state, graph, qtbot):
    _show(state)
    panel = graph
    panel.activateWindow()
    qtbot.waitUntil(panel.isActiveWindow)
    edge = next(e for e, c in panel.drawn_edges().items() if c == "FP")
    (x1, y1), (x2, y2) = panel.node_position(edge[0]), panel.node_position(edge[1])
    middle = ((x1 + x2) / 2, (y1 + y2) / 2)
    panel.view.setRange(QRectF(middle[0] - 150, middle[1] - 100, 300, 200), padding=0)
    px, py = panel.plot._pixel_size()
    # a point of the edge that no other edge passes within a pixel of
    middle = next(p for t in (0.5, 0.4, 0.6, 0.3, 0.7) for p in [(x1 + (x2 - x1) * t, y1 + (y2 - y1) * t)]
                  if all(panel.edge_at((p[0] + dx * px, p[1] + dy * py)) == edge for dx in (-1, 0, 1)
                         for dy in (-1, 0, 1)))
    _rest_on(qtbot, panel, middle)
    assert QToolTip.isVisible() and "hallucinated" in QToolTip.text()
    empty = (middle[0], middle[1] + 90)  # near the bottom of the view, off the edge
    _move_to(panel, empty)
    qtbot.waitUntil(lambda: not QToolTip.isVisible(), timeout=2000)
