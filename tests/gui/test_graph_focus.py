"""A 200-node program opens on the selection's neighbourhood, the rest folded by file, with Show all."""
import pytest
from PySide6.QtCore import Qt

from core.report.overlay import classify_edges
from tests.bench.bench_graph_view import MODELS, synthetic_overlay
from tests.gui.test_graph_view import _screen_point
from traceeval_gui.graph.graph_view import GraphPanel
from traceeval_gui.item_models.graph_focus import FOCUS_NODES, default_centre
from traceeval_gui.item_models.graph_scene import hop_nodes


@pytest.fixture
def big(state, qtbot):
    """A graph panel at 1400 x 900 showing a 200-node, 420-edge program."""
    graph = GraphPanel(state)
    qtbot.addWidget(graph)
    graph.resize(1400, 900)
    graph.show()
    qtbot.waitExposed(graph)
    state.select_model(MODELS[0])
    state.select_compare_model(MODELS[1])
    overlay, groups = synthetic_overlay(200, 420, files=8, seed=3)
    graph.show_overlay(overlay, groups)
    return graph, overlay


def _real_nodes(graph):
    return {n for n in graph.picture.layout.nodes if n not in graph._graph.focused.folded}


def test_a_big_program_opens_on_a_labelled_neighbourhood(big):
    graph, overlay = big
    edges = [e.edge for e in overlay.edges]
    centre = default_centre(overlay.nodes, edges)
    near = hop_nodes(edges, centre, graph._graph.focused.hops)
    assert _real_nodes(graph) == near and len(near) <= FOCUS_NODES < len(overlay.nodes)
    assert graph.show_all_button.isVisible() and graph.show_all_button.text() == "Show all 200 nodes"
    assert f"of {len(overlay.nodes)} nodes" in graph.focus_bar.label.text()
    folded = set(graph.picture.layout.nodes) - near
    assert folded and all(graph._describe(("node", name)).count("<br>") >= 2 for name in folded)
    labelled = set(graph.label_nodes())
    assert len(labelled) >= 0.8 * len(graph.picture.layout.nodes)  # readable at the zoom it opens at
    graph.grab()
    assert {graph.picture.layout.nodes[i] for i in graph.labels.last_drawn} == labelled


def test_show_all_draws_every_node_and_goes_back(big, qtbot):
    graph, overlay = big
    qtbot.mouseClick(graph.show_all_button, Qt.MouseButton.LeftButton)
    assert len(graph.picture.layout.nodes) == 200 and graph.show_all
    assert graph.drawn_edges() == classify_edges(overlay, "model", MODELS[0])
    assert graph.show_all_button.text() == "Show the neighbourhood" and graph.focus_bar.isVisible()
    qtbot.mouseClick(graph.show_all_button, Qt.MouseButton.LeftButton)
    assert len(graph.picture.layout.nodes) < 100 and not graph.show_all


def test_the_neighbourhood_follows_a_selection_made_outside_it_and_stays_for_one_inside(big, state, qtbot):
    graph, overlay = big
    inside = sorted(_real_nodes(graph))[0]
    x, y = graph.node_position(inside)
    before = {n: graph.node_position(n) for n in graph.picture.layout.nodes}
    qtbot.mouseClick(graph.plot.viewport(), Qt.MouseButton.LeftButton, pos=_screen_point(graph, x, y))
    assert state.node == inside
    assert {n: graph.node_position(n) for n in graph.picture.layout.nodes} == before  # nothing moved
    far = next(n for n in overlay.nodes if n not in graph.picture.layout.nodes)
    state.select_node(far)  # e.g. from the edge table or the source view
    assert far in _real_nodes(graph) and graph._graph.focused.centre == (far,)
    assert graph.label_nodes()[0] == far or far in graph.label_nodes()  # the selection is named
    state.set_view_mode("compare")
    after = {n: graph.node_position(n) for n in graph.picture.layout.nodes}
    state.set_view_mode("trace")
    assert {n: graph.node_position(n) for n in graph.picture.layout.nodes} == after  # modes never move nodes
